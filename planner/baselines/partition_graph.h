// The training step as the graph partitioners (METIS, Scotch) see it: an
// undirected graph of the forward ops, each carrying the nodes the training
// graph adds for it (placement::ForwardSourceOfNode), so that a part of it is a
// forward placement. A vertex weighs the kernel time of its nodes on one
// reference device; an edge, the time to move every tensor that passes between
// its two ops over one reference link. Times are the simulator's.
//
// Both partitioners take integer weights, so Csr() scales each kind (work,
// transfer) to sum to about 2^24 units, each weight at least 1 (a partitioner
// may reject zero): fine enough that the many sub-microsecond ops keep their
// proportions, coarse enough that any sum fits in 32 bits.
//
// Thread safety: free functions of const inputs.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "sim/simulator.h"

namespace planner::baselines {

struct PartitionGraph {
  std::vector<double> work;  // per forward op: kernel seconds on the reference device
  std::vector<std::map<int, double>> edges;  // per forward op: neighbour -> transfer seconds
};

// The devices the expert, METIS and Scotch treat as accelerators: the gpu-like
// ones (cuda, sims of a gpu), in file order; with none, every device.
std::vector<int> Accelerators(const cluster::Cluster& c);

// The step's partition graph, timed on device `work_device` and the link from
// `link_src` to `link_dst` (indexes of c.devices). An error names the device or
// link when the simulator has no time for it (a real device without a profile).
graph::Result<PartitionGraph> BuildPartitionGraph(const graph::Graph& forward,
                                                  const sim::Simulator& costs,
                                                  const cluster::Cluster& c, int work_device,
                                                  int link_src, int link_dst);

// Each device's kernel seconds for the whole step (the nodes of the forward ops,
// every op on that device), with the same error as BuildPartitionGraph.
graph::Result<std::vector<double>> StepKernelSeconds(const graph::Graph& forward,
                                                     const sim::Simulator& costs,
                                                     const cluster::Cluster& c);

// Compressed sparse rows, both directions of every edge listed, no self-loops:
// the input format METIS and Scotch share.
struct Csr {
  std::vector<int32_t> xadj;    // size n + 1
  std::vector<int32_t> adjncy;  // neighbours of v: adjncy[xadj[v] .. xadj[v + 1])
  std::vector<int32_t> adjwgt;  // transfer time, parallel to adjncy, in units of the total / 2^24
  std::vector<int32_t> vwgt;    // work per vertex, in units of the total / 2^24
};
Csr ToCsr(const PartitionGraph& g);

}  // namespace planner::baselines
