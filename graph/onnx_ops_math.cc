// ONNX rules, math family: elementwise ops, activations, reductions, softmax,
// matrix products. ONNX's broadcasting is NumPy's, as TensorFlow's is, so
// binary ops map one to one.
#include <algorithm>
#include <cmath>

#include "graph/onnx_translate.h"

namespace graph::onnx_import {
namespace {

// ---- one-to-one maps ----

template <const char* kOp>
Status Unary(NodeContext& c) {
  c.Output(0, c.Emit("", kOp, {c.in(0)}));
  return Status::Ok();
}

// Opsets before 7 broadcast only when asked (broadcast = 1), aligning B with A
// at `axis` rather than at the trailing dims: B is reshaped to NumPy's rule.
Result<std::string> LegacyBroadcast(NodeContext& c, int i) {
  if (c.opset() >= 7 || c.attr_int("broadcast", 0) == 0 || !c.attr("axis")) return c.in(i);
  const int ra = c.rank(0);
  Shape b = c.shape(i);
  if (ra < 0 || !b.known_rank()) return c.Unsupported("legacy broadcasting of unknown ranks");
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c, c.attr_int("axis", 0), ra));
  const int trailing = ra - static_cast<int>(axis) - b.rank();
  if (trailing < 0) return c.Error("B does not fit A at axis");
  if (trailing == 0) return c.in(i);
  std::vector<int64_t> dims = b.dims();
  for (int64_t& d : dims) d = d < 0 ? -1 : d;
  dims.insert(dims.end(), trailing, 1);
  return c.Emit("aligned", "Reshape", {c.in(i), c.IntConst("aligned_shape", dims)});
}

Status BinaryOp(NodeContext& c, const char* op) {
  GRAPH_ASSIGN_OR_RETURN(std::string b, LegacyBroadcast(c, 1));
  c.Output(0, c.Emit("", op, {c.in(0), b}));
  return Status::Ok();
}

template <const char* kOp>
Status Binary(NodeContext& c) {
  return BinaryOp(c, kOp);
}

#define ONNX_OP_NAME(name) constexpr char k##name[] = #name;
ONNX_OP_NAME(Abs)
ONNX_OP_NAME(Neg)
ONNX_OP_NAME(Exp)
ONNX_OP_NAME(Log)
ONNX_OP_NAME(Sqrt)
ONNX_OP_NAME(Reciprocal)
ONNX_OP_NAME(Floor)
ONNX_OP_NAME(Ceil)
ONNX_OP_NAME(Relu)
ONNX_OP_NAME(Sigmoid)
ONNX_OP_NAME(Tanh)
ONNX_OP_NAME(Erf)
ONNX_OP_NAME(Sin)
ONNX_OP_NAME(Cos)
ONNX_OP_NAME(Tan)
ONNX_OP_NAME(Atan)
ONNX_OP_NAME(Sign)
ONNX_OP_NAME(Softplus)
ONNX_OP_NAME(Softsign)
ONNX_OP_NAME(Identity)
ONNX_OP_NAME(AddV2)
ONNX_OP_NAME(Sub)
ONNX_OP_NAME(Mul)
ONNX_OP_NAME(Equal)
ONNX_OP_NAME(Less)
ONNX_OP_NAME(Greater)
ONNX_OP_NAME(LessEqual)
ONNX_OP_NAME(GreaterEqual)
ONNX_OP_NAME(LogicalAnd)
ONNX_OP_NAME(LogicalOr)
ONNX_OP_NAME(LogicalNot)
ONNX_OP_NAME(NotEqual)
ONNX_OP_NAME(Rint)
#undef ONNX_OP_NAME

Status Div(NodeContext& c) {
  // ONNX divides integers with truncation (C's /), floats exactly.
  return BinaryOp(c, IsInteger(c.dtype(0)) ? "TruncateDiv" : "RealDiv");
}

Status Mod(NodeContext& c) {
  const bool fmod = c.attr_int("fmod", 0) != 0;
  if (!fmod && IsFloating(c.dtype(0))) return c.Error("Mod of floats needs fmod = 1");
  c.Output(0, c.Emit("", fmod ? "TruncateMod" : "FloorMod", {c.in(0), c.in(1)}));
  return Status::Ok();
}

