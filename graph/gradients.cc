#include "graph/gradients.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "graph/gradient_rules.h"

namespace graph {

// ---- GraphBuilder ----------------------------------------------------------------

GraphBuilder::GraphBuilder(std::vector<NodeSpec> specs) : specs_(std::move(specs)) {
  for (const NodeSpec& s : specs_) names_.insert(s.name);
}

void GraphBuilder::SetScope(const std::string& prefix, const std::string& colocate_with,
                            const std::string& device) {
  prefix_ = prefix;
  colocate_with_ = colocate_with;
  device_ = device;
}

std::string GraphBuilder::Unique(const std::string& name) {
  std::string n = prefix_ + name;
  for (int k = 1; names_.count(n); ++k) n = prefix_ + name + "_" + std::to_string(k);
  names_.insert(n);
  return n;
}

std::string GraphBuilder::Add(const std::string& op, const std::string& name,
                              std::vector<std::string> inputs, AttrMap attrs) {
  NodeSpec s;
  s.name = Unique(name);
  s.op = op;
  s.inputs = std::move(inputs);
  s.device = device_;
  s.attrs = std::move(attrs);
  if (!colocate_with_.empty()) {
    AttrList loc;
    loc.s = {"loc:@" + colocate_with_};
    s.attrs["_class"] = MakeAttr(loc);
  }
  specs_.push_back(std::move(s));
  return specs_.back().name;
}

std::string GraphBuilder::IntConst(const std::string& name, const std::vector<int64_t>& values,
                                   bool scalar) {
  Shape shape = scalar ? Shape::Scalar() : Shape({static_cast<int64_t>(values.size())});
  return Add("Const", name, {},
             {{"dtype", MakeAttr(DType::kInt32)},
              {"value", MakeAttr(Tensor::FromInt64s(DType::kInt32, shape, values))}});
}

std::string GraphBuilder::FloatConst(const std::string& name, float value) {
  std::string bytes(reinterpret_cast<const char*>(&value), sizeof(float));
  return Add("Const", name, {},
             {{"dtype", MakeAttr(DType::kFloat)},
              {"value", MakeAttr(Tensor(DType::kFloat, Shape::Scalar(), std::move(bytes)))}});
}

// ---- GradContext ---------------------------------------------------------------

const Shape& GradContext::x_shape(int i) const {
  const TensorRef& in = node().inputs[i];
  return g.node(in.node).output_shapes[in.index];
}

const Tensor* GradContext::x_const(int i) const {
  const TensorRef& in = node().inputs[i];
  const Node& src = g.node(in.node);
  if (src.op == "Const") {
    const AttrValue* v = src.attr("value");
    return v ? v->get<Tensor>() : nullptr;
  }
  const bool known =
      in.index < static_cast<int>(src.output_values.size()) && src.output_values[in.index].valid();
  return known ? &src.output_values[in.index] : nullptr;
}

Status GradContext::Error(const std::string& msg) const {
  return InvalidArgument("gradient of node '" + node().name + "' (" + node().op + "): " + msg);
}

AttrMap TAttr(const GradContext& c) {
  return {{"T", MakeAttr(c.node().attr_type("T", DType::kFloat))}};
}

AttrMap WithAttrs(const GradContext& c, std::initializer_list<const char*> keys) {
  AttrMap a = TAttr(c);
  for (const char* k : keys) {
    if (const AttrValue* v = c.node().attr(k)) a[k] = *v;
  }
  return a;
}

std::string ReduceTo(GradContext& c, const std::string& grad, const Shape& from, const Shape& to) {
  if (from == to) return grad;
  std::vector<int64_t> axes;
  int lead = from.rank() - to.rank();
  for (int i = 0; i < from.rank(); ++i) {
    int j = i - lead;
    if (j < 0 || (to.dim(j) == 1 && from.dim(i) != 1)) axes.push_back(i);
  }
  std::string sum = grad;
  if (!axes.empty()) {
    sum = c.b.Add("Sum", "Sum", {grad, c.b.IntConst("axes", axes)},
                  {{"T", MakeAttr(DType::kFloat)}, {"keep_dims", MakeAttr(false)}});
  }
  return c.b.Add("Reshape", "Reshape", {sum, c.b.IntConst("shape", to.dims())}, TAttr(c));
}

std::string ReshapeTo(GradContext& c, const std::string& grad, const Shape& s) {
  return c.b.Add("Reshape", "Reshape", {grad, c.b.IntConst("shape", s.dims())}, TAttr(c));
}

std::string ZerosLike(GradContext& c, const std::string& like) {
  return c.b.Add("ZerosLike", "zeros", {like}, TAttr(c));
}

std::string ConcatOutputGradients(GradContext& c, const std::string& axis) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < c.dy.size(); ++i) {
    parts.push_back(!c.dy[i].empty() ? c.dy[i] : ZerosLike(c, c.y(static_cast<int>(i))));
  }
  parts.push_back(axis);
  AttrMap attrs = TAttr(c);
  attrs["N"] = MakeAttr(static_cast<int64_t>(parts.size() - 1));
  attrs["Tidx"] = MakeAttr(DType::kInt32);
  return c.b.Add("ConcatV2", "concat", parts, attrs);
}

