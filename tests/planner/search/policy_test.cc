#include "planner/search/policy.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/types.h>

#include <algorithm>
#include <cmath>

#include "planner/search/scope_groups.h"
#include "tests/planner/search/small_policy.h"
#include "tests/planner/search_test_util.h"

namespace planner::search {
namespace {

using testing::SmallPolicy;

// Adds the gradients backward() leaves to AddDeferredGradients: s's only.
void AddDeferred(HierarchicalPolicy& policy, PolicySample* s) {
  std::vector<PolicySample> batch{*s};
  policy->AddDeferredGradients(&batch);
}

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
  AddDeferred(policy, &s);
  for (const auto& named : policy->named_parameters()) {
    ASSERT_TRUE(named.value().grad().defined()) << named.key();
    EXPECT_GT(named.value().grad().abs().sum().item<float>(), 0.0f) << named.key();
  }
}

TEST(PolicyTest, ScoringASampleGivesItsLogProbabilitiesAndEntropies) {
  testing::Problem p = testing::SmallRnnlm();
  SearchOptions o = SmallPolicy();
  o.entropy_weight = 0.01;  // entropies are computed only when they are used
  HierarchicalPolicy policy(p.forward, 3, o);
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(11);
  PolicySample s = policy->Sample(3, 0.0, gen);
  PolicySample again = policy->Score(s.groups, s.devices);
  EXPECT_TRUE(at::allclose(again.log_prob, s.log_prob, 1e-4, 1e-4))
      << again.log_prob << " against " << s.log_prob;
  EXPECT_TRUE(at::allclose(again.device_log_prob, s.device_log_prob, 1e-5, 1e-5));
  EXPECT_EQ(again.device_log_prob.sizes(), (std::vector<int64_t>{3, 8}));
  EXPECT_EQ(again.group_log_prob.sizes(), (std::vector<int64_t>{p.forward.size()}));
  // Entropies per decision: at least 0, at most log(choices).
  EXPECT_GE(s.group_entropy.min().item<float>(), 0.0f);
  EXPECT_LE(s.group_entropy.max().item<float>(), std::log(8.0f) + 1e-4f);
  EXPECT_GE(s.device_entropy.min().item<float>(), 0.0f);
  EXPECT_LE(s.device_entropy.max().item<float>(), std::log(3.0f) + 1e-4f);
  // The placements a sample lists are its [k, groups] devices spread over its grouping.
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < p.forward.size(); ++i) {
      ASSERT_EQ(s.device_of_op[j][i], s.devices[j][s.group_of_op[i]].item<int64_t>());
    }
  }
}

// PlaceApart: every placement also places the apart slots, after the forward
// nodes; a slot stays with its op's sampled device more often than not at
// first; scoring the decisions gives their log-probabilities, and the
// gradient reaches the head.
TEST(PolicyTest, ApartSlotsAreSampledNearTheirOpAndScoredAlike) {
  testing::Problem p = testing::SmallRnnlm();
  SearchOptions o = SmallPolicy();
  o.entropy_weight = 0.01;
  HierarchicalPolicy policy(p.forward, 3, o);
  const int follows = p.forward.size() - 1;
  policy->PlaceApart({0, follows, -1});
  ASSERT_EQ(policy->num_apart(), 3);
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(13);
  const int k = 200;
  PolicySample s = policy->Sample(k, 0.0, gen);
  ASSERT_EQ(s.apart_devices.sizes(), (std::vector<int64_t>{k, 3}));
  int stayed = 0;
  for (int j = 0; j < k; ++j) {
    ASSERT_EQ(s.device_of_op[j].size(), static_cast<size_t>(p.forward.size() + 3));
    for (int a = 0; a < 3; ++a) {
      const int d = s.device_of_op[j][p.forward.size() + a];
      EXPECT_TRUE(d >= 0 && d < 3) << d;
      EXPECT_EQ(d, s.apart_devices[j][a].item<int64_t>());
    }
    stayed += s.device_of_op[j][p.forward.size()] == s.device_of_op[j][0];
  }
  // p(stay) = e^2 / (e^2 + 2) = 0.79 at first (SearchOptions::apart_colocated
  // 0); 200 draws.
  EXPECT_GT(stayed, 140) << stayed;
  EXPECT_LT(stayed, 185) << stayed;
  PolicySample again = policy->Score(s.groups, s.devices, s.apart_devices);
  EXPECT_TRUE(at::allclose(again.log_prob, s.log_prob, 1e-4, 1e-4));
  EXPECT_TRUE(at::allclose(again.apart_log_prob, s.apart_log_prob, 1e-6, 1e-6));
  EXPECT_LE(s.apart_entropy.max().item<float>(), std::log(3.0f) + 1e-4f);
  s.log_prob.sum().backward();
  for (const auto& named : policy->named_parameters()) {
    if (named.key().rfind("apart_", 0) != 0) continue;
    ASSERT_TRUE(named.value().grad().defined()) << named.key();
    EXPECT_GT(named.value().grad().abs().sum().item<float>(), 0.0f) << named.key();
  }
}

