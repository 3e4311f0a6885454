// Refitting the hill climb's simulator to the hardware during a real-reward
// search. The climb runs on a simulator of the devices' profile (made once,
// cached per host) and picks the placement that simulator rates fastest, so
// it favours what the profile most underrates; yet every placement the search
// measures (the baselines, the policy's samples) ran on the devices now, with
// its timeline. A Recalibration is told of each such step
// (rewards::StepObserver) and refits the profile to them with the profiler's
// own fits (runtime::ProfileBuilder), in two degrees:
//   kOpTimes  the op times and dispatch of each cpu device that a step with
//             every op on it ran (the single-device baselines): the machine's
//             speed now, not when the profile was made;
//   kSharing  that, and from the steps with ops on several cpu devices what
//             sharing the host costs as the search's placements paid it:
//             links, slowdowns, cold kernels, dispatch and hand-offs.
// ChooseRefit then keeps whichever of the profile and the two refits predicts
// the search's own measurements best. Steps on a GPU are not used (their
// kernels are not timed during a search).
//
// Ownership: keeps a reference to the cluster, which must outlive it.
// Thread safety: Observe and Refitted must not run concurrently (the real source
// measures one placement at a time, on the search's thread).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "planner/rewards/reward.h"
#include "runtime/profiler.h"
#include "sim/profile.h"
#include "sim/timeline.h"

namespace planner::job {

enum class Refit { kNone, kOpTimes, kSharing };

// "profile as made", "op times refitted", "op times and sharing refitted".
const char* RefitName(Refit r);

class Recalibration : public rewards::StepObserver {
 public:
  explicit Recalibration(const cluster::Cluster& c) : cluster_(c) {}

  void Observe(const graph::Graph& executed, const sim::StepStats& step) override;

  // Steps observed so far with every op on one cpu device, and with ops on
  // two or more cpu devices; others (a GPU's, a replayed CUDA graph) are not used.
  int single_steps() const { return single_; }
  int shared_steps() const { return shared_; }

  // `base` with what the observed steps measured, to the degree `how`, in
  // place of its own entries (ProfileBuilder::Finish); entries no step
  // measured are kept. kNone: `base`.
  sim::Profile Refitted(const sim::Profile& base, Refit how) const;

 private:
  const cluster::Cluster& cluster_;
  runtime::ProfileBuilder op_times_;  // single-device steps
  runtime::ProfileBuilder sharing_;   // those and the shared steps
  int single_ = 0, shared_ = 0;
};

// A profile for the climb, and how well each candidate predicted the search's
// measurements.
struct RefitChoice {
  Refit chosen = Refit::kNone;
  sim::Profile profile;
  int placements = 0;  // measured placements the candidates were set against
  // Per candidate (indexed by Refit): the median over those placements of
  // |simulated - measured| / measured; -1 when it could not simulate them.
  double median_error[3] = {-1, -1, -1};
};

// Simulates every measured placement (forward device of each op, and its
// measured step in seconds) on a simulator of each candidate profile
// (`make_sim`, which must not keep the profile past its source's life) and
// chooses the one with the smallest median relative error, the less refitted
// on ties; the profile as made when nothing was measured or no simulator
// could be made.
using MakeSimulator =
    std::function<graph::Result<std::unique_ptr<rewards::RewardSource>>(const sim::Profile&)>;
RefitChoice ChooseRefit(const Recalibration& r, const sim::Profile& base,
                        const std::vector<std::pair<std::vector<int>, double>>& measured,
                        const MakeSimulator& make_sim);

}  // namespace planner::job
