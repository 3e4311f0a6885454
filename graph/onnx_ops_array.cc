// ONNX rules, array family: constants, shapes and reshaping, slicing,
// gathering, padding, top-k. Operands that ONNX passes as tensors but the IR
// needs as constants (Slice's starts, Unsqueeze's axes, Pad's pads) must be
// known at import; Shape of a static shape is folded into a constant.
#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

#include "graph/onnx_translate.h"
#include "graph/shape_rules.h"

namespace graph::onnx_import {
namespace {

Status ConstantOp(NodeContext& c) {
  const onnx::AttributeProto* a = nullptr;
  for (const onnx::AttributeProto& attr : c.node().attribute()) a = &attr;
  if (a == nullptr || c.node().attribute_size() != 1) return c.Error("needs exactly one value attribute");
  Tensor value;
  const std::string& n = a->name();
  if (n == "value") {
    GRAPH_ASSIGN_OR_RETURN(value, TensorFromOnnx(a->t(), "node '" + c.node().name() + "'"));
  } else if (n == "value_float") {
    std::string b(4, '\0');
    float f = a->f();
    std::memcpy(b.data(), &f, 4);
    value = Tensor(DType::kFloat, Shape::Scalar(), b);
  } else if (n == "value_floats") {
    std::string b(4 * a->floats_size(), '\0');
    std::memcpy(b.data(), a->floats().data(), b.size());
    value = Tensor(DType::kFloat, Shape({a->floats_size()}), b);
  } else if (n == "value_int") {
    value = Tensor::FromInt64s(DType::kInt64, Shape::Scalar(), {a->i()});
  } else if (n == "value_ints") {
    value = Tensor::FromInt64s(DType::kInt64, Shape({a->ints_size()}),
                               std::vector<int64_t>(a->ints().begin(), a->ints().end()));
  } else {
    return c.Unsupported("a Constant given by '" + n + "'");
  }
  c.Output(0, c.Constant("", value));
  c.OutputConstant(0, value);
  return Status::Ok();
}

// ---- shapes ----

Status ShapeOp(NodeContext& c) {
  Shape s = c.shape(0);
  const int r = s.known_rank() ? s.rank() : -1;
  int64_t start = c.attr_int("start", 0), end = c.attr_int("end", std::numeric_limits<int64_t>::max());
  if ((start != 0 || c.attr("end")) && r < 0) return c.Unsupported("start/end on an unknown rank");
  if (r >= 0) {
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<int64_t>(start, 0, r);
    end = std::clamp<int64_t>(end, start, r);
  }
  bool static_dims = r >= 0;
  std::vector<int64_t> dims;
  for (int64_t i = start; static_dims && i < end; ++i) {
    static_dims = s.dim(static_cast<int>(i)) >= 0;
    dims.push_back(s.dim(static_cast<int>(i)));
  }
  if (static_dims) {
    Tensor v = Tensor::FromInt64s(DType::kInt64, Shape({static_cast<int64_t>(dims.size())}), dims);
    c.Output(0, c.Constant("", v));
    c.OutputConstant(0, v);
    return Status::Ok();
  }
  if (r >= 0) c.RefineOutputShape(0, Shape({end - start}));
  const bool full = start == 0 && (r < 0 || end == r);
  std::string y = c.Emit(full ? "" : "full", "Shape", {c.in(0)}, {{"out_type", MakeAttr(DType::kInt64)}});
  if (!full) {
    y = c.Emit("", "StridedSlice", {y, c.IntConst("begin", {start}), c.IntConst("end", {end}), c.IntConst("strides", {1})},
               {{"Index", MakeAttr(DType::kInt32)}});
  }
  c.Output(0, y);
  return Status::Ok();
}

Status Size(NodeContext& c) {
  c.Output(0, c.Emit("", "Size", {c.in(0)}, {{"out_type", MakeAttr(DType::kInt64)}}));
  return Status::Ok();
}

// ONNX's 0 ("copy the input's dim", unless allowzero) made explicit where the
// dim is known, or -1 where it is the only unknown.
Result<std::vector<int64_t>> ReshapeTarget(NodeContext& c, std::vector<int64_t> target) {
  if (c.attr_int("allowzero", 0) != 0) return target;
  Shape s = c.shape(0);
  bool has_minus = std::count(target.begin(), target.end(), -1) > 0;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] != 0) continue;
    if (!s.known_rank() || static_cast<int>(i) >= s.rank()) return c.Error("0 in shape has no input dim");
    if (s.dim(static_cast<int>(i)) >= 0) {
      target[i] = s.dim(static_cast<int>(i));
    } else if (!has_minus) {
      target[i] = -1;
      has_minus = true;
    } else {
      return c.Unsupported("shape copies an unknown dim beside a -1");
    }
  }
  return target;
}

