// Gradient rules of elementwise ops, activations (standalone and fused),
// reductions, Cumsum and Einsum: TensorFlow's rules (math_grad.py, nn_grad.py),
// written with TensorFlow's ops.
#include <algorithm>
#include <cmath>
#include <set>

#include "graph/einsum.h"
#include "graph/gradient_rules.h"

namespace graph {

namespace {

// The named gradient op of TensorFlow's, fed (dy, x) or (dy, y) as it expects.
Status GradOp(GradContext& c, std::vector<std::string>* dx, const char* op,
              const std::string& second, AttrMap attrs) {
  (*dx)[0] = c.b.Add(op, op, {c.dy[0], second}, std::move(attrs));
  return Status::Ok();
}

std::string Mul(GradContext& c, const std::string& a, const std::string& b) {
  return c.b.Add("Mul", "Mul", {a, b}, TAttr(c));
}
std::string Add(GradContext& c, const std::string& a, const std::string& b) {
  return c.b.Add("AddV2", "AddV2", {a, b}, TAttr(c));
}
std::string Unary(GradContext& c, const char* op, const std::string& x) {
  return c.b.Add(op, op, {x}, TAttr(c));
}
std::string Scalar(GradContext& c, float v) { return c.b.FloatConst("c", v); }

// x > 0, as a bool tensor.
std::string Positive(GradContext& c, const std::string& x) {
  return c.b.Add("Greater", "Greater", {x, Scalar(c, 0.0f)}, TAttr(c));
}

// The derivative of GELU at z, times g: exact (erf) or the tanh approximation.
std::string GeluGradient(GradContext& c, const std::string& z, const std::string& g, bool exact) {
  if (exact) {
    // Phi(z) + z * phi(z)
    std::string cdf =
        Mul(c, Add(c, Unary(c, "Erf", Mul(c, z, Scalar(c, M_SQRT1_2))), Scalar(c, 1.0f)),
            Scalar(c, 0.5f));
    std::string pdf = Mul(c, Unary(c, "Exp", Mul(c, Unary(c, "Square", z), Scalar(c, -0.5f))),
                          Scalar(c, static_cast<float>(0.5 * M_2_SQRTPI * M_SQRT1_2)));
    return Mul(c, g, Add(c, cdf, Mul(c, z, pdf)));
  }
  // gelu(z) = 0.5 z (1 + tanh(u)), u = k (z + 0.044715 z^3), k = sqrt(2 / pi).
  const float k = static_cast<float>(M_2_SQRTPI * M_SQRT1_2);
  std::string z2 = Unary(c, "Square", z);
  std::string u = Mul(c, Add(c, z, Mul(c, Mul(c, z2, z), Scalar(c, 0.044715f))), Scalar(c, k));
  std::string t = Unary(c, "Tanh", u);
  std::string half_one_plus_t = Mul(c, Add(c, t, Scalar(c, 1.0f)), Scalar(c, 0.5f));
  std::string sech2 = c.b.Add("Sub", "Sub", {Scalar(c, 1.0f), Unary(c, "Square", t)}, TAttr(c));
  std::string du =
      Mul(c, Add(c, Mul(c, z2, Scalar(c, 3 * 0.044715f)), Scalar(c, 1.0f)), Scalar(c, k));
  std::string rest = Mul(c, Mul(c, Mul(c, z, Scalar(c, 0.5f)), sech2), du);
  return Mul(c, g, Add(c, half_one_plus_t, rest));
}

// Prelu's gradients at pre-activation `x` with slope `alpha` (shapes x_shape,
// alpha_shape): for x, g where x > 0 else g * alpha; for alpha, the sum of
// g * min(x, 0) over the dimensions alpha was broadcast along.
std::string PreluGradients(GradContext& c, const std::string& x, const std::string& alpha,
                           const std::string& g, const Shape& x_shape, const Shape& alpha_shape,
                           std::string* d_alpha) {
  std::string g_alpha = Mul(c, g, c.b.Add("Minimum", "Minimum", {x, Scalar(c, 0.0f)}, TAttr(c)));
  *d_alpha = ReduceTo(c, g_alpha, x_shape, alpha_shape);
  return c.b.Add("SelectV2", "SelectV2", {Positive(c, x), g, Mul(c, g, alpha)}, TAttr(c));
}

// The fused op's sum before its activation, recomputed: the same op fused with
// BiasAdd alone.
std::string Preactivation(GradContext& c, const FusedOps& f) {
  AttrMap attrs = c.node().attrs;
  AttrList ops;
  ops.s = {"BiasAdd"};
  attrs["fused_ops"] = MakeAttr(ops);
  attrs["num_args"] = MakeAttr(int64_t{1});
  attrs.erase("_class");
  return c.b.Add(c.node().op, "preactivation", {c.x(0), c.x(1), c.x(f.bias_input)}, attrs);
}

}  // namespace

std::string FusedEpilogueGradient(GradContext& c, const FusedOps& f, const std::string& g,
                                  std::vector<std::string>* dx) {
  using A = FusedActivation;
  const std::string y = c.y();
  switch (f.activation) {
    case A::kNone:
      return g;
    case A::kRelu:
      return c.b.Add("ReluGrad", "ReluGrad", {g, y}, TAttr(c));
    case A::kRelu6:
      // 0 < y < 6 exactly where 0 < z < 6.
      return c.b.Add("Relu6Grad", "Relu6Grad", {g, y}, TAttr(c));
    case A::kElu:
      return c.b.Add("EluGrad", "EluGrad", {g, y}, TAttr(c));
    case A::kSigmoid:
      return c.b.Add("SigmoidGrad", "SigmoidGrad", {y, g}, TAttr(c));
    case A::kTanh:
      return c.b.Add("TanhGrad", "TanhGrad", {y, g}, TAttr(c));
    case A::kLeakyRelu: {
      AttrMap attrs = TAttr(c);
      attrs["alpha"] = MakeAttr(f.leakyrelu_alpha);
      // With alpha >= 0 the output has the sign of z; otherwise z is recomputed.
      const std::string z = f.leakyrelu_alpha >= 0 ? y : Preactivation(c, f);
      return c.b.Add("LeakyReluGrad", "LeakyReluGrad", {g, z}, attrs);
    }
    case A::kGeluApproximate:
    case A::kGeluExact:
      return GeluGradient(c, Preactivation(c, f), g, f.activation == A::kGeluExact);
    case A::kPrelu: {
      const std::string z = Preactivation(c, f);
      return PreluGradients(c, z, c.x(f.alpha_input), g, c.y_shape(), c.x_shape(f.alpha_input),
                            &(*dx)[f.alpha_input]);
    }
  }
  return g;
}

Status EluGradient(GradContext& c, std::vector<std::string>* dx) {
  return GradOp(c, dx, "EluGrad", c.y(), TAttr(c));
}

Status SeluGradient(GradContext& c, std::vector<std::string>* dx) {
  return GradOp(c, dx, "SeluGrad", c.y(), TAttr(c));
}

Status LeakyReluGradient(GradContext& c, std::vector<std::string>* dx) {
  return GradOp(c, dx, "LeakyReluGrad", c.x(0), WithAttrs(c, {"alpha"}));
}

Status SoftplusGradient(GradContext& c, std::vector<std::string>* dx) {
  return GradOp(c, dx, "SoftplusGrad", c.x(0), TAttr(c));
}

Status SoftsignGradient(GradContext& c, std::vector<std::string>* dx) {
  return GradOp(c, dx, "SoftsignGrad", c.x(0), TAttr(c));
}

Status ReciprocalGradient(GradContext& c, std::vector<std::string>* dx) {  // (y, dy)
  (*dx)[0] = c.b.Add("ReciprocalGrad", "ReciprocalGrad", {c.y(), c.dy[0]}, TAttr(c));
  return Status::Ok();
}

Status ErfGradient(GradContext& c, std::vector<std::string>* dx) {  // dy * 2/sqrt(pi) * exp(-x^2)
  std::string e = Unary(c, "Exp", Unary(c, "Neg", Unary(c, "Square", c.x(0))));
  (*dx)[0] = Mul(c, c.dy[0], Mul(c, e, Scalar(c, static_cast<float>(M_2_SQRTPI))));
  return Status::Ok();
}

Status SinGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = Mul(c, c.dy[0], Unary(c, "Cos", c.x(0)));
  return Status::Ok();
}

