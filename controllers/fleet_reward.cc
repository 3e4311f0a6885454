#include "controllers/fleet_reward.h"

#include <cassert>
#include <cstdio>
#include <memory>
#include <mutex>

#include "controllers/dispatcher.h"
#include "planner/sources/registry.h"
#include "sim/rewrite.h"
#include "sim/timeline.h"
#include "wire/model.h"

namespace controllers {

namespace {

// A worker's timeline, with records naming nodes or devices out of range
// left out: a peer's numbers never index our arrays unchecked.
sim::StepStats InRange(sim::StepStats t, int nodes, int devices) {
  sim::StepStats s;
  s.seconds = t.seconds;
  auto in = [](int v, int n) { return v >= 0 && v < n; };
  for (const sim::OpRecord& o : t.ops) {
    if (in(o.node, nodes) && in(o.device, devices)) s.ops.push_back(o);
  }
  for (const sim::TransferRecord& x : t.transfers) {
    if (in(x.from_node, nodes) && in(x.src_device, devices) && in(x.dst_device, devices)) {
      s.transfers.push_back(x);
    }
  }
  if (static_cast<int>(t.peak_bytes.size()) == devices) s.peak_bytes = std::move(t.peak_bytes);
  if (static_cast<int>(t.busy_us.size()) == devices) s.busy_us = std::move(t.busy_us);
  return s;
}

// The names by which the workers find c.apart in the training graph they rebuild.
std::vector<std::string> ApartNames(const planner::rewards::RewardContext& c) {
  std::vector<std::string> names;
  for (graph::NodeId id : c.apart) names.push_back(c.training->graph.node(id).name);
  return names;
}

class FleetReward : public planner::rewards::RewardSource {
 public:
  FleetReward(const planner::rewards::RewardContext& c, const FleetOptions& o,
              std::unique_ptr<Dispatcher> dispatcher)
      : c_(c),
        mode_(o.mode == "real" ? EvalMode::kReal : EvalMode::kSim),
        dispatcher_(std::move(dispatcher)),
        model_(*c.forward, *c.inference, *c.training_options, ApartNames(c)),
        executed_(sim::RewriteForExecution(c.training->graph)) {}

  const char* name() const override { return "fleet"; }
  bool concurrent() const override { return false; }
  bool measured() const override { return mode_ == EvalMode::kReal; }
  double LowerBoundSeconds() const override { return 0; }
  // As the workers' sources run it (sim and real alike), so timelines' node ids fit.
  const graph::Graph& executed_graph() const override { return executed_; }
  // The workers place them as told (wire::pb::Model::apart).
  const std::vector<graph::NodeId>& apart() const override { return c_.apart; }

  planner::rewards::Evaluation Evaluate(const std::vector<int>& forward_device) const override {
    return EvaluateBatch({forward_device})[0];
  }
  planner::rewards::Evaluation Timeline(const std::vector<int>& forward_device,
                                        sim::StepStats* stats) const override {
    std::lock_guard<std::mutex> lock(mu_);
    Outcome o =
        dispatcher_->Run(model_, mode_, c_.warmup, c_.steps, {forward_device}, stats != nullptr)[0];
    if (stats && o.status.ok()) {
      *stats = InRange(std::move(o.timeline), executed_.size(),
                       static_cast<int>(c_.cluster->devices.size()));
    }
    return {std::move(o.status), o.step_s, o.estimated_ops};
  }
  std::vector<planner::rewards::Evaluation> EvaluateBatch(
      const std::vector<std::vector<int>>& placements) const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Outcome> got = dispatcher_->Run(model_, mode_, c_.warmup, c_.steps, placements);
    std::vector<planner::rewards::Evaluation> out;
    out.reserve(got.size());
    for (Outcome& o : got) out.push_back({std::move(o.status), o.step_s, o.estimated_ops});
    return out;
  }
  std::string Summary() const override {
    std::lock_guard<std::mutex> lock(mu_);
    const DispatchCounters& n = dispatcher_->counters();
    char b[384];
    std::snprintf(b, sizeof b,
                  "fleet: %lld placements, %lld outcomes (%lld unavailable: no worker answered), "
                  "%lld sends (%lld re-sent), %lld late results dropped, %lld workers lost, %lld "
                  "malformed messages",
                  static_cast<long long>(n.requests), static_cast<long long>(n.outcomes),
                  static_cast<long long>(n.unavailable), static_cast<long long>(n.sends),
                  static_cast<long long>(n.resent), static_cast<long long>(n.late),
                  static_cast<long long>(n.workers_lost), static_cast<long long>(n.malformed));
    return b;
  }

 private:
  planner::rewards::RewardContext c_;
  EvalMode mode_;
  mutable std::mutex mu_;
  std::unique_ptr<Dispatcher> dispatcher_;
  wire::WireModel model_;
  graph::Graph executed_;
};

graph::Result<std::unique_ptr<planner::rewards::RewardSource>> MakeFleetReward(
    const planner::rewards::RewardContext& c) {
  if (c.fleet.empty()) return graph::InvalidArgument("--reward fleet needs --fleet FLEET.yaml");
  assert(c.inference && c.training_options);
  GRAPH_ASSIGN_OR_RETURN(FleetOptions o, ReadFleetFile(c.fleet));
  std::vector<ExpectedDevice> devices;
  for (const cluster::DeviceSpec& d : c.cluster->devices) {
    devices.push_back({d.name, cluster::DeviceKindName(d.kind)});
  }
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Dispatcher> dispatcher,
                         Dispatcher::Bind(o, std::move(devices)));
  GRAPH_RETURN_IF_ERROR(dispatcher->WaitForWorkers(o.workers));
  return std::unique_ptr<planner::rewards::RewardSource>(
      std::make_unique<FleetReward>(c, o, std::move(dispatcher)));
}

}  // namespace

void RegisterFleetReward() { planner::sources::RegisterRewardSource("fleet", MakeFleetReward); }

}  // namespace controllers
