#include "planner/search/bidirectional_lstm.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/nn/options/rnn.h>

#include <vector>

namespace planner::search {
namespace {

torch::nn::LSTM Lstm(int input, int hidden) {
  return torch::nn::LSTM(torch::nn::LSTMOptions(input, hidden).bidirectional(true));
}

std::vector<at::Tensor> Gradients(const torch::nn::LSTM& lstm) {
  std::vector<at::Tensor> g;
  for (const at::Tensor& p : lstm->parameters()) g.push_back(p.grad().clone());
  return g;
}

// The same outputs, and (with the deferred ones added) the same gradients for
// the weights and the input, as the module's own forward, on a sequence long
// enough that a direction mix-up or an off-by-one step would show.
TEST(BidirectionalLstmTest, OutputsAndGradientsEqualTheModules) {
  at::manual_seed(3);
  torch::nn::LSTM lstm = Lstm(6, 5);
  const at::Tensor x = at::randn({9, 6});
  const at::Tensor weights = at::randn({9, 10});  // a loss that weighs every output differently

  const at::Tensor x_ref = x.clone().requires_grad_(true);
  const at::Tensor want = std::get<0>(lstm->forward(x_ref.unsqueeze(1))).squeeze(1);
  (want * weights).sum().backward();
  const std::vector<at::Tensor> want_grads = Gradients(lstm);

  lstm->zero_grad();
  const at::Tensor x_got = x.clone().requires_grad_(true);
  LstmSteps steps;
  const at::Tensor got = BidirectionalLstm(lstm, x_got, &steps);
  (got * weights).sum().backward();
  AddBidirectionalLstmGradients(lstm, &steps);
  const std::vector<at::Tensor> got_grads = Gradients(lstm);
  EXPECT_EQ(steps[0].taps.size(), 9u);
  EXPECT_EQ(steps[1].taps.size(), 9u);

  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_TRUE(at::allclose(got, want, 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(x_got.grad(), x_ref.grad(), 1e-5, 1e-6));
  ASSERT_EQ(got_grads.size(), want_grads.size());
  for (size_t i = 0; i < want_grads.size(); ++i) {
    EXPECT_TRUE(at::allclose(got_grads[i], want_grads[i], 1e-5, 1e-6)) << "parameter " << i;
  }
  AddBidirectionalLstmGradients(lstm, &steps);  // the taps were cleared: nothing is added twice
  const std::vector<at::Tensor> again = Gradients(lstm);
  for (size_t i = 0; i < got_grads.size(); ++i) EXPECT_TRUE(at::equal(again[i], got_grads[i]));
}

// A sequence of one step: both directions see only it.
TEST(BidirectionalLstmTest, OneStepIsBothDirectionsFirstStep) {
  at::manual_seed(4);
  torch::nn::LSTM lstm = Lstm(3, 2);
  const at::Tensor x = at::randn({1, 3});
  const at::Tensor want = std::get<0>(lstm->forward(x.unsqueeze(1))).squeeze(1);
  LstmSteps steps;
  EXPECT_TRUE(at::allclose(BidirectionalLstm(lstm, x, &steps), want, 1e-5, 1e-6));
}

}  // namespace
}  // namespace planner::search
