// Internal to graph/: the helpers gradient rules share and the rules defined
// outside gradients.cc (gradient_rules_math.cc: elementwise ops, activations,
// fused contractions' epilogues, reductions, Cumsum, Einsum;
// gradient_rules_array.cc: array and image ops). The one table that maps op
// types to rules stays in gradients.cc.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "graph/fused_ops.h"
#include "graph/gradients.h"

namespace graph {

// {"T": the forward node's T (float by default)}.
AttrMap TAttr(const GradContext& c);
// TAttr plus the named attributes of the forward node (strides, padding, ...).
AttrMap WithAttrs(const GradContext& c, std::initializer_list<const char*> keys);
// Sums a gradient of shape `from` down to `to` over the axes NumPy-style
// broadcasting expanded, then restores `to`'s exact shape.
std::string ReduceTo(GradContext& c, const std::string& grad, const Shape& from, const Shape& to);
std::string ReshapeTo(GradContext& c, const std::string& grad, const Shape& s);
// ZerosLike(like), for outputs or branches that get no gradient.
std::string ZerosLike(GradContext& c, const std::string& like);
// The gradients of every output concatenated along `axis` (zeros for an output
// that has none): the gradient of a split's input.
std::string ConcatOutputGradients(GradContext& c, const std::string& axis);
// The gradients of both operands of a product of `op` (MatMul or BatchMatMulV2,
// transposed per attr_a/attr_b) given the gradient `g` of its output.
void ProductGradient(GradContext& c, const std::string& g, std::vector<std::string>* dx,
                     const char* op, const char* attr_a, const char* attr_b);

// The gradient of a fused contraction's pre-activation sum z (product plus bias)
// from the gradient `g` of its output. Activations whose derivative the output
// gives (Relu, Relu6, Elu, Sigmoid, Tanh, LeakyRelu with alpha >= 0) read the
// output; the others (Prelu, Gelu) recompute z with the same op fused with
// BiasAdd alone, as TensorFlow keeps the unfused op's input alive. Prelu's alpha
// gets its gradient in dx[f.alpha_input].
std::string FusedEpilogueGradient(GradContext& c, const FusedOps& f, const std::string& g,
                                  std::vector<std::string>* dx);

// gradient_rules_math.cc
Status EluGradient(GradContext& c, std::vector<std::string>* dx);
Status SeluGradient(GradContext& c, std::vector<std::string>* dx);
Status LeakyReluGradient(GradContext& c, std::vector<std::string>* dx);
Status SoftplusGradient(GradContext& c, std::vector<std::string>* dx);
Status SoftsignGradient(GradContext& c, std::vector<std::string>* dx);
Status ReciprocalGradient(GradContext& c, std::vector<std::string>* dx);
Status ErfGradient(GradContext& c, std::vector<std::string>* dx);
Status SinGradient(GradContext& c, std::vector<std::string>* dx);
Status CosGradient(GradContext& c, std::vector<std::string>* dx);
Status TanGradient(GradContext& c, std::vector<std::string>* dx);
Status AtanGradient(GradContext& c, std::vector<std::string>* dx);
Status Log1pGradient(GradContext& c, std::vector<std::string>* dx);
Status Expm1Gradient(GradContext& c, std::vector<std::string>* dx);
Status LogSoftmaxGradient(GradContext& c, std::vector<std::string>* dx);
Status L2LossGradient(GradContext& c, std::vector<std::string>* dx);
Status FloorModGradient(GradContext& c, std::vector<std::string>* dx);
Status PowGradient(GradContext& c, std::vector<std::string>* dx);
Status Atan2Gradient(GradContext& c, std::vector<std::string>* dx);
Status DivNoNanGradient(GradContext& c, std::vector<std::string>* dx);
Status PreluGradient(GradContext& c, std::vector<std::string>* dx);
Status ClipByValueGradient(GradContext& c, std::vector<std::string>* dx);
Status SelectGradient(GradContext& c, std::vector<std::string>* dx);
Status FusedMatMulGradient(GradContext& c, std::vector<std::string>* dx);
Status MinMaxReductionGradient(GradContext& c, std::vector<std::string>* dx);
Status ProdGradient(GradContext& c, std::vector<std::string>* dx);
Status CumsumGradient(GradContext& c, std::vector<std::string>* dx);
Status CumprodGradient(GradContext& c, std::vector<std::string>* dx);
Status EinsumGradient(GradContext& c, std::vector<std::string>* dx);

// gradient_rules_array.cc
Status TransposeGradient(GradContext& c, std::vector<std::string>* dx);
Status DepthToSpaceGradient(GradContext& c, std::vector<std::string>* dx);
Status SpaceToDepthGradient(GradContext& c, std::vector<std::string>* dx);
Status SpaceToBatchGradient(GradContext& c, std::vector<std::string>* dx);
Status BatchToSpaceGradient(GradContext& c, std::vector<std::string>* dx);
Status TopKGradient(GradContext& c, std::vector<std::string>* dx);
Status MirrorPadGradient(GradContext& c, std::vector<std::string>* dx);
Status ResizeNearestNeighborGradient(GradContext& c, std::vector<std::string>* dx);
Status TileGradient(GradContext& c, std::vector<std::string>* dx);
Status SliceGradient(GradContext& c, std::vector<std::string>* dx);
Status SplitVGradient(GradContext& c, std::vector<std::string>* dx);
Status BroadcastToGradient(GradContext& c, std::vector<std::string>* dx);
Status FillGradient(GradContext& c, std::vector<std::string>* dx);
Status ScatterNdGradient(GradContext& c, std::vector<std::string>* dx);
Status SparseToDenseGradient(GradContext& c, std::vector<std::string>* dx);

}  // namespace graph
