// Gradient rules: for each op type, the ops that compute its inputs' gradients
// from its outputs' gradients, written with TensorFlow's own gradient ops and
// semantics (ReluGrad, Conv2DBackpropInput, MaxPoolGrad, ...), so a training
// graph reads like one TensorFlow would build and kernels follow TF's contracts.
//
// One table, in gradients.cc. Rules rely on the forward graph's static shapes.
// Thread safety: the table is immutable; a GraphBuilder is single-threaded.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "graph/graph.h"

namespace graph {

// Appends nodes to a graph under construction, keeping names unique. Nodes added
// while a scope is set are named under its prefix, colocated with its node
// (TensorFlow's "_class: loc:@node") and given its device.
class GraphBuilder {
 public:
  explicit GraphBuilder(std::vector<NodeSpec> specs);

  void SetScope(const std::string& prefix, const std::string& colocate_with,
                const std::string& device);
  // Returns the new node's name (its output 0).
  std::string Add(const std::string& op, const std::string& name, std::vector<std::string> inputs,
                  AttrMap attrs = {});
  std::string IntConst(const std::string& name, const std::vector<int64_t>& values,
                       bool scalar = false);
  std::string FloatConst(const std::string& name, float value);
  std::vector<NodeSpec> Release() { return std::move(specs_); }

 private:
  std::string Unique(const std::string& name);

  std::vector<NodeSpec> specs_;
  std::unordered_set<std::string> names_;
  std::string prefix_, colocate_with_, device_;
};

// What a gradient rule sees: the forward node (shapes inferred), the gradient
// tensor of each of its outputs ("" when that output has none), and a builder.
struct GradContext {
  const Graph& g;
  NodeId id;
  std::vector<std::string> dy;
  GraphBuilder& b;

  const Node& node() const { return g.node(id); }
  std::string x(int i) const { return g.TensorName(node().inputs[i]); }
  std::string y(int i = 0) const { return g.TensorName({id, i}); }
  const Shape& x_shape(int i) const;
  const Shape& y_shape(int i = 0) const { return node().output_shapes[i]; }
  // The value of input i when it is produced by a Const or shape inference
  // evaluated it (axes, paddings, multiples computed from shapes).
  const Tensor* x_const(int i) const;
  Status Error(const std::string& msg) const;
};

// Sets dx[i] to the gradient of input i, or leaves it "" when input i gets none.
using GradFn = Status (*)(GradContext& c, std::vector<std::string>* dx);

// nullptr when the op has no gradient rule.
const GradFn* FindGradient(const std::string& op);
std::vector<std::string> GradientRuleOps();

}  // namespace graph
