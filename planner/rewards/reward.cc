#include "planner/rewards/reward.h"

#include <algorithm>
#include <functional>
#include <map>
#include <thread>

#include "graph/duration.h"
#include "planner/rewards/batch_pool.h"
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
  return graph::FormatMs(e.step_s);
}

std::vector<Evaluation> EvaluateAll(const RewardSource& reward,
                                    const std::vector<std::vector<int>>& placements) {
  return reward.EvaluateBatch(placements);
}

std::vector<Evaluation> EvaluateEach(const RewardSource& reward, size_t n,
                                     const std::function<Evaluation(size_t)>& evaluate) {
  std::vector<Evaluation> results(n);
  const size_t threads =
      reward.concurrent() ? std::max(1u, std::thread::hardware_concurrency()) : 1;
  RunBatch(n, threads, [&](size_t j) { results[j] = evaluate(j); });
  return results;
}

const std::vector<graph::NodeId>& RewardSource::apart() const {
  static const std::vector<graph::NodeId> kNone;
  return kNone;
}

std::vector<Evaluation> RewardSource::EvaluateBatch(
    const std::vector<std::vector<int>>& placements) const {
  return EvaluateEach(*this, placements.size(), [&](size_t j) { return Evaluate(placements[j]); });
}

std::vector<Evaluation> RewardSource::EvaluateBatchBelow(
    const std::vector<std::vector<int>>& placements, double /*cutoff_s*/) const {
  return EvaluateBatch(placements);
}

}  // namespace planner::rewards