Status Pow(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(std::string exponent, LegacyBroadcast(c, 1));
  if (c.dtype(1) != c.dtype(0) && c.dtype(0) != DType::kInvalid) {
    exponent = c.Emit("exponent", "Cast", {exponent},
                      {{"SrcT", MakeAttr(c.dtype(1))}, {"DstT", MakeAttr(c.dtype(0))}});
  }
  c.Output(0, c.Emit("", "Pow", {c.in(0), exponent}));
  return Status::Ok();
}

// Sum, Max, Min, Mean: a left fold of the binary op over the inputs.
Status Variadic(NodeContext& c, const char* op, bool mean) {
  if (c.num_inputs() == 0) return c.Error("needs at least one input");
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.has(i)) return c.Error("input " + std::to_string(i) + " is empty");
  }
  std::string acc = c.in(0);
  const bool last_is_main = !mean;
  for (int i = 1; i < c.num_inputs(); ++i) {
    bool final_node = last_is_main && i + 1 == c.num_inputs();
    acc = c.Emit(final_node ? "" : "fold_" + std::to_string(i), op, {acc, c.in(i)});
  }
  if (mean) {
    std::string n = c.ScalarConst("count", 1.0 / c.num_inputs(), c.dtype(0));
    acc = c.Emit("", "Mul", {acc, n});
  } else if (c.num_inputs() == 1) {
    acc = c.Emit("", "Identity", {acc});
  }
  c.Output(0, acc);
  return Status::Ok();
}

Status Sum(NodeContext& c) { return Variadic(c, "AddV2", false); }
Status Max(NodeContext& c) { return Variadic(c, "Maximum", false); }
Status Min(NodeContext& c) { return Variadic(c, "Minimum", false); }
Status Mean(NodeContext& c) { return Variadic(c, "AddV2", true); }

// ---- activations ----

Status LeakyRelu(NodeContext& c) {
  c.Output(0, c.Emit("", "LeakyRelu", {c.in(0)},
                     {{"alpha", MakeAttr(c.attr_float("alpha", 0.01f))}}));
  return Status::Ok();
}

// alpha * (exp(x) - 1) where x < 0, else x; TF's Elu when alpha is 1.
Status Elu(NodeContext& c) {
  const float alpha = c.attr_float("alpha", 1.0f);
  if (alpha == 1.0f) {
    c.Output(0, c.Emit("", "Elu", {c.in(0)}));
    return Status::Ok();
  }
  std::string elu = c.Emit("elu", "Elu", {c.in(0)});
  std::string scaled = c.Emit("scaled", "Mul", {elu, c.ScalarConst("alpha", alpha, c.dtype(0))});
  std::string pos = c.Emit("positive", "Greater", {c.in(0), c.ScalarConst("zero", 0, c.dtype(0))});
  c.Output(0, c.Emit("", "SelectV2", {pos, c.in(0), scaled}));
  return Status::Ok();
}

Status Selu(NodeContext& c) {
  // TF's Selu has ONNX's default constants.
  const float alpha = c.attr_float("alpha", 1.67326319217681884765625f);
  const float gamma = c.attr_float("gamma", 1.05070102214813232421875f);
  if (alpha == 1.67326319217681884765625f && gamma == 1.05070102214813232421875f) {
    c.Output(0, c.Emit("", "Selu", {c.in(0)}));
    return Status::Ok();
  }
  std::string elu = c.Emit("elu", "Elu", {c.in(0)});
  std::string neg = c.Emit("negative", "Mul", {elu, c.ScalarConst("alpha", alpha, c.dtype(0))});
  std::string pos = c.Emit("positive", "Greater", {c.in(0), c.ScalarConst("zero", 0, c.dtype(0))});
  std::string sel = c.Emit("select", "SelectV2", {pos, c.in(0), neg});
  c.Output(0, c.Emit("", "Mul", {sel, c.ScalarConst("gamma", gamma, c.dtype(0))}));
  return Status::Ok();
}

Status Celu(NodeContext& c) {
  const float alpha = c.attr_float("alpha", 1.0f);
  const DType t = c.dtype(0);
  std::string a = c.ScalarConst("alpha", alpha, t);
  std::string elu = c.Emit("elu", "Elu", {c.Emit("scaled", "RealDiv", {c.in(0), a})});
  std::string neg = c.Emit("negative", "Mul", {elu, a});
  std::string pos = c.Emit("positive", "Greater", {c.in(0), c.ScalarConst("zero", 0, t)});
  c.Output(0, c.Emit("", "SelectV2", {pos, c.in(0), neg}));
  return Status::Ok();
}

