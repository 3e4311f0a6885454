// Reward sources: what one training step of a placed model costs, behind one
// interface (DESIGN.md section 6). The search asks a source for the step time of
// a placement of the forward graph; the source extends it to the training graph
// (placement::TrainingDeviceOfNode) and either simulates it (`sim`, runtime::
// Simulator) or runs it on the real devices (`real`, runtime::Executor). The
// fleet of workers (`fleet`, controllers/fleet_reward.h) is a third source.
// Sources by name (MakeRewardSource) are planner/sources/registry.h's: this
// room is torch-free, the real source is not.
//
// Ownership: a source keeps pointers to the graphs, cluster and profile it was
// made from; they must outlive it. Thread safety: Evaluate of the sim source may
// run concurrently; the real source runs one placement at a time (it owns the
// devices while it measures) and must not be shared between threads.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "graph/training.h"

namespace sim {
class Simulator;
struct Profile;
struct StepStats;
}  // namespace sim

namespace planner::rewards {

struct Evaluation {
  // ok; kOutOfMemory (device, node and bytes named) or another failure of the
  // placement: the search charges it its failing cost.
  graph::Status status;
  double step_s = 0;      // seconds per training step when ok
  int estimated_ops = 0;  // sim: ops whose time is a roofline estimate
  // EvaluateBatchBelow stopped early: the step cannot be faster than its
  // cutoff, and step_s is a lower bound at least the cutoff (status ok).
  bool cut_off = false;
};

// Told of every step a measuring source ran, with its timeline, so that what
// the hardware did can refit a simulator (planner/job/recalibration.h). Called
// on the thread that measured, one step at a time.
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  // `executed`: the graph as it ran (the node ids of `step`'s records).
  virtual void Observe(const graph::Graph& executed, const sim::StepStats& step) = 0;
};

class RewardSource {
 public:
  virtual ~RewardSource() = default;
  virtual const char* name() const = 0;  // "sim", "real", "fleet"
  // `forward_device[i]` indexes the cluster's devices for forward node i. A
  // source made with RewardContext::apart also takes placements one device
  // longer for each of them (placement::DeviceOfPlaced); any placement here
  // may be either length.
  virtual Evaluation Evaluate(const std::vector<int>& forward_device) const = 0;
  // One evaluation per placement, in order. By default Evaluate on as many
  // threads as there are cores when the source is concurrent, else in turn; a
  // source that spreads work itself (the fleet) overrides it.
  virtual std::vector<Evaluation> EvaluateBatch(
      const std::vector<std::vector<int>>& placements) const;
  // EvaluateBatch for a caller that wants only placements faster than
  // `cutoff_s` (a local search's incumbent): a source may stop evaluating one
  // as soon as it cannot be (Evaluation::cut_off). The simulated source does;
  // by default this is EvaluateBatch.
  virtual std::vector<Evaluation> EvaluateBatchBelow(
      const std::vector<std::vector<int>>& placements, double cutoff_s) const;
  // True when step times are measured on hardware (noisy samples: the search
  // remembers them and the hardware's verdict decides), false when predicted.
  virtual bool measured() const { return false; }
  // One line on what the source did (the fleet's counts), or empty.
  virtual std::string Summary() const { return ""; }
  // The predicted or measured timeline of one step, for reports; `stats` is
  // filled when the placement runs.
  virtual Evaluation Timeline(const std::vector<int>& forward_device,
                              sim::StepStats* stats) const = 0;
  // The graph the timeline's node ids index (the training graph as executed).
  virtual const graph::Graph& executed_graph() const = 0;
  // A step time no placement can beat on these devices (the larger of the
  // simulator's dependency and work bounds); 0 when the source knows none (real).
  virtual double LowerBoundSeconds() const = 0;
  // The simulator behind the source (sim), or null (real).
  virtual const sim::Simulator* simulator() const { return nullptr; }
  // True when every op of the placement runs in the same process at once, so
  // evaluations may be spread over threads (sim); false for real devices.
  virtual bool concurrent() const = 0;
  // RewardContext::apart: the gradient ops a placement may place apart from
  // their op (nodes of the training graph), in the order their devices follow
  // the forward nodes'; empty for a source that places every gradient with
  // its op (any made without them).
  virtual const std::vector<graph::NodeId>& apart() const;
};

struct RewardContext {
  const graph::Graph* forward = nullptr;
  const graph::TrainingGraph* training = nullptr;
  const cluster::Cluster* cluster = nullptr;
  const sim::Profile* profile = nullptr;  // sim: may be null (roofline only)
  int warmup = 2;                         // real: untimed steps per placement
  int steps = 5;                          // real: timed steps per placement
  // fleet: how the forward graph was shaped and trained (workers rebuild it)
  // and the fleet file (--fleet).
  const graph::InferenceOptions* inference = nullptr;
  const graph::TrainingOptions* training_options = nullptr;
  std::string fleet = {};
  // real: told of each measured step (not owned; outlives the source), or null.
  StepObserver* observer = nullptr;
  // sim, real, fleet: gradient ops of the training graph that placements may put on
  // their own devices (RewardSource::apart; planner/refine/refine.h,
  // HeavyGradientOps). Empty: every gradient follows its op.
  std::vector<graph::NodeId> apart = {};
};

// Op and transfer costs for the baselines that plan on them (etf, metis, scotch): the
// source's own simulator when it has one, else one made from `context` and kept
// in `*made`.
graph::Result<const sim::Simulator*> PlanningCosts(const RewardSource& reward,
                                                   const RewardContext& context,
                                                   std::optional<sim::Simulator>* made);

// "12.345 ms", or "out of memory: ..." / "failed: ..." with the reason.
std::string DescribeEvaluation(const Evaluation& e);

// evaluate(j) for j in [0, n): on as many threads as there are cores when
// `reward` is concurrent (the process's pool, batch_pool.h), else in turn
// (RewardSource::EvaluateBatch's way).
std::vector<Evaluation> EvaluateEach(const RewardSource& reward, size_t n,
                                     const std::function<Evaluation(size_t)>& evaluate);

// reward.EvaluateBatch(placements).
std::vector<Evaluation> EvaluateAll(const RewardSource& reward,
                                    const std::vector<std::vector<int>>& placements);

// The simulated source (reward_sim.cc): the step time sim::Simulator predicts
// for the placement on `context`'s devices and profile.
graph::Result<std::unique_ptr<RewardSource>> MakeSimReward(const RewardContext& context);

}  // namespace planner::rewards
