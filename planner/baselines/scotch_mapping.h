// The Scotch baseline (DESIGN.md section 6; the paper's "Scotch"): Scotch's
// static mapper places the training step onto every device, the CPU included,
// given each op's kernel time, each edge's transfer time and each device's
// compute capacity. Scotch balances the load against capacity and minimises
// the communication it cuts; it knows neither memory nor order, and the reward
// source reports what that costs. METIS over the GPUs alone (metis_partition.h)
// stands in for the paper's MinCut.
//
// The graph is planner/baselines/partition_graph.h's, timed on the first accelerator and
// the link between the first two accelerators (or the first two devices). The
// target is Scotch's weighted complete graph ("cmpltw"): one vertex per device,
// weighted by its speed relative to the fastest, where a device's speed is the
// inverse of the step's total kernel time on it. Mapping is deterministic (a
// Scotch context with a fixed seed).
//
// This file is the one adapter to libscotch.
// Thread safety: a free function of const inputs; each call has its own Scotch
// context.
#pragma once

#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "sim/simulator.h"

namespace planner::baselines {

// The forward graph's device per op; an error when Scotch fails or a device
// cannot time an op.
graph::Result<std::vector<int>> ScotchPlacement(const graph::Graph& forward,
                                                const sim::Simulator& costs,
                                                const cluster::Cluster& c);

}  // namespace planner::baselines