Status CosGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = Mul(c, c.dy[0], Unary(c, "Neg", Unary(c, "Sin", c.x(0))));
  return Status::Ok();
}

Status TanGradient(GradContext& c, std::vector<std::string>* dx) {  // dy * sec(x)^2
  std::string sec = Unary(c, "Reciprocal", Unary(c, "Cos", c.x(0)));
  (*dx)[0] = Mul(c, c.dy[0], Unary(c, "Square", sec));
  return Status::Ok();
}

Status AtanGradient(GradContext& c, std::vector<std::string>* dx) {  // dy / (1 + x^2)
  std::string d = Add(c, Unary(c, "Square", c.x(0)), Scalar(c, 1.0f));
  (*dx)[0] = c.b.Add("RealDiv", "RealDiv", {c.dy[0], d}, TAttr(c));
  return Status::Ok();
}

Status Log1pGradient(GradContext& c, std::vector<std::string>* dx) {  // dy / (1 + x)
  (*dx)[0] = c.b.Add("RealDiv", "RealDiv", {c.dy[0], Add(c, c.x(0), Scalar(c, 1.0f))}, TAttr(c));
  return Status::Ok();
}

Status Expm1Gradient(GradContext& c, std::vector<std::string>* dx) {  // dy * exp(x)
  (*dx)[0] = Mul(c, c.dy[0], Unary(c, "Exp", c.x(0)));
  return Status::Ok();
}