void ProductGradient(GradContext& c, const std::string& g, std::vector<std::string>* dx,
                     const char* op, const char* attr_a, const char* attr_b) {
  const bool ta = c.node().attr_bool(attr_a, false), tb = c.node().attr_bool(attr_b, false);
  auto mm = [&](const std::string& a, const std::string& b, bool t_a, bool t_b) {
    AttrMap attrs = TAttr(c);
    attrs[attr_a] = MakeAttr(t_a);
    attrs[attr_b] = MakeAttr(t_b);
    return c.b.Add(op, op, {a, b}, attrs);
  };
  const std::string a = c.x(0), b = c.x(1);
  if (!ta && !tb) {
    (*dx)[0] = mm(g, b, false, true);
    (*dx)[1] = mm(a, g, true, false);
  } else if (!ta && tb) {
    (*dx)[0] = mm(g, b, false, false);
    (*dx)[1] = mm(g, a, true, false);
  } else if (ta && !tb) {
    (*dx)[0] = mm(b, g, false, true);
    (*dx)[1] = mm(a, g, false, false);
  } else {
    (*dx)[0] = mm(b, g, true, true);
    (*dx)[1] = mm(g, a, true, true);
  }
}

namespace {

// ---- rules -----------------------------------------------------------------------

Status PassThrough(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.dy[0];
  return Status::Ok();
}

Status NoGradient(GradContext&, std::vector<std::string>*) { return Status::Ok(); }

Status ReshapeLike(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = ReshapeTo(c, c.dy[0], c.x_shape(0));
  return Status::Ok();
}

template <const char* kOp, bool kOutputFirst>
Status UnaryGradOp(GradContext& c, std::vector<std::string>* dx) {
  // TensorFlow's *Grad ops take (y, dy) for Sigmoid/Tanh/Sqrt/Rsqrt and
  // (dy, features) for Relu/Relu6.
  std::vector<std::string> in = kOutputFirst ? std::vector<std::string>{c.y(), c.dy[0]}
                                             : std::vector<std::string>{c.dy[0], c.y()};
  (*dx)[0] = c.b.Add(kOp, kOp, in, TAttr(c));
  return Status::Ok();
}
constexpr char kSigmoidGrad[] = "SigmoidGrad";
constexpr char kTanhGrad[] = "TanhGrad";
constexpr char kSqrtGrad[] = "SqrtGrad";
constexpr char kRsqrtGrad[] = "RsqrtGrad";
constexpr char kReluGrad[] = "ReluGrad";

Status Relu6Gradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.b.Add("Relu6Grad", "Relu6Grad", {c.dy[0], c.x(0)}, TAttr(c));
  return Status::Ok();
}

Status NegGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.b.Add("Neg", "Neg", {c.dy[0]}, TAttr(c));
  return Status::Ok();
}

Status AbsGradient(GradContext& c, std::vector<std::string>* dx) {
  std::string sign = c.b.Add("Sign", "Sign", {c.x(0)}, TAttr(c));
  (*dx)[0] = c.b.Add("Mul", "Mul", {c.dy[0], sign}, TAttr(c));
  return Status::Ok();
}

Status SquareGradient(GradContext& c, std::vector<std::string>* dx) {
  std::string two_x = c.b.Add("Mul", "Mul", {c.x(0), c.b.FloatConst("two", 2.0f)}, TAttr(c));
  (*dx)[0] = c.b.Add("Mul", "Mul", {c.dy[0], two_x}, TAttr(c));
  return Status::Ok();
}

Status ExpGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.b.Add("Mul", "Mul", {c.dy[0], c.y()}, TAttr(c));
  return Status::Ok();
}

Status LogGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.b.Add("RealDiv", "RealDiv", {c.dy[0], c.x(0)}, TAttr(c));
  return Status::Ok();
}

Status CastGradient(GradContext& c, std::vector<std::string>* dx) {
  DType src = c.node().attr_type("SrcT", DType::kInvalid);
  if (!IsFloating(src)) return Status::Ok();
  (*dx)[0] = c.b.Add(
      "Cast", "Cast", {c.dy[0]},
      {{"SrcT", MakeAttr(c.node().attr_type("DstT", DType::kFloat))}, {"DstT", MakeAttr(src)}});
  return Status::Ok();
}

Status AddGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = ReduceTo(c, c.dy[0], c.y_shape(), c.x_shape(0));
  (*dx)[1] = ReduceTo(c, c.dy[0], c.y_shape(), c.x_shape(1));
  return Status::Ok();
}

Status SubGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = ReduceTo(c, c.dy[0], c.y_shape(), c.x_shape(0));
  std::string neg = c.b.Add("Neg", "Neg", {c.dy[0]}, TAttr(c));
  (*dx)[1] = ReduceTo(c, neg, c.y_shape(), c.x_shape(1));
  return Status::Ok();
}

