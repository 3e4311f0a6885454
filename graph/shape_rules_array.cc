// Shape rules for sources, elementwise ops and array manipulation, with constant
// evaluation of the small integer tensors that carry shapes. Gathers,
// reductions and the other indexing ops: shape_rules_index.cc.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "graph/shape_rules.h"

namespace graph {

namespace {

// Row-major strides of a fully defined shape.
std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  // Wrapping (defined, unlike int64 overflow) where a 0 follows large sizes:
  // such a shape has no elements to index.
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    __builtin_mul_overflow(s[i + 1], dims[i + 1], &s[i]);
  }
  return s;
}

using IntOp = std::function<std::optional<int64_t>(int64_t, int64_t)>;

// Evaluates an elementwise integer op with broadcasting over small constants;
// nothing when an element overflows or divides by zero.
std::optional<std::vector<int64_t>> BroadcastEval(const Shape& out, const Tensor& a,
                                                  const Tensor& b, const IntOp& f) {
  std::vector<int64_t> va = a.ToInt64s(), vb = b.ToInt64s();
  const auto& od = out.dims();
  int rank = out.rank();
  auto index_strides = [&](const Shape& s) {
    std::vector<int64_t> st(rank, 0);
    std::vector<int64_t> own = Strides(s.dims());
    for (int i = 0; i < s.rank(); ++i) {
      int oi = rank - s.rank() + i;
      st[oi] = s.dim(i) == 1 ? 0 : own[i];
    }
    return st;
  };
  std::vector<int64_t> sa = index_strides(a.shape()), sb = index_strides(b.shape());
  std::vector<int64_t> ost = Strides(od);
  int64_t n = out.NumElements();
  std::vector<int64_t> result(n);
  for (int64_t k = 0; k < n; ++k) {
    int64_t ia = 0, ib = 0, rem = k;
    for (int d = 0; d < rank; ++d) {
      int64_t idx = rem / ost[d];
      rem %= ost[d];
      ia += idx * sa[d];
      ib += idx * sb[d];
    }
    std::optional<int64_t> v = f(va[ia], vb[ib]);
    if (!v) return std::nullopt;
    result[k] = *v;
  }
  return result;
}

std::optional<int64_t> FloorDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::optional<int64_t> TruncDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
  return a / b;
}

// Integer arithmetic that shape computations use.
const IntOp* IntBinaryOp(const std::string& op) {
  static const auto* kOps =
      new std::vector<
          std::pair<std::string, IntOp>>{{"Add",
                                          [](int64_t a, int64_t b) -> std::optional<int64_t> {
                                            int64_t r;
                                            return CheckedAdd(a, b, &r) ? std::optional<int64_t>(r)
                                                                        : std::nullopt;
                                          }},
                                         {"Sub",
                                          [](int64_t a, int64_t b) -> std::optional<int64_t> {
                                            int64_t r;
                                            return __builtin_sub_overflow(a, b, &r)
                                                       ? std::nullopt
                                                       : std::optional<int64_t>(r);
                                          }},
                                         {"Mul",
                                          [](int64_t a, int64_t b) -> std::optional<int64_t> {
                                            int64_t r;
                                            return CheckedMul(a, b, &r) ? std::optional<int64_t>(r)
                                                                        : std::nullopt;
                                          }},
                                         {"FloorDiv", FloorDiv},
                                         {"Div", TruncDiv},
                                         {"TruncateDiv", TruncDiv},
                                         {"FloorMod",
                                          [](int64_t a, int64_t b) -> std::optional<int64_t> {
                                            auto q = FloorDiv(a, b);
                                            if (!q) return std::nullopt;
                                            return a - *q * b;
                                          }},
                                         {"Maximum",
                                          [](int64_t a, int64_t b) -> std::optional<int64_t> {
                                            return std::max(a, b);
                                          }},
                                         {"Minimum",
                                          [](int64_t a, int64_t b) -> std::optional<int64_t> {
                                            return std::min(a, b);
                                          }}};
  const std::string& name = op == "AddV2" ? std::string("Add") : op;
  for (const auto& [n, fn] : *kOps) {
    if (n == name) return &fn;
  }
  return nullptr;
}

// Gathers the elements of `src` (dims `dims`) selected per dimension by index
// lists, in row-major order of the selection.
std::vector<int64_t> GatherBlock(const std::vector<int64_t>& src, const std::vector<int64_t>& dims,
                                 const std::vector<std::vector<int64_t>>& picks) {
  std::vector<int64_t> st = Strides(dims);
  std::vector<int64_t> out;
  std::vector<size_t> pos(dims.size(), 0);
  for (const auto& p : picks) {
    if (p.empty()) return out;
  }
  for (;;) {
    int64_t off = 0;
    for (size_t d = 0; d < dims.size(); ++d) off += picks[d][pos[d]] * st[d];
    out.push_back(src[off]);
    int d = static_cast<int>(dims.size()) - 1;
    while (d >= 0 && ++pos[d] == picks[d].size()) pos[d--] = 0;
    if (d < 0) break;
  }
  return out;
}

