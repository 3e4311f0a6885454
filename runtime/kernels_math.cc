// Kernels of elementwise math beyond the basic set in kernels_forward.cc
// (activations, trigonometry, rounding, logic, Prelu, ClipByValue, Select),
// Cumsum and Einsum, and the TensorFlow gradient ops of these activations.
// TensorFlow's semantics on LibTorch, as in kernels_forward.cc; where the two
// differ the place says so.
#include <ATen/ATen.h>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/kernel.h"
#include "runtime/kernel_util.h"

namespace runtime {
namespace {

using graph::Status;

// SELU's constants, as TensorFlow writes them.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

at::Tensor Elu(const at::Tensor& x) { return at::elu(x); }
at::Tensor Selu(const at::Tensor& x) { return at::selu(x); }
// TF's Softplus is log(1 + exp(x)) computed stably, as PyTorch's with beta 1 and
// a threshold beyond which it is x.
at::Tensor Softplus(const at::Tensor& x) { return at::softplus(x, 1, 20); }
at::Tensor Softsign(const at::Tensor& x) { return x / (1 + at::abs(x)); }
// TF's Round and Rint round half to even, as at::round does.
at::Tensor Round(const at::Tensor& x) { return IsInt(x) ? x : at::round(x); }
at::Tensor Ceil(const at::Tensor& x) { return IsInt(x) ? x : at::ceil(x); }
at::Tensor Reciprocal(const at::Tensor& x) { return at::reciprocal(x); }
at::Tensor OnesLike(const at::Tensor& x) { return at::ones_like(x); }
at::Tensor LogSoftmax(const at::Tensor& x) { return at::log_softmax(x, -1); }
at::Tensor LogicalNot(const at::Tensor& x) { return at::logical_not(x); }

// TF's FloorMod takes the sign of the divisor (Python's %), as remainder does;
// its TruncateMod (and Mod) the sign of the dividend, as fmod does.
at::Tensor FloorMod(const at::Tensor& a, const at::Tensor& b) { return at::remainder(a, b); }
at::Tensor TruncateMod(const at::Tensor& a, const at::Tensor& b) { return at::fmod(a, b); }
at::Tensor TruncateDiv(const at::Tensor& a, const at::Tensor& b) {
  return IsInt(a) ? at::div(a, b, "trunc") : at::trunc(a / b);
}
at::Tensor Pow(const at::Tensor& a, const at::Tensor& b) { return at::pow(a, b); }
at::Tensor Atan2(const at::Tensor& a, const at::Tensor& b) { return at::atan2(a, b); }
// DivNoNan: 0 where the divisor is 0, whatever the dividend.
at::Tensor DivNoNan(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor q = a / b;
  return at::where(b == 0, at::zeros_like(q), q);
}
at::Tensor NotEqual(const at::Tensor& a, const at::Tensor& b) { return at::ne(a, b); }
at::Tensor LogicalAnd(const at::Tensor& a, const at::Tensor& b) { return at::logical_and(a, b); }
at::Tensor LogicalOr(const at::Tensor& a, const at::Tensor& b) { return at::logical_or(a, b); }

Status LeakyRelu(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  c.outputs = {at::leaky_relu(c.inputs[0], c.node.attr_float("alpha", 0.2f))};
  return Status::Ok();
}

// TF.js's Prelu(x, alpha): x where positive, alpha * x elsewhere; alpha
// broadcasts against x NumPy-style (PyTorch's prelu reads channels from
// dimension 1 instead).
Status Prelu(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor &x = c.inputs[0], &alpha = c.inputs[1];
  c.outputs = {at::where(x > 0, x, x * alpha)};
  return Status::Ok();
}

Status ClipByValue(KernelContext& c) {  // (t, clip_value_min, clip_value_max)
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  c.outputs = {at::minimum(at::maximum(c.inputs[0], c.inputs[1]), c.inputs[2])};
  return Status::Ok();
}

// Select (v1): the condition has x's shape, or is a vector choosing whole rows
// (its length is x's first dimension), or a scalar.
Status Select(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  at::Tensor cond = c.inputs[0];
  const at::Tensor &x = c.inputs[1], &y = c.inputs[2];
  if (cond.scalar_type() != at::kBool) return c.Error("condition must be bool");
  if (!x.sizes().equals(y.sizes())) {
    return c.Error("x " + Str(x.sizes()) + " and y " + Str(y.sizes()) + " differ in shape");
  }
  if (cond.dim() == 1 && x.dim() > 1) {
    if (cond.size(0) != x.size(0)) return c.Error("condition length differs from x's rows");
    Int64s shape(x.dim(), 1);
    shape[0] = cond.size(0);
    cond = cond.reshape(shape);
  } else if (cond.dim() != 0 && !cond.sizes().equals(x.sizes())) {
    return c.Error("condition " + Str(cond.sizes()) + " must be a scalar, x's shape " +
                   Str(x.sizes()) + " or a vector of its first dimension");
  }
  c.outputs = {at::where(cond, x, y)};
  return Status::Ok();
}

// IdentityN: every input passed through.
Status IdentityN(KernelContext& c) {
  c.outputs = c.inputs;
  return Status::Ok();
}

// OneHot(indices, depth, on_value, off_value; axis): the new dimension at axis
// (last by default); indices outside [0, depth) give off_value everywhere.
Status OneHot(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 4));
  const at::Tensor& indices = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(int64_t depth, Int(c, 1));
  if (!IsInt(indices) || depth < 0 || c.inputs[2].numel() != 1 || c.inputs[3].numel() != 1) {
    return c.Error("needs integer indices, a depth >= 0 and scalar on and off values");
  }
  int64_t axis = c.node.attr_int("axis", -1);
  GRAPH_RETURN_IF_ERROR(Axis(c, indices.dim() + 1, &axis));
  const at::Tensor classes = at::arange(depth, indices.options().dtype(at::kLong));
  const at::Tensor hit = indices.to(at::kLong).unsqueeze(-1) == classes;
  at::Tensor y = at::where(hit, c.inputs[2].reshape({}), c.inputs[3].reshape({}));
  c.outputs = {y.movedim(-1, axis)};
  return Status::Ok();
}