Status Reshape(NodeContext& c) {
  std::optional<std::vector<int64_t>> known;
  if (c.opset() < 5) {
    known = c.attr_ints("shape");
    if (!known) return c.Error("shape attribute is required");
  } else if (c.value(1)) {
    GRAPH_ASSIGN_OR_RETURN(known, c.ints(1, "shape"));
  }
  if (known) {
    GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> target, ReshapeTarget(c, *known));
    c.Output(0, c.Emit("", "Reshape", {c.in(0), c.IntConst("shape", target, DType::kInt64)}));
    c.RefineOutputShape(0, ResolvedShape(c.shape(0), target));
    return Status::Ok();
  }
  std::string shape = c.in(1);
  Shape ss = c.shape(1);
  if (c.attr_int("allowzero", 0) == 0) {
    // A 0 copies the input's dim at that index: select it from Shape(x).
    GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
    if (ss.rank() != 1 || ss.dim(0) < 0 || ss.dim(0) > r) {
      return c.Unsupported("a computed shape whose length is unknown or above the input's rank");
    }
    std::string xs = c.Emit("input_shape", "Shape", {c.in(0)}, {{"out_type", MakeAttr(DType::kInt64)}});
    std::string head = c.Emit("input_head", "Slice",
                              {xs, c.IntConst("head_begin", {0}), c.IntConst("head_size", {ss.dim(0)})});
    std::string zero = c.Emit("is_copy", "Equal", {shape, c.IntScalar("zero", 0, DType::kInt64)});
    shape = c.Emit("target", "SelectV2", {zero, head, shape});
  }
  c.Output(0, c.Emit("", "Reshape", {c.in(0), shape}, {{"Tshape", MakeAttr(DType::kInt64)}}));
  if (ss.known_rank() && ss.rank() == 1 && ss.dim(0) >= 0) {
    // A declared length, not a computed one: the rank it gives must be one a tensor can have.
    if (ss.dim(0) > kMaxRank) {
      return c.Error("a target shape of length " + std::to_string(ss.dim(0)) +
                     " (a tensor has at most " + std::to_string(kMaxRank) + " dimensions)");
    }
    c.RefineOutputShape(0, Shape::UnknownDims(static_cast<int>(ss.dim(0))));
  }
  return Status::Ok();
}

Status Flatten(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  int64_t axis = c.attr_int("axis", 1);
  if (axis < -r || axis > r) return c.Error("axis out of range");
  if (axis < 0) axis += r;
  Shape s = c.shape(0);
  GRAPH_ASSIGN_OR_RETURN(int64_t outer, FlattenedSize(c, s, axis, 0, static_cast<int>(axis)));
  GRAPH_ASSIGN_OR_RETURN(int64_t inner, FlattenedSize(c, s, axis, static_cast<int>(axis), r));
  if (outer < 0 && inner < 0) return c.Unsupported("flattening two sides of unknown size");
  // A Reshape to {-1, 0} or {0, -1} cannot size its -1.
  if ((outer < 0 && inner == 0) || (inner < 0 && outer == 0)) {
    return c.Unsupported("flattening an empty tensor with a side of unknown size");
  }
  c.Output(0, c.Emit("", "Reshape", {c.in(0), c.IntConst("shape", {outer, inner}, DType::kInt64)}));
  return Status::Ok();
}

Status Transpose(NodeContext& c) {
  std::vector<int64_t> perm = c.attr_ints("perm").value_or(std::vector<int64_t>{});
  if (perm.empty()) {
    GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
    for (int i = r - 1; i >= 0; --i) perm.push_back(i);
  }
  Shape in = c.shape(0);
  Shape out = Shape::UnknownDims(static_cast<int>(perm.size()));
  if (in.known_rank() && in.rank() == static_cast<int>(perm.size())) {
    for (size_t i = 0; i < perm.size(); ++i) {
      if (perm[i] >= 0 && perm[i] < in.rank()) out.set_dim(static_cast<int>(i), in.dim(static_cast<int>(perm[i])));
    }
  }
  c.RefineOutputShape(0, out);
  c.Output(0, c.Emit("", "Transpose", {c.in(0), c.IntConst("perm", perm)}));
  return Status::Ok();
}

Result<std::vector<int64_t>> AxesOf(NodeContext& c, int input_since, const char* what) {
  if (c.opset() >= input_since) {
    if (!c.has(1)) return std::vector<int64_t>{};
    return c.ints(1, what);
  }
  return c.attr_ints("axes").value_or(std::vector<int64_t>{});
}