Status MulGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] =
      ReduceTo(c, c.b.Add("Mul", "Mul", {c.dy[0], c.x(1)}, TAttr(c)), c.y_shape(), c.x_shape(0));
  (*dx)[1] =
      ReduceTo(c, c.b.Add("Mul", "Mul", {c.x(0), c.dy[0]}, TAttr(c)), c.y_shape(), c.x_shape(1));
  return Status::Ok();
}

Status DivGradient(GradContext& c, std::vector<std::string>* dx) {
  std::string da = c.b.Add("RealDiv", "RealDiv", {c.dy[0], c.x(1)}, TAttr(c));
  std::string num = c.b.Add("Mul", "Mul", {c.dy[0], c.x(0)}, TAttr(c));
  std::string den = c.b.Add("Square", "Square", {c.x(1)}, TAttr(c));
  std::string q = c.b.Add("RealDiv", "RealDiv", {num, den}, TAttr(c));
  (*dx)[0] = ReduceTo(c, da, c.y_shape(), c.x_shape(0));
  (*dx)[1] = ReduceTo(c, c.b.Add("Neg", "Neg", {q}, TAttr(c)), c.y_shape(), c.x_shape(1));
  return Status::Ok();
}

// Maximum and Minimum send the gradient to the input that was chosen (the first
// on ties, as TensorFlow does).
template <bool kMax>
Status MinMaxGradient(GradContext& c, std::vector<std::string>* dx) {
  std::string mask =
      c.b.Add(kMax ? "GreaterEqual" : "LessEqual", "mask", {c.x(0), c.x(1)}, TAttr(c));
  std::string zeros = c.b.Add("ZerosLike", "zeros", {c.dy[0]}, TAttr(c));
  std::string a = c.b.Add("SelectV2", "SelectV2", {mask, c.dy[0], zeros}, TAttr(c));
  std::string b = c.b.Add("SelectV2", "SelectV2", {mask, zeros, c.dy[0]}, TAttr(c));
  (*dx)[0] = ReduceTo(c, a, c.y_shape(), c.x_shape(0));
  (*dx)[1] = ReduceTo(c, b, c.y_shape(), c.x_shape(1));
  return Status::Ok();
}

Status SquaredDifferenceGradient(GradContext& c, std::vector<std::string>* dx) {
  std::string diff = c.b.Add("Sub", "Sub", {c.x(0), c.x(1)}, TAttr(c));
  std::string two = c.b.Add("Mul", "Mul", {diff, c.b.FloatConst("two", 2.0f)}, TAttr(c));
  std::string g = c.b.Add("Mul", "Mul", {c.dy[0], two}, TAttr(c));
  (*dx)[0] = ReduceTo(c, g, c.y_shape(), c.x_shape(0));
  (*dx)[1] = ReduceTo(c, c.b.Add("Neg", "Neg", {g}, TAttr(c)), c.y_shape(), c.x_shape(1));
  return Status::Ok();
}

Status AddNGradient(GradContext& c, std::vector<std::string>* dx) {
  for (auto& d : *dx) d = c.dy[0];
  return Status::Ok();
}

Status BiasAddGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.dy[0];
  (*dx)[1] = c.b.Add("BiasAddGrad", "BiasAddGrad", {c.dy[0]}, WithAttrs(c, {"data_format"}));
  return Status::Ok();
}

// Batch norm: TF's FusedBatchNormGrad of the same version. In training mode it
// is fed the forward op's saved statistics (reserve spaces); in inference mode
// (is_training false: an exported eval-mode model), the population mean and
// variance the forward op read, as TF's _FusedBatchNormGrad does. The
// statistics get no gradient (TF's rule ignores them too).
Status FusedBatchNormGradient(GradContext& c, std::vector<std::string>* dx) {
  const bool training = c.node().attr_bool("is_training", true);
  const std::string op = c.node().op == "FusedBatchNormV3"   ? "FusedBatchNormGradV3"
                         : c.node().op == "FusedBatchNormV2" ? "FusedBatchNormGradV2"
                                                             : "FusedBatchNormGrad";
  std::vector<std::string> in = {c.dy[0], c.x(0), c.x(1), training ? c.y(3) : c.x(3),
                                 training ? c.y(4) : c.x(4)};
  if (op == "FusedBatchNormGradV3") in.push_back(c.y(5));
  AttrMap attrs = WithAttrs(c, {"T", "U", "epsilon", "data_format", "is_training"});
  std::string g = c.b.Add(op, op, in, attrs);
  (*dx)[0] = g;
  (*dx)[1] = g + ":1";
  (*dx)[2] = g + ":2";
  return Status::Ok();
}

Status MatMulGradient(GradContext& c, std::vector<std::string>* dx) {
  ProductGradient(c, c.dy[0], dx, "MatMul", "transpose_a", "transpose_b");
  return Status::Ok();
}

