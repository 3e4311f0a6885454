// Shape inference: fills every node's output dtypes and shapes.
//
// Rules live in one table keyed by op type (shape_inference.cc). Shape-carrying
// tensors (Reshape targets, paddings, axes, sizes) are evaluated as constants when
// their inputs are known, including Shape -> StridedSlice -> Pack chains, so
// imported models get fully static shapes. An op without a rule, or whose rule
// rejects its inputs, gets unknown outputs and is reported; it is never fatal.
// Thread safety: mutates the graph passed in; no global mutable state.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace graph {

// The largest batch and input size taken, from the command line
// (frontend/model_loading.cc) or from a peer (wire/model.cc).
constexpr int64_t kMaxBatch = int64_t{1} << 20;
constexpr int64_t kMaxInputSize = int64_t{1} << 30;

struct InferenceOptions {
  // Placeholders whose leading dimension is unknown (-1) get this batch size, so
  // models exported with a free batch dimension still get static shapes.
  int64_t batch = 1;
  // The batch was asked for (--batch): frontend::LoadModel then refuses a
  // model whose inputs' leading dimensions are all fixed at another size,
  // which `batch` would silently not change.
  bool batch_given = false;
  // Shapes given for named placeholders (--input-shape), which replace their
  // declared shapes; `batch` does not apply to them. The caller checks that the
  // names are placeholders and the shapes fit their declarations
  // (CheckInputShapes).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Integer tensors up to this many elements are evaluated as constants.
  int64_t max_constant_elements = 1 << 16;
};

struct InferenceReport {
  std::vector<std::string> unknown_ops;     // op types with no rule, sorted, unique
  std::vector<NodeId> nodes_without_rule;   // nodes of those op types
  std::vector<std::string> problems;        // one line per node a rule rejected
  std::vector<NodeId> unknown_shape_nodes;  // nodes with an output not fully static
  std::vector<NodeId> bound_placeholders;   // placeholders given `batch`
};

InferenceReport InferShapes(Graph& g, const InferenceOptions& opts = {});

// Checks opts.input_shapes against `g`: each name is a Placeholder of the graph,
// and each given shape has its declared rank and agrees with its known
// dimensions. The error names the input, its declared shape and the inputs.
Status CheckInputShapes(const Graph& g, const InferenceOptions& opts);

// The first Placeholder whose shape is not fully static after inference, or -1.
NodeId FirstUnknownInput(const Graph& g);

// Whether the table has a rule for `op`.
bool HasShapeRule(const std::string& op);
// Every op type the table has a rule for.
std::vector<std::string> ShapeRuleOps();

}  // namespace graph
