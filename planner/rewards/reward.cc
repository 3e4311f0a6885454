#include "planner/rewards/reward.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <thread>

#include "sim/simulator.h"

namespace planner::rewards {

graph::Result<const sim::Simulator*> PlanningCosts(const RewardSource& reward,
                                                   const RewardContext& context,
                                                   std::optional<sim::Simulator>* made) {
  if (const sim::Simulator* own = reward.simulator()) return own;
  GRAPH_ASSIGN_OR_RETURN(
      sim::Simulator sim,
      sim::Simulator::Create(context.training->graph, *context.cluster, context.profile));
  made->emplace(std::move(sim));
  return &**made;
}

std::string DescribeEvaluation(const Evaluation& e) {
  if (!e.status.ok()) {
    return (e.status.code() == graph::StatusCode::kOutOfMemory ? "out of memory: " : "failed: ") +
           e.status.message();
  }
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", e.step_s * 1e3);
  return b;
}

std::vector<Evaluation> EvaluateAll(const RewardSource& reward,
                                    const std::vector<std::vector<int>>& placements) {
  return reward.EvaluateBatch(placements);
}

std::vector<Evaluation> RewardSource::EvaluateBatch(
    const std::vector<std::vector<int>>& placements) const {
  const RewardSource& reward = *this;
  const int n = static_cast<int>(placements.size());
  std::vector<Evaluation> results(n);
  const int threads =
      reward.concurrent()
          ? std::min<int>(n, std::max(1, static_cast<int>(std::thread::hardware_concurrency())))
          : 1;
  if (threads <= 1) {
    for (int j = 0; j < n; ++j) results[j] = reward.Evaluate(placements[j]);
    return results;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int j = t; j < n; j += threads) results[j] = reward.Evaluate(placements[j]);
    });
  }
  for (std::thread& th : pool) th.join();
  return results;
}

}  // namespace planner::rewards