// max(0, min(1, alpha * x + beta)), with ONNX's defaults or HardSwish's.
std::string HardSigmoidOf(NodeContext& c, const std::string& x, float alpha, float beta,
                          const std::string& name) {
  const DType t = c.dtype(0);
  std::string ax = c.Emit("linear", "Mul", {x, c.ScalarConst("alpha", alpha, t)});
  std::string axb = c.Emit("shifted", "AddV2", {ax, c.ScalarConst("beta", beta, t)});
  std::string lo = c.Emit("upper", "Minimum", {axb, c.ScalarConst("one", 1, t)});
  return c.Emit(name, "Maximum", {lo, c.ScalarConst("zero", 0, t)});
}

Status HardSigmoid(NodeContext& c) {
  c.Output(0, HardSigmoidOf(c, c.in(0), c.attr_float("alpha", 0.2f), c.attr_float("beta", 0.5f),
                            ""));
  return Status::Ok();
}

Status HardSwish(NodeContext& c) {
  std::string gate = HardSigmoidOf(c, c.in(0), 1.0f / 6, 0.5f, "gate");
  c.Output(0, c.Emit("", "Mul", {c.in(0), gate}));
  return Status::Ok();
}

Status ThresholdedRelu(NodeContext& c) {
  const DType t = c.dtype(0);
  std::string above = c.Emit("above", "Greater",
                             {c.in(0), c.ScalarConst("alpha", c.attr_float("alpha", 1.0f), t)});
  std::string zeros = c.Emit("zeros", "ZerosLike", {c.in(0)});
  c.Output(0, c.Emit("", "SelectV2", {above, c.in(0), zeros}));
  return Status::Ok();
}

// max(0, x) + slope * min(0, x): slope broadcasts to x as ONNX's PRelu says.
Status PRelu(NodeContext& c) {
  const DType t = c.dtype(0);
  std::string zero = c.ScalarConst("zero", 0, t);
  std::string pos = c.Emit("positive", "Maximum", {c.in(0), zero});
  std::string neg = c.Emit("negative", "Minimum", {c.in(0), zero});
  std::string slope = c.in(1);
  if (c.opset() < 7 && c.rank(1) == 1 && c.rank(0) > 2) {
    // Before opset 7 a 1-D slope is per channel (axis 1).
    std::vector<int64_t> dims(c.rank(0) - 1, 1);
    dims[0] = -1;
    slope = c.Emit("slope", "Reshape", {slope, c.IntConst("slope_shape", dims)});
  }
  std::string scaled = c.Emit("scaled", "Mul", {neg, slope});
  c.Output(0, c.Emit("", "AddV2", {pos, scaled}));
  return Status::Ok();
}

Status Clip(NodeContext& c) {
  std::string lo, hi;
  const DType t = c.dtype(0);
  if (c.opset() < 11) {
    if (c.attr("min")) lo = c.ScalarConst("min", c.attr_float("min", 0), t);
    if (c.attr("max")) hi = c.ScalarConst("max", c.attr_float("max", 0), t);
  } else {
    if (c.has(1)) lo = c.in(1);
    if (c.has(2)) hi = c.in(2);
  }
  std::string x = c.in(0);
  if (!lo.empty()) x = c.Emit(hi.empty() ? "" : "lower", "Maximum", {x, lo});
  if (!hi.empty()) x = c.Emit("", "Minimum", {x, hi});
  if (lo.empty() && hi.empty()) x = c.Emit("", "Identity", {x});
  c.Output(0, x);
  return Status::Ok();
}

Status Where(NodeContext& c) {
  c.Output(0, c.Emit("", "SelectV2", {c.in(0), c.in(1), c.in(2)}));
  return Status::Ok();
}

Status Xor(NodeContext& c) {
  c.Output(0, c.Emit("", "NotEqual", {c.in(0), c.in(1)}));
  return Status::Ok();
}

Status Round(NodeContext& c) {
  // ONNX rounds half to even, as TF's Rint does (TF's Round too, for floats).
  c.Output(0, c.Emit("", "Rint", {c.in(0)}));
  return Status::Ok();
}

Status CastTo(NodeContext& c, DType to) {
  if (to == DType::kInvalid || to == DType::kString) {
    return c.Unsupported("cast to this element type is not supported");
  }
  c.Output(0, c.Emit("", "Cast", {c.in(0)},
                     {{"SrcT", MakeAttr(c.dtype(0))}, {"DstT", MakeAttr(to)}}));
  return Status::Ok();
}

