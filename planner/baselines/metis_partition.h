// The min-cut baseline (DESIGN.md section 6; the paper's "MinCut"): METIS's
// k-way partition of the training step into one part per accelerator, each part
// holding about the same kernel time, with the least transfer time between them.
//
// The graph is planner/baselines/partition_graph.h's: forward ops with their training
// nodes, kernel time on the first accelerator, transfer time over the link
// between the first two. Part p goes to accelerator p (gpu-like devices; with
// none, every device). METIS knows neither memory nor order: a partition can leave one GPU
// idle while the other works, and the reward source reports what it costs.
// This file is the one adapter to libmetis.
//
// Thread safety: a free function of const inputs (METIS keeps no state).
#pragma once

#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "sim/simulator.h"

namespace planner::baselines {

// The forward graph's device per op; an error when METIS fails or the
// accelerators cannot time an op.
graph::Result<std::vector<int>> MetisPlacement(const graph::Graph& forward,
                                               const sim::Simulator& costs,
                                               const cluster::Cluster& c);

}  // namespace planner::baselines