std::vector<int64_t> Iota(int64_t start, int64_t count, int64_t stride = 1) {
  std::vector<int64_t> v(count);
  for (int64_t i = 0; i < count; ++i) v[i] = start + i * stride;
  return v;
}

}  // namespace

// ---- sources and elementwise -------------------------------------------------

Status UnaryRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  c.set_output(0, c.t_attr(), c.in(0));
  return Status::Ok();
}

Status IdentityRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  c.set_output(0, c.dtype(0), c.in(0));
  if (c.value(0)) c.set_value(0, *c.value(0));
  return Status::Ok();
}

Status IdentityNRule(InferenceContext& c) {
  for (int i = 0; i < c.num_inputs(); ++i) {
    c.set_output(i, c.dtype(i), c.in(i));
    if (c.value(i)) c.set_value(i, *c.value(i));
  }
  return Status::Ok();
}

Status BinaryRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  auto out = BroadcastShapes(c.in(0), c.in(1));
  if (!out.ok()) return c.Error(out.status().message());
  DType t = c.t_attr();
  c.set_output(0, t, *out);
  const IntOp* fn = IntBinaryOp(c.node().op);
  if (fn && c.ints(0) && c.ints(1) && out->FullyDefined() && EvaluableSize(*out, c)) {
    auto v = BroadcastEval(*out, *c.value(0), *c.value(1), *fn);
    if (v) c.set_int_value(0, t, *out, *v);
  }
  return Status::Ok();
}

Status CompareRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  auto out = BroadcastShapes(c.in(0), c.in(1));
  if (!out.ok()) return c.Error(out.status().message());
  c.set_output(0, DType::kBool, *out);
  return Status::Ok();
}

Status AddNRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  Shape s = c.in(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    auto b = BroadcastShapes(s, c.in(i));
    if (!b.ok()) return c.Error(b.status().message());
    s = *b;
  }
  c.set_output(0, c.t_attr(), s);
  return Status::Ok();
}

Status SelectRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(3));
  auto te = BroadcastShapes(c.in(1), c.in(2));
  if (!te.ok()) return c.Error(te.status().message());
  Shape s = *te;
  if (c.node().op == "SelectV2") {
    auto all = BroadcastShapes(c.in(0), s);
    if (!all.ok()) return c.Error(all.status().message());
    s = *all;
  }
  c.set_output(0, c.dtype(1), s);
  return Status::Ok();
}

Status CastRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  DType dst = c.node().attr_type("DstT", DType::kInvalid);
  if (dst == DType::kInvalid) return c.Error("missing attr 'DstT'");
  c.set_output(0, dst, c.in(0));
  if (IsInteger(dst) && c.ints(0)) c.set_int_value(0, dst, c.in(0), *c.ints(0));
  if ((dst == DType::kFloat || dst == DType::kDouble) && c.value(0) &&
      c.value(0)->num_elements() == 1) {
    const double v = c.value(0)->ToDoubles()[0];
    std::string bytes;
    if (dst == DType::kFloat) {
      const float f = static_cast<float>(v);
      bytes.assign(reinterpret_cast<const char*>(&f), sizeof f);
    } else {
      bytes.assign(reinterpret_cast<const char*>(&v), sizeof v);
    }
    c.set_value(0, Tensor(dst, c.in(0), std::move(bytes)));
  }
  return Status::Ok();
}

Status ConstRule(InferenceContext& c) {
  const AttrValue* v = c.node().attr("value");
  const Tensor* t = v ? v->get<Tensor>() : nullptr;
  if (!t) return c.Error("missing tensor attr 'value'");
  c.set_output(0, t->dtype(), t->shape());
  c.set_value(0, *t);
  return Status::Ok();
}

Status PlaceholderRule(InferenceContext& c) {
  DType t = c.node().attr_type("dtype", DType::kInvalid);
  const AttrValue* a = c.node().attr("shape");
  const Shape* declared = a ? a->get<Shape>() : nullptr;
  Shape s = declared ? *declared : Shape();
  if (!s.known_rank() && c.num_inputs() > 0) s = c.in(0);  // PlaceholderWithDefault
  auto given = c.options().input_shapes.find(c.node().name);
  if (given != c.options().input_shapes.end()) {
    s = Shape(given->second);
  } else if (s.known_rank() && s.rank() > 0 && s.dim(0) == kUnknownDim) {
    s.set_dim(0, c.options().batch);
    c.bound_batch = true;
  }
  c.set_output(0, t == DType::kInvalid && c.num_inputs() > 0 ? c.dtype(0) : t, s);
  return Status::Ok();
}

