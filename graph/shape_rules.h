// Internal to graph/: what a shape rule sees and the rule functions the table in
// shape_inference.cc is built from.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/shape_inference.h"

namespace graph {

// A rule's view of one node: input dtypes, shapes and (when known) constant values;
// the rule sets every output's dtype and shape and, optionally, its value.
class InferenceContext {
 public:
  InferenceContext(const Node& node, std::vector<const Node*> in_nodes,
                   std::vector<DType> in_dtypes, std::vector<const Shape*> in_shapes,
                   std::vector<const Tensor*> in_values, const InferenceOptions& opts)
      : node_(node),
        in_nodes_(std::move(in_nodes)),
        in_dtypes_(std::move(in_dtypes)),
        in_shapes_(std::move(in_shapes)),
        in_values_(std::move(in_values)),
        opts_(opts) {}

  const Node& node() const { return node_; }
  // The node producing input i (to follow a resource handle to its variable).
  const Node* input_node(int i) const { return in_nodes_[i]; }
  const InferenceOptions& options() const { return opts_; }
  int num_inputs() const { return static_cast<int>(in_shapes_.size()); }
  const Shape& in(int i) const { return *in_shapes_[i]; }
  DType dtype(int i) const { return in_dtypes_[i]; }
  const Tensor* value(int i) const { return in_values_[i]; }
  // Input i's value as integers, if it is a known integer tensor.
  std::optional<std::vector<int64_t>> ints(int i) const;

  Status RequireInputs(int n) const;
  Status Error(const std::string& msg) const;

  void set_output(int i, DType t, Shape s);
  // Records a constant value; only small integer tensors are kept.
  void set_value(int i, Tensor t);
  void set_int_value(int i, DType t, Shape s, const std::vector<int64_t>& vals);
  // Output dtype: the "T" attr, else input 0's dtype.
  DType t_attr() const;

  std::vector<DType> out_dtypes;
  std::vector<Shape> out_shapes;
  std::vector<std::optional<Tensor>> out_values;
  bool bound_batch = false;  // set by the Placeholder rule when it applied options().batch

