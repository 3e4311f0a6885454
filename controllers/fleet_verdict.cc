#include "controllers/fleet_verdict.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace controllers {

namespace {

constexpr double kDefaultAlpha = 0.05;  // the search's --significance
constexpr int kDefaultRounds = 9;       // the search's --rounds

// Where `flags` gives `flag`: the index of its value, which is the next
// element ("--rounds 5") or the element itself ("--rounds=5", `*inline_value`);
// -1 when it is not given.
int FindValue(const std::vector<std::string>& flags, const std::string& flag, bool* inline_value) {
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] == flag && i + 1 < flags.size()) {
      *inline_value = false;
      return static_cast<int>(i + 1);
    }
    if (flags[i].rfind(flag + "=", 0) == 0) {
      *inline_value = true;
      return static_cast<int>(i);
    }
  }
  return -1;
}

// The value of `flag` in `flags` as a number; false when absent or not one.
bool NumberOf(const std::vector<std::string>& flags, const std::string& flag, double* value) {
  bool inline_value = false;
  const int at = FindValue(flags, flag, &inline_value);
  if (at < 0) return false;
  const std::string text = inline_value ? flags[at].substr(flag.size() + 1) : flags[at];
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return false;
  *value = v;
  return true;
}

}  // namespace

std::vector<std::string> BonferroniSearchFlags(const std::vector<std::string>& flags,
                                               int controllers, std::string* note) {
  note->clear();
  if (controllers <= 1) return flags;
  if (!flags.empty() && flags.back() == "--significance") return flags;  // the search says so
  std::vector<std::string> out = flags;
  double alpha = kDefaultAlpha;
  bool inline_value = false;
  const int at = FindValue(flags, "--significance", &inline_value);
  if (at >= 0 && !NumberOf(flags, "--significance", &alpha)) return flags;  // the search says so
  const double each = alpha / controllers;
  char value[32];
  std::snprintf(value, sizeof value, "%.6g", each);
  if (at < 0) {
    out.push_back("--significance");
    out.push_back(value);
  } else {
    out[at] = inline_value ? std::string("--significance=") + value : std::string(value);
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "verdicts: each of the %d controllers tests at %g / %d = %s (Bonferroni: the "
                "fastest of their results keeps the level %g)",
                controllers, alpha, controllers, value, alpha);
  *note = line;
  double rounds = kDefaultRounds;
  NumberOf(flags, "--rounds", &rounds);
  if (std::pow(2.0, -rounds) > each) {
    const int needed = static_cast<int>(std::ceil(std::log2(1 / each)));
    std::snprintf(line, sizeof line,
                  "; %g rounds cannot reach it (their smallest p-value is 2^-%g): no gain can be "
                  "claimed; give -- --rounds %d or more",
                  rounds, rounds, needed);
    *note += line;
  }
  return out;
}

}  // namespace controllers