Status VariableRule(InferenceContext& c) {
  const AttrValue* a = c.node().attr("shape");
  const Shape* s = a ? a->get<Shape>() : nullptr;
  c.set_output(0, c.node().attr_type("dtype", DType::kInvalid), s ? *s : Shape());
  return Status::Ok();
}

Status VarHandleRule(InferenceContext& c) {
  c.set_output(0, DType::kResource, Shape::Scalar());
  return Status::Ok();
}

Status ReadVariableRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  const Node* handle = c.input_node(0);
  const AttrValue* a = handle && handle->op == "VarHandleOp" ? handle->attr("shape") : nullptr;
  const Shape* s = a ? a->get<Shape>() : nullptr;
  c.set_output(0, c.node().attr_type("dtype", DType::kInvalid), s ? *s : Shape());
  return Status::Ok();
}

Status NoOutputRule(InferenceContext&) { return Status::Ok(); }

Status ScalarLossRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  c.set_output(0, c.t_attr(), Shape::Scalar());
  return Status::Ok();
}

Status ShapeRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  DType t = c.node().attr_type("out_type", DType::kInt32);
  const Shape& in = c.in(0);
  c.set_output(0, t, Shape({in.known_rank() ? in.rank() : kUnknownDim}));
  if (in.FullyDefined()) c.set_int_value(0, t, Shape({in.rank()}), in.dims());
  return Status::Ok();
}

Status SizeRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  DType t = c.node().attr_type("out_type", DType::kInt32);
  c.set_output(0, t, Shape::Scalar());
  if (c.in(0).NumElements() >= 0) {
    c.set_int_value(0, t, Shape::Scalar(), {c.in(0).NumElements()});
  }
  return Status::Ok();
}

Status RankRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  c.set_output(0, DType::kInt32, Shape::Scalar());
  if (c.in(0).known_rank()) c.set_int_value(0, DType::kInt32, Shape::Scalar(), {c.in(0).rank()});
  return Status::Ok();
}

template <int K, int D>
Status ShapeFromValueRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(std::max(K, D) + 1));
  DType t = c.node().attr_type("T", c.dtype(D < 0 ? c.num_inputs() - 1 : D));
  auto dims = c.ints(K);
  if (dims) {
    for (int64_t d : *dims) {
      if (d < 0) return c.Error("negative dimension in the requested output shape");
    }
    c.set_output(0, t, Shape(*dims));
  } else {
    const Shape& s = c.in(K);
    c.set_output(0, t, s.rank() == 1 ? UnknownDimsOfRank(s.dim(0)) : Shape());
  }
  return Status::Ok();
}
template Status ShapeFromValueRule<0>(InferenceContext&);
template Status ShapeFromValueRule<1>(InferenceContext&);
template Status ShapeFromValueRule<2>(InferenceContext&);
template Status ShapeFromValueRule<2, 1>(InferenceContext&);

template <int K>
Status SameAsInputRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(K + 1));
  c.set_output(0, c.node().attr_type("T", c.dtype(K)), c.in(K));
  return Status::Ok();
}
template Status SameAsInputRule<0>(InferenceContext&);
template Status SameAsInputRule<1>(InferenceContext&);

// ---- array manipulation ---------------------------------------------------------

Status ReshapeRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  DType t = c.t_attr();
  auto target = c.ints(1);
  if (!target) {
    const Shape& s = c.in(1);
    c.set_output(0, t, s.rank() == 1 ? UnknownDimsOfRank(s.dim(0)) : Shape());
    return Status::Ok();
  }
  std::vector<int64_t> dims = *target;
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < static_cast<int>(dims.size()); ++i) {
    if (dims[i] == -1) {
      if (infer >= 0) return c.Error("more than one -1 in the target shape");
      infer = i;
    } else if (dims[i] < 0) {
      return c.Error("negative dimension in the target shape");
    } else if (!CheckedMul(known, dims[i], &known)) {
      return c.Error("target shape " + Shape(dims).ToString() + " overflows");
    }
  }
  if (dims.size() > static_cast<size_t>(kMaxRank)) return c.Error("target rank exceeds 254");
  int64_t n = c.in(0).NumElements();
  if (infer >= 0 && n >= 0) {
    if (known == 0 || n % known != 0) {
      return c.Error("cannot reshape " + c.in(0).ToString() + " into " + Shape(dims).ToString());
    }
    dims[infer] = n / known;
  } else if (infer < 0 && n >= 0 && n != known) {
    return c.Error("cannot reshape " + c.in(0).ToString() + " (" + std::to_string(n) +
                   " elements) into " + Shape(dims).ToString());
  }
  c.set_output(0, t, Shape(dims));
  if (c.ints(0) && Shape(dims).FullyDefined()) c.set_int_value(0, t, Shape(dims), *c.ints(0));
  return Status::Ok();
}