Status Cast(NodeContext& c) { return CastTo(c, DTypeFromOnnx(static_cast<int>(c.attr_int("to", 0)))); }
Status CastLike(NodeContext& c) { return CastTo(c, c.dtype(1)); }

// ---- reductions ----

// The axes of a Reduce* node (attribute before the opset that made them an
// input); all axes when none are given.
Result<std::vector<int64_t>> ReduceAxes(NodeContext& c, bool* noop) {
  *noop = false;
  std::optional<std::vector<int64_t>> axes;
  const bool input_axes = c.node().op_type() == "ReduceSum" ? c.opset() >= 13 : c.opset() >= 18;
  if (input_axes) {
    if (c.has(1)) {
      GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> v, c.ints(1, "axes"));
      axes = v;
    }
  } else {
    axes = c.attr_ints("axes");
  }
  if (!axes || axes->empty()) {
    if (input_axes && c.attr_int("noop_with_empty_axes", 0) != 0) {
      *noop = true;
      return std::vector<int64_t>{};
    }
    GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
    std::vector<int64_t> all(r);
    for (int i = 0; i < r; ++i) all[i] = i;
    return all;
  }
  return *axes;
}

Status Reduce(NodeContext& c, const char* op, const char* pre, const char* post) {
  bool noop = false;
  GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReduceAxes(c, &noop));
  if (noop) {
    c.Output(0, c.Emit("", "Identity", {c.in(0)}));
    return Status::Ok();
  }
  std::string x = c.in(0);
  if (pre) x = c.Emit("operand", pre, {x});
  const bool keep = c.attr_int("keepdims", 1) != 0;
  std::string r = c.Emit(post ? "reduce" : "", op, {x, c.IntConst("axes", axes)},
                         {{"keep_dims", MakeAttr(keep)}, {"Tidx", MakeAttr(DType::kInt32)}});
  if (post) r = c.Emit("", post, {r});
  c.Output(0, r);
  return Status::Ok();
}

Status ReduceSum(NodeContext& c) { return Reduce(c, "Sum", nullptr, nullptr); }
Status ReduceMean(NodeContext& c) { return Reduce(c, "Mean", nullptr, nullptr); }
Status ReduceMax(NodeContext& c) { return Reduce(c, "Max", nullptr, nullptr); }
Status ReduceMin(NodeContext& c) { return Reduce(c, "Min", nullptr, nullptr); }
Status ReduceProd(NodeContext& c) { return Reduce(c, "Prod", nullptr, nullptr); }
Status ReduceSumSquare(NodeContext& c) { return Reduce(c, "Sum", "Square", nullptr); }
Status ReduceL1(NodeContext& c) { return Reduce(c, "Sum", "Abs", nullptr); }
Status ReduceL2(NodeContext& c) { return Reduce(c, "Sum", "Square", "Sqrt"); }
Status ReduceLogSum(NodeContext& c) { return Reduce(c, "Sum", nullptr, "Log"); }
Status ReduceLogSumExp(NodeContext& c) { return Reduce(c, "Sum", "Exp", "Log"); }

// ArgMax and ArgMin take the first extreme along the axis, as TF's do; with
// select_last_index the last: the first of the input reversed along the axis
// (a StridedSlice of step -1), counted back from the axis' end.
Status ArgExtreme(NodeContext& c, const char* op) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c, c.attr_int("axis", 0), r));
  const bool keep = c.attr_int("keepdims", 1) != 0;
  const bool last = c.attr_int("select_last_index", 0) != 0;
  const int64_t dim = c.shape(0).dim(static_cast<int>(axis));
  if (last && dim < 0) return c.Unsupported("select_last_index along an axis of unknown size");
  // The reversal's StridedSlice names its axes in 64-bit masks (Slice's limit).
  if (last && r > 32) return c.Unsupported("select_last_index on a tensor of rank above 32");
  std::string x = c.in(0);
  if (last) {
    std::vector<int64_t> strides(r, 1);
    strides[axis] = -1;
    const std::vector<int64_t> zeros(r, 0);
    x = c.Emit(
        "reversed", "StridedSlice",
        {x, c.IntConst("begin", zeros, DType::kInt64), c.IntConst("end", zeros, DType::kInt64),
         c.IntConst("strides", strides, DType::kInt64)},
        SliceMasks((int64_t{1} << r) - 1));
  }
  std::string y = c.Emit(keep || last ? "reduce" : "", op, {x, c.IntScalar("axis", axis)},
                         {{"output_type", MakeAttr(DType::kInt64)}});
  if (last) {
    y = c.Emit(keep ? "from_end" : "", "Sub",
               {c.ScalarConst("last_index", static_cast<double>(dim - 1), DType::kInt64), y});
  }
  if (keep) {
    y = c.Emit("", "ExpandDims", {y, c.IntScalar("keep_axis", axis)});
  }
  c.Output(0, y);
  return Status::Ok();
}

