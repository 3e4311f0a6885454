// The `sim` reward source: sim::Simulator's predicted step time.
#include <algorithm>
#include <limits>

#include "placement/placement.h"
#include "planner/rewards/reward.h"
#include "sim/simulator.h"

namespace planner::rewards {

namespace {

class SimReward : public RewardSource {
 public:
  SimReward(const RewardContext& c, sim::Simulator sim)
      : c_(c),
        sim_(std::move(sim)),
        loss_(sim_.graph().Find(c.training->loss)),
        source_(placement::ForwardSourceOfNode(c.training->graph, *c.forward)) {}
  const char* name() const override { return "sim"; }
  bool concurrent() const override { return true; }
  double LowerBoundSeconds() const override {
    return std::max(sim_.DependencyBoundSeconds(), sim_.WorkBoundSeconds());
  }
  const graph::Graph& executed_graph() const override { return sim_.graph(); }
  const sim::Simulator* simulator() const override { return &sim_; }
  const std::vector<graph::NodeId>& apart() const override { return c_.apart; }

  Evaluation Evaluate(const std::vector<int>& forward_device) const override {
    return Timeline(forward_device, nullptr);
  }

  Evaluation Timeline(const std::vector<int>& forward_device,
                      sim::StepStats* stats) const override {
    return Simulate(forward_device, std::numeric_limits<double>::infinity(), stats);
  }

  std::vector<Evaluation> EvaluateBatchBelow(const std::vector<std::vector<int>>& placements,
                                             double cutoff_s) const override {
    return EvaluateEach(*this, placements.size(),
                        [&](size_t j) { return Simulate(placements[j], cutoff_s, nullptr); });
  }

 private:
  // One simulated step of the forward placement, stopped early at `cutoff_s`
  // (sim::Simulator::Run); its timeline into `stats` when given.
  Evaluation Simulate(const std::vector<int>& forward_device, double cutoff_s,
                      sim::StepStats* stats) const {
    sim::SimResult r =
        sim_.Run(placement::DeviceOfPlaced(source_, c_.apart, c_.forward->size(), forward_device),
                 loss_, cutoff_s);
    Evaluation e{r.status, r.status.ok() ? r.step.seconds : 0.0, r.estimated_ops, r.cut_off};
    if (stats) *stats = std::move(r.step);
    return e;
  }

  RewardContext c_;
  sim::Simulator sim_;
  graph::NodeId loss_;
  std::vector<graph::NodeId> source_;  // ForwardSourceOfNode, once
};

}  // namespace

graph::Result<std::unique_ptr<RewardSource>> MakeSimReward(const RewardContext& c) {
  GRAPH_ASSIGN_OR_RETURN(sim::Simulator sim,
                         sim::Simulator::Create(c.training->graph, *c.cluster, c.profile));
  auto source = std::make_unique<SimReward>(c, std::move(sim));
  // Every op must get a time on every device (a real device needs a profile):
  // found now, once, rather than as a failure of every sampled placement.
  for (size_t d = 0; d < c.cluster->devices.size(); ++d) {
    Evaluation e = source->Evaluate(std::vector<int>(c.forward->size(), static_cast<int>(d)));
    if (!e.status.ok() && e.status.code() != graph::StatusCode::kOutOfMemory) return e.status;
  }
  return std::unique_ptr<RewardSource>(std::move(source));
}

}  // namespace planner::rewards
