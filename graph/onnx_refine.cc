// What the importer learns about a node's outputs beyond ONNX's shape inference:
// ranks that inference lost (after a reshape to a computed shape: ONNX 1.12's
// data propagation does not follow Div, so MultiheadAttention's head split
// loses every rank below it), and integer shape arithmetic folded into known
// values, so that later nodes that need constants (Reshape targets, Slice
// bounds, Gather indices) get them.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <set>

#include "graph/onnx_translate.h"

namespace graph::onnx_import {
namespace {

const std::set<std::string>& SameRankOps() {
  static const std::set<std::string> ops = {
      "Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Round", "Relu",
      "Sigmoid", "Tanh", "Erf", "Sin", "Cos", "Tan", "Atan", "Sign", "Softplus", "Softsign",
      "Identity", "Not", "LeakyRelu", "Elu", "Selu", "Celu", "HardSigmoid", "HardSwish",
      "ThresholdedRelu", "Clip", "Cast", "CastLike", "Softmax", "LogSoftmax", "CumSum",
      "Dropout", "LayerNormalization", "BatchNormalization", "InstanceNormalization", "Slice",
      "Concat", "Split", "Pad", "Tile", "Conv", "ConvTranspose", "MaxPool", "AveragePool",
      "GlobalAveragePool", "GlobalMaxPool", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth"};
  return ops;
}

const std::set<std::string>& BroadcastOps() {
  static const std::set<std::string> ops = {
      "Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal", "Less", "Greater", "LessOrEqual",
      "GreaterOrEqual", "And", "Or", "Xor", "Where", "Sum", "Max", "Min", "Mean", "PRelu", "MatMul"};
  return ops;
}

// The output rank from the input ranks, or -1.
int RankFromInputs(const NodeContext& c) {
  const std::string& op = c.node().op_type();
  const int r0 = c.rank(0);
  if (SameRankOps().count(op)) return r0;
  if (BroadcastOps().count(op)) {
    int r = -1;
    for (int i = 0; i < c.num_inputs(); ++i) {
      if (!c.has(i)) continue;
      if (c.rank(i) < 0) return -1;
      r = std::max(r, c.rank(i));
    }
    if (op == "MatMul" && (c.rank(0) == 1 || c.rank(1) == 1)) r -= 1;
    return r;
  }
  if (op == "Gather" && r0 >= 0 && c.rank(1) >= 0) return r0 - 1 + c.rank(1);
  if (op == "Unsqueeze" || op == "Squeeze") {
    std::optional<std::vector<int64_t>> axes = c.attr_ints("axes");
    if (c.opset() >= 13 && c.value(1)) axes = c.value(1)->ToInt64s();
    if (!axes || r0 < 0) return -1;
    const int n = static_cast<int>(axes->size());
    return op == "Unsqueeze" ? r0 + n : r0 - n;
  }
  if (op.rfind("Reduce", 0) == 0 || op == "ArgMax" || op == "ArgMin") {
    if (r0 < 0) return -1;
    if (c.attr_int("keepdims", 1) != 0) return r0;
    if (op == "ArgMax" || op == "ArgMin") return r0 - 1;
    std::optional<std::vector<int64_t>> axes = c.attr_ints("axes");
    if (c.value(1)) axes = c.value(1)->ToInt64s();
    return axes ? r0 - static_cast<int>(axes->size()) : -1;
  }
  if (op == "Expand" || op == "ConstantOfShape") {
    const int shape_input = op == "Expand" ? 1 : 0;
    Shape s = c.shape(shape_input);
    if (!s.known_rank() || s.rank() != 1 || s.dim(0) < 0) return -1;
    const int len = static_cast<int>(s.dim(0));
    if (op == "ConstantOfShape") return len;
    return r0 < 0 ? -1 : std::max(r0, len);
  }
  if (op == "Range") return 1;
  if (op == "TopK") return r0;
  if (op == "OneHot") return r0 < 0 ? -1 : r0 + 1;
  if (op == "Shape" || op == "Size") return op == "Shape" ? 1 : 0;
  if (op == "Gemm") return 2;
  if (op == "Flatten") return 2;
  return -1;
}

// int32 and int64 only: the types shape arithmetic uses, and the ones
// Tensor::FromInt64s packs.
bool Foldable(const Tensor* t) {
  return t && (t->dtype() == DType::kInt32 || t->dtype() == DType::kInt64);
}

// Elementwise integer arithmetic on known values of one shape, or with a
// rank-0 scalar; nothing when a result would overflow.
std::optional<Tensor> FoldBinary(const NodeContext& c) {
  const std::string& op = c.node().op_type();
  const Tensor *a = c.value(0), *b = c.value(1);
  if (!Foldable(a) || !Foldable(b) || a->dtype() != b->dtype()) return std::nullopt;
  std::vector<int64_t> x = a->ToInt64s(), y = b->ToInt64s();
  const bool ascalar = a->shape().rank() == 0, bscalar = b->shape().rank() == 0;
  if (a->shape() != b->shape() && !ascalar && !bscalar) return std::nullopt;
  const Shape& shape = ascalar ? b->shape() : a->shape();
  // A scalar with an empty tensor is empty: count the result by its shape's side.
  if ((ascalar && x.size() != 1) || (bscalar && y.size() != 1)) return std::nullopt;
  const size_t n = ascalar ? y.size() : x.size();
  if ((!ascalar && !bscalar && x.size() != y.size())) return std::nullopt;
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t u = x[ascalar ? 0 : i], v = y[bscalar ? 0 : i];
    bool overflow = false;
    if (op == "Add") {
      overflow = __builtin_add_overflow(u, v, &out[i]);
    } else if (op == "Sub") {
      overflow = __builtin_sub_overflow(u, v, &out[i]);
    } else if (op == "Mul") {
      overflow = __builtin_mul_overflow(u, v, &out[i]);
    } else if (op == "Div") {
      overflow = v == 0 || (u == INT64_MIN && v == -1);
      if (!overflow) out[i] = u / v;  // C's truncation, as ONNX's integer Div
    } else {
      return std::nullopt;
    }
    if (overflow) return std::nullopt;
    if (a->dtype() == DType::kInt32 && (out[i] < INT32_MIN || out[i] > INT32_MAX)) return std::nullopt;
  }
  return Tensor::FromInt64s(a->dtype(), shape, out);
}

// Where(cond, x, y) and Equal(x, y) on known integer vectors of one length.
std::optional<Tensor> FoldSelect(const NodeContext& c) {
  const std::string& op = c.node().op_type();
  const int first = op == "Where" ? 1 : 0;
  const Tensor *x = c.value(first), *y = c.value(first + 1);
  if (!Foldable(x) || !Foldable(y) || x->dtype() != y->dtype()) return std::nullopt;
  std::vector<int64_t> a = x->ToInt64s(), b = y->ToInt64s();
  if (a.size() != b.size() || x->shape() != y->shape()) return std::nullopt;
  if (op == "Equal") {
    std::string bytes(a.size(), '\0');
    for (size_t i = 0; i < a.size(); ++i) bytes[i] = a[i] == b[i];
    return Tensor(DType::kBool, x->shape(), bytes);
  }
  const Tensor* cond = c.value(0);
  if (!cond || cond->dtype() != DType::kBool || cond->shape() != x->shape()) return std::nullopt;
  std::vector<int64_t> k = cond->ToInt64s(), out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = k[i] ? a[i] : b[i];
  return Tensor::FromInt64s(x->dtype(), x->shape(), out);
}

std::optional<Tensor> Fold(const NodeContext& c) {
  const std::string& op = c.node().op_type();
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") return FoldBinary(c);
  if (op == "Equal" || op == "Where") return FoldSelect(c);
  if (op == "ConstantOfShape" && Foldable(c.value(0)) &&
      (c.out_dtype(0) == DType::kInt32 || c.out_dtype(0) == DType::kInt64)) {
    std::vector<int64_t> dims = c.value(0)->ToInt64s();
    for (int64_t d : dims) {
      if (d < 0 || d > 64) return std::nullopt;
    }
    Shape s(dims);
    if (s.NumElements() > 64) return std::nullopt;
    int64_t fill = 0;
    if (const onnx::AttributeProto* a = c.attr("value")) {
      auto t = TensorFromOnnx(a->t(), "value");
      if (!t.ok() || !IsInteger(t->dtype()) || t->num_elements() != 1) return std::nullopt;
      fill = t->ToInt64s()[0];
    }
    return Tensor::FromInt64s(c.out_dtype(0), s, std::vector<int64_t>(s.NumElements(), fill));
  }
  if (op == "Reshape" && Foldable(c.value(0)) && Foldable(c.value(1))) {
    std::vector<int64_t> target = c.value(1)->ToInt64s();
    if (target.size() > 64 || std::any_of(target.begin(), target.end(), [](int64_t d) {
          return d == 0 || d < -1;  // ONNX's copy-a-dim 0 is not folded here
        })) {
      return std::nullopt;
    }
    Shape s = ResolvedShape(c.value(0)->shape(), target);
    if (s.NumElements() != c.value(0)->num_elements()) return std::nullopt;
    return Tensor::FromInt64s(c.value(0)->dtype(), s, c.value(0)->ToInt64s());
  }
  const Tensor* a = c.value(0);
  if (!Foldable(a)) return std::nullopt;
  auto single = [&](int i) -> std::optional<int64_t> {
    const Tensor* t = c.value(i);
    if (!Foldable(t) || t->num_elements() != 1) return std::nullopt;
    return t->ToInt64s()[0];
  };
  const bool axis0 = !c.has(3) || single(3) == int64_t{0} || single(3) == int64_t{-1};
  if (op == "Slice" && a->shape().rank() == 1 && c.opset() >= 10 && axis0) {
    // A 1-D slice of known values (a shape's leading dims), positive steps.
    std::optional<int64_t> b = single(1), e = single(2);
    std::optional<int64_t> step = c.has(4) ? single(4) : std::optional<int64_t>(1);
    if (!b || !e || !step || *step <= 0) return std::nullopt;
    const int64_t n = a->num_elements();
    int64_t lo = std::clamp<int64_t>(*b < 0 ? std::max<int64_t>(*b, -n) + n : *b, 0, n);
    int64_t hi = std::clamp<int64_t>(*e < 0 ? std::max<int64_t>(*e, -n) + n : *e, 0, n);
    std::vector<int64_t> v = a->ToInt64s(), out;
    for (int64_t i = lo; i < hi; i += *step) {
      out.push_back(v[i]);
      if (hi - i <= *step) break;
    }
    return Tensor::FromInt64s(a->dtype(), Shape({static_cast<int64_t>(out.size())}), out);
  }
  if (op == "Cast") {
    DType to = DTypeFromOnnx(static_cast<int>(c.attr_int("to", 0)));
    if (to != DType::kInt32 && to != DType::kInt64) return std::nullopt;
    return Tensor::FromInt64s(to, a->shape(), a->ToInt64s());
  }
  if (op == "Identity") return *a;
  if (op == "Squeeze" && a->num_elements() == 1) {
    // Every dimension is 1: the output keeps those that the axes (when given)
    // do not name.
    std::optional<std::vector<int64_t>> axes;
    if (c.opset() < 13) {
      axes = c.attr_ints("axes");
    } else if (c.has(1)) {
      if (!Foldable(c.value(1))) return std::nullopt;
      axes = c.value(1)->ToInt64s();
    }
    const int64_t r = a->shape().rank();
    std::set<int64_t> named;
    for (int64_t axis : axes.value_or(std::vector<int64_t>{})) {
      if (axis < -r || axis >= r) return std::nullopt;
      named.insert(axis < 0 ? axis + r : axis);
    }
    // No axes, or none named, squeezes every dimension of 1 (TF's Squeeze
    // with no squeeze_dims, which the node is translated to, and ONNX Runtime).
    const int64_t kept = axes && !axes->empty() ? r - static_cast<int64_t>(named.size()) : 0;
    return Tensor::FromInt64s(a->dtype(), Shape(std::vector<int64_t>(kept, 1)), a->ToInt64s());
  }
  return std::nullopt;
}

}  // namespace

void RefineOutputs(NodeContext& c) {
  if (c.num_outputs() == 0) return;
  if (!c.out_shape(0).known_rank()) {
    int r = RankFromInputs(c);
    if (r >= 0) {
      for (int k = 0; k < c.num_outputs(); ++k) {
        if (c.node().op_type() == "Split" || k == 0) c.RefineOutputShape(k, Shape::UnknownDims(r));
      }
    }
  }
  if (c.has_output(0)) {
    if (std::optional<Tensor> v = Fold(c)) c.OutputConstant(0, *v);
  }
}

}  // namespace graph::onnx_import