Status LogSoftmaxGradient(GradContext& c, std::vector<std::string>* dx) {
  // dy - softmax * sum(dy, last axis)
  std::string sum = c.b.Add("Sum", "Sum", {c.dy[0], c.b.IntConst("axis", {-1})},
                            {{"T", MakeAttr(DType::kFloat)}, {"keep_dims", MakeAttr(true)}});
  std::string softmax = Unary(c, "Exp", c.y());
  (*dx)[0] = c.b.Add("Sub", "Sub", {c.dy[0], Mul(c, softmax, sum)}, TAttr(c));
  return Status::Ok();
}

Status L2LossGradient(GradContext& c, std::vector<std::string>* dx) {  // x * dy
  (*dx)[0] = Mul(c, c.x(0), c.dy[0]);
  return Status::Ok();
}

Status FloorModGradient(GradContext& c, std::vector<std::string>* dx) {
  // x - floor(x / y) * y: dx = dy, dy_y = dy * -floor(x / y).
  (*dx)[0] = ReduceTo(c, c.dy[0], c.y_shape(), c.x_shape(0));
  std::string q = c.b.Add("FloorDiv", "FloorDiv", {c.x(0), c.x(1)}, TAttr(c));
  (*dx)[1] = ReduceTo(c, Mul(c, c.dy[0], Unary(c, "Neg", q)), c.y_shape(), c.x_shape(1));
  return Status::Ok();
}

Status PowGradient(GradContext& c, std::vector<std::string>* dx) {
  // d/dx = y * x^(y-1); d/dy = x^y * log(x) where x > 0, else 0 (TensorFlow's).
  const std::string &x = c.x(0), &p = c.x(1);
  std::string p_minus_1 = c.b.Add("Sub", "Sub", {p, Scalar(c, 1.0f)}, TAttr(c));
  std::string gx = Mul(c, Mul(c, c.dy[0], p), c.b.Add("Pow", "Pow", {x, p_minus_1}, TAttr(c)));
  (*dx)[0] = ReduceTo(c, gx, c.y_shape(), c.x_shape(0));
  std::string positive = Positive(c, x);
  std::string safe_x =
      c.b.Add("SelectV2", "SelectV2", {positive, x, Unary(c, "OnesLike", x)}, TAttr(c));
  std::string log_x = c.b.Add("SelectV2", "SelectV2",
                              {positive, Unary(c, "Log", safe_x), ZerosLike(c, x)}, TAttr(c));
  (*dx)[1] = ReduceTo(c, Mul(c, Mul(c, c.dy[0], c.y()), log_x), c.y_shape(), c.x_shape(1));
  return Status::Ok();
}

