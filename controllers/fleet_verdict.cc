#include "controllers/fleet_verdict.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/statistics.h"

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

graph::Result<std::vector<std::string>> BonferroniSearchFlags(const std::vector<std::string>& flags,
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
  const int needed = sim::WilcoxonFewestPairs(each);
  const FlagValue r = Find(flags, "--rounds");
  double rounds = kDefaultRounds;
  if (r.at >= 0 && !ToNumber(r.text, &rounds)) return out;  // the search says so
  if (rounds >= needed) return out;
  if (r.at >= 0) {
    std::snprintf(line, sizeof line,
                  "--rounds %g cannot reach the level each of the %d controllers tests at, %s "
                  "(their smallest p-value is 2^-%g): give -- --rounds %d or more",
                  rounds, controllers, value, rounds, needed);
    return graph::InvalidArgument(line);
  }
  out.push_back("--rounds");
  out.push_back(std::to_string(needed));
  std::snprintf(line, sizeof line,
                "; the default %d rounds cannot reach it (their smallest p-value is 2^-%d), so "
                "each measures %d",
                kDefaultRounds, kDefaultRounds, needed);
  *note += line;
  return out;
}

}  // namespace controllers
