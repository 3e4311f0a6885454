#include "planner/policy.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/types.h>

#include "tests/planner/search_test_util.h"

namespace planner {
namespace {

using testing::SmallPolicy;

TEST(PolicyTest, EveryOpGetsAGroupAndEverySampleADevicePerOp) {
  testing::Problem p = testing::SmallRnnlm();
  torch::manual_seed(1);
  HierarchicalPolicy policy(p.forward, 3, SmallPolicy());
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(7);
  PolicySample s = policy->Sample(4, 0.0, gen);
  ASSERT_EQ(s.group_of_op.size(), static_cast<size_t>(p.forward.size()));
  ASSERT_EQ(s.device_of_op.size(), 4u);
  for (int g : s.group_of_op) EXPECT_TRUE(g >= 0 && g < 8) << g;
  for (const auto& devices : s.device_of_op) {
    ASSERT_EQ(devices.size(), static_cast<size_t>(p.forward.size()));
    for (int d : devices) EXPECT_TRUE(d >= 0 && d < 3) << d;
  }
  EXPECT_EQ(s.log_prob.sizes(), (std::vector<int64_t>{4}));
}

TEST(PolicyTest, OpsOfOneGroupShareTheirDevice) {
  testing::Problem p = testing::SmallRnnlm();
  HierarchicalPolicy policy(p.forward, 3, SmallPolicy());
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(3);
  PolicySample s = policy->Sample(4, 0.5, gen);
  for (const auto& devices : s.device_of_op) {
    std::vector<int> device_of_group(8, -1);
    for (size_t i = 0; i < devices.size(); ++i) {
      int& d = device_of_group[s.group_of_op[i]];
      if (d < 0) d = devices[i];
      EXPECT_EQ(d, devices[i]) << "op " << i << " left its group's device";
    }
  }
}

TEST(PolicyTest, LogProbabilityReachesGrouperAndPlacerParameters) {
  testing::Problem p = testing::SmallRnnlm();
  HierarchicalPolicy policy(p.forward, 2, SmallPolicy());
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(5);
  PolicySample s = policy->Sample(2, 0.0, gen);
  EXPECT_LT(s.log_prob.max().item<float>(), 0.0f);
  s.log_prob.sum().backward();
  for (const auto& named : policy->named_parameters()) {
    ASSERT_TRUE(named.value().grad().defined()) << named.key();
    EXPECT_GT(named.value().grad().abs().sum().item<float>(), 0.0f) << named.key();
  }
}

TEST(PolicyTest, SameSeedSamplesTheSamePlacements) {
  testing::Problem p = testing::SmallRnnlm();
  auto sample = [&] {
    torch::manual_seed(11);
    HierarchicalPolicy policy(p.forward, 3, SmallPolicy());
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(11);
    return policy->Sample(4, 0.5, gen).device_of_op;
  };
  EXPECT_EQ(sample(), sample());
}

}  // namespace
}  // namespace planner