Status TransposeRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& in = c.in(0);
  auto perm = c.ints(1);
  if (!perm || !in.known_rank()) {
    c.set_output(0, c.t_attr(), SameRankUnknown(in));
    return Status::Ok();
  }
  if (static_cast<int>(perm->size()) != in.rank()) return c.Error("perm does not match the rank");
  std::vector<int64_t> dims(in.rank());
  std::vector<char> used(in.rank(), 0);
  for (int i = 0; i < in.rank(); ++i) {
    int64_t p = (*perm)[i];
    if (p < 0 || p >= in.rank() || used[p]) return c.Error("perm is not a permutation");
    used[p] = 1;
    dims[i] = in.dim(static_cast<int>(p));
  }
  c.set_output(0, c.t_attr(), Shape(dims));
  return Status::Ok();
}

Status ExpandDimsRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& in = c.in(0);
  auto axis = c.ints(1);
  if (!axis || axis->size() != 1 || !in.known_rank()) {
    c.set_output(0, c.t_attr(), in.known_rank() ? Shape::UnknownDims(in.rank() + 1) : Shape());
    return Status::Ok();
  }
  auto a = NormalizeAxis((*axis)[0], in.rank() + 1);
  if (!a.ok()) return c.Error(a.status().message());
  std::vector<int64_t> dims = in.dims();
  dims.insert(dims.begin() + *a, 1);
  c.set_output(0, c.t_attr(), Shape(dims));
  if (c.ints(0)) c.set_int_value(0, c.t_attr(), Shape(dims), *c.ints(0));
  return Status::Ok();
}

Status SqueezeRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  const Shape& in = c.in(0);
  if (!in.known_rank()) {
    c.set_output(0, c.t_attr(), Shape());
    return Status::Ok();
  }
  const std::vector<int64_t>* axes = c.node().attr_ints("squeeze_dims");
  if (!axes || axes->empty()) axes = c.node().attr_ints("axis");
  std::vector<char> drop(in.rank(), 0);
  if (axes && !axes->empty()) {
    for (int64_t a : *axes) {
      auto ax = NormalizeAxis(a, in.rank());
      if (!ax.ok()) return c.Error(ax.status().message());
      if (in.dim(*ax) >= 0 && in.dim(*ax) != 1)
        return c.Error("cannot squeeze dimension " + std::to_string(*ax) + " of size " +
                       std::to_string(in.dim(*ax)));
      drop[*ax] = 1;
    }
  } else {
    for (int i = 0; i < in.rank(); ++i) {
      if (in.dim(i) < 0) {
        c.set_output(0, c.t_attr(), Shape());
        return Status::Ok();
      }
      drop[i] = in.dim(i) == 1;
    }
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i) {
    if (!drop[i]) dims.push_back(in.dim(i));
  }
  c.set_output(0, c.t_attr(), Shape(dims));
  if (c.ints(0)) c.set_int_value(0, c.t_attr(), Shape(dims), *c.ints(0));
  return Status::Ok();
}

Status ConcatRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  // ConcatV2: values..., axis.  Concat: axis, values...
  bool axis_first = c.node().op == "Concat";
  int axis_input = axis_first ? 0 : c.num_inputs() - 1;
  int first = axis_first ? 1 : 0;
  int count = c.num_inputs() - 1;
  DType t = c.t_attr();
  if (t == DType::kInvalid) t = c.dtype(first);
  auto axis_v = c.ints(axis_input);
  int rank = -1;
  for (int i = first; i < first + count; ++i) {
    if (c.in(i).known_rank()) rank = c.in(i).rank();
  }
  if (!axis_v || axis_v->size() != 1 || rank < 0) {
    c.set_output(0, t, rank < 0 ? Shape() : Shape::UnknownDims(rank));
    return Status::Ok();
  }
  auto axis = NormalizeAxis((*axis_v)[0], rank);
  if (!axis.ok()) return c.Error(axis.status().message());
  std::vector<int64_t> dims(rank, kUnknownDim);
  int64_t total = 0;
  for (int i = first; i < first + count; ++i) {
    const Shape& s = c.in(i);
    if (!s.known_rank()) {
      total = -1;
      continue;
    }
    if (s.rank() != rank) return c.Error("inputs have different ranks");
    for (int d = 0; d < rank; ++d) {
      if (d == *axis) continue;
      if (s.dim(d) >= 0 && dims[d] >= 0 && s.dim(d) != dims[d]) {
        return c.Error("inputs differ in dimension " + std::to_string(d) + ": " +
                       std::to_string(dims[d]) + " vs " + std::to_string(s.dim(d)));
      }
      if (s.dim(d) >= 0) dims[d] = s.dim(d);
    }
    if (total >= 0 && (s.dim(*axis) < 0 || !CheckedAdd(total, s.dim(*axis), &total))) total = -1;
  }
  dims[*axis] = total;
  Shape out(dims);
  c.set_output(0, t, out);
  if (out.NumElements() == 0) {
    c.set_int_value(0, t, out, {});  // the loop below would count sizes before a 0
  } else if (out.FullyDefined() && EvaluableSize(out, c)) {
    int64_t outer = 1;  // bounded: out is small and not empty
    for (int d = 0; d < *axis; ++d) outer *= dims[d];
    std::vector<std::vector<int64_t>> vals;
    for (int i = first; i < first + count; ++i) {
      auto v = c.ints(i);
      if (!v) return Status::Ok();
      vals.push_back(std::move(*v));
    }
    std::vector<int64_t> result;
    for (int64_t o = 0; o < outer; ++o) {
      for (const auto& v : vals) {
        int64_t block = static_cast<int64_t>(v.size()) / std::max<int64_t>(outer, 1);
        result.insert(result.end(), v.begin() + o * block, v.begin() + (o + 1) * block);
      }
    }
    c.set_int_value(0, t, out, result);
  }
  return Status::Ok();
}