Status Squeeze(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesOf(c, 13, "axes"));
  c.Output(0, c.Emit("", "Squeeze", {c.in(0)}, {{"squeeze_dims", IntList(axes)}}));
  return Status::Ok();
}

Status Unsqueeze(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesOf(c, 13, "axes"));
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  const int out_rank = r + static_cast<int>(axes.size());
  for (int64_t& a : axes) {
    GRAPH_ASSIGN_OR_RETURN(a, NormalizeAxis(c, a, out_rank));
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return c.Error("repeated axes");
  std::string y = c.in(0);
  for (size_t i = 0; i < axes.size(); ++i) {
    bool last = i + 1 == axes.size();
    y = c.Emit(last ? "" : "expand_" + std::to_string(i), "ExpandDims",
               {y, c.IntScalar("axis_" + std::to_string(i), axes[i])});
  }
  if (axes.empty()) y = c.Emit("", "Identity", {y});
  c.Output(0, y);
  if (const Tensor* v = c.value(0); v && v->shape().rank() == r) {
    std::vector<int64_t> dims = v->shape().dims();
    for (int64_t a : axes) dims.insert(dims.begin() + a, 1);  // a <= out_rank - 1, ascending
    c.OutputConstant(0, Tensor(v->dtype(), Shape(dims), v->bytes()));
  }
  return Status::Ok();
}

// Concatenates; a concatenation of 1-D constants (shape arithmetic, Resize's
// scales written as two Constants) is folded, their bytes joined.
Status Concat(NodeContext& c) {
  std::vector<std::string> ins;
  std::string folded;
  int64_t count = 0;
  bool all_const = c.dtype(0) != DType::kString && DTypeSize(c.dtype(0)) > 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.has(i)) continue;
    ins.push_back(c.in(i));
    const Tensor* v = c.value(i);
    if (v == nullptr || v->dtype() != c.dtype(0) || v->shape().rank() != 1) {
      all_const = false;
    } else if (all_const) {
      folded += v->bytes();
      count += v->num_elements();
    }
  }
  const int64_t n = static_cast<int64_t>(ins.size());
  ins.push_back(c.IntScalar("axis", ConcatAxis(c)));
  c.Output(0, c.Emit("", "ConcatV2", ins, {{"N", MakeAttr(n)}}));
  if (all_const) c.OutputConstant(0, Tensor(c.dtype(0), Shape({count}), std::move(folded)));
  return Status::Ok();
}

Status Split(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c, c.attr_int("axis", 0), r));
  std::vector<int64_t> sizes;
  if (c.opset() >= 13) {
    if (c.has(1)) {
      GRAPH_ASSIGN_OR_RETURN(sizes, c.ints(1, "split"));
    }
  } else {
    sizes = c.attr_ints("split").value_or(std::vector<int64_t>{});
  }
  const int64_t n = c.num_outputs();
  std::string y;
  if (sizes.empty()) {
    y = c.Emit("", "Split", {c.IntScalar("axis", axis), c.in(0)}, {{"num_split", MakeAttr(n)}});
  } else {
    if (static_cast<int64_t>(sizes.size()) != n) return c.Error("split sizes do not match the outputs");
    y = c.Emit("", "SplitV", {c.in(0), c.IntConst("sizes", sizes, DType::kInt64), c.IntScalar("axis", axis)},
               {{"num_split", MakeAttr(n)}});
  }
  for (int k = 0; k < n; ++k) c.Output(k, k == 0 ? y : y + ":" + std::to_string(k));
  return Status::Ok();
}