// BatchMatMulV2/V3 (real values: the adjoint is the transpose): the MatMul rule
// per batch; where a batch dimension was broadcast, the gradient is summed over
// it (TensorFlow's _BatchMatMulV2Grad).
Status BatchMatMulGradient(GradContext& c, std::vector<std::string>* dx) {
  const Shape &sa = c.x_shape(0), &sb = c.x_shape(1), &sy = c.y_shape();
  if (!sa.FullyDefined() || !sb.FullyDefined() || !sy.FullyDefined() || sa.rank() < 2 ||
      sb.rank() < 2) {
    return c.Error("gradient needs static operand shapes of rank >= 2, got " + sa.ToString() +
                   " and " + sb.ToString());
  }
  ProductGradient(c, c.dy[0], dx, "BatchMatMulV2", "adj_x", "adj_y");
  // Each product has the output's batch dimensions and its operand's matrix.
  for (int i = 0; i < 2; ++i) {
    const Shape& s = i == 0 ? sa : sb;
    std::vector<int64_t> full(sy.dims().begin(), sy.dims().end() - 2);
    full.insert(full.end(), s.dims().end() - 2, s.dims().end());
    (*dx)[i] = ReduceTo(c, (*dx)[i], Shape(full), s);
  }
  return Status::Ok();
}

const std::initializer_list<const char*> kConvAttrs = {"strides", "padding", "explicit_paddings",
                                                       "dilations", "data_format"};

// The ops of a convolution's gradients with respect to its input and filter.
struct ConvGradOps {
  const char* input;
  const char* filter;
};
constexpr ConvGradOps kConv2DGrads = {"Conv2DBackpropInput", "Conv2DBackpropFilter"};
constexpr ConvGradOps kDepthwiseGrads = {"DepthwiseConv2dNativeBackpropInput",
                                         "DepthwiseConv2dNativeBackpropFilter"};
constexpr ConvGradOps kConv3DGrads = {"Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"};

// Conv2D, DepthwiseConv2dNative and Conv3D, plain or fused with BiasAdd and an
// activation.
template <const ConvGradOps& kOps>
Status ConvGradient(GradContext& c, std::vector<std::string>* dx) {
  std::string g = c.dy[0];
  FusedOps fused;
  const bool is_fused = c.node().attr("fused_ops") != nullptr;
  if (is_fused) {
    auto f = ParseFusedOps(c.node());
    if (!f.ok()) return f.status();
    fused = *f;
    g = FusedEpilogueGradient(c, fused, g, dx);
  }
  const char* input_op = kOps.input;
  const char* filter_op = kOps.filter;
  AttrMap attrs = WithAttrs(c, kConvAttrs);
  (*dx)[0] = c.b.Add(input_op, input_op,
                     {c.b.IntConst("input_sizes", c.x_shape(0).dims()), c.x(1), g}, attrs);
  (*dx)[1] = c.b.Add(filter_op, filter_op,
                     {c.x(0), c.b.IntConst("filter_sizes", c.x_shape(1).dims()), g}, attrs);
  if (is_fused) {
    (*dx)[fused.bias_input] =
        c.b.Add("BiasAddGrad", "BiasAddGrad", {g}, WithAttrs(c, {"data_format"}));
  }
  return Status::Ok();
}

// A transposed convolution (Conv2DBackpropInput or Conv3DBackpropInputV2 as a
// forward op): the forward convolution's filter gradient and the forward
// convolution itself.
template <const char* kForward, const ConvGradOps& kOps>
Status ConvTransposeGradient(GradContext& c, std::vector<std::string>* dx) {
  AttrMap attrs = WithAttrs(c, kConvAttrs);
  (*dx)[1] = c.b.Add(kOps.filter, kOps.filter,
                     {c.dy[0], c.b.IntConst("filter_sizes", c.x_shape(1).dims()), c.x(2)}, attrs);
  (*dx)[2] = c.b.Add(kForward, kForward, {c.dy[0], c.x(1)}, attrs);
  return Status::Ok();
}
constexpr char kConv2D[] = "Conv2D";
constexpr char kConv3D[] = "Conv3D";

const std::initializer_list<const char*> kPoolAttrs = {"ksize", "strides", "padding",
                                                       "explicit_paddings", "data_format"};

// MaxPool and MaxPool3D: their gradient ops are named after them.
Status MaxPoolGradient(GradContext& c, std::vector<std::string>* dx) {
  const std::string op = c.node().op + "Grad";
  (*dx)[0] = c.b.Add(op, op, {c.x(0), c.y(), c.dy[0]}, WithAttrs(c, kPoolAttrs));
  return Status::Ok();
}

// AvgPool and AvgPool3D.
Status AvgPoolGradient(GradContext& c, std::vector<std::string>* dx) {
  const std::string op = c.node().op + "Grad";
  (*dx)[0] = c.b.Add(op, op, {c.b.IntConst("orig_input_shape", c.x_shape(0).dims()), c.dy[0]},
                     WithAttrs(c, kPoolAttrs));
  return Status::Ok();
}

