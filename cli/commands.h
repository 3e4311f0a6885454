// The `planner` executable's own subcommands: the command layer, which parses
// a command's flags, calls the engine in planner/ and prints; the fleet's and
// the worker's commands are in controllers/ and workers/, beside their code.
// Each returns the process exit status: 0 on success, 1 when the work failed on
// bad input (after printing one line to stderr), 2 on a usage error.
#pragma once

#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"

namespace planner::cli {

int InspectCommand(int argc, char** argv);
int ImportCommand(int argc, char** argv);
int DevicesCommand(int argc, char** argv);
int MeasureCommand(int argc, char** argv);
int ProfileCommand(int argc, char** argv);
int SimulateCommand(int argc, char** argv);
int ZooCommand(int argc, char** argv);
int BaselineCommand(int argc, char** argv);
int SearchCommand(int argc, char** argv);

// --export-modules of search and baseline: writes the device of each PyTorch
// module (planner/module_placement.h) and prints where; an error when the model
// has no PyTorch module names.
graph::Status ExportModules(const std::string& path, const graph::Graph& forward,
                            const cluster::Cluster& c, const std::vector<int>& device_of_node,
                            const std::string& model_path, const std::string& devices_path,
                            const std::string& method);

}  // namespace planner::cli