// Slice whose starts or ends are computed (MultiheadAttention's head split):
// full-rank begin and end vectors assembled at run time, one element of the
// given tensor per sliced dim and a masked 0 elsewhere.
Status DynamicSlice(NodeContext& c, int r) {
  std::vector<int64_t> axes, steps;
  if (c.has(3)) {
    GRAPH_ASSIGN_OR_RETURN(axes, c.ints(3, "axes"));
  } else {
    Shape s = c.shape(1);
    if (!s.known_rank() || s.rank() != 1 || s.dim(0) < 0) return c.Unsupported("starts of unknown length");
    // One start per axis of the input at most (a declared length is a peer's number).
    if (s.dim(0) > r)
      return c.Error("starts of length " + std::to_string(s.dim(0)) + " for an input of rank " +
                     std::to_string(r));
    for (int64_t i = 0; i < s.dim(0); ++i) axes.push_back(i);
  }
  if (c.has(4)) {
    GRAPH_ASSIGN_OR_RETURN(steps, c.ints(4, "steps"));
  }
  if (steps.empty()) steps.assign(axes.size(), 1);
  if (steps.size() != axes.size()) return c.Error("axes and steps differ in length");
  if (std::count(steps.begin(), steps.end(), 0) > 0) return c.Error("a step is 0");
  std::vector<int64_t> stride(r, 1);
  std::vector<int> position(r, -1);
  int64_t mask = (int64_t{1} << r) - 1;
  for (size_t i = 0; i < axes.size(); ++i) {
    GRAPH_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(c, axes[i], r));
    position[a] = static_cast<int>(i);
    stride[a] = steps[i];
    mask &= ~(int64_t{1} << a);
  }
  auto assemble = [&](int input, const std::string& what) {
    std::string v = c.in(input);
    if (c.dtype(input) != DType::kInt64) {
      v = c.Emit(what + "_int64", "Cast", {v}, {{"SrcT", MakeAttr(c.dtype(input))}, {"DstT", MakeAttr(DType::kInt64)}});
    }
    std::vector<std::string> parts;
    for (int d = 0; d < r; ++d) {
      const std::string sd = std::to_string(d);
      if (position[d] < 0) {
        parts.push_back(c.IntConst(what + "_whole_" + sd, {0}, DType::kInt64));
      } else {
        const int64_t j = position[d];
        parts.push_back(c.Emit(what + "_" + sd, "Slice",
                               {v, c.IntConst(what + "_at_" + sd, {j}), c.IntConst(what + "_one_" + sd, {1})}));
      }
    }
    parts.push_back(c.IntScalar(what + "_axis", 0));
    return c.Emit(what, "ConcatV2", parts, {{"N", MakeAttr(static_cast<int64_t>(r))}});
  };
  std::string begin = assemble(1, "begin");
  std::string end = assemble(2, "end");
  c.Output(0, c.Emit("", "StridedSlice",
                     {c.in(0), begin, end, c.IntConst("strides", stride, DType::kInt64)}, SliceMasks(mask)));
  return Status::Ok();
}

// Slice as StridedSlice over every dim; dims not named in axes are taken whole
// through the begin/end masks.
Status Slice(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  if (r > 32) return c.Unsupported("slicing a tensor of rank above 32");
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset() >= 10 && (!c.value(1) || !c.value(2))) return DynamicSlice(c, r);
  if (c.opset() >= 10) {
    GRAPH_ASSIGN_OR_RETURN(starts, c.ints(1, "starts"));
    GRAPH_ASSIGN_OR_RETURN(ends, c.ints(2, "ends"));
    if (c.has(3)) {
      GRAPH_ASSIGN_OR_RETURN(axes, c.ints(3, "axes"));
    }
    if (c.has(4)) {
      GRAPH_ASSIGN_OR_RETURN(steps, c.ints(4, "steps"));
    }
  } else {
    starts = c.attr_ints("starts").value_or(std::vector<int64_t>{});
    ends = c.attr_ints("ends").value_or(std::vector<int64_t>{});
    axes = c.attr_ints("axes").value_or(std::vector<int64_t>{});
  }
  if (starts.size() != ends.size()) return c.Error("starts and ends differ in length");
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) {
    return c.Error("axes or steps differ in length from starts");
  }
  std::vector<int64_t> begin(r, 0), end(r, 0), stride(r, 1);
  int64_t mask = (int64_t{1} << r) - 1;  // dims taken whole
  for (size_t i = 0; i < axes.size(); ++i) {
    GRAPH_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(c, axes[i], r));
    if (steps[i] == 0) return c.Error("a step is 0");
    mask &= ~(int64_t{1} << a);
    // Clamp ONNX's "to the end" sentinels into int32 for the kernel.
    const int64_t lim = std::numeric_limits<int32_t>::max();
    begin[a] = std::clamp<int64_t>(starts[i], -lim, lim);
    end[a] = std::clamp<int64_t>(ends[i], -lim - 1, lim);
    stride[a] = steps[i];
  }
  c.Output(0, c.Emit("", "StridedSlice",
                     {c.in(0), c.IntConst("begin", begin, DType::kInt64), c.IntConst("end", end, DType::kInt64),
                      c.IntConst("strides", stride, DType::kInt64)},
                     SliceMasks(mask)));
  return Status::Ok();
}

// Indices of type t with negative ones counted back from `size` (ONNX allows
// them, TF does not): SelectV2(i < 0, i + size, i), at run time. The size's
// constant and the result are named by `size_name` and `out_name` under the node.
std::string WrapNegative(NodeContext& c, const std::string& indices, double size, DType t,
                         const char* size_name, const char* out_name) {
  std::string negative = c.Emit("negative", "Less", {indices, c.ScalarConst("zero", 0, t)});
  std::string wrapped = c.Emit("wrapped", "AddV2", {indices, c.ScalarConst(size_name, size, t)});
  return c.Emit(out_name, "SelectV2", {negative, wrapped, indices});
}

