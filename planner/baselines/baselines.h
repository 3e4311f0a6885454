// The simple placements a search must beat (DESIGN.md section 6): every op on
// one device, for each device; the human expert's rule of the paper
// (Mirhoseini et al. 2017/2018): recurrent models a layer per device, CNNs on
// one GPU; earliest-task-first list scheduling on the simulator's costs
// (planner/baselines/list_schedule.h) and Baechi's m-SCT on top of it
// (planner/baselines/msct.h); METIS's min-cut partition over the GPUs
// (planner/baselines/metis_partition.h); and Scotch's static mapping onto every device
// (planner/baselines/scotch_mapping.h). Chosen by name through MakeBaseline.
//
// The expert rule reads layers from op names: an op in a scope "cell_<l>",
// "layer_<l>" or "lstm_<l>" belongs to layer l (the zoo's RNNLM and NMT name
// their LSTMs so, as TensorFlow's MultiRNNCell does); the L layers go to the
// accelerators in order, L / D consecutive layers per device; the embedding and
// everything before the first layer goes with layer 0, the attention, softmax
// and loss with the last layer. A model without such layers gets the first
// accelerator for everything. Accelerators are the gpu-like devices (cuda, sim
// of a gpu); with none, every device.
// Thread safety: free functions of const inputs.
#pragma once

#include <csignal>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"

namespace sim {
class Simulator;
}  // namespace sim

namespace planner::rewards {
struct Evaluation;
}  // namespace planner::rewards

namespace planner::baselines {

struct BaselinePlacement {
  std::string method;               // "single:gpu0", "expert", "etf", "msct", "metis", "scotch"
  std::vector<int> device_of_node;  // of the forward graph's nodes, indexes c.devices
  double planning_s = 0;            // wall seconds MakeBaseline took to make it
};

// The baselines' names on `c`, in the order the search runs them:
// "single:<device>" for each device, "expert", "etf", "msct", "metis", "scotch".
std::vector<std::string> BaselineMethods(const cluster::Cluster& c);

// m-SCT with its relaxation solved by GLPK's dual simplex instead of the
// primal (msct.h): faster on large models, another optimum, so other
// favourite children. MakeBaseline makes it by name; the search does not run it.
inline constexpr char kMsctDual[] = "msct:dual";

// Ok when MakeBaseline knows `method` on `c` (one of BaselineMethods(c), or
// kMsctDual); else the error it gives, listing the names. Needs no costs, so a
// command can check a name before building them.
graph::Status CheckBaselineMethod(const std::string& method, const cluster::Cluster& c);

// The placement of one method. "etf", "msct", "metis" and "scotch" need `costs` (a simulator of the
// training graph built from `forward` on `c`); without them, or when they cannot time an op, it is
// an error saying why. An unknown name is an error listing the names. `stop` (may be null): once
// set, m-SCT's linear program is abandoned, an error (msct.h; the others take under a second).
graph::Result<BaselinePlacement> MakeBaseline(const std::string& method,
                                              const graph::Graph& forward,
                                              const cluster::Cluster& c,
                                              const sim::Simulator* costs,
                                              const volatile std::sig_atomic_t* stop = nullptr);

// A baseline's line in the logs of `planner baseline` and `planner search`:
// "  etf              260.832 ms (planned in 0.41 s)", or the evaluation's failure.
std::string DescribeBaseline(const BaselinePlacement& b, const rewards::Evaluation& e);

// The expert's placement alone.
BaselinePlacement ExpertPlacement(const graph::Graph& forward, const cluster::Cluster& c);

}  // namespace planner::baselines