// Axes of a reduction, normalised; they must be a Const.
Result<std::vector<int64_t>> ReductionAxes(GradContext& c) {
  const Tensor* t = c.x_const(1);
  if (!t) return c.Error("reduction axes must be a constant");
  std::vector<int64_t> axes = t->ToInt64s();
  int rank = c.x_shape(0).rank();
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  return axes;
}

template <bool kMean>
Status ReduceGradient(GradContext& c, std::vector<std::string>* dx) {
  GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReductionAxes(c));
  const Shape& in = c.x_shape(0);
  std::vector<int64_t> kept = in.dims();
  double count = 1;
  for (int64_t a : axes) {
    count *= static_cast<double>(kept[a]);
    kept[a] = 1;
  }
  std::string g = ReshapeTo(c, c.dy[0], Shape(kept));
  g = c.b.Add("BroadcastTo", "BroadcastTo", {g, c.b.IntConst("shape", in.dims())}, TAttr(c));
  if (kMean) {
    g = c.b.Add("Mul", "Mul", {g, c.b.FloatConst("inverse_count", static_cast<float>(1.0 / count))},
                TAttr(c));
  }
  (*dx)[0] = g;
  return Status::Ok();
}

Status SoftmaxGradient(GradContext& c, std::vector<std::string>* dx) {
  std::string dy_y = c.b.Add("Mul", "Mul", {c.dy[0], c.y()}, TAttr(c));
  std::string sum = c.b.Add("Sum", "Sum", {dy_y, c.b.IntConst("axis", {-1})},
                            {{"T", MakeAttr(DType::kFloat)}, {"keep_dims", MakeAttr(true)}});
  std::string diff = c.b.Add("Sub", "Sub", {c.dy[0], sum}, TAttr(c));
  (*dx)[0] = c.b.Add("Mul", "Mul", {diff, c.y()}, TAttr(c));
  return Status::Ok();
}

// SoftmaxCrossEntropyWithLogits(logits, labels): the loss's gradient times the
// backprop output for the logits, times -log_softmax(logits) for the labels.
Status XentGradient(GradContext& c, std::vector<std::string>* dx) {
  if (!c.dy[1].empty()) return c.Error("the gradient of its backprop output is not supported");
  std::string col =
      c.b.Add("ExpandDims", "ExpandDims", {c.dy[0], c.b.IntConst("dim", {-1}, true)}, TAttr(c));
  (*dx)[0] = c.b.Add("Mul", "Mul", {col, c.y(1)}, TAttr(c));
  std::string log_softmax = c.b.Add("LogSoftmax", "LogSoftmax", {c.x(0)}, TAttr(c));
  std::string neg = c.b.Add("Neg", "Neg", {log_softmax}, TAttr(c));
  (*dx)[1] = c.b.Add("Mul", "Mul", {col, neg}, TAttr(c));
  return Status::Ok();
}

// UnsortedSegmentSum(data, segment_ids, num_segments): each data slice gets the
// gradient of its segment; slices with a negative id (dropped) get zero.
Status UnsortedSegmentSumGradient(GradContext& c, std::vector<std::string>* dx) {
  const Shape &data = c.x_shape(0), &ids = c.x_shape(1);
  if (!data.FullyDefined() || !ids.FullyDefined()) {
    return c.Error("gradient needs static shapes of data and segment_ids");
  }
  const DType tindices = c.node().attr_type("Tindices", DType::kInt32);
  std::string zero = c.b.IntConst("zero", {0}, /*scalar=*/true);
  AttrMap int_t = {{"T", MakeAttr(tindices)}};
  if (tindices == DType::kInt64) {
    zero = c.b.Add("Cast", "Cast", {zero},
                   {{"SrcT", MakeAttr(DType::kInt32)}, {"DstT", MakeAttr(DType::kInt64)}});
  }
  std::string safe = c.b.Add("Maximum", "Maximum", {c.x(1), zero}, int_t);
  std::string g = c.b.Add("GatherV2", "GatherV2", {c.dy[0], safe, c.b.IntConst("axis", {0}, true)},
                          {{"Tparams", MakeAttr(c.node().attr_type("T", DType::kFloat))},
                           {"Tindices", MakeAttr(tindices)},
                           {"Taxis", MakeAttr(DType::kInt32)}});
  std::string kept = c.b.Add("GreaterEqual", "GreaterEqual", {c.x(1), zero}, int_t);
  std::vector<int64_t> mask_shape = ids.dims();
  mask_shape.resize(data.rank(), 1);
  kept = c.b.Add("Reshape", "Reshape", {kept, c.b.IntConst("shape", mask_shape)},
                 {{"T", MakeAttr(DType::kBool)}});
  (*dx)[0] = c.b.Add("SelectV2", "SelectV2", {kept, g, ZerosLike(c, g)}, TAttr(c));
  return Status::Ok();
}