Status Gather(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c, c.attr_int("axis", 0), r));
  std::string indices = c.in(1);
  const int64_t dim = c.shape(0).dim(static_cast<int>(axis));
  // ONNX allows negative indices; TF does not. Known ones are wrapped here,
  // others at run time below.
  if (const Tensor* v = c.value(1)) {
    GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> idx, c.ints(1, "indices"));
    bool negative = std::any_of(idx.begin(), idx.end(), [](int64_t i) { return i < 0; });
    if (negative && dim < 0) return c.Unsupported("negative indices into a dim of unknown size");
    for (int64_t& i : idx) i = i < 0 ? i + dim : i;
    indices = c.Constant("indices", Tensor::FromInt64s(DType::kInt64, v->shape(), idx));
    if (const Tensor* data = c.value(0);
        data && (data->dtype() == DType::kInt32 || data->dtype() == DType::kInt64) &&
        data->shape().rank() == 1 && axis == 0) {
      std::vector<int64_t> d = data->ToInt64s(), out;
      bool ok = true;
      for (int64_t i : idx) {
        ok = ok && i >= 0 && i < static_cast<int64_t>(d.size());
        if (ok) out.push_back(d[i]);
      }
      if (ok) c.OutputConstant(0, Tensor::FromInt64s(data->dtype(), v->shape(), out));
    }
  } else if (dim >= 0 && c.dtype(1) != DType::kInvalid) {
    indices = WrapNegative(c, indices, static_cast<double>(dim), c.dtype(1), "dim", "indices");
  }
  c.Output(0, c.Emit("", "GatherV2", {c.in(0), indices, c.IntScalar("axis", axis)},
                     {{"batch_dims", MakeAttr(int64_t{0})}}));
  return Status::Ok();
}

Status GatherND(NodeContext& c) {
  if (c.attr_int("batch_dims", 0) != 0) return c.Unsupported("batch_dims > 0");
  c.Output(0, c.Emit("", "GatherNd", {c.in(0), c.in(1)}));
  return Status::Ok();
}

Status ConstantOfShape(NodeContext& c) {
  // ONNX's default: a float32 zero.
  Tensor value(DType::kFloat, Shape::Scalar(), std::string(4, '\0'));
  if (const onnx::AttributeProto* a = c.attr("value")) {
    GRAPH_ASSIGN_OR_RETURN(value, TensorFromOnnx(a->t(), "node '" + c.node().name() + "'"));
    if (value.num_elements() != 1) return c.Error("value must have one element");
    value = Tensor(value.dtype(), Shape::Scalar(), value.bytes());
  }
  std::string v = c.Constant("value", value);
  c.Output(0, c.Emit("", "Fill", {c.in(0), v}, {{"index_type", MakeAttr(c.dtype(0))}}));
  return Status::Ok();
}

Status Range(NodeContext& c) {
  c.Output(0, c.Emit("", "Range", {c.in(0), c.in(1), c.in(2)}, {{"Tidx", MakeAttr(c.dtype(0))}}));
  return Status::Ok();
}

// Expand broadcasts both ways (a 1 in `shape` keeps the input's dim), so the
// target is the broadcast of the two shapes when both are known.
Status Expand(NodeContext& c) {
  Shape s = c.shape(0);
  if (c.value(1) && s.known_rank()) {
    GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> t, c.ints(1, "shape"));
    const size_t r = std::max<size_t>(t.size(), s.rank());
    std::vector<int64_t> out(r);
    bool known = true;
    for (size_t i = 0; i < r; ++i) {
      int64_t a = i + s.rank() >= r ? s.dim(static_cast<int>(i + s.rank() - r)) : 1;
      int64_t b = i + t.size() >= r ? t[i + t.size() - r] : 1;
      if (a < 0 && b == 1) known = false;
      out[i] = b == 1 ? a : b;
    }
    if (known) {
      c.Output(0, c.Emit("", "BroadcastTo", {c.in(0), c.IntConst("shape", out, DType::kInt64)}));
      return Status::Ok();
    }
  }
  // x * ones(shape) broadcasts both ways for numbers.
  std::string ones = c.Emit("ones", "Fill", {c.in(1), c.ScalarConst("one", 1, c.dtype(0))});
  c.Output(0, c.Emit("", "Mul", {c.in(0), ones}));
  return Status::Ok();
}

Status Tile(NodeContext& c) {
  if (c.opset() < 6) return c.Unsupported("Tile's (input, tiles, axis) form before opset 6");
  c.Output(0, c.Emit("", "Tile", {c.in(0), c.in(1)}, {{"Tmultiples", MakeAttr(c.dtype(1))}}));
  return Status::Ok();
}

