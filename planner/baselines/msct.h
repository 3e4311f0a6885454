// Baechi's m-SCT (Jeon et al., SoCC 2020): memory-constrained Shortest
// Communication Time list scheduling. A linear program first picks each op's
// favourite child, the one consumer it should share a device with (Hanen and
// Munier's SCT relaxation); then ETF list scheduling (list_schedule.h, memory-
// aware) runs with SCT's rule: a device whose last op's favourite child can
// start there earliest keeps itself for that child.
//
// The relaxation, as Baechi states it, over the forward graph's ops, each with
// its training nodes (the placement's unit here, as colocation groups are
// Baechi's): minimise the makespan w subject to, for every forward edge i -> j,
// s_i + p_i + c_ij x_ij <= s_j, and s_i + p_i <= w, with 0 <= x_ij <= 1, at most
// one favourite child per op (sum of x over its out-edges >= out-degree - 1) and
// at most one favourite parent (sum over in-edges >= in-degree - 1). p_i is the
// group's time, each node at its fastest device; c_ij the transfers between the
// two groups in the training step (activations forward, gradients back), each at
// the mean over ordered pairs of distinct linked devices. x_ij <= threshold
// makes j the favourite child of i (Baechi's m_sct default 0.5; its TensorFlow
// pipeline passes 0.1); after rounding, a parent keeps the child of smallest x
// and a child the parent of smallest x. GLPK solves it (Baechi used MOSEK).
// The relaxation has many optima, and which one a solver returns decides the
// favourite children of every op off the critical path: GLPK's primal and
// dual simplex return different ones, and the two placements' steps can
// differ by a factor of two (docs/search.md, "Baselines", has the figures).
//
// Thread safety: a free function of const inputs (GLPK on the calling thread,
// or with MsctOptions::stop on a thread of its own).
#pragma once

#include <csignal>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "planner/baselines/linear_program.h"
#include "planner/baselines/list_schedule.h"
#include "sim/simulator.h"

namespace planner::baselines {

struct MsctOptions {
  double favourite_threshold = 0.5;  // x_ij at or below it: a favourite-child edge
  // linear_program.h; the baseline "msct" is the primal simplex's answer,
  // "msct:dual" the dual simplex's (baselines.h).
  LpOptions::Method lp_method = LpOptions::Method::kSimplex;
  // > 0: the simplex's limit, an error past it (the method is then skipped: on
  // slower hosts, so a baseline set that depends on the host); 0: none.
  double lp_time_limit_s = 0;
  // Not null: set, the relaxation's solve is abandoned, an error (LpOptions::stop).
  const volatile std::sig_atomic_t* stop = nullptr;
};

// The favourite child of each forward op (-1: none) from the relaxation.
graph::Result<std::vector<graph::NodeId>> FavouriteChildren(const graph::Graph& forward,
                                                            const sim::Simulator& costs,
                                                            const cluster::Cluster& c,
                                                            const MsctOptions& options = {});

// The m-SCT placement. `costs` as for EarliestTaskFirst.
graph::Result<ListSchedule> ShortestCommunicationTime(const graph::Graph& forward,
                                                      const sim::Simulator& costs,
                                                      const cluster::Cluster& c,
                                                      const MsctOptions& options = {});

}  // namespace planner::baselines