Status PackRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  Shape elem = c.in(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    if (!elem.known_rank()) elem = c.in(i);
    if (c.in(i).known_rank() && elem.known_rank() && c.in(i).rank() != elem.rank()) {
      return c.Error("inputs have different ranks");
    }
  }
  DType t = c.t_attr();
  if (!elem.known_rank()) {
    c.set_output(0, t, Shape());
    return Status::Ok();
  }
  std::vector<int64_t> dims = elem.dims();
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.in(i).known_rank()) continue;
    for (int d = 0; d < elem.rank(); ++d) {
      if (dims[d] < 0) dims[d] = c.in(i).dim(d);
      if (c.in(i).dim(d) >= 0 && c.in(i).dim(d) != dims[d]) {
        return c.Error("inputs have different shapes");
      }
    }
  }
  auto axis = NormalizeAxis(c.node().attr_int("axis", 0), elem.rank() + 1);
  if (!axis.ok()) return c.Error(axis.status().message());
  dims.insert(dims.begin() + *axis, c.num_inputs());
  Shape out(dims);
  c.set_output(0, t, out);
  if (!out.FullyDefined() || !EvaluableSize(out, c)) return Status::Ok();
  if (out.NumElements() == 0) {  // the loop below would count sizes before a 0
    c.set_int_value(0, t, out, {});
    return Status::Ok();
  }
  int64_t inner = 1, outer = 1;  // bounded: out is small and not empty
  for (int d = *axis + 1; d < out.rank(); ++d) inner *= dims[d];
  for (int d = 0; d < *axis; ++d) outer *= dims[d];
  std::vector<std::vector<int64_t>> vals;
  for (int i = 0; i < c.num_inputs(); ++i) {
    auto v = c.ints(i);
    if (!v) return Status::Ok();
    vals.push_back(std::move(*v));
  }
  std::vector<int64_t> result;
  for (int64_t o = 0; o < outer; ++o) {
    for (const auto& v : vals) {
      result.insert(result.end(), v.begin() + o * inner, v.begin() + (o + 1) * inner);
    }
  }
  c.set_int_value(0, t, out, result);
  return Status::Ok();
}

Status UnpackRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  const Shape& in = c.in(0);
  int64_t num = c.node().attr_int("num", -1);
  DType t = c.t_attr();
  if (!in.known_rank()) {
    for (int i = 0; i < std::max<int64_t>(num, 1); ++i) c.set_output(i, t, Shape());
    return Status::Ok();
  }
  auto axis = NormalizeAxis(c.node().attr_int("axis", 0), in.rank());
  if (!axis.ok()) return c.Error(axis.status().message());
  if (num < 0) num = in.dim(*axis);
  if (num < 0) return c.Error("cannot tell the number of outputs");
  if (num > kMaxOutputs) return c.Error("num=" + std::to_string(num) + " outputs is too many");
  if (in.dim(*axis) >= 0 && in.dim(*axis) != num) {
    return c.Error("num=" + std::to_string(num) + " but dimension " + std::to_string(*axis) +
                   " has size " + std::to_string(in.dim(*axis)));
  }
  std::vector<int64_t> dims = in.dims();
  dims.erase(dims.begin() + *axis);
  auto v = c.ints(0);
  for (int i = 0; i < num; ++i) {
    c.set_output(i, t, Shape(dims));
    if (v && in.FullyDefined()) {
      std::vector<std::vector<int64_t>> picks;
      for (int d = 0; d < in.rank(); ++d)
        picks.push_back(d == *axis ? std::vector<int64_t>{i} : Iota(0, in.dim(d)));
      c.set_int_value(i, t, Shape(dims), GatherBlock(*v, in.dims(), picks));
    }
  }
  return Status::Ok();
}