Status Pad(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  const std::string mode = c.attr_string("mode", "constant");
  std::vector<int64_t> pads;
  std::string value;
  std::string p;
  if (c.opset() >= 11) {
    if (c.value(1)) {
      GRAPH_ASSIGN_OR_RETURN(pads, c.ints(1, "pads"));
    } else {
      // [b0, b1, ..., e0, e1, ...] -> [[b0, e0], [b1, e1], ...] at run time.
      std::string two = c.Emit("pads_2r", "Reshape", {c.in(1), c.IntConst("pads_shape", {2, r})});
      p = c.Emit("paddings", "Transpose", {two, c.IntConst("pads_perm", {1, 0})});
    }
    if (c.has(2)) value = c.in(2);
  } else {
    pads = c.attr_ints(c.opset() < 2 ? "paddings" : "pads").value_or(std::vector<int64_t>{});
    value = c.ScalarConst("value", c.attr_float("value", 0.0f), c.dtype(0));
  }
  if (p.empty()) {
    if (static_cast<int>(pads.size()) != 2 * r) return c.Error("pads must have 2 * rank entries");
    std::vector<int64_t> paddings;
    for (int i = 0; i < r; ++i) {
      if (pads[i] < 0 || pads[i + r] < 0) return c.Unsupported("negative pads");
      paddings.push_back(pads[i]);
      paddings.push_back(pads[i + r]);
    }
    p = c.Constant("paddings", Tensor::FromInt64s(DType::kInt64, Shape({r, 2}), paddings));
    // Pads folded here (F.pad to a computed multiple, as Swin's windows) are
    // not ONNX's to size the output by.
    const Shape in = c.shape(0);
    std::vector<int64_t> out(r, -1);
    for (int i = 0; i < r; ++i) {
      int64_t d = in.dim(i);
      if (d >= 0 && !__builtin_add_overflow(d, pads[i], &d) &&
          !__builtin_add_overflow(d, pads[i + r], &d)) {
        out[i] = d;
      }
    }
    c.RefineOutputShape(0, Shape(out));
  }
  if (mode == "constant") {
    if (value.empty()) value = c.ScalarConst("value", 0, c.dtype(0));
    c.Output(0, c.Emit("", "PadV2", {c.in(0), p, value}));
  } else if (mode == "reflect") {
    c.Output(0, c.Emit("", "MirrorPad", {c.in(0), p}, {{"mode", StrAttr("REFLECT")}}));
  } else {
    return c.Unsupported("pad mode '" + mode + "'");
  }
  return Status::Ok();
}

Status TopK(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c, c.attr_int("axis", -1), r));
  if (axis != r - 1) return c.Unsupported("TopK along an axis other than the last");
  if (c.attr_int("largest", 1) == 0) return c.Unsupported("largest = 0");
  std::string k;
  if (c.opset() >= 10) {
    GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> kv, c.ints(1, "k"));
    if (kv.size() != 1) return c.Error("k must have one element");
    k = c.IntScalar("k", kv[0]);
  } else {
    k = c.IntScalar("k", c.attr_int("k", 0));
  }
  std::string y = c.Emit("", "TopKV2", {c.in(0), k}, {{"sorted", MakeAttr(true)}});
  c.Output(0, y);
  if (c.has_output(1)) {
    c.Output(1, c.Emit("indices", "Cast", {y + ":1"},
                       {{"SrcT", MakeAttr(DType::kInt32)}, {"DstT", MakeAttr(DType::kInt64)}}));
  }
  return Status::Ok();
}

Status OneHot(NodeContext& c) {
  // depth may be of any numeric type.
  const Tensor* d = c.value(1);
  if (d == nullptr) return c.Unsupported("depth (input 1) must be a constant");
  std::vector<double> depth = d->ToDoubles();
  if (depth.size() != 1 || depth[0] < 1 || depth[0] > (1 << 24)) {
    return c.Error("depth must be one value in [1, 2^24]");
  }
  // Indices of any numeric type are cast to int64; negative ones count back
  // from depth.
  std::string indices = c.in(0);
  const DType it = c.dtype(0);
  if (it != DType::kInt32 && it != DType::kInt64) {
    indices = c.Emit("indices", "Cast", {indices}, {{"SrcT", MakeAttr(it)}, {"DstT", MakeAttr(DType::kInt64)}});
  }
  const DType t = it == DType::kInt32 ? DType::kInt32 : DType::kInt64;
  indices = WrapNegative(c, indices, depth[0], t, "depth_t", "wrapped_indices");
  std::string values = c.in(2);
  std::string off = c.Emit("off", "GatherV2", {values, c.IntScalar("off_index", 0), c.IntScalar("axis0", 0)});
  std::string on = c.Emit("on", "GatherV2", {values, c.IntScalar("on_index", 1), c.IntScalar("axis1", 0)});
  c.Output(0, c.Emit("", "OneHot", {indices, c.IntScalar("depth", static_cast<int64_t>(depth[0])), on, off},
                     {{"axis", MakeAttr(c.attr_int("axis", -1))}, {"T", MakeAttr(c.dtype(2))}}));
  return Status::Ok();
}

