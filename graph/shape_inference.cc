#include "graph/shape_inference.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>

#include "graph/shape_rules.h"

namespace graph {

namespace {

// The one table of shape rules, keyed by op type.
const std::unordered_map<std::string_view, ShapeFn>& RuleTable() {
  static const auto* table = new std::unordered_map<std::string_view, ShapeFn>{
      // sources
      {"Const", ConstRule},
      {"Placeholder", PlaceholderRule},
      {"PlaceholderWithDefault", PlaceholderRule},
      {"VariableV2", VariableRule},
      {"Variable", VariableRule},
      {"VarHandleOp", VarHandleRule},
      {"ReadVariableOp", ReadVariableRule},
      {"NoOp", NoOutputRule},
      {"AssignVariableOp", NoOutputRule},
      {"AssignAddVariableOp", NoOutputRule},
      {"AssignSubVariableOp", NoOutputRule},
      // pass-through
      {"Identity", IdentityRule},
      {"StopGradient", IdentityRule},
      {"PreventGradient", IdentityRule},
      {"Snapshot", IdentityRule},
      {"CheckNumerics", IdentityRule},
      {"IdentityN", IdentityNRule},
      // unary elementwise
      {"Relu", UnaryRule},
      {"Relu6", UnaryRule},
      {"Elu", UnaryRule},
      {"Selu", UnaryRule},
      {"LeakyRelu", UnaryRule},
      {"Sigmoid", UnaryRule},
      {"Tanh", UnaryRule},
      {"Softplus", UnaryRule},
      {"Softsign", UnaryRule},
      {"Abs", UnaryRule},
      {"Neg", UnaryRule},
      {"Sqrt", UnaryRule},
      {"Rsqrt", UnaryRule},
      {"Square", UnaryRule},
      {"Exp", UnaryRule},
      {"Log", UnaryRule},
      {"Log1p", UnaryRule},
      {"Expm1", UnaryRule},
      {"Floor", UnaryRule},
      {"Ceil", UnaryRule},
      {"Round", UnaryRule},
      {"Rint", UnaryRule},
      {"Sign", UnaryRule},
      {"Reciprocal", UnaryRule},
      {"Inv", UnaryRule},
      {"Erf", UnaryRule},
      {"Sin", UnaryRule},
      {"Cos", UnaryRule},
      {"Tan", UnaryRule},
      {"Atan", UnaryRule},
      {"ZerosLike", UnaryRule},
      {"OnesLike", UnaryRule},
      {"LogicalNot", UnaryRule},
      {"Softmax", UnaryRule},
      {"LogSoftmax", UnaryRule},
      {"BiasAdd", UnaryRule},
      {"BiasAddV1", UnaryRule},
      {"Prelu", UnaryRule},
      {"ClipByValue", UnaryRule},
      {"LRN", UnaryRule},
      {"Cumsum", UnaryRule},
      {"Cumprod", UnaryRule},
      {"MaxPoolGrad", UnaryRule},
      {"MaxPool3DGrad", UnaryRule},
      {"_MaxPoolGradWithIndices", UnaryRule},
      // binary elementwise with broadcasting
      {"Add", BinaryRule},
      {"AddV2", BinaryRule},
      {"Sub", BinaryRule},
      {"Mul", BinaryRule},
      {"Div", BinaryRule},
      {"RealDiv", BinaryRule},
      {"DivNoNan", BinaryRule},
      {"FloorDiv", BinaryRule},
      {"TruncateDiv", BinaryRule},
      {"FloorMod", BinaryRule},
      {"Mod", BinaryRule},
      {"TruncateMod", BinaryRule},
      {"Maximum", BinaryRule},
      {"Minimum", BinaryRule},
      {"Pow", BinaryRule},
      {"SquaredDifference", BinaryRule},
      {"Atan2", BinaryRule},
      {"LogicalAnd", BinaryRule},
      {"LogicalOr", BinaryRule},
      {"Equal", CompareRule},
      {"NotEqual", CompareRule},
      {"Less", CompareRule},
      {"LessEqual", CompareRule},
      {"Greater", CompareRule},
      {"GreaterEqual", CompareRule},
      {"AddN", AddNRule},
      {"Select", SelectRule},
      {"SelectV2", SelectRule},
      {"Cast", CastRule},
      // shapes of tensors
      {"Shape", ShapeRule},
      {"Size", SizeRule},
      {"Rank", RankRule},
      // neural-network ops
      {"Conv2D", ConvRule},
      {"_FusedConv2D", ConvRule},
      {"DepthwiseConv2dNative", DepthwiseConvRule},
      {"FusedDepthwiseConv2dNative", DepthwiseConvRule},
      {"Conv2DBackpropInput", ShapeFromValueRule<0>},
      {"DepthwiseConv2dNativeBackpropInput", ShapeFromValueRule<0>},
      {"Conv2DBackpropFilter", ShapeFromValueRule<1>},
      {"DepthwiseConv2dNativeBackpropFilter", ShapeFromValueRule<1>},
      {"AvgPoolGrad", ShapeFromValueRule<0>},
      {"Conv3D", Conv3DRule},
      {"Conv3DBackpropInputV2", ShapeFromValueRule<0>},
      {"Conv3DBackpropFilterV2", ShapeFromValueRule<1>},
      {"AvgPool3DGrad", ShapeFromValueRule<0>},
      {"MaxPool3D", Pool3DRule},
      {"AvgPool3D", Pool3DRule},
      {"MaxPool", PoolRule},
      {"_MaxPoolWithIndices", PoolWithIndicesRule},
      {"AvgPool", PoolRule},
      {"MatMul", MatMulRule},
      {"_FusedMatMul", MatMulRule},
      {"BatchMatMul", BatchMatMulRule},
      {"BatchMatMulV2", BatchMatMulRule},
      {"BatchMatMulV3", BatchMatMulRule},
      {"FusedBatchNorm", FusedBatchNormRule},
      {"FusedBatchNormV2", FusedBatchNormRule},
      {"FusedBatchNormV3", FusedBatchNormRule},
      {"FusedBatchNormGrad", FusedBatchNormGradRule},
      {"FusedBatchNormGradV2", FusedBatchNormGradRule},
      {"FusedBatchNormGradV3", FusedBatchNormGradRule},
      {"ResizeBilinear", ResizeRule},
      {"ResizeNearestNeighbor", ResizeRule},
      {"ResizeBicubic", ResizeRule},
      {"ResizeArea", ResizeRule},
      {"SoftmaxCrossEntropyWithLogits", SoftmaxXentRule},
      {"SparseSoftmaxCrossEntropyWithLogits", SoftmaxXentRule},
      {"L2Loss", ScalarLossRule},
      {"DepthToSpace", DepthToSpaceRule},
      {"SpaceToDepth", SpaceToDepthRule},
      {"TopKV2", TopKRule},
      {"Einsum", EinsumRule},
      // array manipulation
      {"Reshape", ReshapeRule},
      {"Transpose", TransposeRule},
      {"ExpandDims", ExpandDimsRule},
      {"Squeeze", SqueezeRule},
      {"ConcatV2", ConcatRule},
      {"Concat", ConcatRule},
      {"Pack", PackRule},
      {"Unpack", UnpackRule},
      {"Split", SplitRule},
      {"SplitV", SplitVRule},
      {"Slice", SliceRule},
      {"StridedSlice", StridedSliceRule},
      {"Pad", PadRule},
      {"PadV2", PadRule},
      {"MirrorPad", PadRule},
      {"Tile", TileRule},
      {"Fill", FillRule},
      {"RandomUniform", RandomUniformRule},
      {"Range", RangeRule},
      {"Gather", GatherRule},
      {"UnsortedSegmentSum", UnsortedSegmentSumRule},
      {"GatherV2", GatherRule},
      {"GatherNd", GatherNdRule},
      {"Sum", ReductionRule},
      {"Mean", ReductionRule},
      {"Max", ReductionRule},
      {"Min", ReductionRule},
      {"Prod", ReductionRule},
      {"All", ReductionRule},
      {"Any", ReductionRule},
      {"EuclideanNorm", ReductionRule},
      {"ArgMax", ArgMinMaxRule},
      {"ArgMin", ArgMinMaxRule},
      {"OneHot", OneHotRule},
      {"BroadcastTo", BroadcastToRule},
      {"SparseToDense", SparseToDenseRule},
      {"SpaceToBatchND", SpaceBatchRule},
      {"BatchToSpaceND", SpaceBatchRule},
      // gradient ops (TensorFlow's), emitted by gradients.cc
      {"ReluGrad", UnaryRule},
      {"Relu6Grad", UnaryRule},
      {"SigmoidGrad", UnaryRule},
      {"TanhGrad", UnaryRule},
      {"SqrtGrad", UnaryRule},
      {"RsqrtGrad", UnaryRule},
      {"EluGrad", SameAsInputRule<0>},
      {"SeluGrad", SameAsInputRule<0>},
      {"LeakyReluGrad", SameAsInputRule<0>},
      {"SoftplusGrad", SameAsInputRule<0>},
      {"SoftsignGrad", SameAsInputRule<0>},
      {"ReciprocalGrad", SameAsInputRule<0>},
      {"InvGrad", SameAsInputRule<0>},
      {"MirrorPadGrad", MirrorPadGradRule},
      {"ResizeNearestNeighborGrad", ResizeRule},
      {"BiasAddGrad", BiasAddGradRule},
      {"StridedSliceGrad", ShapeFromValueRule<0>},
      {"ScatterNd", ShapeFromValueRule<2, 1>},
      {"ResizeBilinearGrad", SameAsInputRule<1>},
      // parameter updates: the output is the updated variable
      {"ApplyGradientDescent", ApplyUpdateRule},
      {"ApplyMomentum", ApplyUpdateRule},
  };
  return *table;
}

int64_t ValueKey(NodeId node, int index) { return (static_cast<int64_t>(node) << 20) | index; }

}  // namespace

bool HasShapeRule(const std::string& op) { return RuleTable().count(op) > 0; }

Status CheckInputShapes(const Graph& g, const InferenceOptions& opts) {
  auto inputs = [&] {
    std::string list;
    for (const Node& n : g.nodes()) {
      if (n.op == "Placeholder") list += (list.empty() ? "" : ", ") + n.name;
    }
    return list.empty() ? std::string("none") : list;
  };
  for (const auto& [name, dims] : opts.input_shapes) {
    NodeId id = g.Find(name);
    if (id < 0 || g.node(id).op.rfind("Placeholder", 0) != 0) {
      return InvalidArgument("--input-shape names '" + name +
                             "', which is not an input (inputs: " + inputs() + ")");
    }
    if (std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) {
      return InvalidArgument("--input-shape " + name + ": sizes must be non-negative");
    }
    const AttrValue* a = g.node(id).attr("shape");
    const Shape* declared = a ? a->get<Shape>() : nullptr;
    if (!declared || !declared->known_rank()) continue;
    bool fits = declared->rank() == static_cast<int>(dims.size());
    for (int d = 0; fits && d < declared->rank(); ++d) {
      fits = declared->dim(d) == kUnknownDim || declared->dim(d) == dims[d];
    }
    if (!fits) {
      return InvalidArgument("--input-shape " + name + "=" + Shape(dims).ToString() +
                             " does not fit its declared shape " + declared->ToString());
    }
  }
  return Status::Ok();
}

NodeId FirstUnknownInput(const Graph& g) {
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    if (n.op.rfind("Placeholder", 0) == 0 &&
        (n.output_shapes.empty() || !n.output_shapes[0].FullyDefined())) {
      return id;
    }
  }
  return -1;
}