Status ArgMax(NodeContext& c) { return ArgExtreme(c, "ArgMax"); }
Status ArgMin(NodeContext& c) { return ArgExtreme(c, "ArgMin"); }

// ---- softmax ----

// Opset 13 normalises along one axis; earlier opsets along the flattened
// trailing dimensions from `axis` on (default 1).
Status SoftmaxLike(NodeContext& c, const char* op) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  const bool v13 = c.opset() >= 13;
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c, c.attr_int("axis", v13 ? -1 : 1), r));
  if (axis == r - 1) {
    c.Output(0, c.Emit("", op, {c.in(0)}));
    return Status::Ok();
  }
  if (v13) {
    std::vector<int64_t> perm(r);
    for (int i = 0; i < r; ++i) perm[i] = i;
    std::swap(perm[axis], perm[r - 1]);
    std::string p = c.IntConst("perm", perm);
    std::string t = c.Emit("to_last", "Transpose", {c.in(0), p});
    std::string s = c.Emit("normalise", op, {t});
    c.Output(0, c.Emit("", "Transpose", {s, p}));
    return Status::Ok();
  }
  Shape s = c.shape(0);
  GRAPH_ASSIGN_OR_RETURN(int64_t inner, FlattenedSize(c, s, axis, static_cast<int>(axis), r));
  if (inner < 0) return c.Unsupported("softmax over dimensions of unknown size");
  // A Reshape to {-1, 0} cannot size its -1 (and there is nothing to normalise).
  if (inner == 0) return c.Unsupported("softmax over an empty dimension");
  std::string flat = c.Emit("flatten", "Reshape", {c.in(0), c.IntConst("flat_shape", {-1, inner})});
  std::string y = c.Emit("normalise", op, {flat});
  std::string back = c.Emit("shape", "Shape", {c.in(0)}, {{"out_type", MakeAttr(DType::kInt32)}});
  c.Output(0, c.Emit("", "Reshape", {y, back}));
  return Status::Ok();
}

Status Softmax(NodeContext& c) { return SoftmaxLike(c, "Softmax"); }
Status LogSoftmax(NodeContext& c) { return SoftmaxLike(c, "LogSoftmax"); }

// ---- matrix products ----

Status MatMul(NodeContext& c) {
  const int ra = c.rank(0), rb = c.rank(1);
  if (ra < 0 || rb < 0) return c.Unsupported("MatMul of operands of unknown rank");
  std::string a = c.in(0), b = c.in(1);
  if (ra == 1) a = c.Emit("a_matrix", "ExpandDims", {a, c.IntScalar("a_axis", 0)});
  if (rb == 1) b = c.Emit("b_matrix", "ExpandDims", {b, c.IntScalar("b_axis", -1)});
  const bool squeeze = ra == 1 || rb == 1;
  const char* op = std::max(ra, rb) <= 2 ? "MatMul" : "BatchMatMulV2";
  std::string y = c.Emit(squeeze ? "product" : "", op, {a, b});
  if (squeeze) {
    std::vector<int64_t> dims;
    if (ra == 1) dims.push_back(-2);
    if (rb == 1) dims.push_back(-1);
    y = c.Emit("", "Squeeze", {y}, {{"squeeze_dims", IntList(dims)}});
  }
  c.Output(0, y);
  return Status::Ok();
}

Status Gemm(NodeContext& c) {
  const float alpha = c.attr_float("alpha", 1.0f), beta = c.attr_float("beta", 1.0f);
  const bool has_c = c.has(2) && beta != 0.0f;
  const bool scale = alpha != 1.0f;
  std::string y = c.Emit(has_c || scale ? "MatMul" : "", "MatMul", {c.in(0), c.in(1)},
                         {{"transpose_a", MakeAttr(c.attr_int("transA", 0) != 0)},
                          {"transpose_b", MakeAttr(c.attr_int("transB", 0) != 0)}});
  if (scale) {
    y = c.Emit(has_c ? "scaled" : "", "Mul", {y, c.ScalarConst("alpha", alpha, c.dtype(0))});
  }
  if (has_c) {
    std::string bias = c.in(2);
    if (beta != 1.0f) bias = c.Emit("scaled_c", "Mul", {bias, c.ScalarConst("beta", beta, c.dtype(0))});
    y = c.Emit("", "AddV2", {y, bias});
  }
  c.Output(0, y);
  return Status::Ok();
}