// GatherElements and ScatterElements address one element of data per index:
// the index gives its coordinate along `axis`, the index's own position the
// others. As TensorFlow ops that is GatherNd/ScatterNd over full coordinates
// [..., rank], built here: each other axis' coordinate is a constant range
// along that axis broadcast to the indices' shape, the axis' own is the
// indices (int64, negative ones wrapped). Needs the indices' static shape and
// data's size along the axis.
Result<std::string> ElementCoordinates(NodeContext& c, int data, int indices, int64_t axis) {
  const Shape s = c.shape(indices);
  if (!s.FullyDefined()) return c.Unsupported("indices of unknown shape");
  const int r = s.rank();
  const int64_t dim = c.shape(data).dim(static_cast<int>(axis));
  if (dim < 0) return c.Unsupported("data of unknown size along the axis");
  std::vector<int64_t> target = s.dims();
  target.push_back(1);
  std::string idx = c.in(indices);
  if (const Tensor* v = c.value(indices)) {  // known: wrapped and checked here
    std::vector<int64_t> values = v->ToInt64s();
    for (int64_t& i : values) {
      if (i < -dim || i >= dim) {
        return c.Error("index " + std::to_string(i) + " is out of range for a dim of " +
                       std::to_string(dim));
      }
      i = i < 0 ? i + dim : i;
    }
    idx = c.Constant("indices", Tensor::FromInt64s(DType::kInt64, Shape(target), values));
  } else {
    if (c.dtype(indices) != DType::kInt64) {
      idx = c.Emit("indices_int64", "Cast", {idx},
                   {{"SrcT", MakeAttr(c.dtype(indices))}, {"DstT", MakeAttr(DType::kInt64)}});
    }
    idx = WrapNegative(c, idx, static_cast<double>(dim), DType::kInt64, "dim", "wrapped_indices");
    idx = c.Emit("indices_last", "ExpandDims", {idx, c.IntScalar("last", -1)});
  }
  std::vector<std::string> parts;
  for (int d = 0; d < r; ++d) {
    if (d == axis) {
      parts.push_back(idx);
      continue;
    }
    std::vector<int64_t> along(r + 1, 1), range(s.dim(d));
    along[d] = s.dim(d);
    std::iota(range.begin(), range.end(), int64_t{0});
    const std::string sd = std::to_string(d);
    std::string at = c.Constant("at_" + sd, Tensor::FromInt64s(DType::kInt64, Shape(along), range));
    parts.push_back(c.Emit("coordinate_" + sd, "BroadcastTo",
                           {at, c.IntConst("to_" + sd, target, DType::kInt64)}));
  }
  parts.push_back(c.IntScalar("concat_axis", r));
  return c.Emit("coordinates", "ConcatV2", parts, {{"N", MakeAttr(static_cast<int64_t>(r))}});
}

// Output 0 of a scatter of updates (input 2) into data (input 0, of static
// shape) at `indices` ([..., k] coordinates): ScatterNd sums them into zeros;
// `add` adds that to data, else (a plain write) it takes data's place where
// any update landed.
void ScatterInto(NodeContext& c, const std::string& indices, bool add) {
  std::string shape = c.IntConst("shape", c.shape(0).dims(), DType::kInt64);
  std::string scattered =
      c.Emit(add ? "scattered" : "written", "ScatterNd", {indices, c.in(2), shape});
  if (add) {
    c.Output(0, c.Emit("", "AddV2", {c.in(0), scattered}));
    return;
  }
  std::string ones = c.Emit("ones", "OnesLike", {c.in(2)});
  std::string hits = c.Emit("hits", "ScatterNd", {indices, ones, shape});
  std::string hit = c.Emit("hit", "Greater", {hits, c.ScalarConst("none", 0, c.dtype(2))});
  c.Output(0, c.Emit("", "SelectV2", {hit, scattered, c.in(0)}));
}

Status GatherElements(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  if (c.rank(1) != r) return c.Error("indices must have data's rank");
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c, c.attr_int("axis", 0), r));
  GRAPH_ASSIGN_OR_RETURN(std::string coordinates, ElementCoordinates(c, 0, 1, axis));
  c.Output(0, c.Emit("", "GatherNd", {c.in(0), coordinates}));
  return Status::Ok();
}