// CheckNumerics: the input, or an error with the node's message when it holds
// a NaN or an infinity.
Status CheckNumerics(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  const at::Tensor& x = c.inputs[0];
  if (!at::isfinite(x).all().item<bool>()) {
    return c.Error(c.node.attr_string("message", "") + ": tensor had NaN or Inf values");
  }
  c.outputs = {x};
  return Status::Ok();
}

// Cumsum and Cumprod(x, axis): exclusive shifts by one element (the first is 0
// or 1), reverse accumulates from the end.
Status Cumulative(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, Int(c, 1));
  GRAPH_RETURN_IF_ERROR(Axis(c, x.dim(), &axis));
  const bool exclusive = c.node.attr_bool("exclusive", false);
  const bool reverse = c.node.attr_bool("reverse", false);
  const bool sum = c.node.op == "Cumsum";
  at::Tensor v = reverse ? x.flip(axis) : x;
  // TF accumulates integers in their own type; PyTorch would widen them to int64.
  at::Tensor s = sum ? at::cumsum(v, axis, x.scalar_type()) : at::cumprod(v, axis, x.scalar_type());
  if (exclusive && x.size(axis) > 0) {
    at::Tensor first = s.narrow(axis, 0, 1);
    s = at::cat(
        {sum ? at::zeros_like(first) : at::ones_like(first), s.narrow(axis, 0, x.size(axis) - 1)},
        axis);
  }
  c.outputs = {reverse ? s.flip(axis) : s};
  return Status::Ok();
}

// Einsum(inputs...; equation): TensorFlow's subscripts are NumPy's, which
// at::einsum reads.
Status Einsum(KernelContext& c) {
  if (c.inputs.empty()) return c.Error("expects at least one input");
  const std::string eq = c.node.attr_string("equation", "");
  if (eq.empty()) return c.Error("has no equation");
  c.outputs = {at::einsum(eq, c.inputs)};
  return Status::Ok();
}

// ---- TensorFlow's gradient ops of these activations ----

