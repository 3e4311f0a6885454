// Per-op cost features: forward FLOPs, bytes read and written, parameter bytes.
//
// Computed from inferred shapes (run InferShapes first) by one table of per-op
// FLOP rules in cost.cc; conventions (what counts as a FLOP) are in docs/costs.md.
// Thread safety: pure functions of a const Graph.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace graph {

struct OpCost {
  double flops = 0;           // floating-point operations of one execution
  int64_t bytes_read = 0;     // all data inputs
  int64_t bytes_written = 0;  // all outputs
  // Parameter bytes: for a parameter node (Const/Variable), its own size; for
  // any other op, the bytes of the parameters it reads (a conv's filter, a bias).
  int64_t param_bytes = 0;
  bool known = true;  // false: no FLOP rule for the op, or shapes unknown
};

// Trainable parameters of an imported graph are its floating-point constants and
// variables (what training updates once gradients are added).
bool IsTrainableParameter(const Node& n);

// The trainable parameters of `g`, per node: in a graph with variables (a TF1
// training graph) only the variables, as in TensorFlow, so its constants (a
// forget bias, a zero state) stay constant; in a graph without any (a frozen or
// converted inference graph) its floating-point constants too.
std::vector<char> TrainableParameters(const Graph& g);

// Bytes of one output; -1 when its shape or dtype size is unknown.
int64_t OutputBytes(const Node& n, int index);

// One OpCost per node, indexed by NodeId.
std::vector<OpCost> ComputeCosts(const Graph& g);

bool HasCostRule(const std::string& op);

}  // namespace graph
