// What the importer learns about a node's outputs beyond ONNX's shape inference:
// ranks that inference lost (after a reshape to a computed shape: ONNX 1.12's
// data propagation does not follow Div, so MultiheadAttention's head split
// loses every rank below it), and integer shape arithmetic folded into known
// values, so that later nodes that need constants (Reshape targets, Slice
// bounds, Gather indices) get them.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <numeric>
#include <set>

#include "graph/onnx_translate.h"

namespace graph::onnx_import {
namespace {

// Ops whose output 0 has input 0's shape.
const std::set<std::string>& SameShapeOps() {
  static const std::set<std::string> ops = {"Abs",
                                            "Neg",
                                            "Exp",
                                            "Log",
                                            "Sqrt",
                                            "Reciprocal",
                                            "Floor",
                                            "Ceil",
                                            "Round",
                                            "Relu",
                                            "Sigmoid",
                                            "Tanh",
                                            "Erf",
                                            "Sin",
                                            "Cos",
                                            "Tan",
                                            "Atan",
                                            "Sign",
                                            "Softplus",
                                            "Softsign",
                                            "Identity",
                                            "Not",
                                            "LeakyRelu",
                                            "Elu",
                                            "Selu",
                                            "Celu",
                                            "HardSigmoid",
                                            "HardSwish",
                                            "ThresholdedRelu",
                                            "Clip",
                                            "Cast",
                                            "CastLike",
                                            "Softmax",
                                            "LogSoftmax",
                                            "CumSum",
                                            "Dropout",
                                            "LayerNormalization",
                                            "BatchNormalization",
                                            "InstanceNormalization",
                                            "ScatterND",
                                            "ScatterElements",
                                            "Scatter",
                                            "Trilu"};
  return ops;
}

// Ops whose output 0 has input 0's rank: those above and these.
const std::set<std::string>& SameRankOps() {
  static const std::set<std::string> ops = [] {
    std::set<std::string> s = SameShapeOps();
    s.insert({"Slice", "Concat", "Split", "Pad", "Tile", "Conv", "ConvTranspose", "MaxPool",
              "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Resize", "Upsample",
              "DepthToSpace", "SpaceToDepth"});
    return s;
  }();
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
    } else if (op == "Mod") {
      overflow = v == 0 || (u == INT64_MIN && v == -1);
      if (!overflow) {
        out[i] = u % v;  // fmod = 1: the dividend's sign, as C's %
        // fmod = 0 (the default): the divisor's sign, as Python's %.
        if (c.attr_int("fmod", 0) == 0 && out[i] != 0 && (out[i] < 0) != (v < 0)) out[i] += v;
      }
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

// The most elements a folded Slice or Transpose makes: shape arithmetic's
// vectors and small matrices (F.pad's pads, reversed in pairs), not data.
constexpr int64_t kMaxFolded = 4096;

// Row-major strides of `s`.
std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> strides(s.rank(), 1);
  for (int d = s.rank() - 2; d >= 0; --d) strides[d] = strides[d + 1] * s.dim(d + 1);
  return strides;
}

// out[i] = a[offset + sum_d index_d * step_d] over `count`'s multi-indices.
Tensor Gathered(const Tensor& a, const std::vector<int64_t>& count, int64_t offset,
                const std::vector<int64_t>& step) {
  const std::vector<int64_t> v = a.ToInt64s();
  const int r = static_cast<int>(count.size());
  std::vector<int64_t> out, index(r, 0);
  const int64_t n = Shape(count).NumElements();
  for (int64_t k = 0; k < n; ++k) {
    int64_t at = offset;
    for (int d = 0; d < r; ++d) at += index[d] * step[d];
    out.push_back(v[at]);
    for (int d = r - 1; d >= 0 && ++index[d] == count[d]; --d) index[d] = 0;
  }
  return Tensor::FromInt64s(a.dtype(), Shape(count), out);
}

// Where ONNX's Slice (opset >= 10) reads along each axis of `s`: its first
// index, step and count, from known starts, ends, axes and steps, the bounds
// clamped as ONNX clamps them (any axes, negative steps). A sliced axis of
// unknown size gets count -1; nullopt when the inputs are not known or valid.
struct SliceWindow {
  std::vector<int64_t> begin, step, count;
};

std::optional<SliceWindow> SliceOf(const NodeContext& c, const Shape& s) {
  const int r = s.known_rank() ? s.rank() : 0;
  auto list = [&](int i) -> std::optional<std::vector<int64_t>> {
    if (!Foldable(c.value(i))) return std::nullopt;
    return c.value(i)->ToInt64s();
  };
  std::optional<std::vector<int64_t>> starts = list(1), ends = list(2);
  if (r == 0 || c.opset() < 10 || !starts || !ends || starts->size() != ends->size()) {
    return std::nullopt;
  }
  const size_t n = starts->size();
  std::vector<int64_t> axes(n), steps(n, 1);
  std::iota(axes.begin(), axes.end(), int64_t{0});
  for (auto [input, values] : {std::pair{3, &axes}, std::pair{4, &steps}}) {
    if (!c.has(input)) continue;
    std::optional<std::vector<int64_t>> v = list(input);
    if (!v || v->size() != n) return std::nullopt;
    *values = *v;
  }
  SliceWindow w{std::vector<int64_t>(r, 0), std::vector<int64_t>(r, 1), s.dims()};
  std::vector<char> sliced(r, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t axis = axes[i] < 0 ? axes[i] + r : axes[i];
    if (axis < 0 || axis >= r || sliced[axis] || steps[i] == 0) return std::nullopt;
    sliced[axis] = 1;
    const int64_t dim = s.dim(static_cast<int>(axis)), st = steps[i];
    w.step[axis] = st;
    if (dim <= 0) {  // unknown, or empty: nothing to clamp into
      w.count[axis] = dim;
      continue;
    }
    int64_t b = (*starts)[i], e = (*ends)[i];
    if (st > 0) {
      b = std::clamp<int64_t>(b < 0 ? std::max(b, -dim) + dim : b, 0, dim);
      e = std::clamp<int64_t>(e < 0 ? std::max(e, -dim) + dim : e, 0, dim);
      w.count[axis] = e > b ? (e - b - 1) / st + 1 : 0;
    } else {
      b = std::clamp<int64_t>(b < 0 ? std::max(b, -dim) + dim : b, 0, dim - 1);
      e = std::clamp<int64_t>(e < 0 ? std::max(e, -dim - 1) + dim : e, -1, dim - 1);
      // -st without overflow: a step of INT64_MIN takes one element at most.
      w.count[axis] = b > e ? (st == INT64_MIN ? 1 : (b - e - 1) / -st + 1) : 0;
    }
    w.begin[axis] = b;
  }
  return w;
}

// Slice of known values.
std::optional<Tensor> FoldSlice(const NodeContext& c, const Tensor& a) {
  std::optional<SliceWindow> w = SliceOf(c, a.shape());
  if (!w || Shape(w->count).NumElements() > kMaxFolded) return std::nullopt;
  const std::vector<int64_t> strides = Strides(a.shape());
  int64_t offset = 0;
  for (size_t d = 0; d < strides.size(); ++d) {
    offset += w->begin[d] * strides[d];  // within the tensor: begin < its dim
    // A step past the axis (one element taken, or none) is never applied.
    if (w->count[d] <= 1) {
      w->step[d] = 0;
    } else if (__builtin_mul_overflow(w->step[d], strides[d], &w->step[d])) {
      return std::nullopt;
    }
  }
  return Gathered(a, w->count, offset, w->step);
}

// Transpose's perm for rank r (the axes reversed when absent); nullopt when it
// is not a permutation of 0..r-1.
std::optional<std::vector<int64_t>> Perm(const NodeContext& c, int r) {
  std::vector<int64_t> perm(r);
  for (int d = 0; d < r; ++d) perm[d] = r - 1 - d;
  if (std::optional<std::vector<int64_t>> p = c.attr_ints("perm")) perm = *p;
  if (static_cast<int>(perm.size()) != r) return std::nullopt;
  std::vector<char> used(r, 0);
  for (int64_t p : perm) {
    if (p < 0 || p >= r || used[p]) return std::nullopt;
    used[p] = 1;
  }
  return perm;
}

// Transpose of known values.
std::optional<Tensor> FoldTranspose(const NodeContext& c, const Tensor& a) {
  const int r = a.shape().rank();
  std::optional<std::vector<int64_t>> perm = Perm(c, r);
  if (!perm || a.num_elements() > kMaxFolded) return std::nullopt;
  const std::vector<int64_t> strides = Strides(a.shape());
  std::vector<int64_t> count(r), step(r);
  for (int d = 0; d < r; ++d) {
    count[d] = a.shape().dim(static_cast<int>((*perm)[d]));
    step[d] = strides[(*perm)[d]];
  }
  return Gathered(a, count, 0, step);
}

std::optional<Tensor> Fold(const NodeContext& c) {
  const std::string& op = c.node().op_type();
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod") return FoldBinary(c);
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
  if (op == "Slice" && c.opset() >= 10) return FoldSlice(c, *a);
  if (op == "Transpose") return FoldTranspose(c, *a);
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

// Numpy broadcasting of the inputs' dims: a dim is known where some input has
// it known and not 1 (the others must be it or 1), or every input has it 1.
std::optional<Shape> Broadcast(const NodeContext& c) {
  // Before opset 7 a binary op's `broadcast` aligns B at `axis`, not at the end.
  if (c.opset() < 7) return std::nullopt;
  int r = -1;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.has(i)) continue;
    if (c.rank(i) < 0) return std::nullopt;
    r = std::max(r, c.rank(i));
  }
  if (r < 0) return std::nullopt;
  std::vector<int64_t> out(r);
  for (int k = 0; k < r; ++k) {
    bool all_one = true;
    int64_t known = -1;
    for (int i = 0; i < c.num_inputs(); ++i) {
      if (!c.has(i)) continue;
      const int j = k - (r - c.rank(i));
      const int64_t d = j < 0 ? 1 : c.shape(i).dim(j);
      all_one = all_one && d == 1;
      if (d >= 0 && d != 1) known = known >= 0 && known != d ? -2 : d;  // -2: they disagree
    }
    out[k] = known >= 0 ? known : (known == -1 && all_one ? 1 : -1);
  }
  return Shape(out);
}

// Concat: the inputs' dims, and along the axis their sum where all are known.
std::optional<Shape> ConcatDims(const NodeContext& c) {
  const int r = c.rank(0);
  if (r <= 0) return std::nullopt;
  int64_t axis = ConcatAxis(c);
  if (axis < -r || axis >= r) return std::nullopt;
  if (axis < 0) axis += r;
  std::vector<int64_t> out(r, -1);
  int64_t sum = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.has(i) || c.rank(i) != r) return std::nullopt;
    const Shape s = c.shape(i);
    for (int d = 0; d < r; ++d) {
      if (d != axis && out[d] < 0) out[d] = s.dim(d);
    }
    const int64_t along = s.dim(static_cast<int>(axis));
    sum = along < 0 || sum < 0 || __builtin_add_overflow(sum, along, &sum) ? -1 : sum;
  }
  out[axis] = sum;
  return Shape(out);
}