Status SplitRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  int64_t num = c.node().attr_int("num_split", 1);
  if (num < 1 || num > kMaxOutputs) return c.Error("num_split must be in [1, 65536]");
  const Shape& in = c.in(1);
  DType t = c.t_attr();
  if (t == DType::kInvalid) t = c.dtype(1);
  auto axis_v = c.ints(0);
  Shape piece = SameRankUnknown(in);
  if (axis_v && axis_v->size() == 1 && in.known_rank()) {
    auto axis = NormalizeAxis((*axis_v)[0], in.rank());
    if (!axis.ok()) return c.Error(axis.status().message());
    piece = in;
    if (in.dim(*axis) >= 0) {
      if (in.dim(*axis) % num != 0) {
        return c.Error("dimension " + std::to_string(*axis) + " of size " +
                       std::to_string(in.dim(*axis)) + " does not split into " +
                       std::to_string(num));
      }
      piece.set_dim(*axis, in.dim(*axis) / num);
    }
  }
  for (int i = 0; i < num; ++i) c.set_output(i, t, piece);
  return Status::Ok();
}

Status SplitVRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(3));
  const Shape& in = c.in(0);
  DType t = c.t_attr();
  auto sizes = c.ints(1);
  auto axis_v = c.ints(2);
  int64_t num = c.node().attr_int("num_split", sizes ? static_cast<int64_t>(sizes->size()) : 1);
  if (num < 1 || num > kMaxOutputs) return c.Error("num_split must be in [1, 65536]");
  if (!sizes || !axis_v || axis_v->size() != 1 || !in.known_rank()) {
    for (int i = 0; i < num; ++i) {
      c.set_output(i, t, SameRankUnknown(in));
    }
    return Status::Ok();
  }
  auto axis = NormalizeAxis((*axis_v)[0], in.rank());
  if (!axis.ok()) return c.Error(axis.status().message());
  std::vector<int64_t> sz = *sizes;
  int64_t known = 0;
  int infer = -1;
  for (int i = 0; i < static_cast<int>(sz.size()); ++i) {
    if (sz[i] == -1 && infer < 0) {
      infer = i;
    } else if (sz[i] < 0) {
      return c.Error("invalid size_splits");
    } else if (!CheckedAdd(known, sz[i], &known)) {
      return c.Error("size_splits overflow");
    }
  }
  if (in.dim(*axis) >= 0 && (known > in.dim(*axis) || (infer < 0 && known != in.dim(*axis)))) {
    return c.Error("size_splits do not add up to dimension " + std::to_string(*axis) + " of size " +
                   std::to_string(in.dim(*axis)));
  }
  if (infer >= 0) sz[infer] = in.dim(*axis) >= 0 ? in.dim(*axis) - known : kUnknownDim;
  for (int i = 0; i < static_cast<int>(sz.size()); ++i) {
    Shape s = in;
    s.set_dim(*axis, sz[i]);
    c.set_output(i, t, s);
  }
  return Status::Ok();
}

Status SliceRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(3));
  const Shape& in = c.in(0);
  DType t = c.t_attr();
  auto begin = c.ints(1), size = c.ints(2);
  if (!begin || !size || !in.known_rank()) {
    int rank = in.known_rank() ? in.rank() : (c.in(1).rank() == 1 ? c.in(1).dim(0) : -1);
    c.set_output(0, t, rank >= 0 ? Shape::UnknownDims(rank) : Shape());
    return Status::Ok();
  }
  if (static_cast<int>(begin->size()) != in.rank() || static_cast<int>(size->size()) != in.rank()) {
    return c.Error("begin and size must have one entry per dimension");
  }
  std::vector<int64_t> dims(in.rank());
  std::vector<std::vector<int64_t>> picks;
  const bool evaluate = c.value(0) != nullptr;  // a value is small, so are its picks
  for (int d = 0; d < in.rank(); ++d) {
    int64_t b = (*begin)[d], s = (*size)[d];
    if (b < 0 || (in.dim(d) >= 0 && b > in.dim(d))) return c.Error("begin out of range");
    if (s == -1) s = in.dim(d) >= 0 ? in.dim(d) - b : kUnknownDim;
    if (in.dim(d) >= 0 && (s < 0 || s > in.dim(d) - b)) {
      return c.Error("slice [" + std::to_string(b) + ", +" + std::to_string(s) +
                     ") exceeds dimension " + std::to_string(d) + " of size " +
                     std::to_string(in.dim(d)));
    }
    dims[d] = s;
    if (evaluate && s >= 0) picks.push_back(Iota(b, s));
  }
  c.set_output(0, t, Shape(dims));
  if (evaluate && in.FullyDefined() && Shape(dims).FullyDefined()) {
    c.set_int_value(0, t, Shape(dims), GatherBlock(*c.ints(0), in.dims(), picks));
  }
  return Status::Ok();
}