// A slot's first samples keep it with its op at SearchOptions::apart_colocated
// whatever the number of devices: 0.5 on 3, 0.9 on 9 (the fixed preference of
// apart_colocated 0 gives 0.79 and 0.48 there).
TEST(PolicyTest, ApartSlotsStayWithTheirOpAtTheSetShareOnAnyNumberOfDevices) {
  testing::Problem p = testing::SmallRnnlm();
  for (const auto& [devices, share] : {std::pair{3, 0.5}, std::pair{9, 0.9}}) {
    SearchOptions o = SmallPolicy();
    o.apart_colocated = share;
    HierarchicalPolicy policy(p.forward, devices, o);
    policy->PlaceApart({0, p.forward.size() - 1});
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(5);
    const int k = 400;
    PolicySample s = policy->Sample(k, 0.0, gen);
    int stayed = 0;
    for (int j = 0; j < k; ++j) {
      for (int a = 0; a < 2; ++a) {
        const int op = a == 0 ? 0 : p.forward.size() - 1;
        stayed += s.device_of_op[j][p.forward.size() + a] == s.device_of_op[j][op];
      }
    }
    // 800 draws: 4 standard deviations either side of the share.
    const double sd = std::sqrt(2 * k * share * (1 - share));
    EXPECT_NEAR(stayed, 2 * k * share, 4 * sd) << devices << " devices";
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

// A placement of the small RNNLM's ops on 3 devices that no grouping of the
// policy's own would make: contiguous runs in node order, of uneven lengths.
std::vector<int> Runs(int ops) {
  std::vector<int> d(ops);
  for (int i = 0; i < ops; ++i) d[i] = i < ops / 2 ? 0 : (i < ops * 5 / 6 ? 2 : 1);
  return d;
}

TEST(PolicyTest, GroupingFollowingAPlacementKeepsEachGroupOnOneDevice) {
  testing::Problem p = testing::SmallRnnlm();
  HierarchicalPolicy policy(p.forward, 3, SmallPolicy());
  const std::vector<int> placement = Runs(p.forward.size());
  std::vector<int> device_of_group;
  const std::vector<int> group_of_op = policy->GroupsFollowing(placement, &device_of_group);
  ASSERT_EQ(group_of_op.size(), placement.size());
  ASSERT_EQ(device_of_group.size(), 8u);
  std::vector<int> ops_of_group(8, 0);
  for (size_t i = 0; i < placement.size(); ++i) {
    ASSERT_TRUE(group_of_op[i] >= 0 && group_of_op[i] < 8) << group_of_op[i];
    EXPECT_EQ(device_of_group[group_of_op[i]], placement[i]) << "op " << i;
    ++ops_of_group[group_of_op[i]];
  }
  for (int g = 0; g < 8; ++g) EXPECT_GT(ops_of_group[g], 0) << "group " << g << " is empty";
}

TEST(PolicyTest, WithScopesAsTheGroupsSamplesUseTheScopeGroupingThatFollowsTheIncumbent) {
  testing::Problem p = testing::SmallRnnlm();
  SearchOptions o = SmallPolicy();
  o.grouper = "scopes";
  o.entropy_weight = 0.01;
  HierarchicalPolicy policy(p.forward, 3, o);
  EXPECT_EQ(policy->num_groups(), 8);
  const ScopeGrouping scopes(p.forward);
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(11);
  auto expect_samples_grouped_by = [&](const std::vector<int>& groups) {
    for (int j = 0; j < 3; ++j) {
      PolicySample s = policy->Sample(2, 0.0, gen);
      EXPECT_EQ(s.group_of_op, groups);
      EXPECT_EQ(s.group_log_prob.abs().sum().item<float>(), 0.0f);
      EXPECT_EQ(s.group_entropy.abs().sum().item<float>(), 0.0f);
      EXPECT_LT(s.device_log_prob.sum().item<float>(), 0.0f);  // the devices are still sampled
    }
  };
  expect_samples_grouped_by(scopes.Groups(8));
  // A placement that cuts across the scopes: the grouping that follows it puts
  // each group on one device, and the samples take it once it is the incumbent.
  const std::vector<int> placement = Runs(p.forward.size());
  std::vector<int> device_of_group;
  const std::vector<int> following = policy->GroupsFollowing(placement, &device_of_group);
  EXPECT_EQ(following, scopes.GroupsFollowing(8, placement));
  EXPECT_NE(following, scopes.Groups(8));
  for (size_t i = 0; i < placement.size(); ++i) {
    ASSERT_LT(following[i], 8);
    EXPECT_EQ(device_of_group[following[i]], placement[i]) << "op " << i;
  }
  policy->SetIncumbent(placement);
  expect_samples_grouped_by(following);
}

TEST(PolicyTest, AutoPlacesScopesWhenTheBestBaselineKeepsThemWholeAndTheGrouperWhenItScatters) {
  testing::Problem p = testing::SmallRnnlm();
  SearchOptions o = SmallPolicy();
  o.grouper = "auto";
  const ScopeGrouping scopes(p.forward);
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(5);
  // One device for every op: every scope stays whole.
  HierarchicalPolicy whole(p.forward, 3, o);
  EXPECT_FALSE(whole->places_scopes()) << "auto samples no groups before it has chosen";
  const GrouperChoice kept = whole->ChooseGrouper(std::vector<int>(p.forward.size(), 0));
  EXPECT_TRUE(kept.scopes);
  EXPECT_EQ(kept.groups, 8);
  EXPECT_EQ(kept.scopes_kept, scopes.ScopesFollowing(8, std::vector<int>(p.forward.size(), 0)));
  EXPECT_TRUE(whole->places_scopes());
  EXPECT_EQ(whole->Sample(2, 0.0, gen).group_of_op, scopes.Groups(8));
  // Op by op across the three devices: the scopes left are too few.
  std::vector<int> scattered(p.forward.size(), 0);
  for (size_t i = 0; i < scattered.size(); ++i) scattered[i] = static_cast<int>(i % 3);
  HierarchicalPolicy apart(p.forward, 3, o);
  const GrouperChoice cut = apart->ChooseGrouper(scattered);
  EXPECT_FALSE(cut.scopes);
  EXPECT_LT(cut.scopes_kept, 4);
  EXPECT_EQ(cut.scopes_kept, scopes.ScopesFollowing(8, scattered));
  EXPECT_FALSE(apart->places_scopes());
  EXPECT_LT(apart->Sample(2, 0.0, gen).group_log_prob.sum().item<float>(), 0.0f)
      << "the Grouper samples the groups";
  // A share of 0 takes the scopes whatever the placement; grouper learned
  // never does.
  o.auto_scope_share = 0;
  EXPECT_TRUE(HierarchicalPolicy(p.forward, 3, o)->ChooseGrouper(scattered).scopes);
  o.grouper = "learned";
  HierarchicalPolicy learned(p.forward, 3, o);
  EXPECT_FALSE(learned->ChooseGrouper(std::vector<int>(p.forward.size(), 0)).scopes);
  EXPECT_FALSE(learned->places_scopes());
}

TEST(PolicyTest, GroupingFollowingAPlacementGivesDevicesGroupsInProportionToTheirOps) {
  testing::Problem p = testing::SmallRnnlm();
  HierarchicalPolicy policy(p.forward, 3, SmallPolicy());
  const std::vector<int> placement = Runs(p.forward.size());  // 1/2, 1/6 and 1/3 of the ops
  std::vector<int> device_of_group;
  policy->GroupsFollowing(placement, &device_of_group);
  std::vector<int> groups(3, 0);
  for (int d : device_of_group) ++groups[d];
  EXPECT_EQ(groups, (std::vector<int>{4, 1, 3}));  // 8 groups: 4, 1.33 and 2.67
}

TEST(PolicyTest, GroupingFollowingMoreDevicesThanGroupsStillGroupsEveryOp) {
  testing::Problem p = testing::SmallRnnlm();
  HierarchicalPolicy policy(p.forward, 10, SmallPolicy());  // 8 groups
  std::vector<int> placement(p.forward.size());
  for (size_t i = 0; i < placement.size(); ++i) placement[i] = static_cast<int>(i % 10);
  std::vector<int> device_of_group;
  const std::vector<int> group_of_op = policy->GroupsFollowing(placement, &device_of_group);
  for (int g : group_of_op) EXPECT_TRUE(g >= 0 && g < 8) << g;
  const std::vector<int> majority = policy->MajorityDevices(group_of_op, placement);
  ASSERT_EQ(majority.size(), 8u);
  for (int d : majority) EXPECT_TRUE(d >= 0 && d < 10) << d;
}

TEST(PolicyTest, ImitationLossesTrainOnlyTheirOwnNetwork) {
  testing::Problem p = testing::SmallRnnlm();
  HierarchicalPolicy policy(p.forward, 3, SmallPolicy());
  std::vector<int> device_of_group;
  const std::vector<int> groups = policy->GroupsFollowing(Runs(p.forward.size()), &device_of_group);
  auto touched = [&](at::Tensor loss) {
    policy->zero_grad();
    EXPECT_GT(loss.item<double>(), 0.0);
    loss.backward();
    std::vector<at::Tensor> with_gradient;
    for (const at::Tensor& t : policy->parameters()) {
      if (t.grad().defined() && t.grad().abs().sum().item<double>() > 0) with_gradient.push_back(t);
    }
    return with_gradient;
  };
  auto same = [](const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_same(b[i])) return false;
    }
    return true;
  };
  EXPECT_TRUE(same(touched(policy->GrouperImitationLoss(groups)), policy->GrouperParameters()));
  EXPECT_TRUE(same(touched(policy->PlacerImitationLoss(groups, device_of_group)),
                   policy->PlacerParameters()));
  EXPECT_EQ(policy->GrouperParameters().size() + policy->PlacerParameters().size(),
            policy->parameters().size());
}