Status SparseXentGradient(GradContext& c, std::vector<std::string>* dx) {
  if (!c.dy[1].empty()) return c.Error("the gradient of its backprop output is not supported");
  std::string col =
      c.b.Add("ExpandDims", "ExpandDims", {c.dy[0], c.b.IntConst("dim", {-1}, true)}, TAttr(c));
  (*dx)[0] = c.b.Add("Mul", "Mul", {col, c.y(1)}, TAttr(c));
  return Status::Ok();
}

Status PadGradient(GradContext& c, std::vector<std::string>* dx) {
  const Tensor* pads = c.x_const(1);
  if (!pads) return c.Error("paddings must be a constant");
  std::vector<int64_t> p = pads->ToInt64s(), begin;
  for (size_t i = 0; i < p.size(); i += 2) begin.push_back(p[i]);
  (*dx)[0] =
      c.b.Add("Slice", "Slice",
              {c.dy[0], c.b.IntConst("begin", begin), c.b.IntConst("size", c.x_shape(0).dims())},
              WithAttrs(c, {}));
  return Status::Ok();
}

// ConcatV2(values..., axis) and Concat(axis, values...): each value's slice of
// the gradient.
Status ConcatGradient(GradContext& c, std::vector<std::string>* dx) {
  const int n = static_cast<int>(c.node().inputs.size()) - 1;
  const bool v1 = c.node().op == "Concat";
  const int axis_input = v1 ? 0 : n, first = v1 ? 1 : 0;
  const Tensor* axis_t = c.x_const(axis_input);
  if (!axis_t) return c.Error("the concat axis must be a constant");
  int rank = c.y_shape().rank();
  int64_t axis = axis_t->ToInt64s()[0];
  if (axis < 0) axis += rank;
  int64_t offset = 0;
  for (int i = first; i < first + n; ++i) {
    std::vector<int64_t> begin(rank, 0);
    begin[axis] = offset;
    (*dx)[i] =
        c.b.Add("Slice", "Slice",
                {c.dy[0], c.b.IntConst("begin", begin), c.b.IntConst("size", c.x_shape(i).dims())},
                WithAttrs(c, {}));
    offset += c.x_shape(i).dim(static_cast<int>(axis));
  }
  return Status::Ok();
}

Status IdentityNGradient(GradContext& c, std::vector<std::string>* dx) {
  for (size_t i = 0; i < dx->size() && i < c.dy.size(); ++i) (*dx)[i] = c.dy[i];
  return Status::Ok();
}

Status PackGradient(GradContext& c, std::vector<std::string>* dx) {
  int n = static_cast<int>(c.node().inputs.size());
  AttrMap attrs = WithAttrs(c, {"axis"});
  attrs["num"] = MakeAttr(static_cast<int64_t>(n));
  std::string un = c.b.Add("Unpack", "Unpack", {c.dy[0]}, attrs);
  for (int i = 0; i < n; ++i) (*dx)[i] = i == 0 ? un : un + ":" + std::to_string(i);
  return Status::Ok();
}

Status UnpackGradient(GradContext& c, std::vector<std::string>* dx) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < c.dy.size(); ++i) {
    parts.push_back(!c.dy[i].empty()
                        ? c.dy[i]
                        : c.b.Add("ZerosLike", "zeros", {c.y(static_cast<int>(i))}, TAttr(c)));
  }
  AttrMap attrs = WithAttrs(c, {"axis"});
  attrs["N"] = MakeAttr(static_cast<int64_t>(parts.size()));
  (*dx)[0] = c.b.Add("Pack", "Pack", parts, attrs);
  return Status::Ok();
}

// Split(axis, value): the output gradients concatenated (zeros where an output
// gets none).
Status SplitGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[1] = ConcatOutputGradients(c, c.x(0));
  return Status::Ok();
}

