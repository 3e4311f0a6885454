// Gradient checks of gradient_rules_math.cc's rules and the ops TensorFlow does
// not differentiate (their gradient is none, autograd's is zero): elementwise
// ops, activations standalone and fused, reductions, Cumsum/Cumprod, Einsum.
#include "tests/runtime/gradient_check.h"

namespace runtime::gradient_check {

namespace {

std::string Eq(const std::string& e) { return A("equation", "s: '" + e + "'"); }

std::string ConvAttrs() { return A("padding", "s: 'SAME'") + A("strides", Ints({1, 1, 1, 1})); }

}  // namespace

std::vector<Case> MathCases() {
  const std::string xw = X({3, 4}) + W("w", {3, 4}) + N("m", "Mul", {"x", "w"});
  return {
      {"Activations",
       {"Elu", "Selu", "LeakyRelu", "Softplus", "Softsign", "LogSoftmax"},
       xw + N("e", "Elu", {"m"}) + N("se", "Selu", {"m"}) +
           N("lr", "LeakyRelu", {"m"}, A("alpha", "f: 0.3")) + N("sp", "Softplus", {"m"}) +
           N("ss", "Softsign", {"m"}) + N("ls", "LogSoftmax", {"m"})},
      {"Trigonometry",
       {"Erf", "Sin", "Cos", "Tan", "Atan"},
       xw + N("er", "Erf", {"m"}) + N("si", "Sin", {"m"}) + N("co", "Cos", {"m"}) +
           N("ta", "Tan", {"m"}) + N("at", "Atan", {"m"})},
      {"Positive",
       {"Reciprocal", "Inv", "Log1p", "Expm1", "Pow", "DivNoNan", "L2Loss"},
       X({3, 4}) + W("w", {3, 4}) + N("m", "Mul", {"x", "w"}) + N("rc", "Reciprocal", {"m"}) +
           N("iv", "Inv", {"m"}) + N("lp", "Log1p", {"m"}) + N("em", "Expm1", {"m"}) +
           N("pw", "Pow", {"m", "w"}) + N("dn", "DivNoNan", {"m", "w"}) + N("l2", "L2Loss", {"m"}),
       true},
      {"NotDifferentiated",
       {"Floor", "Ceil", "Round", "Rint", "Sign", "FloorDiv", "TruncateDiv", "ZerosLike",
        "OnesLike", "Range", "CheckNumerics"},
       xw + C("start", {}, {0}) + C("limit", {}, {4}) + C("delta", {}, {1}) + W("v", {4}) +
           N("fl", "Floor", {"m"}) + N("ce", "Ceil", {"m"}) + N("ro", "Round", {"m"}) +
           N("ri", "Rint", {"m"}) + N("sg", "Sign", {"m"}) + N("fd", "FloorDiv", {"m", "w"}) +
           N("td", "TruncateDiv", {"m", "w"}) + N("zl", "ZerosLike", {"m"}) +
           N("ol", "OnesLike", {"m"}) +
           N("r", "Range", {"start", "limit", "delta"}, A("Tidx", "type: DT_FLOAT")) +
           N("rv", "Mul", {"r", "v"}) + N("cn", "CheckNumerics", {"m"}, A("message", "s: 'm'")) +
           N("sq", "Square", {"cn"})},
      {"Binary",
       {"FloorMod", "Atan2", "ClipByValue", "Select", "SelectV2"},
       // 0.5 computed from an integer, so that it is not a parameter the check draws.
       xw + W("v", {4}) + W("lo_w", {1, 4}) + W("hi_w", {4}) + I("two", {2}, true) +
           "node { name: 'two_f' op: 'Cast' input: 'two' attr { key: 'SrcT' value { type: "
           "DT_INT32 } } attr { key: 'DstT' value { type: DT_FLOAT } } }\n" +
           N("half", "Reciprocal", {"two_f"}) + Bools("rows", {3}, {1, 0, 1}) +
           N("fm", "FloorMod", {"m", "v"}) + N("a2", "Atan2", {"m", "v"}) +
           // Bounds lo <= -0.5 < 0.5 <= hi, so that they never cross.
           N("lo_a", "Abs", {"lo_w"}) + N("lo_b", "AddV2", {"lo_a", "half"}) +
           N("lo", "Neg", {"lo_b"}) + N("hi_a", "Abs", {"hi_w"}) +
           N("hi", "AddV2", {"hi_a", "half"}) + N("m3", "Mul", {"m", "half"}) +
           N("m4", "AddV2", {"m", "m3"}) + N("cl", "ClipByValue", {"m4", "lo", "hi"}) +
           N("s1", "Select", {"rows", "m", "fm"}) +
           "node { name: 'gt' op: 'Greater' input: 'm' input: 'v' attr { key: 'T' value { type: "
           "DT_FLOAT } } }\n" +
           N("s2", "SelectV2", {"gt", "m", "v"})},
      {"Prelu",
       {"Prelu"},
       X({2, 3, 4}) + W("w", {2, 3, 4}) + W("alpha", {4}) + N("m", "Mul", {"x", "w"}) +
           N("p", "Prelu", {"m", "alpha"})},
      {"Reductions",
       {"Max", "Min", "Prod"},
       X({3, 4}) + W("w", {3, 4}) + I("ax1", {1}) + I("ax0", {0}) + I("ax01", {0, 1}) +
           N("m", "Mul", {"x", "w"}) + N("mx", "Max", {"m", "ax1"}) +
           N("mn", "Min", {"m", "ax0"}, A("keep_dims", "b: true")) +
           N("pr", "Prod", {"m", "ax01"}) + N("pr1", "Prod", {"m", "ax1"}),
       true},
      {"Cumulative",
       {"Cumsum", "Cumprod"},
       X({3, 4}) + W("w", {3, 4}) + I("one", {1}, true) + I("zero", {0}, true) +
           N("m", "Mul", {"x", "w"}) + N("cs", "Cumsum", {"m", "one"}, A("exclusive", "b: true")) +
           N("cr", "Cumsum", {"m", "zero"}, A("reverse", "b: true")) +
           N("cp", "Cumprod", {"m", "one"}) +
           N("cq", "Cumprod", {"m", "zero"}, A("exclusive", "b: true") + A("reverse", "b: true")),
       true},
      {"Einsum",
       {"Einsum"},
       X({2, 3}) + W("w", {3, 4}) + W("v", {4, 5}) + W("b", {2, 4, 3}) +
           N("e1", "Einsum", {"x", "w"}, Eq("ij,jk->ik") + A("N", "i: 2")) +
           N("e2", "Einsum", {"e1", "v"}, Eq("ik,kl->l") + A("N", "i: 2")) +
           N("e3", "Einsum", {"w"}, Eq("ij->ji") + A("N", "i: 1")) +
           N("e4", "Einsum", {"e3"}, Eq("ij->i") + A("N", "i: 1")) +
           N("e5", "Einsum", {"b", "w"}, Eq("bkj,jl->blk") + A("N", "i: 2"))},
      {"FusedMatMul",
       {"_FusedMatMul"},
       X({3, 4}) + W("w", {4, 5}) + W("b", {5}) + W("w2", {6, 5}) + W("b2", {6}) + W("alpha", {6}) +
           W("w3", {6, 2}) + W("b3", {2}) +
           N("f1", "_FusedMatMul", {"x", "w", "b"}, Fused("Relu")) +
           N("f2", "_FusedMatMul", {"f1", "w2", "b2"},
             Fused("Tanh") + A("transpose_b", "b: true")) +
           N("f3", "_FusedMatMul", {"f1", "w2", "b2", "alpha"},
             Fused("Prelu", 2) + A("transpose_b", "b: true")) +
           N("f4", "_FusedMatMul", {"f3", "w3", "b3"}, Fused("GeluExact"))},
      {"FusedConvActivations",
       {"_FusedConv2D", "FusedDepthwiseConv2dNative"},
       X({2, 5, 5, 3}) + W("f", {3, 3, 3, 4}) + W("b", {4}) + W("alpha", {1, 1, 4}) +
           W("d", {3, 3, 4, 1}) + W("db", {4}) +
           N("c1", "_FusedConv2D", {"x", "f", "b"}, ConvAttrs() + Fused("Elu")) +
           N("c2", "_FusedConv2D", {"x", "f", "b"},
             ConvAttrs() + Fused("LeakyRelu") + A("leakyrelu_alpha", "f: -0.2")) +
           N("c3", "_FusedConv2D", {"x", "f", "b"},
             ConvAttrs() + Fused("LeakyRelu") + A("leakyrelu_alpha", "f: 0.3")) +
           N("c4", "_FusedConv2D", {"x", "f", "b"}, ConvAttrs() + Fused("Sigmoid")) +
           N("c5", "_FusedConv2D", {"x", "f", "b"}, ConvAttrs() + Fused("GeluApproximate")) +
           N("c6", "_FusedConv2D", {"x", "f", "b", "alpha"}, ConvAttrs() + Fused("Prelu", 2)) +
           N("c7", "FusedDepthwiseConv2dNative", {"c6", "d", "db"}, ConvAttrs() + Fused("Tanh"))},
  };
}

}  // namespace runtime::gradient_check
