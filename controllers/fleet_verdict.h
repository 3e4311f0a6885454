// The level of the fleet's verdicts. `planner fleet up` runs C controllers and
// keeps the fastest of their results; each controller's verdict (the hardware
// comparing its placement with the best baseline, planner/rewards/verdict.h)
// tests at --significance ALPHA, so keeping the best of C such verdicts would
// claim a gain falsely up to C times as often. Bonferroni's correction: each
// controller tests at ALPHA / C, and the fastest kept holds ALPHA.
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <vector>

namespace controllers {

// `flags` (the search flags after `--`) with --significance ALPHA / C, ALPHA
// being theirs or the search's default 0.05. `*note` says what was done, and
// warns when the rounds (--rounds, default 9) cannot reach that level: the
// smallest p-value of R rounds is 2^-R. A value that is not a number is left
// for the search to refuse. C of 1 changes nothing (and `*note` is empty).
std::vector<std::string> BonferroniSearchFlags(const std::vector<std::string>& flags,
                                               int controllers, std::string* note);

}  // namespace controllers