// ScatterElements (and opset 9's Scatter): ScatterInto at each update's full
// coordinates. Duplicate indices under "none" are undefined in ONNX; here they
// add up.
Status ScatterElements(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  if (c.rank(1) != r || c.rank(2) != r) return c.Error("indices and updates must have data's rank");
  if (!c.shape(0).FullyDefined()) return c.Unsupported("data of unknown shape");
  const std::string reduction = c.attr_string("reduction", "none");
  if (reduction != "none" && reduction != "add") {
    return c.Unsupported("reduction '" + reduction + "' (only 'none' and 'add')");
  }
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c, c.attr_int("axis", 0), r));
  GRAPH_ASSIGN_OR_RETURN(std::string coordinates, ElementCoordinates(c, 0, 1, axis));
  ScatterInto(c, coordinates, reduction == "add");
  return Status::Ok();
}

// ScatterND: slices of data at index tuples [..., k] replaced by (or, with
// reduction "add", summed with) the updates, as ScatterElements: torch's slice
// assignment (Swin's shifted-window mask).
Status ScatterND(NodeContext& c) {
  if (!c.shape(0).FullyDefined()) return c.Unsupported("data of unknown shape");
  const std::string reduction = c.attr_string("reduction", "none");
  if (reduction != "none" && reduction != "add") {
    return c.Unsupported("reduction '" + reduction + "' (only 'none' and 'add')");
  }
  std::string indices = c.in(1);
  if (c.dtype(1) != DType::kInt64) {
    indices = c.Emit("indices_int64", "Cast", {indices},
                     {{"SrcT", MakeAttr(c.dtype(1))}, {"DstT", MakeAttr(DType::kInt64)}});
  }
  ScatterInto(c, indices, reduction == "add");
  return Status::Ok();
}

// Trilu: the upper (j - i >= k) or lower (j - i <= k) triangle of each matrix
// in the last two axes, zeros elsewhere, as a select by a constant mask.
Status Trilu(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  if (r < 2) return c.Error("input must have rank 2 or more");
  const int64_t n = c.shape(0).dim(r - 2), m = c.shape(0).dim(r - 1);
  if (n < 0 || m < 0) return c.Unsupported("matrices of unknown size");
  int64_t k = 0;
  if (c.has(1)) {
    GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> kv, c.ints(1, "k"));
    if (kv.size() != 1) return c.Error("k must be one value");
    k = kv[0];
  }
  const bool upper = c.attr_int("upper", 1) != 0;
  std::string mask(static_cast<size_t>(n * m), '\0');
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) mask[i * m + j] = upper ? j - i >= k : j - i <= k;
  }
  std::string keep =
      c.Constant("mask", Tensor(DType::kBool, Shape(std::vector<int64_t>{n, m}), std::move(mask)));
  std::string zeros = c.Emit("zeros", "ZerosLike", {c.in(0)});
  c.Output(0, c.Emit("", "SelectV2", {keep, c.in(0), zeros}));
  return Status::Ok();
}

}  // namespace

int64_t ConcatAxis(const NodeContext& c) {
  // Opsets before 4 concatenate along axis 1 by default.
  return c.attr_int("axis", c.opset() < 4 ? 1 : 0);
}

AttrMap SliceMasks(int64_t mask) {
  return {{"begin_mask", MakeAttr(mask)},
          {"end_mask", MakeAttr(mask)},
          {"ellipsis_mask", MakeAttr(int64_t{0})},
          {"new_axis_mask", MakeAttr(int64_t{0})},
          {"shrink_axis_mask", MakeAttr(int64_t{0})},
          {"Index", MakeAttr(DType::kInt64)}};
}

const std::vector<OpRule>& ArrayRules() {
  static const std::vector<OpRule> rules = {
      {"Constant", ConstantOp},
      {"Shape", ShapeOp, false},
      {"Size", Size, false},
      {"Reshape", Reshape},
      {"Flatten", Flatten},
      {"Transpose", Transpose},
      {"Squeeze", Squeeze},
      {"Unsqueeze", Unsqueeze},
      {"Concat", Concat},
      {"Split", Split},
      {"Slice", Slice},
      {"Gather", Gather},
      {"GatherND", GatherND},
      {"GatherElements", GatherElements},
      {"ScatterElements", ScatterElements},
      {"Scatter", ScatterElements},
      {"ScatterND", ScatterND},
      {"Trilu", Trilu},
      {"ConstantOfShape", ConstantOfShape, false},
      {"Range", Range, false},
      {"Expand", Expand},
      {"Tile", Tile},
      {"Pad", Pad},
      {"TopK", TopK},
      {"OneHot", OneHot, false},
  };
  return rules;
}

}  // namespace graph::onnx_import
