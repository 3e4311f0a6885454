// The parameter server's Adam against LibTorch's, which the in-process search
// uses: the same gradients give the same parameters, to float rounding.
#include <gtest/gtest.h>
#include <torch/optim/adam.h>

#include <random>

#include "controllers/ps.h"

namespace controllers {
namespace {

TEST(PsTorchParity, AdamMatchesTorchOptimAdamOverManySteps) {
  std::mt19937 gen(11);
  std::normal_distribution<float> normal;
  const int n = 64;
  std::vector<float> init(n);
  for (float& x : init) x = normal(gen);
  at::Tensor p = at::tensor(init).set_requires_grad(true);
  torch::optim::Adam adam({p}, torch::optim::AdamOptions(0.05));
  ParameterState s;
  ASSERT_TRUE(s.Join(JoinRequest{"parity", "adam", {{"p", {n}, init}}}).ok());
  ParametersReply got;
  for (int step = 1; step <= 50; ++step) {
    std::vector<float> g(n);
    for (float& x : g) x = normal(gen) * (step % 7 + 1);
    p.mutable_grad() = at::tensor(g);
    adam.step();
    const PushRequest push{step - 1, static_cast<uint64_t>(step), 0.05, {{"p", {n}, g}}};
    auto r = s.Push(push, "c");
    ASSERT_TRUE(r.ok()) << r.status().message();
    got = *r;
  }
  const at::Tensor torch_p = p.detach();
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(got.parameters[0].values[i]) -
                                     torch_p[i].item<double>()));
  }
  EXPECT_LT(worst, 1e-5);
}

}  // namespace
}  // namespace controllers
