// When the policy's search has stalled (`planner search --patience D
// --patience-gain PCT --patience-first F`): its best must improve by more than
// a fraction `gain` of the best step within `patience_s` seconds of search
// time, counted from `from_s` (the phase's start) or from the last gain that
// counted; until its first such gain, within `first_s` (at most `patience_s`):
// a policy that has not yet beaten the placement it started from (the best
// baseline) hands its time to the climb sooner. A gain of 0 counts every
// improvement, as --patience alone does.
//
// Thread safety: none; one phase uses one.
#pragma once

#include <algorithm>

namespace planner::job {

class PolicyPatience {
 public:
  // `best_s`, `found_at_s`: the best so far when the phase starts and the
  // search time it was found at (a resumed search's best keeps its own time).
  // `first_s` <= 0: `patience_s` until the first gain too.
  PolicyPatience(double patience_s, double gain, double from_s, double best_s, double found_at_s,
                 double first_s = 0)
      : patience_s_(patience_s),
        first_s_(first_s > 0 ? std::min(first_s, patience_s) : patience_s),
        gain_(gain),
        reference_s_(best_s),
        since_s_(std::max(from_s, found_at_s)),
        from_s_(from_s) {}

  // The best after an update, found at `found_at_s` of search time.
  void Observe(double best_s, double found_at_s) {
    if (!(best_s < reference_s_ * (1 - gain_))) return;  // a gain of 0: any improvement
    reference_s_ = best_s;
    since_s_ = std::max(from_s_, found_at_s);
    gained_ = true;
  }

  // Seconds since the last gain that counted, once they reach the patience
  // (the first patience before any gain); 0 while the search goes on.
  double Stalled(double now_s) const {
    const double waited = now_s - since_s_;
    return waited >= (gained_ ? patience_s_ : first_s_) ? waited : 0;
  }

  // Whether a gain has counted since the phase started.
  bool gained() const { return gained_; }

 private:
  double patience_s_, first_s_, gain_;
  bool gained_ = false;
  double reference_s_;  // the best step when the last gain counted
  double since_s_;      // and when
  double from_s_;
};

}  // namespace planner::job
