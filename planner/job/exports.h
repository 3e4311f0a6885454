// The exports of a chosen placement that the jobs share (search, baseline):
// the model as a TensorFlow GraphDef with device strings, and the device of
// each PyTorch module.
//
// Thread safety: free functions; files are written atomically.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"

namespace planner::job {

struct ExportPaths {
  std::string graphdef;  // empty: not written
  std::string modules;   // empty: not written
};

// Writes the exports `paths` asks for, of `device_of_node` (forward graph's
// nodes, indexing c.devices), each with a line on `log` (null: none) naming
// the file; `method`, `model_path` and `devices_path` go in the modules file's
// header. An error when a file cannot be written, or modules are asked of a
// model without PyTorch module names.
graph::Status WriteExports(const ExportPaths& paths, const graph::Graph& forward,
                           const cluster::Cluster& c, const std::vector<int>& device_of_node,
                           const std::string& model_path, const std::string& devices_path,
                           const std::string& method, std::FILE* log);

}  // namespace planner::job