Status Atan2Gradient(GradContext& c, std::vector<std::string>* dx) {  // atan2(a, b)
  const std::string &a = c.x(0), &b = c.x(1);
  std::string r2 = Add(c, Unary(c, "Square", a), Unary(c, "Square", b));
  std::string inv = c.b.Add("RealDiv", "RealDiv", {c.dy[0], r2}, TAttr(c));
  (*dx)[0] = ReduceTo(c, Mul(c, b, inv), c.y_shape(), c.x_shape(0));
  (*dx)[1] = ReduceTo(c, Mul(c, Unary(c, "Neg", a), inv), c.y_shape(), c.x_shape(1));
  return Status::Ok();
}

Status DivNoNanGradient(GradContext& c, std::vector<std::string>* dx) {
  const std::string &a = c.x(0), &b = c.x(1);
  auto div = [&](const std::string& p, const std::string& q) {
    return c.b.Add("DivNoNan", "DivNoNan", {p, q}, TAttr(c));
  };
  (*dx)[0] = ReduceTo(c, div(c.dy[0], b), c.y_shape(), c.x_shape(0));
  std::string q = div(div(Unary(c, "Neg", a), b), b);
  (*dx)[1] = ReduceTo(c, Mul(c, c.dy[0], q), c.y_shape(), c.x_shape(1));
  return Status::Ok();
}

Status PreluGradient(GradContext& c, std::vector<std::string>* dx) {
  std::string g = PreluGradients(c, c.x(0), c.x(1), c.dy[0], c.y_shape(), c.x_shape(1), &(*dx)[1]);
  (*dx)[0] = ReduceTo(c, g, c.y_shape(), c.x_shape(0));
  return Status::Ok();
}

Status ClipByValueGradient(GradContext& c, std::vector<std::string>* dx) {
  // The gradient goes to the bound that clipped, else to the input.
  const std::string& x = c.x(0);
  std::string below = c.b.Add("Less", "Less", {x, c.x(1)}, TAttr(c));
  std::string above = c.b.Add("Greater", "Greater", {x, c.x(2)}, TAttr(c));
  std::string clipped = c.b.Add("LogicalOr", "LogicalOr", {below, above}, {});
  std::string zeros = ZerosLike(c, c.dy[0]);
  auto where = [&](const std::string& mask, const std::string& a, const std::string& b) {
    return c.b.Add("SelectV2", "SelectV2", {mask, a, b}, TAttr(c));
  };
  (*dx)[0] = ReduceTo(c, where(clipped, zeros, c.dy[0]), c.y_shape(), c.x_shape(0));
  (*dx)[1] = ReduceTo(c, where(below, c.dy[0], zeros), c.y_shape(), c.x_shape(1));
  (*dx)[2] = ReduceTo(c, where(above, c.dy[0], zeros), c.y_shape(), c.x_shape(2));
  return Status::Ok();
}

// Select and SelectV2(condition, x, y): each branch gets the gradient where it
// was chosen; the condition gets none.
Status SelectGradient(GradContext& c, std::vector<std::string>* dx) {
  const std::string& op = c.node().op;
  std::string zeros = ZerosLike(c, c.dy[0]);
  std::string a = c.b.Add(op, op, {c.x(0), c.dy[0], zeros}, TAttr(c));
  std::string b = c.b.Add(op, op, {c.x(0), zeros, c.dy[0]}, TAttr(c));
  (*dx)[1] = ReduceTo(c, a, c.y_shape(), c.x_shape(1));
  (*dx)[2] = ReduceTo(c, b, c.y_shape(), c.x_shape(2));
  return Status::Ok();
}

