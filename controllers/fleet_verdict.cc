#include "controllers/fleet_verdict.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace controllers {

namespace {

constexpr double kDefaultAlpha = 0.05;  // the search's --significance
constexpr int kDefaultRounds = 9;       // the search's --rounds

// The value after `flag` in `flags` as a number; false when absent or not one.
bool NumberAfter(const std::vector<std::string>& flags, const char* flag, double* value,
                 size_t* at) {
  for (size_t i = 0; i + 1 < flags.size(); ++i) {
    if (flags[i] != flag) continue;
    char* end = nullptr;
    const double v = std::strtod(flags[i + 1].c_str(), &end);
    if (end == flags[i + 1].c_str() || *end != '\0') return false;
    *value = v;
    if (at) *at = i + 1;
    return true;
  }
  return false;
}

bool Has(const std::vector<std::string>& flags, const char* flag) {
  for (const std::string& f : flags) {
    if (f == flag) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> BonferroniSearchFlags(const std::vector<std::string>& flags,
                                               int controllers, std::string* note) {
  note->clear();
  if (controllers <= 1) return flags;
  std::vector<std::string> out = flags;
  double alpha = kDefaultAlpha;
  size_t at = 0;
  const bool given = NumberAfter(flags, "--significance", &alpha, &at);
  if (!given && Has(flags, "--significance")) return flags;  // not a number: the search says so
  const double each = alpha / controllers;
  char value[32];
  std::snprintf(value, sizeof value, "%.6g", each);
  if (given) {
    out[at] = value;
  } else {
    out.push_back("--significance");
    out.push_back(value);
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "verdicts: each of the %d controllers tests at %g / %d = %s (Bonferroni: the "
                "fastest of their results keeps the level %g)",
                controllers, alpha, controllers, value, alpha);
  *note = line;
  double rounds = kDefaultRounds;
  NumberAfter(flags, "--rounds", &rounds, nullptr);
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
