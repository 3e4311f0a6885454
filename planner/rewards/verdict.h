// Whether a placement is faster than another on real hardware, said only when
// the measurements show it at a stated significance level.
//
// A measured step time is a noisy sample, and the best of many is the luckiest,
// so a search's best measured placement is biased low. The two contenders are
// measured again in paired rounds (each round measures both, back to back, the
// order alternating round by round so that a drift in the machine's speed
// falls on both alike), and the one-sided Wilcoxon signed-rank test on each
// round's log ratio decides (sim/statistics.h). Each measurement is one
// RewardSource::Evaluate (its warm-up and timed steps, robust mean).
//
// Thread safety: uses the reward source from the calling thread only.
#pragma once

#include <csignal>
#include <string>
#include <vector>

#include "graph/status.h"
#include "planner/rewards/reward.h"

namespace planner::rewards {

struct VerdictOptions {
  int rounds = 9;       // paired rounds (2^-rounds is the smallest p-value they can give)
  double alpha = 0.05;  // one-sided significance level of "the candidate is faster"
};

struct Verdict {
  graph::Status status;                          // a measurement failed: nothing else is set
  int rounds = 0;                                // rounds measured (fewer than asked when stopped)
  std::vector<double> candidate_s, incumbent_s;  // per round
  double median_ratio = 1;                       // of candidate / incumbent over the rounds
  // The sign test's interval for that median at confidence 1 - 2 alpha (the
  // two-sided interval matching the one-sided test); unset with too few rounds.
  bool have_interval = false;
  double ratio_lo = 0, ratio_hi = 0;
  double p_value = 1;        // Wilcoxon, one-sided: the candidate is faster
  bool significant = false;  // p_value < alpha and median_ratio < 1
};

// Measures `candidate` and `incumbent` (forward placements) in options.rounds
// interleaved rounds on `reward` and tests the candidate's gain. Stops early
// (status ok, fewer rounds) when *stop becomes nonzero: the rounds measured
// are tested as they are (a signal's timing does not depend on the
// measurements, so stopping on it biases nothing).
Verdict CompareOnHardware(const RewardSource& reward, const std::vector<int>& candidate,
                          const std::vector<int>& incumbent, const VerdictOptions& options,
                          const volatile std::sig_atomic_t* stop);

// Whether options.rounds can ever reach options.alpha: if not, an error
// naming --rounds and --significance and the fewest rounds that can
// (sim::WilcoxonFewestPairs).
graph::Status CheckVerdictOptions(const VerdictOptions& options);

// "8.2% faster than expert (median ratio 0.918, 90% interval 0.90-0.94,
// Wilcoxon p = 0.002 over 9 interleaved rounds)", or "no significant
// improvement over expert (...)".
std::string DescribeVerdict(const Verdict& v, const std::string& incumbent,
                            const VerdictOptions& options);

}  // namespace planner::rewards