Status FusedMatMulGradient(GradContext& c, std::vector<std::string>* dx) {
  auto f = ParseFusedOps(c.node());
  if (!f.ok()) return f.status();
  std::string g = FusedEpilogueGradient(c, *f, c.dy[0], dx);
  ProductGradient(c, g, dx, "MatMul", "transpose_a", "transpose_b");
  (*dx)[f->bias_input] = c.b.Add("BiasAddGrad", "BiasAddGrad", {g}, TAttr(c));
  return Status::Ok();
}

// Max and Min: the gradient is shared equally among the elements that attain
// the extreme (TensorFlow's _MinOrMaxGrad).
Status MinMaxReductionGradient(GradContext& c, std::vector<std::string>* dx) {
  const Tensor* t = c.x_const(1);
  if (!t) return c.Error("reduction axes must be a constant");
  const Shape& in = c.x_shape(0);
  std::vector<int64_t> axes = t->ToInt64s(), kept = in.dims();
  for (int64_t& a : axes) {
    a = a < 0 ? a + in.rank() : a;
    kept[a] = 1;
  }
  std::string y = ReshapeTo(c, c.y(), Shape(kept));
  std::string hit = c.b.Add("Equal", "Equal", {c.x(0), y}, TAttr(c));
  std::string ind = c.b.Add("Cast", "Cast", {hit},
                            {{"SrcT", MakeAttr(DType::kBool)}, {"DstT", MakeAttr(DType::kFloat)}});
  std::string count = c.b.Add("Sum", "Sum", {ind, c.b.IntConst("axes", axes)},
                              {{"T", MakeAttr(DType::kFloat)}, {"keep_dims", MakeAttr(true)}});
  std::string share = c.b.Add("RealDiv", "RealDiv", {ind, count}, TAttr(c));
  (*dx)[0] = Mul(c, share, ReshapeTo(c, c.dy[0], Shape(kept)));
  return Status::Ok();
}

// Prod: each element's gradient is the product of the others in its reduction,
// computed without division as the exclusive products from the left times those
// from the right (TensorFlow's _ProdGrad): the reduced axes are moved to the
// front and flattened into one, Cumprod runs along it both ways.
Status ProdGradient(GradContext& c, std::vector<std::string>* dx) {
  const Tensor* t = c.x_const(1);
  if (!t) return c.Error("reduction axes must be a constant");
  const Shape& in = c.x_shape(0);
  if (!in.FullyDefined()) return c.Error("gradient needs the input's static shape");
  std::vector<int64_t> axes = t->ToInt64s(), kept = in.dims(), perm, other;
  std::vector<char> reduced(in.rank(), 0);
  for (int64_t a : axes) reduced[a < 0 ? a + in.rank() : a] = 1;
  int64_t reduced_n = 1, other_n = 1;
  std::vector<int64_t> permuted;
  for (int d = 0; d < in.rank(); ++d) {
    if (reduced[d]) {
      perm.push_back(d);
      reduced_n *= in.dim(d);
      kept[d] = 1;
    }
  }
  for (int d = 0; d < in.rank(); ++d) {
    if (!reduced[d]) {
      perm.push_back(d);
      other_n *= in.dim(d);
    }
  }
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    inverse[perm[i]] = static_cast<int64_t>(i);
    permuted.push_back(in.dim(static_cast<int>(perm[i])));
  }
  AttrMap tperm = TAttr(c);
  tperm["Tperm"] = MakeAttr(DType::kInt32);
  std::string x = c.b.Add("Transpose", "Transpose", {c.x(0), c.b.IntConst("perm", perm)}, tperm);
  x = ReshapeTo(c, x, Shape({reduced_n, other_n}));
  auto cumprod = [&](bool reverse) {
    AttrMap attrs = TAttr(c);
    attrs["exclusive"] = MakeAttr(true);
    attrs["reverse"] = MakeAttr(reverse);
    attrs["Tidx"] = MakeAttr(DType::kInt32);
    return c.b.Add("Cumprod", "Cumprod", {x, c.b.IntConst("axis", {0}, true)}, attrs);
  };
  std::string others = Mul(c, cumprod(false), cumprod(true));
  others = ReshapeTo(c, others, Shape(permuted));
  others = c.b.Add("Transpose", "Transpose", {others, c.b.IntConst("perm", inverse)}, tperm);
  (*dx)[0] = Mul(c, others, ReshapeTo(c, c.dy[0], Shape(kept)));
  return Status::Ok();
}

