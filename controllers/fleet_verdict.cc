#include "controllers/fleet_verdict.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace controllers {

namespace {

constexpr double kDefaultAlpha = 0.05;  // the search's --significance
constexpr int kDefaultRounds = 9;       // the search's --rounds

// Where `flags` gives `flag`'s value: the next element ("--rounds 5") or the
// element itself ("--rounds=5", `inline_value`); `at` is -1 when not given.
struct FlagValue {
  int at = -1;
  bool inline_value = false;
  std::string text;
};

FlagValue Find(const std::vector<std::string>& flags, const std::string& flag) {
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] == flag && i + 1 < flags.size()) {
      return {static_cast<int>(i + 1), false, flags[i + 1]};
    }
    if (flags[i].rfind(flag + "=", 0) == 0) {
      return {static_cast<int>(i), true, flags[i].substr(flag.size() + 1)};
    }
  }
  return {};
}

// `text` as a number; false when it is not one.
bool ToNumber(const std::string& text, double* value) {
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
  const FlagValue given = Find(flags, "--significance");
  if (given.at >= 0 && !ToNumber(given.text, &alpha)) return flags;  // the search says so
  const double each = alpha / controllers;
  char value[32];
  std::snprintf(value, sizeof value, "%.6g", each);
  if (given.at < 0) {
    out.push_back("--significance");
    out.push_back(value);
  } else {
    out[given.at] = given.inline_value ? std::string("--significance=") + value : value;
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "verdicts: each of the %d controllers tests at %g / %d = %s (Bonferroni: the "
                "fastest of their results keeps the level %g)",
                controllers, alpha, controllers, value, alpha);
  *note = line;
  double rounds = kDefaultRounds;
  if (const FlagValue r = Find(flags, "--rounds"); r.at >= 0) ToNumber(r.text, &rounds);
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
