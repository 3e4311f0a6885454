#include "planner/job/exports.h"

#include <cmath>

#include "graph/duration.h"
#include "placement/module_placement.h"
#include "placement/placement.h"
#include "planner/job/log.h"
#include "planner/rewards/reward.h"

namespace planner::job {

namespace {

// ": applied as written, its step simulates at X ms, Z% slower than the
// placement's Y ms (each module moves whole)", or "" when either is unknown.
std::string AppliedStep(const graph::Graph& forward, const cluster::Cluster& c,
                        const std::vector<int>& device_of_node,
                        const std::vector<placement::ModuleDevice>& modules,
                        const SimulatedStep& simulated) {
  if (!simulated) return "";
  auto placed = simulated(device_of_node);
  auto applied = simulated(placement::DeviceOfNodeFromModules(forward, c, modules));
  if (!placed.ok() || !applied.ok()) return "";
  const double change = 100.0 * (*applied / *placed - 1.0);
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f%%", std::fabs(change));
  std::string versus = "the same as the placement's " + graph::FormatMs(*placed);
  if (change >= 0.05) {
    versus = std::string(pct) + " slower than the placement's " + graph::FormatMs(*placed) +
             " (each module moves whole)";
  } else if (change <= -0.05) {
    versus = std::string(pct) + " faster than the placement's " + graph::FormatMs(*placed);
  }
  return ": applied as written, its step simulates at " + graph::FormatMs(*applied) + ", " +
         versus;
}

}  // namespace

SimulatedStep SimulatedStepOf(const rewards::RewardSource& reward) {
  return [&reward](const std::vector<int>& forward_device) -> graph::Result<double> {
    rewards::Evaluation e = reward.Evaluate(forward_device);
    if (!e.status.ok()) return e.status;
    return e.step_s;
  };
}

graph::Status WriteExports(const ExportPaths& paths, const graph::Graph& forward,
                           const cluster::Cluster& c, const std::vector<int>& device_of_node,
                           const std::string& model_path, const std::string& devices_path,
                           const std::string& method, const SimulatedStep& simulated,
                           std::FILE* log) {
  if (!paths.graphdef.empty()) {
    GRAPH_RETURN_IF_ERROR(
        placement::WritePlacedGraphDef(paths.graphdef, forward, c, device_of_node));
    Say(log, "graphdef: %s\n", paths.graphdef.c_str());
  }
  if (!paths.modules.empty()) {
    GRAPH_ASSIGN_OR_RETURN(std::vector<placement::ModuleDevice> modules,
                           placement::ExportModules(paths.modules, forward, c, device_of_node,
                                                    model_path, devices_path, method));
    Say(log, "modules: %s (%zu modules)%s\n", paths.modules.c_str(), modules.size(),
        AppliedStep(forward, c, device_of_node, modules, simulated).c_str());
  }
  return graph::Status::Ok();
}

}  // namespace planner::job
