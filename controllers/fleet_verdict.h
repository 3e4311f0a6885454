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

#include "graph/status.h"

namespace controllers {

// `flags` (the search flags after `--`) with --significance ALPHA / C, ALPHA
// being theirs or the search's default 0.05. `*note` says what was done. The
// smallest p-value of R rounds is 2^-R: when the default rounds (9) cannot
// reach ALPHA / C, --rounds is added with the fewest that can (the note says
// so); --rounds given too few is an error naming how many would do. A value
// that is not a number is left for the search to refuse. C of 1 changes
// nothing (and `*note` is empty).
graph::Result<std::vector<std::string>> BonferroniSearchFlags(const std::vector<std::string>& flags,
                                                              int controllers, std::string* note);

}  // namespace controllers
