#include "trainer/replica.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/optim/sgd.h>

#include <mutex>
#include <set>

#include "lenet.h"
#include "runtime/executor.h"

namespace trainer {
namespace {

using testing::LenetBatch;
using testing::LenetReplica;
using testing::LenetTraining;
using testing::OneCpu;

// Compute then Update with the replica's own gradients is one training step of
// the whole graph: the same parameters afterwards, for both optimizers.
TEST(ReplicaTest, ComputeThenUpdateEqualsAWholeTrainingStep) {
  for (const std::string optimizer : {"sgd", "momentum"}) {
    graph::TrainingGraph t = LenetTraining(16, optimizer);
    auto whole = runtime::Executor::Create(t.graph, OneCpu(), std::vector<int>(t.graph.size(), 0));
    ASSERT_TRUE(whole.ok());
    auto replica = LenetReplica(16, optimizer);
    for (int step = 0; step < 2; ++step) {  // two: momentum's accumulator matters in the second
      auto feeds = LenetBatch(16 * step, 16);
      std::vector<at::Tensor> out, grads;
      ASSERT_TRUE((*whole)->Run(feeds, {t.loss}, &out).ok());
      double loss = 0;
      ASSERT_TRUE(replica->Compute(feeds, nullptr, &grads, &loss, nullptr).ok());
      EXPECT_NEAR(loss, out[0].item<double>(), 1e-5);
      ASSERT_TRUE(replica->Update(grads).ok());
    }
    ASSERT_GT(replica->num_parameters(), 0);
    for (int i = 0; i < replica->num_parameters(); ++i) {
      at::Tensor want = (*whole)->state(replica->parameter_name(i));
      EXPECT_TRUE(at::allclose(replica->parameter(i), want, 1e-5, 1e-6))
          << optimizer << " " << replica->parameter_name(i);
    }
  }
}

// The optimizers' update ops against an independent reference: LibTorch's
// torch::optim::SGD (momentum without dampening or Nesterov, as TensorFlow's
// ApplyMomentum), given the same gradients each step. Three steps, so that
// the momentum slot carries two steps' history.
TEST(ReplicaTest, UpdatesMatchTorchOptimSgdWithAndWithoutMomentum) {
  const graph::TrainingOptions defaults;
  for (const std::string optimizer : {"sgd", "momentum"}) {
    auto replica = LenetReplica(16, optimizer);
    std::vector<at::Tensor> reference;
    for (int i = 0; i < replica->num_parameters(); ++i) {
      reference.push_back(replica->parameter(i).detach().clone().set_requires_grad(true));
    }
    torch::optim::SGDOptions sgd(defaults.learning_rate);
    if (optimizer == "momentum") sgd.momentum(defaults.momentum);
    torch::optim::SGD torch_sgd(reference, sgd);
    for (int step = 0; step < 3; ++step) {
      std::vector<at::Tensor> grads;
      ASSERT_TRUE(
          replica->Compute(LenetBatch(16 * step, 16), nullptr, &grads, nullptr, nullptr).ok());
      ASSERT_EQ(static_cast<int>(grads.size()), replica->num_parameters());
      for (size_t i = 0; i < grads.size(); ++i) reference[i].mutable_grad() = grads[i].clone();
      torch_sgd.step();
      ASSERT_TRUE(replica->Update(grads).ok());
      for (int i = 0; i < replica->num_parameters(); ++i) {
        EXPECT_TRUE(at::allclose(replica->parameter(i), reference[i].detach(), 1e-5, 1e-7))
            << optimizer << " step " << step << " " << replica->parameter_name(i) << ": largest "
            << "difference "
            << (replica->parameter(i) - reference[i].detach()).abs().max().item<float>();
      }
    }
  }
}

TEST(ReplicaTest, EveryGradientIsReportedOnceWhileTheBackwardPassRuns) {
  auto replica = LenetReplica(8);
  std::mutex mu;
  std::multiset<int> seen;
  std::vector<at::Tensor> grads;
  ComputeTimes times;
  ASSERT_TRUE(replica
                  ->Compute(
                      LenetBatch(0, 8),
                      [&](int p, const at::Tensor& g) {
                        std::lock_guard<std::mutex> l(mu);
                        seen.insert(p);
                        EXPECT_EQ(g.numel(), replica->parameter(p).numel());
                      },
                      &grads, nullptr, &times)
                  .ok());
  ASSERT_EQ(static_cast<int>(seen.size()), replica->num_parameters());
  for (int p = 0; p < replica->num_parameters(); ++p) EXPECT_EQ(seen.count(p), 1u);
  EXPECT_GT(times.forward_s, 0);
  EXPECT_GT(times.backward_s, 0);
}

TEST(ReplicaTest, StateHoldsParametersAndMomentumSlots) {
  auto sgd = LenetReplica(8, "sgd");
  auto momentum = LenetReplica(8, "momentum");
  EXPECT_EQ(static_cast<int>(sgd->State().size()), sgd->num_parameters());
  EXPECT_EQ(static_cast<int>(momentum->State().size()), 2 * momentum->num_parameters());
  // Parameters are live: writing the state's tensor changes the model.
  momentum->State()[0].second.fill_(3);
  EXPECT_EQ(momentum->parameter(0).max().item<float>(), 3);
}

}  // namespace
}  // namespace trainer