// GatherV2(params, indices, axis), batch_dims 0: TF's IndexedSlices made dense,
// as TF does when the gradient meets a dense op: the slices of dy summed into
// their indices. For axis > 0 the indices' dimensions are moved to the front of
// dy first, and the result's first dimension back to the axis.
Status GatherV2Gradient(GradContext& c, std::vector<std::string>* dx) {
  const Tensor zero = Tensor::FromInt64s(DType::kInt32, Shape::Scalar(), {0});
  const Tensor* axis_t = c.node().op == "Gather" ? &zero : c.x_const(2);  // v1: axis 0
  if (axis_t == nullptr || axis_t->num_elements() != 1 || c.node().attr_int("batch_dims", 0) != 0) {
    return c.Error("gradient only for a constant axis and batch_dims 0");
  }
  const Shape& params = c.x_shape(0);
  const Shape& indices = c.x_shape(1);
  if (!params.FullyDefined() || !indices.known_rank() || params.rank() < 1) {
    return c.Error("gradient needs the static shapes of params and indices");
  }
  int64_t axis = axis_t->ToInt64s()[0];
  if (axis < 0) axis += params.rank();
  if (axis < 0 || axis >= params.rank()) return c.Error("axis out of range");
  const DType tindices = c.node().attr_type("Tindices", DType::kInt32);
  const DType t = c.node().attr_type("Tparams", DType::kFloat);
  AttrMap attrs = {{"T", MakeAttr(t)},
                   {"Tindices", MakeAttr(tindices)},
                   {"Tnumsegments", MakeAttr(DType::kInt32)}};
  const int outer = static_cast<int>(axis), ind = indices.rank();
  const int inner = params.rank() - outer - 1;
  std::string g = c.dy[0];
  auto transpose = [&](const std::string& x, const std::vector<int64_t>& perm) {
    return c.b.Add("Transpose", "Transpose", {x, c.b.IntConst("perm", perm)},
                   {{"T", MakeAttr(t)}, {"Tperm", MakeAttr(DType::kInt32)}});
  };
  if (outer > 0) {
    // dy: [outer, indices, inner] -> [indices, outer, inner]
    std::vector<int64_t> perm;
    for (int i = 0; i < ind; ++i) perm.push_back(outer + i);
    for (int i = 0; i < outer; ++i) perm.push_back(i);
    for (int i = 0; i < inner; ++i) perm.push_back(outer + ind + i);
    g = transpose(g, perm);
  }
  g = c.b.Add("UnsortedSegmentSum", "UnsortedSegmentSum",
              {g, c.x(1), c.b.IntConst("num_segments", {params.dim(outer)}, /*scalar=*/true)},
              attrs);
  if (outer > 0) {
    // [axis, outer, inner] -> [outer, axis, inner]
    std::vector<int64_t> perm;
    for (int i = 0; i < outer; ++i) perm.push_back(1 + i);
    perm.push_back(0);
    for (int i = 0; i < inner; ++i) perm.push_back(1 + outer + i);
    g = transpose(g, perm);
  }
  (*dx)[0] = g;
  return Status::Ok();
}

Status StridedSliceGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.b.Add("StridedSliceGrad", "StridedSliceGrad",
                     {c.b.IntConst("shape", c.x_shape(0).dims()), c.x(1), c.x(2), c.x(3), c.dy[0]},
                     WithAttrs(c, {"Index", "begin_mask", "end_mask", "ellipsis_mask",
                                   "new_axis_mask", "shrink_axis_mask"}));
  return Status::Ok();
}

Status GatherNdGradient(GradContext& c, std::vector<std::string>* dx) {
  AttrMap attrs = {{"T", MakeAttr(c.node().attr_type("Tparams", DType::kFloat))},
                   {"Tindices", MakeAttr(c.node().attr_type("Tindices", DType::kInt32))}};
  (*dx)[0] = c.b.Add("ScatterNd", "ScatterNd",
                     {c.x(1), c.dy[0], c.b.IntConst("shape", c.x_shape(0).dims())}, attrs);
  return Status::Ok();
}

Status ResizeBilinearGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.b.Add("ResizeBilinearGrad", "ResizeBilinearGrad", {c.dy[0], c.x(0)},
                     WithAttrs(c, {"align_corners", "half_pixel_centers"}));
  return Status::Ok();
}

