#include "planner/job/exports.h"

#include "placement/module_placement.h"
#include "placement/placement.h"
#include "planner/job/log.h"

namespace planner::job {

graph::Status WriteExports(const ExportPaths& paths, const graph::Graph& forward,
                           const cluster::Cluster& c, const std::vector<int>& device_of_node,
                           const std::string& model_path, const std::string& devices_path,
                           const std::string& method, std::FILE* log) {
  if (!paths.graphdef.empty()) {
    GRAPH_RETURN_IF_ERROR(
        placement::WritePlacedGraphDef(paths.graphdef, forward, c, device_of_node));
    Say(log, "graphdef: %s\n", paths.graphdef.c_str());
  }
  if (!paths.modules.empty()) {
    GRAPH_ASSIGN_OR_RETURN(size_t modules,
                           placement::ExportModules(paths.modules, forward, c, device_of_node,
                                                    model_path, devices_path, method));
    Say(log, "modules: %s (%zu modules)\n", paths.modules.c_str(), modules);
  }
  return graph::Status::Ok();
}

}  // namespace planner::job
