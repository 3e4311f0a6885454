// A reward source that measures each distinct placement once: asked again for
// a placement it has evaluated, it returns the first evaluation instead of
// measuring again. With real rewards this is what keeps a search honest about
// placements it has already seen: a policy sample equal to a baseline's
// placement gets the baseline's own measurement, not a second, luckier draw of
// the noise, so it cannot pass for an improvement (docs/search.md). A
// kUnavailable evaluation (no worker of a fleet answered) says nothing of the
// placement and is not remembered.
//
// Ownership: keeps a reference to the source it wraps, which must outlive it.
// Thread safety: Evaluate may be called concurrently when the wrapped source
// allows it; the memo is guarded by a mutex.
#pragma once

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "planner/rewards/reward.h"

namespace planner::rewards {

class RememberingReward : public RewardSource {
 public:
  explicit RememberingReward(const RewardSource& inner) : inner_(inner) {}
  const char* name() const override { return inner_.name(); }
  Evaluation Evaluate(const std::vector<int>& forward_device) const override;
  // The placements not seen yet go to the wrapped source's EvaluateBatch, once each.
  std::vector<Evaluation> EvaluateBatch(
      const std::vector<std::vector<int>>& placements) const override;
  bool measured() const override { return inner_.measured(); }
  std::string Summary() const override { return inner_.Summary(); }
  // Not remembered: a timeline is a fresh run, for reports.
  Evaluation Timeline(const std::vector<int>& forward_device,
                      sim::StepStats* stats) const override {
    return inner_.Timeline(forward_device, stats);
  }
  const graph::Graph& executed_graph() const override { return inner_.executed_graph(); }
  double LowerBoundSeconds() const override { return inner_.LowerBoundSeconds(); }
  const sim::Simulator* simulator() const override { return inner_.simulator(); }
  bool concurrent() const override { return inner_.concurrent(); }
  const std::vector<graph::NodeId>& apart() const override { return inner_.apart(); }

  // What later requests for `forward_device` get from now on: a placement its
  // owner measured again, whose one first draw should not stand for it.
  void Replace(const std::vector<int>& forward_device, const Evaluation& e) const;

  int distinct() const;  // placements evaluated by the wrapped source
  // Every placement the wrapped source evaluated without error, with its step time.
  std::vector<std::pair<std::vector<int>, double>> Evaluated() const;
  int repeats() const;  // requests answered from the memo

 private:
  const RewardSource& inner_;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int>, Evaluation> seen_;
  mutable int repeats_ = 0;
};

}  // namespace planner::rewards
