// Training graphs: a forward graph plus the ops of one training step, i.e. the
// gradients of a scalar loss with respect to every trainable parameter (by the
// rules in gradients.h) and one update op per parameter.
//
// Parameters are the graph's floating-point Const and Variable nodes
// (IsTrainableParameter); a Const parameter becomes state of the training graph,
// initialised with its value. Gradient and update ops are colocated with the op
// they differentiate (TensorFlow's "_class: loc:@op") and carry its device.
// Thread safety: pure function of its inputs.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/shape_inference.h"

namespace graph {

struct TrainingOptions {
  // "sgd" (ApplyGradientDescent) or "momentum" (ApplyMomentum, one accumulator
  // VariableV2 per parameter).
  std::string optimizer = "sgd";
  float learning_rate = 0.01f;  // per step
  float momentum = 0.9f;        // "momentum" only
  // The scalar float node to minimise. Empty: a node named "loss" if the graph
  // has one, else the synthetic loss (see BuildTrainingGraph).
  std::string loss;
};

// How many nodes each part of a training graph has.
struct TrainingCounts {
  int forward_nodes = 0;      // nodes of the forward graph
  int loss_nodes = 0;         // nodes added for a synthetic loss
  int backward_nodes = 0;     // gradient nodes
  int update_nodes = 0;       // update ops, their constants and accumulators
  int unused_parameters = 0;  // parameters the loss does not depend on
  int total() const { return forward_nodes + loss_nodes + backward_nodes + update_nodes; }
};

// The nodes of a training graph before they are linked and checked.
struct TrainingPlan {
  std::vector<NodeSpec> nodes;  // forward nodes first, in their order
  std::string loss;             // name of the loss node
  bool synthetic_loss = false;
  std::vector<std::string> parameters;  // parameters that receive an update
  std::vector<std::string> updates;     // one per parameter, same order
  TrainingCounts counts;
};

struct TrainingGraph {
  Graph graph;  // shapes inferred
  std::string loss;
  bool synthetic_loss = false;
  std::vector<NodeId> parameters;  // parameters that receive an update
  std::vector<NodeId> updates;     // the step is done when all of these have run
  TrainingCounts counts;
};

// Builds the training graph of `forward` (whose shapes need not be inferred yet).
// Without a loss node, the synthetic loss is the sum over the graph's floating
// outputs (tensors no node reads) of mean(square(output)): every output then
// depends on training, as a real loss would, at the cost of two small ops each.
// Fails (listing them all) when an op on a parameter's path has no gradient rule,
// or when shapes on that path are not static.
Result<TrainingGraph> BuildTrainingGraph(const Graph& forward, const TrainingOptions& opts,
                                         const InferenceOptions& inference = {});

// The same nodes without linking them into a Graph, ordering updates after the
// readers of their parameters, or checking shapes: what reporting needs (op
// counts) at a fraction of the cost on large graphs.
Result<TrainingPlan> PlanTrainingGraph(const Graph& forward, const TrainingOptions& opts,
                                       const InferenceOptions& inference = {});

}  // namespace graph
