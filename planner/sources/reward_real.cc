// The `real` reward source: the dataflow executor's measured step time on the
// devices of this machine (runtime::Measure's robust mean).
#include "placement/placement.h"
#include "planner/sources/registry.h"
#include "runtime/executor.h"
#include "runtime/measure.h"
#include "sim/rewrite.h"

namespace planner::sources {

namespace {

class RealReward : public rewards::RewardSource {
 public:
  explicit RealReward(const rewards::RewardContext& c)
      : c_(c),
        executed_(sim::RewriteForExecution(c.training->graph)),
        source_(placement::ForwardSourceOfNode(c.training->graph, *c.forward)) {}
  const char* name() const override { return "real"; }
  bool concurrent() const override { return false; }
  bool measured() const override { return true; }
  double LowerBoundSeconds() const override { return 0; }
  const graph::Graph& executed_graph() const override { return executed_; }
  const std::vector<graph::NodeId>& apart() const override { return c_.apart; }

  rewards::Evaluation Evaluate(const std::vector<int>& forward_device) const override {
    return Timeline(forward_device, nullptr);
  }

  rewards::Evaluation Timeline(const std::vector<int>& forward_device,
                               sim::StepStats* stats) const override {
    const graph::Graph& g = c_.training->graph;
    auto ex = runtime::Executor::Create(
        g, *c_.cluster,
        placement::DeviceOfPlaced(source_, c_.apart, c_.forward->size(), forward_device));
    if (!ex.ok()) return {ex.status()};
    runtime::MeasureOptions o;
    o.warmup = c_.warmup;
    o.steps = c_.steps;
    auto m = runtime::Measure(**ex, g, c_.training->loss, o);
    if (!m.ok()) return {m.status()};
    if (c_.observer) c_.observer->Observe((*ex)->graph(), m->median_step);
    if (stats) *stats = m->median_step;
    return {graph::Status::Ok(), m->time.robust_mean_s, 0};
  }

 private:
  rewards::RewardContext c_;
  graph::Graph executed_;              // as the executor rewrites it (node ids kept), for timelines
  std::vector<graph::NodeId> source_;  // ForwardSourceOfNode, once
};

}  // namespace

graph::Result<std::unique_ptr<rewards::RewardSource>> MakeRealReward(
    const rewards::RewardContext& c) {
  for (const cluster::DeviceSpec& d : c.cluster->devices) {
    if (d.kind == cluster::DeviceKind::kSim) {
      return graph::InvalidArgument(c.cluster->source +
                                    ": --reward real runs on real devices, but '" + d.name +
                                    "' is a sim device (use --reward sim)");
    }
  }
  // An op without a kernel fails every placement alike: refused now, once.
  auto ex = runtime::Executor::Create(c.training->graph, *c.cluster,
                                      std::vector<int>(c.training->graph.size(), 0));
  if (!ex.ok()) return ex.status();
  return std::unique_ptr<rewards::RewardSource>(new RealReward(c));
}

}  // namespace planner::sources