// The recurrent weights' gradients formed once over all steps
// (AddDeferredGradients: the decoder's cell, the encoder's two directions)
// equal autograd's through torch's LSTM cell and LSTM: the same decisions'
// log-probability both ways.
TEST(PolicyTest, DeferredGradientsEqualAutogradsThroughTheCellAndTheEncoder) {
  testing::Problem p = testing::SmallRnnlm();
  HierarchicalPolicy policy(p.forward, 3, SmallPolicy());
  std::vector<int> device_of_group;
  const std::vector<int> groups = policy->GroupsFollowing(Runs(p.forward.size()), &device_of_group);
  auto gradients = [&] {
    std::vector<at::Tensor> g;
    for (const at::Tensor& t : policy->PlacerParameters()) g.push_back(t.grad().clone());
    return g;
  };
  policy->zero_grad();
  at::Tensor reference = policy->PlacerImitationLoss(groups, device_of_group);
  reference.backward();
  const std::vector<at::Tensor> want = gradients();

  policy->zero_grad();
  PolicySample s =
      policy->Score(at::tensor(std::vector<int64_t>(groups.begin(), groups.end())),
                    at::tensor(std::vector<int64_t>(device_of_group.begin(), device_of_group.end()))
                        .unsqueeze(0));
  at::Tensor loss = -s.device_log_prob.sum() / policy->num_groups();
  EXPECT_NEAR(loss.item<double>(), reference.item<double>(), 1e-5);
  loss.backward();
  AddDeferred(policy, &s);
  const std::vector<at::Tensor> got = gradients();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(at::allclose(got[i], want[i], 1e-4, 1e-6)) << "placer parameter " << i;
  }
  AddDeferred(policy, &s);  // the taps were cleared: nothing is added twice
  const std::vector<at::Tensor> again = gradients();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(at::equal(again[i], got[i]));
}

TEST(PolicyTest, ScopeFeaturesAreAddedOnlyWhenAsked) {
  testing::Problem p = testing::SmallRnnlm();
  SearchOptions paper = SmallPolicy(), ours = SmallPolicy();
  paper.scope_embedding = 0;
  ours.scope_embedding = 4;
  HierarchicalPolicy without(p.forward, 2, paper), with(p.forward, 2, ours);
  EXPECT_EQ(without->named_parameters().find("scope_embedding.weight"), nullptr);
  const at::Tensor* table = with->named_parameters().find("scope_embedding.weight");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->size(1), 4);
  EXPECT_GT(table->size(0), 2) << "the RNNLM's layers are scopes of their own";
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(1);
  EXPECT_EQ(without->Sample(2, 0.0, gen).device_of_op.size(), 2u);
}

}  // namespace
}  // namespace planner::search
