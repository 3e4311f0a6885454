// Kernels of kernels_math.cc against TensorFlow's definitions: formulas, and
// values TensorFlow's documentation or semantics give by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/runtime/kernel_test_util.h"

namespace runtime {
namespace {

using namespace kernel_test;  // NOLINT: the helpers this file is written in

TEST(MathKernelsTest, ActivationsFollowTheirFormulas) {
  const at::Tensor x = F({-3.f, -0.5f, 0.f, 0.5f, 3.f}, {5});
  ExpectClose(Eval("Elu", {x}), at::where(x > 0, x, at::exp(x) - 1));
  const double a = 1.6732632423543772, s = 1.0507009873554805;
  ExpectClose(Eval("Selu", {x}), at::where(x > 0, x * s, (at::exp(x) - 1) * a * s));
  ExpectClose(Eval("Softplus", {x}), at::log1p(at::exp(x)));
  ExpectClose(Eval("Softsign", {x}), x / (1 + at::abs(x)));
  ExpectClose(Eval("LeakyRelu", {x}), at::where(x > 0, x, x * 0.2));
  ExpectClose(Eval("LeakyRelu", {x}, Attr("alpha", "f: 0.3")), at::where(x > 0, x, x * 0.3));
  ExpectClose(Eval("LogSoftmax", {F({1.f, 2.f, 3.f, 1.f, 1.f, 1.f}, {2, 3})}),
              at::log_softmax(F({1.f, 2.f, 3.f, 1.f, 1.f, 1.f}, {2, 3}), 1));
}

TEST(MathKernelsTest, RoundingIsTensorFlowsHalfToEven) {
  const at::Tensor x = F({-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 1.2f}, {7});
  ExpectClose(Eval("Round", {x}), F({-2.f, -2.f, -0.f, 0.f, 2.f, 2.f, 1.f}, {7}));
  ExpectClose(Eval("Rint", {x}), F({-2.f, -2.f, -0.f, 0.f, 2.f, 2.f, 1.f}, {7}));
  ExpectClose(Eval("Ceil", {x}), F({-2.f, -1.f, -0.f, 1.f, 2.f, 3.f, 2.f}, {7}));
  ExpectEqual(Eval("Round", {I({3, -4}, {2})}), I({3, -4}, {2}));
}

TEST(MathKernelsTest, UnaryMathMatchesTheLibraryFunctions) {
  const at::Tensor x = F({-0.9f, -0.2f, 0.3f, 0.8f}, {4});
  ExpectClose(Eval("Reciprocal", {x}), 1 / x);
  ExpectClose(Eval("Inv", {x}), 1 / x);
  ExpectClose(Eval("Erf", {x}), at::erf(x));
  ExpectClose(Eval("Sin", {x}), at::sin(x));
  ExpectClose(Eval("Cos", {x}), at::cos(x));
  ExpectClose(Eval("Tan", {x}), at::tan(x));
  ExpectClose(Eval("Atan", {x}), at::atan(x));
  ExpectClose(Eval("Log1p", {x}), at::log(1 + x));
  ExpectClose(Eval("Expm1", {x}), at::exp(x) - 1);
  ExpectClose(Eval("OnesLike", {x}), at::ones({4}));
}

TEST(MathKernelsTest, ModAndDivisionFollowTensorFlowsSigns) {
  // FloorMod takes the divisor's sign (Python's %), TruncateMod the dividend's (C's %).
  ExpectEqual(Eval("FloorMod", {I({-7, 7, -7}, {3}), I({3, -3, -3}, {3})}), I({2, -2, -1}, {3}));
  ExpectEqual(Eval("TruncateMod", {I({-7, 7, -7}, {3}), I({3, -3, -3}, {3})}), I({-1, 1, -1}, {3}));
  ExpectClose(Eval("FloorMod", {F({-7.5f, 7.5f}, {2}), F({2.f, -2.f}, {2})}),
              F({0.5f, -0.5f}, {2}));
  ExpectEqual(Eval("TruncateDiv", {I({-7, 7}, {2}), I({2, 2}, {2})}), I({-3, 3}, {2}));
  ExpectClose(Eval("DivNoNan", {F({1.f, 3.f}, {2}), F({0.f, 2.f}, {2})}), F({0.f, 1.5f}, {2}));
}

TEST(MathKernelsTest, BinaryMathAndLogic) {
  ExpectClose(Eval("Pow", {F({2.f, 9.f}, {2}), F({3.f, 0.5f}, {2})}), F({8.f, 3.f}, {2}));
  ExpectClose(Eval("Atan2", {F({1.f, -1.f}, {2}), F({-1.f, -1.f}, {2})}),
              F({static_cast<float>(3 * M_PI / 4), static_cast<float>(-3 * M_PI / 4)}, {2}));
  const at::Tensor t = B({1, 1, 0, 0}, {4}), f = B({1, 0, 1, 0}, {4});
  ExpectEqual(Eval("LogicalAnd", {t, f}), B({1, 0, 0, 0}, {4}));
  ExpectEqual(Eval("LogicalOr", {t, f}), B({1, 1, 1, 0}, {4}));
  ExpectEqual(Eval("LogicalNot", {t}), B({0, 0, 1, 1}, {4}));
  ExpectEqual(Eval("NotEqual", {I({1, 2}, {2}), I({1, 3}, {2})}), B({0, 1}, {2}));
}

TEST(MathKernelsTest, PreluBroadcastsItsAlphaAgainstTheInputsLastDimensions) {
  const at::Tensor x = Random({2, 3, 3, 4}, 31), alpha = F({0.1f, -0.2f, 0.5f, 2.f}, {1, 1, 4});
  ExpectClose(Eval("Prelu", {x, alpha}), at::where(x > 0, x, x * alpha));
}

TEST(MathKernelsTest, ClipByValueTakesTensorBounds) {
  ExpectClose(Eval("ClipByValue", {F({-2.f, 0.5f, 3.f}, {3}), F({-1.f}, {1}), F({1.f}, {1})}),
              F({-1.f, 0.5f, 1.f}, {3}));
}

TEST(MathKernelsTest, SelectWithAVectorConditionChoosesRows) {
  const at::Tensor x = F({1, 2, 3, 4}, {2, 2}), y = F({5, 6, 7, 8}, {2, 2});
  ExpectClose(Eval("Select", {B({1, 0}, {2}), x, y}), F({1, 2, 7, 8}, {2, 2}));
  ExpectClose(Eval("Select", {B({1, 0, 0, 1}, {2, 2}), x, y}), F({1, 6, 7, 4}, {2, 2}));
  EXPECT_NE(EvalError("Select", {B({1, 0, 1}, {3}), x, y}), "");
}

TEST(MathKernelsTest, OneHotPutsTheNewDimensionAtItsAxis) {
  const at::Tensor ids = I({0, 2, -1}, {3});
  ExpectClose(Eval("OneHot", {ids, Scalar(3), F({5}, {}), F({1}, {})}),
              F({5, 1, 1, 1, 1, 5, 1, 1, 1}, {3, 3}));  // -1: off everywhere
  ExpectClose(Eval("OneHot", {ids, Scalar(3), F({5}, {}), F({1}, {})}, Attr("axis", Int(0))),
              F({5, 1, 1, 1, 1, 1, 1, 5, 1}, {3, 3}));
  auto both = EvalAll("IdentityN", {ids, F({1}, {1})});
  ASSERT_EQ(both.size(), 2u);
  ExpectEqual(both[0], ids);
}

TEST(MathKernelsTest, CheckNumericsPassesFiniteValuesAndRefusesOthers) {
  ExpectClose(Eval("CheckNumerics", {F({1, 2}, {2})}, Attr("message", Str("w"))), F({1, 2}, {2}));
  EXPECT_NE(EvalError("CheckNumerics", {F({1, NAN}, {2})}, Attr("message", Str("w")))
                .find("w: tensor had NaN or Inf values"),
            std::string::npos);
}

TEST(MathKernelsTest, CumsumAndCumprodHonourExclusiveAndReverse) {
  const at::Tensor x = F({1, 2, 3, 4}, {4});
  const at::Tensor axis = Scalar(0);
  auto run = [&](const char* op, bool exclusive, bool reverse) {
    return Eval(op, {x, axis}, Attr("exclusive", Bool(exclusive)) + Attr("reverse", Bool(reverse)));
  };
  ExpectClose(run("Cumsum", false, false), F({1, 3, 6, 10}, {4}));
  ExpectClose(run("Cumsum", true, false), F({0, 1, 3, 6}, {4}));
  ExpectClose(run("Cumsum", false, true), F({10, 9, 7, 4}, {4}));
  ExpectClose(run("Cumsum", true, true), F({9, 7, 4, 0}, {4}));
  ExpectClose(run("Cumprod", false, false), F({1, 2, 6, 24}, {4}));
  ExpectClose(run("Cumprod", true, false), F({1, 1, 2, 6}, {4}));
  ExpectClose(run("Cumprod", false, true), F({24, 24, 12, 4}, {4}));
  ExpectClose(run("Cumprod", true, true), F({24, 12, 4, 1}, {4}));
  // Integers accumulate in their own type.
  EXPECT_EQ(Eval("Cumsum", {I({1, 2}, {2}), axis}).scalar_type(), at::kInt);
}

TEST(MathKernelsTest, EinsumReadsTensorFlowsEquations) {
  const at::Tensor a = Random({2, 3}, 41), b = Random({3, 4}, 42), c = Random({5, 2, 3}, 43);
  ExpectClose(Eval("Einsum", {a, b}, Attr("equation", Str("ij,jk->ik"))), at::mm(a, b));
  ExpectClose(Eval("Einsum", {a, b}, Attr("equation", Str("ij,jk"))), at::mm(a, b));
  ExpectClose(Eval("Einsum", {c}, Attr("equation", Str("bij->bji"))), c.transpose(1, 2));
  ExpectClose(Eval("Einsum", {c, b}, Attr("equation", Str("...j,jk->...k"))), at::matmul(c, b));
}

TEST(MathKernelsTest, ActivationGradientOpsTakeTensorFlowsOperands) {
  const at::Tensor dy = F({1.f, 2.f, 3.f}, {3}), y = F({-0.5f, 0.f, 2.f}, {3});
  ExpectClose(Eval("EluGrad", {dy, y}), F({0.5f, 2.f, 3.f}, {3}));  // dy * (y + 1) below 0
  ExpectClose(Eval("LeakyReluGrad", {dy, y}, Attr("alpha", "f: 0.1")), F({0.1f, 0.2f, 3.f}, {3}));
  ExpectClose(Eval("SoftplusGrad", {dy, y}), dy * at::sigmoid(y));
  ExpectClose(Eval("SoftsignGrad", {dy, y}), dy / at::square(1 + at::abs(y)));
  ExpectClose(Eval("ReciprocalGrad", {y, dy}), -dy * y * y);  // (y, dy), as TF's
  const double a = 1.6732632423543772, s = 1.0507009873554805;
  // TensorFlow's branches: y < 0 is the negative one, so y == 0 (here) is scaled by s alone.
  ExpectClose(Eval("SeluGrad", {dy, y}),
              F({1.f * static_cast<float>(-0.5 + a * s), 2.f * static_cast<float>(s),
                 3.f * static_cast<float>(s)},
                {3}));
}

}  // namespace
}  // namespace runtime
