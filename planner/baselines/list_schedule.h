// List-scheduling placements: the classic heuristics a learned placer has to
// beat (DESIGN.md section 6; Baechi, Jeon et al., SoCC 2020, runs them as m-ETF
// and friends).
//
// Earliest task first (ETF; Hwang, Chow, Anger and Lee, SIAM J. Comput. 1989),
// with one change: the training step is scheduled op by op, and at each step,
// of all ops whose inputs are done and all devices that may run them, the pair
// that can *finish* earliest is scheduled (ties: the op with the longest path
// still after it), counting a transfer (latency + bytes / bandwidth) for every
// input made on another device. Hwang et al. take the pair that can *start*
// earliest, which on a machine with a slow CPU among its devices hands the CPU
// every op that is ready while the GPUs are busy (docs/search.md has the figure).
// Op and transfer times are the simulator's (sim::Simulator: profiled where
// it has them, else its roofline). The decision is a forward op's: the nodes the
// training graph adds follow it (placement::ForwardSourceOfNode), so an op's
// gradients run where its first scheduled node put them. A parameter, constant
// or feed (no kernel time) goes where its first consumer is scheduled.
//
// Memory-aware as Baechi's m-ETF: a forward op, with its training nodes, is put
// only on a device whose capacity still holds everything it will keep (its
// parameters, all its nodes' outputs and the copies of inputs sent to it, never
// freed: a conservative account); when none does, every device may take it and
// the reward source reports the out-of-memory. Links are not modelled as shared (no contention),
// and a device runs as many ops at once as it has workers (cpu: `threads`, else 1).
//
// Thread safety: a free function of const inputs.
#pragma once

#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "sim/simulator.h"

namespace planner::baselines {

struct ListSchedule {
  std::vector<int> device_of_node;  // of the forward graph, indexes the cluster's devices
  double predicted_s = 0;           // the schedule's own makespan (no contention)
};

// `costs` was made from the training graph built from `forward` and the cluster
// `c`. A device that can give an op no time (a real device without a profile)
// is never chosen for it; an op no device can time is an error naming the first.
graph::Result<ListSchedule> EarliestTaskFirst(const graph::Graph& forward,
                                              const sim::Simulator& costs,
                                              const cluster::Cluster& c);

// The same with SCT's rule (msct.h): `favourite_child[f]` is forward op f's
// favourite child (-1: none). A device whose last op's group has an undecided
// favourite child, ready and able to start there no later than anywhere else,
// keeps itself for it: it takes no other op, except an urgent one (which no
// device could start later).
graph::Result<ListSchedule> EarliestTaskFirstWithFavourites(
    const graph::Graph& forward, const sim::Simulator& costs, const cluster::Cluster& c,
    const std::vector<graph::NodeId>& favourite_child);

}  // namespace planner::baselines