 private:
  const Node& node_;
  std::vector<const Node*> in_nodes_;
  std::vector<DType> in_dtypes_;
  std::vector<const Shape*> in_shapes_;  // into the producers' outputs
  std::vector<const Tensor*> in_values_;
  const InferenceOptions& opts_;
};

using ShapeFn = Status (*)(InferenceContext&);

// Limits on what a file may ask for, checked before anything is allocated.
constexpr int64_t kMaxRank = 254;         // TensorFlow's own limit
constexpr int64_t kMaxOutputs = 1 << 16;  // outputs of one node (Split, Unpack, ...)

// Dimension arithmetic on sizes read from files; false on int64 overflow.
inline bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

// What a rule outputs when only the rank is known: same rank as `s`, every
// dimension unknown (or unknown rank).
inline Shape SameRankUnknown(const Shape& s) {
  return s.known_rank() ? Shape::UnknownDims(s.rank()) : Shape();
}

// Unknown dimensions for a rank given by a shape vector's length; unknown rank
// when that length is not a plausible rank.
inline Shape UnknownDimsOfRank(int64_t rank) {
  return rank >= 0 && rank <= kMaxRank ? Shape::UnknownDims(static_cast<int>(rank)) : Shape();
}

// Broadcasts two shapes NumPy-style; unknown dimensions stay unknown.
Result<Shape> BroadcastShapes(const Shape& a, const Shape& b);
// Normalises a possibly negative axis against `rank`; error if out of range.
Result<int> NormalizeAxis(int64_t axis, int rank);
// Whether a tensor of shape `s` is small enough for a rule to evaluate its
// values (InferenceOptions::max_constant_elements; a fully defined shape).
bool EvaluableSize(const Shape& s, const InferenceContext& c);

// nn rules (shape_rules_nn.cc)
Status ConvRule(InferenceContext& c);
Status DepthwiseConvRule(InferenceContext& c);
Status Conv3DRule(InferenceContext& c);
Status PoolRule(InferenceContext& c);
Status Pool3DRule(InferenceContext& c);
// _MaxPoolWithIndices: MaxPool's output, and int64 indices of the same shape.
Status PoolWithIndicesRule(InferenceContext& c);
Status MatMulRule(InferenceContext& c);
Status BatchMatMulRule(InferenceContext& c);
Status FusedBatchNormRule(InferenceContext& c);
Status FusedBatchNormGradRule(InferenceContext& c);
Status ResizeRule(InferenceContext& c);
Status SoftmaxXentRule(InferenceContext& c);
Status DepthToSpaceRule(InferenceContext& c);
Status SpaceToDepthRule(InferenceContext& c);
Status TopKRule(InferenceContext& c);
Status EinsumRule(InferenceContext& c);
Status BiasAddGradRule(InferenceContext& c);
Status ApplyUpdateRule(InferenceContext& c);

// elementwise and source rules (shape_rules_array.cc)
Status UnaryRule(InferenceContext& c);
Status BinaryRule(InferenceContext& c);
Status CompareRule(InferenceContext& c);
Status AddNRule(InferenceContext& c);
Status SelectRule(InferenceContext& c);
Status CastRule(InferenceContext& c);
Status ConstRule(InferenceContext& c);
Status PlaceholderRule(InferenceContext& c);
Status VariableRule(InferenceContext& c);
Status VarHandleRule(InferenceContext& c);
Status NoOutputRule(InferenceContext& c);
Status IdentityRule(InferenceContext& c);
Status IdentityNRule(InferenceContext& c);
Status ReadVariableRule(InferenceContext& c);
Status ScalarLossRule(InferenceContext& c);
Status ShapeRule(InferenceContext& c);
Status SizeRule(InferenceContext& c);
Status RankRule(InferenceContext& c);
// The output's shape is the value of integer input K (gradient ops that are given
// the shape they must produce: Conv2DBackpropInput, AvgPoolGrad, ...); its type
// is attr "T", else input D's (-1: the last input, the gradient these ops take
// last; ScatterNd's is its updates, input 1).
template <int K, int D = -1>
Status ShapeFromValueRule(InferenceContext& c);
// The output has input K's shape (ResizeBilinearGrad: the original image's).
template <int K>
Status SameAsInputRule(InferenceContext& c);
// array rules (shape_rules_array.cc)
Status ReshapeRule(InferenceContext& c);
Status TransposeRule(InferenceContext& c);
Status ExpandDimsRule(InferenceContext& c);
Status SqueezeRule(InferenceContext& c);
Status ConcatRule(InferenceContext& c);
Status PackRule(InferenceContext& c);
Status UnpackRule(InferenceContext& c);
Status SplitRule(InferenceContext& c);
Status SplitVRule(InferenceContext& c);
Status SliceRule(InferenceContext& c);
Status StridedSliceRule(InferenceContext& c);
Status PadRule(InferenceContext& c);
Status TileRule(InferenceContext& c);
Status FillRule(InferenceContext& c);
Status RandomUniformRule(InferenceContext& c);
Status RangeRule(InferenceContext& c);
// MirrorPadGrad(grad, paddings): the padded gradient less its paddings.
Status MirrorPadGradRule(InferenceContext& c);
// indexing and reduction rules (shape_rules_index.cc)
// UnsortedSegmentSum(data, segment_ids, num_segments): [num_segments] + data's
// dimensions after those of segment_ids.
Status UnsortedSegmentSumRule(InferenceContext& c);
Status GatherRule(InferenceContext& c);
Status GatherNdRule(InferenceContext& c);
Status ReductionRule(InferenceContext& c);
Status ArgMinMaxRule(InferenceContext& c);
Status OneHotRule(InferenceContext& c);
Status BroadcastToRule(InferenceContext& c);
Status SparseToDenseRule(InferenceContext& c);
Status SpaceBatchRule(InferenceContext& c);

}  // namespace graph
