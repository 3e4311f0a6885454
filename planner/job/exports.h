// The exports of a chosen placement that the jobs share (search, baseline):
// the model as a TensorFlow GraphDef with device strings, and the device of
// each PyTorch module.
//
// Thread safety: free functions; files are written atomically.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"

namespace planner::rewards {
class RewardSource;
}

namespace planner::job {

struct ExportPaths {
  std::string graphdef;  // empty: not written
  std::string modules;   // empty: not written
};

// A forward placement's simulated step in seconds (the sim reward source's
// Evaluate), or null where a prediction would cost a measurement or a worker's
// time (real and fleet rewards).
using SimulatedStep = std::function<graph::Result<double>(const std::vector<int>& forward_device)>;

// `reward`'s Evaluate as a SimulatedStep (a sim source; it must outlive the result).
SimulatedStep SimulatedStepOf(const rewards::RewardSource& reward);

// Writes the exports `paths` asks for, of `device_of_node` (forward graph's
// nodes, indexing c.devices), each with a line on `log` (null: none) naming
// the file; `method`, `model_path` and `devices_path` go in the modules file's
// header. With `simulated`, the modules line also gives the step of the
// placement applying the file yields (each module moved whole) beside the
// placement's own. An error when a file cannot be written, or modules are
// asked of a model without PyTorch module names.
graph::Status WriteExports(const ExportPaths& paths, const graph::Graph& forward,
                           const cluster::Cluster& c, const std::vector<int>& device_of_node,
                           const std::string& model_path, const std::string& devices_path,
                           const std::string& method, const SimulatedStep& simulated,
                           std::FILE* log);

}  // namespace planner::job