Status StridedSliceRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(4));
  const Shape& in = c.in(0);
  DType t = c.t_attr();
  auto begin = c.ints(1), end = c.ints(2), strides = c.ints(3);
  const Node& n = c.node();
  int64_t begin_mask = n.attr_int("begin_mask", 0), end_mask = n.attr_int("end_mask", 0);
  int64_t ellipsis_mask = n.attr_int("ellipsis_mask", 0);
  int64_t new_axis_mask = n.attr_int("new_axis_mask", 0);
  int64_t shrink_mask = n.attr_int("shrink_axis_mask", 0);
  if (!begin || !end || !strides || !in.known_rank()) {
    c.set_output(0, t, Shape());
    return Status::Ok();
  }
  if (begin->size() > 64) return c.Error("more than 64 slice dimensions");
  int sparse = static_cast<int>(begin->size());
  if (static_cast<int>(end->size()) != sparse || static_cast<int>(strides->size()) != sparse) {
    return c.Error("begin, end and strides differ in length");
  }
  // Dimensions the sparse spec addresses directly (not ellipsis or new axes).
  int explicit_dims = 0;
  bool has_ellipsis = false;
  for (int i = 0; i < sparse; ++i) {
    if ((ellipsis_mask >> i) & 1) {
      if (has_ellipsis) return c.Error("more than one ellipsis");
      has_ellipsis = true;
    } else if (!((new_axis_mask >> i) & 1)) {
      ++explicit_dims;
    }
  }
  if (explicit_dims > in.rank()) return c.Error("slice has more dimensions than the input");
  std::vector<int64_t> out_dims;
  std::vector<std::vector<int64_t>> picks;  // per input dimension, for constant evaluation
  bool picks_known = in.FullyDefined() && c.value(0) != nullptr;  // small, so picks are too
  int d = 0;                                                      // input dimension
  auto full_dim = [&](int dim) {
    out_dims.push_back(in.dim(dim));
    if (picks_known) picks.push_back(Iota(0, in.dim(dim)));
  };
  for (int i = 0; i < sparse; ++i) {
    if ((ellipsis_mask >> i) & 1) {
      int span = in.rank() - explicit_dims;
      for (int k = 0; k < span; ++k) full_dim(d++);
      continue;
    }
    if ((new_axis_mask >> i) & 1) {
      out_dims.push_back(1);
      continue;
    }
    int64_t size = in.dim(d);
    int64_t b = (*begin)[i], e = (*end)[i], s = (*strides)[i];
    if (s == 0) return c.Error("stride 0");
    if ((shrink_mask >> i) & 1) {
      if (size >= 0) {
        int64_t idx = b < 0 ? b + size : b;
        if (idx < 0 || idx >= size) {
          return c.Error("index " + std::to_string(b) + " is out of range for dimension " +
                         std::to_string(d) + " of size " + std::to_string(size));
        }
        if (picks_known) picks.push_back({idx});
      }
      ++d;
      continue;
    }
    if (size < 0) {
      out_dims.push_back(kUnknownDim);
      ++d;
      continue;
    }
    int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? size : size - 1;
    if ((begin_mask >> i) & 1) {
      b = s > 0 ? lo : hi;
    } else {
      b = std::clamp(b < 0 ? b + size : b, lo, hi);
    }
    if ((end_mask >> i) & 1) {
      e = s > 0 ? hi : lo;
    } else {
      e = std::clamp(e < 0 ? e + size : e, lo, hi);
    }
    // 128-bit: b, e and s come from the file and may be near the int64 limits.
    __int128 span = s > 0 ? static_cast<__int128>(e) - b : static_cast<__int128>(b) - e;
    __int128 step = s > 0 ? static_cast<__int128>(s) : -static_cast<__int128>(s);
    int64_t count = span <= 0 ? 0 : static_cast<int64_t>((span + step - 1) / step);
    out_dims.push_back(count);
    if (picks_known) picks.push_back(Iota(b, count, s));
    ++d;
  }
  while (d < in.rank()) full_dim(d++);  // an implicit ellipsis at the end
  Shape out(out_dims);
  c.set_output(0, t, out);
  if (picks_known && c.ints(0) && out.FullyDefined()) {
    c.set_int_value(0, t, out, GatherBlock(*c.ints(0), in.dims(), picks));
  }
  return Status::Ok();
}