Status CumsumGradient(GradContext& c, std::vector<std::string>* dx) {
  AttrMap attrs = WithAttrs(c, {"exclusive", "Tidx"});
  attrs["reverse"] = MakeAttr(!c.node().attr_bool("reverse", false));
  (*dx)[0] = c.b.Add("Cumsum", "Cumsum", {c.dy[0], c.x(1)}, attrs);
  return Status::Ok();
}

// Cumprod: TensorFlow's rule, cumsum(y * dy) in the other direction, divided by
// x (so, as in TensorFlow, not defined where x is zero).
Status CumprodGradient(GradContext& c, std::vector<std::string>* dx) {
  AttrMap attrs = WithAttrs(c, {"exclusive", "Tidx"});
  attrs["reverse"] = MakeAttr(!c.node().attr_bool("reverse", false));
  std::string s = c.b.Add("Cumsum", "Cumsum", {Mul(c, c.y(), c.dy[0]), c.x(1)}, attrs);
  (*dx)[0] = c.b.Add("RealDiv", "RealDiv", {s, c.x(0)}, TAttr(c));
  return Status::Ok();
}

// Einsum of one or two operands: the gradient of operand i is the einsum of the
// output gradient with the other operand back to operand i's subscripts; a
// subscript only operand i has (summed away) is broadcast back. Repeated
// subscripts within an operand (diagonals) and ellipses are refused.
Status EinsumGradient(GradContext& c, std::vector<std::string>* dx) {
  auto eq = ParseEinsum(c.node().attr_string("equation", ""));
  if (!eq.ok()) return c.Error(eq.status().message());
  const size_t n = eq->inputs.size();
  if (n < 1 || n > 2) return c.Error("gradient only for one or two operands");
  for (const std::string& t : eq->inputs) {
    if (t.find('.') != std::string::npos || std::set<char>(t.begin(), t.end()).size() != t.size()) {
      return c.Error("gradient only for equations without ellipsis or repeated subscripts");
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const std::string& xi = eq->inputs[i];
    const std::string other = n == 2 ? eq->inputs[1 - i] : "";
    // Subscripts of x_i that the gradient einsum can produce.
    std::string reach;
    for (char ch : xi) {
      if (eq->output.find(ch) != std::string::npos || other.find(ch) != std::string::npos) {
        reach += ch;
      }
    }
    AttrMap attrs = WithAttrs(c, {"N"});
    std::vector<std::string> operands = {c.dy[0]};
    std::string lhs = eq->output;
    if (n == 2) {
      operands.push_back(c.x(static_cast<int>(1 - i)));
      lhs += "," + other;
    }
    attrs["N"] = MakeAttr(static_cast<int64_t>(operands.size()));
    attrs["equation"] = MakeAttr(lhs + "->" + reach);
    std::string g = c.b.Add("Einsum", "Einsum", operands, attrs);
    if (reach != xi) {
      // Insert size-1 dimensions for the summed-away subscripts, then broadcast.
      const Shape& xs = c.x_shape(static_cast<int>(i));
      std::vector<int64_t> kept;
      for (size_t d = 0; d < xi.size(); ++d) {
        kept.push_back(reach.find(xi[d]) != std::string::npos ? xs.dim(static_cast<int>(d)) : 1);
      }
      g = ReshapeTo(c, g, Shape(kept));
      g = c.b.Add("BroadcastTo", "BroadcastTo", {g, c.b.IntConst("shape", xs.dims())}, TAttr(c));
    }
    (*dx)[i] = g;
  }
  return Status::Ok();
}

}  // namespace graph