std::vector<std::string> ShapeRuleOps() {
  std::vector<std::string> ops;
  for (const auto& [op, rule] : RuleTable()) ops.emplace_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

InferenceReport InferShapes(Graph& g, const InferenceOptions& opts) {
  InferenceReport report;
  const auto& table = RuleTable();
  // How many outputs consumers expect: sizes the outputs of ops without a rule.
  std::vector<int> referenced(g.size(), 0);
  for (const Node& n : g.nodes()) {
    for (const TensorRef& in : n.inputs) {
      referenced[in.node] = std::max(referenced[in.node], in.index + 1);
    }
  }
  std::unordered_map<int64_t, Tensor> values;
  std::set<std::string> unknown_ops;
  const Shape unknown;

  for (NodeId id : g.topological_order()) {
    Node& node = g.mutable_node(id);
    const int nin = static_cast<int>(node.inputs.size());
    std::vector<const Node*> in_nodes(nin);
    std::vector<DType> in_dtypes(nin, DType::kInvalid);
    std::vector<const Shape*> in_shapes(nin, &unknown);
    std::vector<const Tensor*> in_values(nin, nullptr);
    for (int i = 0; i < nin; ++i) {
      const TensorRef& ref = node.inputs[i];
      const Node& src = g.node(ref.node);
      in_nodes[i] = &src;
      if (ref.index < src.num_outputs()) {
        in_dtypes[i] = src.output_dtypes[ref.index];
        in_shapes[i] = &src.output_shapes[ref.index];
      } else if (table.count(src.op)) {
        report.problems.push_back("node '" + node.name + "' reads output " +
                                  std::to_string(ref.index) + " of '" + src.name + "', which has " +
                                  std::to_string(src.num_outputs()));
      }
      auto it = values.find(ValueKey(ref.node, ref.index));
      if (it != values.end()) in_values[i] = &it->second;
    }
    InferenceContext ctx(node, std::move(in_nodes), std::move(in_dtypes), std::move(in_shapes),
                         std::move(in_values), opts);
    auto rule = table.find(node.op);
    Status st;
    if (rule == table.end()) {
      unknown_ops.insert(node.op);
      report.nodes_without_rule.push_back(id);
    } else {
      st = rule->second(ctx);
      if (!st.ok()) report.problems.push_back(st.message());
    }
    if (rule == table.end() || !st.ok()) {
      int outputs = std::max(referenced[id], 1);
      ctx.out_dtypes.assign(outputs, node.attr_type("T", node.attr_type("dtype", DType::kInvalid)));
      ctx.out_shapes.assign(outputs, unknown);
      ctx.out_values.assign(outputs, std::nullopt);
    }
    if (ctx.bound_batch) report.bound_placeholders.push_back(id);
    for (size_t i = 0; i < ctx.out_values.size(); ++i) {
      if (ctx.out_values[i]) values.emplace(ValueKey(id, static_cast<int>(i)), *ctx.out_values[i]);
    }
    node.output_values.assign(ctx.out_dtypes.size(), Tensor());
    for (size_t i = 0; i < ctx.out_values.size() && i < node.output_values.size(); ++i) {
      if (ctx.out_values[i]) node.output_values[i] = *ctx.out_values[i];
    }
    node.output_dtypes = std::move(ctx.out_dtypes);
    node.output_shapes = std::move(ctx.out_shapes);
    for (const Shape& s : node.output_shapes) {
      if (!s.FullyDefined()) {
        report.unknown_shape_nodes.push_back(id);
        break;
      }
    }
  }
  report.unknown_ops.assign(unknown_ops.begin(), unknown_ops.end());
  g.set_shapes_inferred(true);
  return report;
}

}  // namespace graph
