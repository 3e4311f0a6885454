// Measuring the fastest placements again: with measured rewards one draw of a
// placement's step is a noisy sample, and the fastest of several single draws
// is biased toward a lucky one. Both `planner baseline --reward real` and the
// real-reward search pick their best baseline from such draws; each asks
// ConfirmFastest to measure the few fastest again, in rotated order so that
// the machine's drift falls on all alike, and to stand each one's median for
// its first draw.
//
// Thread safety: runs on the caller's thread; the hardware source is used one
// placement at a time. The stop flag is read between measurements.
#pragma once

#include <csignal>
#include <string>
#include <vector>

#include "planner/rewards/reward.h"
#include "planner/rewards/reward_memo.h"

namespace planner::rewards {

// A placement by name with what its reward source said of it.
struct Measurement {
  std::string method;
  std::vector<int> device_of_node;  // of the forward graph
  Evaluation evaluation;
};

// What ConfirmFastest measured: for each placement measured again (the fastest
// by first draw first, then any that passed their medians), its method and
// every step time, its first draw first.
struct ConfirmedTimes {
  std::string method;
  std::vector<double> step_s;
};

struct ConfirmOptions {
  int rounds = 3;      // measurements more of each (0: none)
  size_t fastest = 3;  // how many distinct placements, the fastest by their first draw
  // Read between measurements: once set, no more rounds start (null: never).
  const volatile std::sig_atomic_t* stop = nullptr;
};

// The `options.fastest` fastest distinct placements of `ran` whose evaluation
// is ok are measured `options.rounds` more times on `hardware`, round by round,
// each round starting one placement later than the last. Every entry of `ran`
// holding one of them then carries its median (status and the rest of its
// first evaluation kept), and so does `memo` when given (what a search's later
// requests for it get). When a placement not measured again is then the
// fastest (its one draw below the others' medians), it is measured again
// too, and so on until the fastest is a median. Fewer than two distinct ok
// placements, or no rounds: nothing is measured and the result is empty.
// Failed measurements are left out of the median.
std::vector<ConfirmedTimes> ConfirmFastest(const RewardSource& hardware,
                                           const ConfirmOptions& options,
                                           std::vector<Measurement>* ran,
                                           const RememberingReward* memo = nullptr);

// The line on what ConfirmFastest measured (`times` not empty), as both jobs
// print it: "  measured again (R rounds, the K fastest; median [range] of each
// one's N): METHOD MEDIAN [LO..HI], ...", in milliseconds.
std::string DescribeConfirmed(int rounds, const std::vector<ConfirmedTimes>& times);

}  // namespace planner::rewards