namespace {

// Pad and MirrorPadGrad: input 0 grows (sign +1) or shrinks (-1) by the
// [rank, 2] paddings of input 1.
Status PaddedRule(InferenceContext& c, int sign) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& in = c.in(0);
  auto pads = c.ints(1);
  if (!pads || !in.known_rank()) {
    c.set_output(0, c.t_attr(), SameRankUnknown(in));
    return Status::Ok();
  }
  const Shape& ps = c.in(1);
  if (static_cast<int>(pads->size()) != 2 * in.rank() ||
      (ps.known_rank() && (ps.rank() != 2 || ps.dim(1) != 2))) {
    return c.Error("paddings must be [rank, 2]");
  }
  std::vector<int64_t> dims(in.rank());
  for (int d = 0; d < in.rank(); ++d) {
    int64_t lo = (*pads)[2 * d], hi = (*pads)[2 * d + 1];
    if (lo < 0 || hi < 0) return c.Error("negative padding");
    dims[d] = kUnknownDim;
    if (in.dim(d) < 0) continue;
    if (sign > 0) {
      if (!CheckedAdd(in.dim(d), lo, &dims[d]) || !CheckedAdd(dims[d], hi, &dims[d])) {
        return c.Error("padded dimension overflows");
      }
    } else {
      dims[d] = in.dim(d) - lo - hi;
      if (lo > in.dim(d) || hi > in.dim(d) || dims[d] < 0) {
        return c.Error("paddings exceed the dimension");
      }
    }
  }
  c.set_output(0, c.t_attr(), Shape(dims));
  return Status::Ok();
}

}  // namespace

Status PadRule(InferenceContext& c) { return PaddedRule(c, +1); }
Status MirrorPadGradRule(InferenceContext& c) { return PaddedRule(c, -1); }

Status TileRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& in = c.in(0);
  auto mult = c.ints(1);
  if (!mult || !in.known_rank()) {
    c.set_output(0, c.t_attr(), SameRankUnknown(in));
    return Status::Ok();
  }
  if (static_cast<int>(mult->size()) != in.rank()) return c.Error("multiples must match the rank");
  std::vector<int64_t> dims(in.rank());
  for (int d = 0; d < in.rank(); ++d) {
    if ((*mult)[d] < 0) return c.Error("negative multiple");
    dims[d] = kUnknownDim;
    if (in.dim(d) >= 0 && !CheckedMul(in.dim(d), (*mult)[d], &dims[d])) {
      return c.Error("tiled dimension overflows");
    }
  }
  c.set_output(0, c.t_attr(), Shape(dims));
  return Status::Ok();
}

namespace {

// The shape a dims input (Fill's, RandomUniform's) asks for: its value where
// known, else as many unknown dims as it has entries; `known` says which.
Result<Shape> RequestedShape(InferenceContext& c, int k, bool* known) {
  auto dims = c.ints(k);
  *known = dims.has_value();
  if (!dims) {
    const Shape& s = c.in(k);
    return s.rank() == 1 ? UnknownDimsOfRank(s.dim(0)) : Shape();
  }
  if (dims->size() > static_cast<size_t>(kMaxRank)) return c.Error("rank exceeds 254");
  for (int64_t d : *dims) {
    if (d < 0) return c.Error("negative dimension");
  }
  return Shape(*dims);
}

}  // namespace

// RandomUniform(shape) of the float `dtype` (TF's default: float).
Status RandomUniformRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  const DType t = c.node().attr_type("dtype", DType::kFloat);
  if (!IsFloating(t)) return c.Error("dtype must be a float type");
  bool known;
  GRAPH_ASSIGN_OR_RETURN(Shape out, RequestedShape(c, 0, &known));
  c.set_output(0, t, out);
  return Status::Ok();
}

Status FillRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  DType t = c.dtype(1);
  bool known;
  GRAPH_ASSIGN_OR_RETURN(Shape out, RequestedShape(c, 0, &known));
  c.set_output(0, t, out);
  auto v = c.ints(1);
  if (known && v && v->size() == 1 && EvaluableSize(out, c)) {
    c.set_int_value(0, t, out, std::vector<int64_t>(out.NumElements(), (*v)[0]));
  }
  return Status::Ok();
}

Status RangeRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(3));
  DType t = c.node().attr_type("Tidx", c.dtype(0));
  std::vector<double> v[3];
  for (int i = 0; i < 3; ++i) {
    if (!c.value(i) || c.value(i)->num_elements() != 1) {
      c.set_output(0, t, Shape::UnknownDims(1));
      return Status::Ok();
    }
    v[i] = c.value(i)->ToDoubles();
  }
  double start = v[0][0], limit = v[1][0], delta = v[2][0];
  if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
    return c.Error("range bounds must be finite");
  }
  if (delta == 0) return c.Error("delta is 0");
  if ((delta > 0 && limit < start) || (delta < 0 && limit > start)) {
    return c.Error("limit is on the wrong side of start for delta");
  }
  double count = std::ceil(std::abs((limit - start) / delta));
  if (count > 1e15) return c.Error("range has too many elements");
  int64_t n = static_cast<int64_t>(count);
  c.set_output(0, t, Shape({n}));
  if (IsInteger(t) && n <= c.options().max_constant_elements) {
    c.set_int_value(0, t, Shape({n}),
                    Iota(static_cast<int64_t>(start), n, static_cast<int64_t>(delta)));
  }
  return Status::Ok();
}

}  // namespace graph
