#include "planner/job/baseline_job.h"

#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "placement/module_placement.h"
#include "placement/placement.h"
#include "planner/baselines/baselines.h"
#include "planner/job/exports.h"
#include "planner/job/log.h"
#include "planner/job/profile_cache.h"
#include "planner/sources/registry.h"
#include "sim/simulator.h"

namespace planner::job {

namespace {

// The methods `o` asks for on `c`; an unknown name is an error, found before
// the reward source's work.
graph::Result<std::vector<std::string>> MethodsAsked(const BaselineJobOptions& o,
                                                     const cluster::Cluster& c) {
  if (o.method == "all") return baselines::BaselineMethods(c);
  GRAPH_RETURN_IF_ERROR(baselines::CheckBaselineMethod(o.method, c));
  return std::vector<std::string>{o.method};
}

// The placement file of the fastest baseline, and its exports.
graph::Status WriteOutputs(const BaselineJobOptions& o, const frontend::PlacedTraining& setup,
                           const BaselineRun& best, const rewards::RewardSource& reward) {
  const graph::Graph& forward = setup.model.graph;
  const std::string method = "baseline " + best.method;
  if (!o.out_path.empty()) {
    placement::Placement p = placement::MakePlacement(
        o.model_path, forward, placement::ModelDigest(forward), o.devices_path, setup.cluster,
        method, best.device_of_node, o.training.optimizer);
    (o.reward == "sim" ? p.simulated_step_s : p.measured_step_s) = best.evaluation.step_s;
    GRAPH_RETURN_IF_ERROR(placement::WritePlacement(o.out_path, p));
    Say(o.log, "placement: %s\n", o.out_path.c_str());
  }
  const SimulatedStep simulated = o.reward == "sim" ? SimulatedStepOf(reward) : nullptr;
  return WriteExports({o.export_graphdef_path, o.export_modules_path}, forward, setup.cluster,
                      best.device_of_node, o.model_path, o.devices_path, method, simulated, o.log);
}

}  // namespace

graph::Status RunBaselineJob(const BaselineJobOptions& o, BaselineJobResult* result) {
  GRAPH_ASSIGN_OR_RETURN(
      frontend::PlacedTraining setup,
      frontend::LoadPlacedTraining(o.model_path, o.devices_path, "", o.inference, o.training));
  const graph::Graph& forward = setup.model.graph;
  const cluster::Cluster& c = setup.cluster;
  auto methods = MethodsAsked(o, c);
  if (!methods.ok()) {
    result->unknown_method = true;
    return methods.status();
  }
  if (!o.export_modules_path.empty()) {  // before any work, not after it
    GRAPH_RETURN_IF_ERROR(placement::CheckPyTorchModules(forward, o.model_path));
  }
  GRAPH_ASSIGN_OR_RETURN(std::optional<sim::Profile> profile,
                         ProfileForDevices(o.profile_path, o.profile_cache_dir, setup));
  rewards::RewardContext context{&forward, &setup.training, &c, profile ? &*profile : nullptr,
                                 2,        o.steps};
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<rewards::RewardSource> reward,
                         sources::MakeRewardSource(o.reward, context));
  std::optional<sim::Simulator> own_costs;
  GRAPH_ASSIGN_OR_RETURN(const sim::Simulator* costs,
                         rewards::PlanningCosts(*reward, context, &own_costs));

  Say(o.log, "%s on %s: %d ops to place (training graph of %d nodes), reward %s\n",
      o.model_path.c_str(), o.devices_path.c_str(), forward.size(), setup.training.graph.size(),
      o.reward.c_str());
  if (std::string note = frontend::BatchNote(setup.model); !note.empty()) {
    Say(o.log, "%s\n", note.c_str());
  }
  graph::Status first_failure = graph::Status::Ok();
  for (const std::string& m : *methods) {
    auto b = baselines::MakeBaseline(m, forward, c, costs);
    if (!b.ok()) {
      Say(o.log, "  %-16s skipped: %s\n", m.c_str(), b.status().message().c_str());
      if (first_failure.ok()) first_failure = b.status();
      continue;
    }
    rewards::Evaluation e = reward->Evaluate(b->device_of_node);
    Say(o.log, "%s\n", baselines::DescribeBaseline(*b, e).c_str());
    if (!e.status.ok()) {
      if (first_failure.ok()) first_failure = e.status;
      continue;
    }
    result->ran.push_back({b->method, b->device_of_node, e});
  }
  if (reward->measured()) {
    rewards::ConfirmOptions confirm;
    confirm.rounds = o.rounds;
    const auto times = rewards::ConfirmFastest(*reward, confirm, &result->ran);
    if (!times.empty()) Say(o.log, "%s\n", rewards::DescribeConfirmed(o.rounds, times).c_str());
  }
  for (const BaselineRun& run : result->ran) {
    if (!result->best || run.evaluation.step_s < result->best->evaluation.step_s) {
      result->best = run;
    }
  }
  if (!result->best) {
    return graph::Status(first_failure.code(), o.model_path + " on " + o.devices_path +
                                                   ": no baseline ran (" + first_failure.message() +
                                                   ")");
  }
  if (methods->size() > 1) {
    Say(o.log, "best: %s, %s\n", result->best->method.c_str(),
        frontend::FormatMs(result->best->evaluation.step_s).c_str());
  }
  return WriteOutputs(o, setup, *result->best, *reward);
}

}  // namespace planner::job