// MatMul of ranks 2 and up: the batch dims broadcast, then [M, N].
std::optional<Shape> MatMulDims(const NodeContext& c) {
  const Shape a = c.shape(0), b = c.shape(1);
  if (!a.known_rank() || !b.known_rank() || a.rank() < 2 || b.rank() < 2) return std::nullopt;
  const int r = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(r, -1);
  for (int k = 0; k < r - 2; ++k) {
    const int i = k - (r - a.rank()), j = k - (r - b.rank());
    const int64_t x = i < 0 ? 1 : a.dim(i), y = j < 0 ? 1 : b.dim(j);
    out[k] = x >= 0 && x != 1 ? x : (y >= 0 && y != 1 ? y : (x == 1 && y == 1 ? 1 : -1));
  }
  out[r - 2] = a.dim(a.rank() - 2);
  out[r - 1] = b.dim(b.rank() - 1);
  return Shape(out);
}

// The dims of output 0 that follow from the inputs' as known so far (refined
// by earlier nodes), where ONNX's shape inference left them unknown: it does
// not see what the importer folded (a Resize to a computed size), and every
// dim downstream of one, the batch included, was lost for later Shape
// arithmetic. Only rules that hold whatever the other attributes say.
std::optional<Shape> DimsFromInputs(const NodeContext& c) {
  const std::string& op = c.node().op_type();
  if (SameShapeOps().count(op)) return c.shape(0);
  if (op == "GatherElements") return c.shape(1);
  if (op == "PRelu") return c.shape(0);  // the slope broadcasts to X, in every opset
  if (BroadcastOps().count(op) && op != "MatMul") return Broadcast(c);
  if (op == "Slice") {
    std::optional<SliceWindow> w = SliceOf(c, c.shape(0));
    return w ? std::optional<Shape>(Shape(w->count)) : std::nullopt;
  }
  if (op == "Concat") return ConcatDims(c);
  if (op == "Transpose") {
    const Shape x = c.shape(0);
    std::optional<std::vector<int64_t>> perm = x.known_rank() ? Perm(c, x.rank()) : std::nullopt;
    if (!perm) return std::nullopt;
    std::vector<int64_t> out;
    for (int64_t p : *perm) out.push_back(x.dim(static_cast<int>(p)));
    return Shape(out);
  }
  if (op == "MatMul") return MatMulDims(c);
  if (op == "ConstantOfShape" && Foldable(c.value(0)) && c.value(0)->shape().rank() == 1) {
    std::vector<int64_t> dims = c.value(0)->ToInt64s();
    if (std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) return std::nullopt;
    return Shape(dims);
  }
  const bool conv = op == "Conv" || op == "ConvTranspose";
  const bool pool = op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
                    op == "GlobalMaxPool" || op == "LpPool" || op == "GlobalLpPool";
  if (!conv && !pool) return std::nullopt;
  // The batch (and a pool's channels) pass through; a convolution's channels
  // are its weight's.
  const Shape x = c.shape(0);
  if (!x.known_rank() || x.rank() < 3) return std::nullopt;
  std::vector<int64_t> out(x.rank(), -1);
  out[0] = x.dim(0);
  if (pool) out[1] = x.dim(1);
  if (op == "Conv" && c.rank(1) == x.rank()) out[1] = c.shape(1).dim(0);
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "GlobalLpPool") {
    std::fill(out.begin() + 2, out.end(), 1);
  }
  return Shape(out);
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
  if (c.has_output(0) && c.out_shape(0).known_rank()) {
    if (std::optional<Shape> s = DimsFromInputs(c)) c.RefineOutputShape(0, *s);
  }
  if (c.has_output(0)) {
    if (std::optional<Tensor> v = Fold(c)) c.OutputConstant(0, *v);
  }
}

}  // namespace graph::onnx_import