// The one table of gradient rules.
const std::unordered_map<std::string_view, GradFn>& GradTable() {
  static const auto* table = new std::unordered_map<std::string_view, GradFn>{
      {"Identity", PassThrough},
      {"Snapshot", PassThrough},
      {"StopGradient", NoGradient},
      {"Split", SplitGradient},
      {"BatchMatMulV2", BatchMatMulGradient},
      {"BatchMatMulV3", BatchMatMulGradient},
      {"FusedBatchNorm", FusedBatchNormGradient},
      {"FusedBatchNormV2", FusedBatchNormGradient},
      {"FusedBatchNormV3", FusedBatchNormGradient},
      {"GatherV2", GatherV2Gradient},
      {"Reshape", ReshapeLike},
      {"Squeeze", ReshapeLike},
      {"ExpandDims", ReshapeLike},
      {"Relu", UnaryGradOp<kReluGrad, false>},
      {"Relu6", Relu6Gradient},
      {"Sigmoid", UnaryGradOp<kSigmoidGrad, true>},
      {"Tanh", UnaryGradOp<kTanhGrad, true>},
      {"Sqrt", UnaryGradOp<kSqrtGrad, true>},
      {"Rsqrt", UnaryGradOp<kRsqrtGrad, true>},
      {"Neg", NegGradient},
      {"Abs", AbsGradient},
      {"Square", SquareGradient},
      {"Exp", ExpGradient},
      {"Log", LogGradient},
      {"Cast", CastGradient},
      {"Add", AddGradient},
      {"AddV2", AddGradient},
      {"Sub", SubGradient},
      {"Mul", MulGradient},
      {"RealDiv", DivGradient},
      {"Div", DivGradient},
      {"Maximum", MinMaxGradient<true>},
      {"Minimum", MinMaxGradient<false>},
      {"SquaredDifference", SquaredDifferenceGradient},
      {"AddN", AddNGradient},
      {"BiasAdd", BiasAddGradient},
      {"MatMul", MatMulGradient},
      {"Conv2D", ConvGradient<kConv2DGrads>},
      {"_FusedConv2D", ConvGradient<kConv2DGrads>},
      {"Conv3D", ConvGradient<kConv3DGrads>},
      {"Conv3DBackpropInputV2", ConvTransposeGradient<kConv3D, kConv3DGrads>},
      {"DepthwiseConv2dNative", ConvGradient<kDepthwiseGrads>},
      {"FusedDepthwiseConv2dNative", ConvGradient<kDepthwiseGrads>},
      {"Conv2DBackpropInput", ConvTransposeGradient<kConv2D, kConv2DGrads>},
      {"MaxPool", MaxPoolGradient},
      {"AvgPool", AvgPoolGradient},
      {"MaxPool3D", MaxPoolGradient},
      {"AvgPool3D", AvgPoolGradient},
      {"Sum", ReduceGradient<false>},
      {"Mean", ReduceGradient<true>},
      {"Softmax", SoftmaxGradient},
      {"SparseSoftmaxCrossEntropyWithLogits", SparseXentGradient},
      {"Pad", PadGradient},
      {"ConcatV2", ConcatGradient},
      {"Pack", PackGradient},
      {"Unpack", UnpackGradient},
      {"StridedSlice", StridedSliceGradient},
      {"GatherNd", GatherNdGradient},
      {"ResizeBilinear", ResizeBilinearGradient},
      {"CheckNumerics", PassThrough},
      {"IdentityN", IdentityNGradient},
      {"Concat", ConcatGradient},
      {"Gather", GatherV2Gradient},
      {"BatchMatMul", BatchMatMulGradient},
      {"SoftmaxCrossEntropyWithLogits", XentGradient},
      {"UnsortedSegmentSum", UnsortedSegmentSumGradient},
      // Ops TensorFlow does not differentiate (its gradient is None or zeros): the
      // loss does not flow through them.
      {"Floor", NoGradient},
      {"Ceil", NoGradient},
      {"Round", NoGradient},
      {"Rint", NoGradient},
      {"Sign", NoGradient},
      {"FloorDiv", NoGradient},
      {"TruncateDiv", NoGradient},
      {"ZerosLike", NoGradient},
      {"OnesLike", NoGradient},
      {"Range", NoGradient},
      {"OneHot", NoGradient},
      // gradient_rules_math.cc
      {"Elu", EluGradient},
      {"Selu", SeluGradient},
      {"LeakyRelu", LeakyReluGradient},
      {"Softplus", SoftplusGradient},
      {"Softsign", SoftsignGradient},
      {"Reciprocal", ReciprocalGradient},
      {"Inv", ReciprocalGradient},
      {"Erf", ErfGradient},
      {"Sin", SinGradient},
      {"Cos", CosGradient},
      {"Tan", TanGradient},
      {"Atan", AtanGradient},
      {"Log1p", Log1pGradient},
      {"Expm1", Expm1Gradient},
      {"LogSoftmax", LogSoftmaxGradient},
      {"L2Loss", L2LossGradient},
      {"FloorMod", FloorModGradient},
      {"Pow", PowGradient},
      {"Atan2", Atan2Gradient},
      {"DivNoNan", DivNoNanGradient},
      {"Prelu", PreluGradient},
      {"ClipByValue", ClipByValueGradient},
      {"Select", SelectGradient},
      {"SelectV2", SelectGradient},
      {"_FusedMatMul", FusedMatMulGradient},
      {"Max", MinMaxReductionGradient},
      {"Min", MinMaxReductionGradient},
      {"Prod", ProdGradient},
      {"Cumsum", CumsumGradient},
      {"Cumprod", CumprodGradient},
      {"Einsum", EinsumGradient},
      // gradient_rules_array.cc
      {"Transpose", TransposeGradient},
      {"DepthToSpace", DepthToSpaceGradient},
      {"SpaceToDepth", SpaceToDepthGradient},
      {"SpaceToBatchND", SpaceToBatchGradient},
      {"BatchToSpaceND", BatchToSpaceGradient},
      {"TopKV2", TopKGradient},
      {"PadV2", PadGradient},
      {"MirrorPad", MirrorPadGradient},
      {"ResizeNearestNeighbor", ResizeNearestNeighborGradient},
      {"Tile", TileGradient},
      {"Slice", SliceGradient},
      {"SplitV", SplitVGradient},
      {"BroadcastTo", BroadcastToGradient},
      {"Fill", FillGradient},
      {"ScatterNd", ScatterNdGradient},
      {"SparseToDense", SparseToDenseGradient},
  };
  return *table;
}

}  // namespace

const GradFn* FindGradient(const std::string& op) {
  auto it = GradTable().find(op);
  return it == GradTable().end() ? nullptr : &it->second;
}

std::vector<std::string> GradientRuleOps() {
  std::vector<std::string> ops;
  for (const auto& [op, fn] : GradTable()) ops.emplace_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace graph
