#include "sim/rewrite.h"

namespace sim {

namespace {

bool SameWindow(const graph::Node& pool, const graph::Node& grad) {
  for (const char* key : {"ksize", "strides"}) {
    const std::vector<int64_t>* a = pool.attr_ints(key);
    const std::vector<int64_t>* b = grad.attr_ints(key);
    if (!a || !b || *a != *b) return false;
  }
  // An EXPLICIT-padded pool pairs only with a gradient that carries the same
  // paddings (ours does; TF's own gradient graphs do not).
  const std::string padding = pool.attr_string("padding", "");
  if (padding == "EXPLICIT") {
    const std::vector<int64_t>* a = pool.attr_ints("explicit_paddings");
    const std::vector<int64_t>* b = grad.attr_ints("explicit_paddings");
    if (!a || !b || *a != *b) return false;
  }
  return padding == grad.attr_string("padding", "") &&
         pool.attr_string("data_format", "NHWC") == grad.attr_string("data_format", "NHWC");
}

}  // namespace

graph::Graph RewriteForExecution(const graph::Graph& g) {
  graph::Graph out = g;
  std::vector<char> pool_rewritten(g.size(), 0);
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const graph::Node& grad = g.node(id);
    if (grad.op != "MaxPoolGrad" || grad.inputs.size() != 3) continue;
    const graph::TensorRef y = grad.inputs[1];
    const graph::Node& pool = g.node(y.node);
    if (pool.op != "MaxPool" || y.index != 0 || pool.inputs.size() != 1 ||
        !(pool.inputs[0] == grad.inputs[0]) || !SameWindow(pool, grad)) {
      continue;
    }
    if (!pool_rewritten[y.node]) {
      pool_rewritten[y.node] = 1;
      graph::Node& p = out.mutable_node(y.node);
      p.op = "_MaxPoolWithIndices";
      if (p.num_outputs() == 1) {
        p.output_dtypes.push_back(graph::DType::kInt64);
        p.output_shapes.push_back(p.output_shapes[0]);
      }
    }
    graph::Node& r = out.mutable_node(id);
    r.op = "_MaxPoolGradWithIndices";
    r.inputs = {grad.inputs[0], grad.inputs[2], {y.node, 1}};
  }
  return out;
}

}  // namespace sim
