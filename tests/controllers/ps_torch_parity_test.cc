// The parameter server's Adam against LibTorch's, which the in-process search
// uses: the same gradients give the same parameters, to float rounding.
#include <gtest/gtest.h>
#include <torch/optim/adam.h>

#include <random>

#include "controllers/ps.h"
#include "wire/codec.h"

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
  wire::pb::Join join;
  join.set_identity("parity");
  join.set_optimizer("adam");
  wire::pb::Tensor* t = join.add_parameters();
  t->set_name("p");
  t->add_shape(n);
  t->mutable_values()->Add(init.begin(), init.end());
  ASSERT_TRUE(s.Join(join).ok());
  wire::pb::Parameters got;
  for (int step = 1; step <= 50; ++step) {
    std::vector<float> g(n);
    for (float& x : g) x = normal(gen) * (step % 7 + 1);
    p.mutable_grad() = at::tensor(g);
    adam.step();
    wire::pb::Push push;
    push.set_version(step - 1);
    push.set_sequence(step);
    push.set_learning_rate(0.05);
    wire::pb::Tensor* gt = push.add_gradient();
    gt->set_name("p");
    gt->add_shape(n);
    gt->mutable_values()->Add(g.begin(), g.end());
    auto r = s.Push(push, "c");
    ASSERT_TRUE(r.ok()) << r.status().message();
    got = *r;
  }
  const at::Tensor torch_p = p.detach();
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(got.parameters(0).values(i)) -
                                     torch_p[i].item<double>()));
  }
  EXPECT_LT(worst, 1e-5);
}

}  // namespace
}  // namespace controllers
