#include "planner/job/baseline_job.h"

#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "frontend/stop_signals.h"
#include "placement/module_placement.h"
#include "placement/placement.h"
#include "planner/baselines/baselines.h"
#include "planner/job/baseline_runs.h"
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
  BaselineRunOptions run;
  if (reward->measured()) run.hardware = reward.get();
  run.rounds = o.rounds;
  // SIGINT or SIGTERM: the baselines run so far decide, and the files are written.
  std::optional<frontend::StopOnSignals> stop_on_signals;
  if (o.stop_on_signals) {
    stop_on_signals.emplace();
    run.stop = frontend::StopOnSignals::flag();
  }
  run.log = o.log;
  BaselineRuns runs = RunBaselineMethods(*methods, forward, c, costs, *reward, run);
  const graph::Status& first_failure = runs.first_failure;
  for (BaselineRun& m : runs.measured) {
    if (!m.evaluation.status.ok()) continue;
    if (!result->best || m.evaluation.step_s < result->best->evaluation.step_s) result->best = m;
    result->ran.push_back(std::move(m));
  }
  if (!result->best) {
    return graph::Status(first_failure.code(), o.model_path + " on " + o.devices_path +
                                                   ": no baseline ran (" + first_failure.message() +
                                                   ")");
  }
  if (methods->size() > 1) {
    Say(o.log, "best: %s, %s%s\n", result->best->method.c_str(),
        frontend::FormatMs(result->best->evaluation.step_s).c_str(),
        runs.not_run.empty() ? "" : " (of those run before the signal)");
  }
  return WriteOutputs(o, setup, *result->best, *reward);
}

}  // namespace planner::job