Status Einsum(NodeContext& c) {
  std::vector<std::string> ins;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.has(i)) return c.Error("input " + std::to_string(i) + " is empty");
    ins.push_back(c.in(i));
  }
  std::string eq = c.attr_string("equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  c.Output(0, c.Emit("", "Einsum", ins,
                     {{"equation", MakeAttr(eq)},
                      {"N", MakeAttr(static_cast<int64_t>(ins.size()))}}));
  return Status::Ok();
}

Status CumSum(NodeContext& c) {
  c.Output(0, c.Emit("", "Cumsum", {c.in(0), c.in(1)},
                     {{"exclusive", MakeAttr(c.attr_int("exclusive", 0) != 0)},
                      {"reverse", MakeAttr(c.attr_int("reverse", 0) != 0)}}));
  return Status::Ok();
}

}  // namespace

const std::vector<OpRule>& MathRules() {
  static const std::vector<OpRule> rules = {
      {"Abs", Unary<kAbs>},
      {"Neg", Unary<kNeg>},
      {"Exp", Unary<kExp>},
      {"Log", Unary<kLog>},
      {"Sqrt", Unary<kSqrt>},
      {"Reciprocal", Unary<kReciprocal>},
      {"Floor", Unary<kFloor>, false},
      {"Ceil", Unary<kCeil>, false},
      {"Round", Round, false},
      {"Relu", Unary<kRelu>},
      {"Sigmoid", Unary<kSigmoid>},
      {"Tanh", Unary<kTanh>},
      {"Erf", Unary<kErf>},
      {"Sin", Unary<kSin>},
      {"Cos", Unary<kCos>},
      {"Tan", Unary<kTan>},
      {"Atan", Unary<kAtan>},
      {"Sign", Unary<kSign>, false},
      {"Softplus", Unary<kSoftplus>},
      {"Softsign", Unary<kSoftsign>},
      {"Identity", Unary<kIdentity>},
      {"Not", Unary<kLogicalNot>, false},
      {"Add", Binary<kAddV2>},
      {"Sub", Binary<kSub>},
      {"Mul", Binary<kMul>},
      {"Div", Div},
      {"Mod", Mod, false},
      {"Pow", Pow},
      {"Equal", Binary<kEqual>, false},
      {"Less", Binary<kLess>, false},
      {"Greater", Binary<kGreater>, false},
      {"LessOrEqual", Binary<kLessEqual>, false},
      {"GreaterOrEqual", Binary<kGreaterEqual>, false},
      {"And", Binary<kLogicalAnd>, false},
      {"Or", Binary<kLogicalOr>, false},
      {"Xor", Xor, false},
      {"Sum", Sum},
      {"Max", Max},
      {"Min", Min},
      {"Mean", Mean},
      {"LeakyRelu", LeakyRelu},
      {"Elu", Elu},
      {"Selu", Selu},
      {"Celu", Celu},
      {"HardSigmoid", HardSigmoid},
      {"HardSwish", HardSwish},
      {"ThresholdedRelu", ThresholdedRelu},
      {"PRelu", PRelu},
      {"Clip", Clip},
      {"Where", Where},
      {"Cast", Cast},
      {"CastLike", CastLike},
      {"ReduceSum", ReduceSum},
      {"ReduceMean", ReduceMean},
      {"ReduceMax", ReduceMax},
      {"ReduceMin", ReduceMin},
      {"ReduceProd", ReduceProd},
      {"ReduceSumSquare", ReduceSumSquare},
      {"ReduceL1", ReduceL1},
      {"ReduceL2", ReduceL2},
      {"ReduceLogSum", ReduceLogSum},
      {"ReduceLogSumExp", ReduceLogSumExp},
      {"ArgMax", ArgMax, false},
      {"ArgMin", ArgMin, false},
      {"Softmax", Softmax},
      {"LogSoftmax", LogSoftmax},
      {"MatMul", MatMul},
      {"Gemm", Gemm},
      {"Einsum", Einsum},
      {"CumSum", CumSum},
  };
  return rules;
}

}  // namespace graph::onnx_import
