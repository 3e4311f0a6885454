#include "planner/search/deferred_gradient.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace planner::search {
namespace {

// Below, at and above the row count where the product switches from one gemv
// per row to one gemm: the same product, and the same gradient into the rows,
// as x W^T through autograd.
TEST(DeferredGradientTest, FewRowsTimesWeightMatchesTheProductAndItsInputGradientAtAnyRowCount) {
  at::manual_seed(5);
  const at::Tensor weight = at::randn({24, 10});
  for (int64_t rows : {int64_t{1}, int64_t{2}, kGemvRows - 1, kGemvRows, kGemvRows + 1}) {
    const at::Tensor x = at::randn({rows, 10});
    const at::Tensor g = at::randn({rows, 24});
    const at::Tensor x_ref = x.clone().requires_grad_(true);
    const at::Tensor want = x_ref.mm(weight.t());
    want.backward(g);
    const at::Tensor x_got = x.clone().requires_grad_(true);
    const at::Tensor got = FewRowsTimesWeight(x_got, weight);
    got.backward(g);
    ASSERT_EQ(got.sizes(), want.sizes()) << rows << " rows";
    EXPECT_TRUE(at::allclose(got, want, 1e-5, 1e-6)) << rows << " rows";
    EXPECT_TRUE(at::allclose(x_got.grad(), x_ref.grad(), 1e-5, 1e-6)) << rows << " rows";
  }
}

// A recurrence through taps: Product() is sum_t tap_grad_t^T x_t, the weight's
// gradient autograd forms step by step, and the bias's is the taps' summed;
// it clears the taps, so a second call adds nothing.
TEST(DeferredGradientTest, ProductIsTheWeightAndBiasGradientOverAllStepsOnce) {
  at::manual_seed(6);
  const at::Tensor weight = at::randn({3, 3});
  const at::Tensor w_ref = weight.clone().requires_grad_(true);
  const at::Tensor b_ref = at::zeros({3}).requires_grad_(true);
  at::Tensor h_ref = at::randn({2, 3});
  const at::Tensor start = h_ref.clone();
  for (int t = 0; t < 4; ++t) h_ref = at::tanh(h_ref.mm(w_ref.t()) + b_ref);
  h_ref.sum().backward();

  DeferredSteps steps;
  at::Tensor h = start;
  for (int t = 0; t < 4; ++t) {
    h = at::tanh(FewRowsTimesWeight(h, weight) + steps.Tap(h, 3));
  }
  h.sum().backward();
  at::Tensor bias;
  const at::Tensor got = steps.Product(&bias);
  EXPECT_TRUE(at::allclose(got, w_ref.grad(), 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(bias, b_ref.grad(), 1e-5, 1e-6));
  for (const at::Tensor& tap : steps.taps) EXPECT_FALSE(tap.grad().defined());  // cleared
  EXPECT_FALSE(steps.Product().defined());  // a second call adds nothing
}

}  // namespace
}  // namespace planner::search
