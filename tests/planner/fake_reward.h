// A scripted reward source for unit tests of what consumes rewards: each call
// to Evaluate returns the next time that `script` gives for the placement (by
// its first device) and the call's index, and is recorded.
#pragma once

#include <functional>
#include <stdexcept>
#include <vector>

#include "graph/graph.h"
#include "planner/rewards/reward.h"

namespace planner::testing {

class FakeReward : public rewards::RewardSource {
 public:
  // script(placement, call index) -> step seconds, or a negative number for a
  // failed evaluation.
  explicit FakeReward(std::function<double(const std::vector<int>&, int)> script)
      : script_(std::move(script)) {}
  const char* name() const override { return "fake"; }
  rewards::Evaluation Evaluate(const std::vector<int>& forward_device) const override {
    const int call = static_cast<int>(calls.size());
    calls.push_back(forward_device);
    const double s = script_(forward_device, call);
    if (s < 0) return {graph::Internal("scripted failure"), 0, 0};
    return {graph::Status::Ok(), s, 0};
  }
  rewards::Evaluation Timeline(const std::vector<int>&, sim::StepStats*) const override {
    throw std::logic_error("FakeReward has no timeline");
  }
  const graph::Graph& executed_graph() const override { return graph_; }
  double LowerBoundSeconds() const override { return 0; }
  bool concurrent() const override { return false; }

  mutable std::vector<std::vector<int>> calls;  // every placement asked, in order

 private:
  std::function<double(const std::vector<int>&, int)> script_;
  graph::Graph graph_;
};

}  // namespace planner::testing