Status EluGrad(KernelContext& c) {  // (gradients, outputs): dy * (y > 0 ? 1 : y + 1)
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor &dy = c.inputs[0], &y = c.inputs[1];
  c.outputs = {at::where(y > 0, dy, dy * (y + 1))};
  return Status::Ok();
}

// At y == 0 the positive branch, as TensorFlow's (activations < 0 selects the
// other); PyTorch's autograd takes the negative one there.
Status SeluGrad(KernelContext& c) {  // (gradients, outputs)
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor &dy = c.inputs[0], &y = c.inputs[1];
  c.outputs = {at::where(y < 0, dy * (y + kSeluScale * kSeluAlpha), dy * kSeluScale)};
  return Status::Ok();
}

Status LeakyReluGrad(KernelContext& c) {  // (gradients, features; alpha)
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor &dy = c.inputs[0], &x = c.inputs[1];
  c.outputs = {at::where(x > 0, dy, dy * c.node.attr_float("alpha", 0.2f))};
  return Status::Ok();
}

Status SoftplusGrad(KernelContext& c) {  // (gradients, features): dy * sigmoid(x)
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  c.outputs = {c.inputs[0] * at::sigmoid(c.inputs[1])};
  return Status::Ok();
}

Status SoftsignGrad(KernelContext& c) {  // (gradients, features): dy / (1 + |x|)^2
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  c.outputs = {c.inputs[0] / at::square(1 + at::abs(c.inputs[1]))};
  return Status::Ok();
}

Status ReciprocalGrad(KernelContext& c) {  // (y, dy): -dy * y^2
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor& y = c.inputs[0];
  c.outputs = {-c.inputs[1] * y * y};
  return Status::Ok();
}

}  // namespace

const KernelEntry kMathKernels[] = {
    {"Elu", Unary<Elu>},
    {"Selu", Unary<Selu>},
    {"LeakyRelu", LeakyRelu},
    {"Softplus", Unary<Softplus>},
    {"Softsign", Unary<Softsign>},
    {"Ceil", Unary<Ceil>},
    {"Round", Unary<Round>},
    {"Rint", Unary<Round>},
    {"Reciprocal", Unary<Reciprocal>},
    {"Inv", Unary<Reciprocal>},
    {"Erf", Unary<at::erf>},
    {"Sin", Unary<at::sin>},
    {"Cos", Unary<at::cos>},
    {"Tan", Unary<at::tan>},
    {"Atan", Unary<at::atan>},
    {"Log1p", Unary<at::log1p>},
    {"Expm1", Unary<at::expm1>},
    {"OnesLike", Unary<OnesLike>},
    {"LogSoftmax", Unary<LogSoftmax>},
    {"LogicalNot", Unary<LogicalNot>},
    {"FloorMod", Binary<FloorMod>},
    {"TruncateMod", Binary<TruncateMod>},
    {"Mod", Binary<TruncateMod>},
    {"TruncateDiv", Binary<TruncateDiv>},
    {"Pow", Binary<Pow>},
    {"Atan2", Binary<Atan2>},
    {"DivNoNan", Binary<DivNoNan>},
    {"NotEqual", Binary<NotEqual>},
    {"LogicalAnd", Binary<LogicalAnd>},
    {"LogicalOr", Binary<LogicalOr>},
    {"Prelu", Prelu},
    {"ClipByValue", ClipByValue},
    {"Select", Select},
    {"CheckNumerics", CheckNumerics},
    {"IdentityN", IdentityN},
    {"OneHot", OneHot},
    {"Cumsum", Cumulative},
    {"Cumprod", Cumulative},
    {"Einsum", Einsum},
    {"EluGrad", EluGrad},
    {"SeluGrad", SeluGrad},
    {"LeakyReluGrad", LeakyReluGrad},
    {"SoftplusGrad", SoftplusGrad},
    {"SoftsignGrad", SoftsignGrad},
    {"ReciprocalGrad", ReciprocalGrad},
    {"InvGrad", ReciprocalGrad},
    {nullptr, nullptr},
};

}  // namespace runtime
