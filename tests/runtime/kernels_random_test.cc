// RandomUniform's kernel (kernels_shape.cc), what a training-mode Dropout's
// mask is drawn from: its values' range and mean, a fresh draw each run, and
// the one-line errors for a bad shape or type.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

#include "tests/runtime/kernel_test_util.h"

namespace runtime {
namespace {

using namespace kernel_test;  // NOLINT: the helpers this file is written in

at::Tensor Dims(std::vector<int32_t> d) {
  return torch::tensor(std::vector<int64_t>(d.begin(), d.end())).to(at::kInt);
}

TEST(RandomKernelsTest, RandomUniformDrawsTheUnitIntervalAnewEachRun) {
  const at::Tensor a = Eval("RandomUniform", {Dims({200, 500})});
  const at::Tensor b = Eval("RandomUniform", {Dims({200, 500})});
  ASSERT_EQ(a.sizes(), (std::vector<int64_t>{200, 500}));
  EXPECT_EQ(a.scalar_type(), at::kFloat);
  EXPECT_GE(a.min().item<float>(), 0.0f);
  EXPECT_LT(a.max().item<float>(), 1.0f);
  // 10^5 draws: the mean's standard error is 0.0009.
  EXPECT_NEAR(a.mean().item<double>(), 0.5, 0.005);
  EXPECT_NEAR((a >= 0.25).to(at::kDouble).mean().item<double>(), 0.75, 0.005);
  EXPECT_FALSE(at::equal(a, b));
  EXPECT_EQ(Eval("RandomUniform", {Dims({3})}, Attr("dtype", Type("DT_DOUBLE"))).scalar_type(),
            at::kDouble);
}

TEST(RandomKernelsTest, RandomUniformRefusesNegativeDimsAndIntegerTypes) {
  EXPECT_NE(EvalError("RandomUniform", {Dims({2, -1})}).find("needs non-negative dims"),
            std::string::npos);
  EXPECT_NE(EvalError("RandomUniform", {Dims({2})}, Attr("dtype", Type("DT_INT32")))
                .find("dtype must be a float type"),
            std::string::npos);
}

}  // namespace
}  // namespace runtime
