#include "planner/search/scope_groups.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace planner::search {
namespace {

// A chain of Identity ops with the given names, in this (topological) order.
graph::Graph Chain(const std::vector<std::string>& names) {
  std::vector<graph::NodeSpec> specs;
  for (size_t i = 0; i < names.size(); ++i) {
    graph::NodeSpec s{names[i], i == 0 ? "Placeholder" : "Identity", {}, "", {}};
    if (i > 0) s.inputs.push_back(names[i - 1]);
    specs.push_back(std::move(s));
  }
  auto g = graph::Graph::Create(std::move(specs), "chain");
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

// A two-layer RNN of four time steps of two ops, each layer with a kernel, in
// a wrapper scope every op shares (as TF.js graphs have), and a loss.
graph::Graph Rnn() {
  std::vector<std::string> names;
  for (int c = 0; c < 2; ++c) names.push_back("model/rnn/cell_" + std::to_string(c) + "/kernel");
  for (int t = 0; t < 4; ++t) {
    for (int c = 0; c < 2; ++c) {
      const std::string step = "model/rnn/cell_" + std::to_string(c) + "/t_" + std::to_string(t);
      names.push_back(step + "/matmul");
      names.push_back(step + "/tanh");
    }
  }
  names.push_back("model/loss");
  return Chain(names);
}

int GroupOf(const graph::Graph& g, const std::vector<int>& groups, const std::string& name) {
  const graph::NodeId id = g.Find(name);
  EXPECT_GE(id, 0) << name;
  return id < 0 ? -1 : groups[id];
}

int Count(const std::vector<int>& groups) {
  return static_cast<int>(std::set<int>(groups.begin(), groups.end()).size());
}

TEST(ScopeGroupsTest, EachTimeStepIsAGroupWhenTheStepsFitButTheirOpsDoNot) {
  const graph::Graph g = Rnn();  // 19 ops: 8 steps, 2 kernels, a loss
  const std::vector<int> groups = ScopeGroups(g, 12);
  EXPECT_EQ(Count(groups), 11);
  const std::string step = "model/rnn/cell_1/t_2/";
  EXPECT_EQ(GroupOf(g, groups, step + "matmul"), GroupOf(g, groups, step + "tanh"));
  EXPECT_NE(GroupOf(g, groups, "model/rnn/cell_1/t_2/tanh"),
            GroupOf(g, groups, "model/rnn/cell_1/t_3/matmul"));
  EXPECT_NE(GroupOf(g, groups, "model/rnn/cell_0/t_2/tanh"),
            GroupOf(g, groups, "model/rnn/cell_1/t_2/tanh"));
}

TEST(ScopeGroupsTest, ALayerWhoseStepsDoNotFitSplitsIntoRunsOfConsecutiveSteps) {
  const graph::Graph g = Rnn();
  // Layers whole make 3 groups; the 3 left give each layer one more: two runs
  // of its kernel and steps, balanced by ops.
  const std::vector<int> groups = ScopeGroups(g, 6);
  EXPECT_EQ(Count(groups), 5);
  for (const std::string cell : {"model/rnn/cell_0/", "model/rnn/cell_1/"}) {
    const int first = GroupOf(g, groups, cell + "kernel");
    EXPECT_EQ(GroupOf(g, groups, cell + "t_0/matmul"), first);
    EXPECT_EQ(GroupOf(g, groups, cell + "t_1/tanh"), first);
    const int second = GroupOf(g, groups, cell + "t_2/matmul");
    EXPECT_NE(second, first);
    EXPECT_EQ(GroupOf(g, groups, cell + "t_3/tanh"), second);
  }
  EXPECT_NE(GroupOf(g, groups, "model/rnn/cell_0/t_0/tanh"),
            GroupOf(g, groups, "model/rnn/cell_1/t_0/tanh"));
}

TEST(ScopeGroupsTest, TheGroupsStayWithinTheCapAndAreNumberedInTopologicalOrder) {
  const graph::Graph g = Rnn();
  for (int cap = 0; cap <= 25; ++cap) {
    const std::vector<int> groups = ScopeGroups(g, cap);
    ASSERT_EQ(groups.size(), static_cast<size_t>(g.size()));
    const int n = Count(groups);
    EXPECT_LE(n, std::max(1, cap)) << "cap " << cap;
    EXPECT_EQ(*std::max_element(groups.begin(), groups.end()), n - 1) << "cap " << cap;
    int next = 0;  // each group's first op comes after the previous group's
    for (graph::NodeId id : g.topological_order()) {
      EXPECT_LE(groups[id], next) << "cap " << cap << ", op " << g.node(id).name;
      if (groups[id] == next) ++next;
    }
  }
  // Room for every op: every op its own group.
  EXPECT_EQ(Count(ScopeGroups(g, 19)), 19);
}

TEST(ScopeGroupsTest, OpsWithoutScopesSplitIntoRunsOfConsecutiveOps) {
  const graph::Graph g = Chain({"a", "b", "c", "d"});
  EXPECT_EQ(Count(ScopeGroups(g, 1)), 1);
  const std::vector<int> two = ScopeGroups(g, 2);
  EXPECT_EQ(two, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(ScopeGroups(g, 4), (std::vector<int>{0, 1, 2, 3}));
}

TEST(ScopeGroupsTest, AnOpNamedLikeAScopeIsAUnitBesideItsChildren) {
  const graph::Graph g = Chain({"a", "a/x", "a/y", "b"});  // "a" is an op and a scope
  const std::vector<int> groups = ScopeGroups(g, 4);
  EXPECT_EQ(groups, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(Count(ScopeGroups(g, 2)), 2);
}

// Every group's ops on one device of `device_of_op`.
void ExpectOneDevicePerGroup(const std::vector<int>& groups, const std::vector<int>& device_of_op) {
  std::vector<int> device(groups.size(), -1);
  for (size_t i = 0; i < groups.size(); ++i) {
    int& d = device[groups[i]];
    if (d < 0) d = device_of_op[i];
    EXPECT_EQ(d, device_of_op[i]) << "op " << i << " is not on its group's device";
  }
}

TEST(ScopeGroupsTest, APlacementOfWholeScopesKeepsTheScopeGrouping) {
  const graph::Graph g = Rnn();
  const ScopeGrouping scopes(g);
  std::vector<int> layer_per_device(g.size(), 0);  // cell_1 on 1, the rest on 0
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    layer_per_device[id] = g.node(id).name.find("cell_1") != std::string::npos ? 1 : 0;
  }
  for (int cap : {3, 6, 12}) {
    EXPECT_EQ(scopes.GroupsFollowing(cap, layer_per_device), scopes.Groups(cap)) << "cap " << cap;
  }
  EXPECT_EQ(scopes.GroupsFollowing(12, {}), scopes.Groups(12));
  for (int cap : {3, 6, 12}) {
    EXPECT_EQ(scopes.ScopesFollowing(cap, layer_per_device), Count(scopes.Groups(cap)))
        << "cap " << cap;
  }
  EXPECT_EQ(scopes.ScopesFollowing(12, {}), Count(scopes.Groups(12)));
}

TEST(ScopeGroupsTest, APlacementAcrossScopesGetsCoarserScopesCutByDevice) {
  const graph::Graph g = Rnn();
  const ScopeGrouping scopes(g);
  std::vector<int> devices(g.size(), 0);
  devices[g.Find("model/rnn/cell_0/t_1/tanh")] = 1;  // one op apart from its step
  devices[g.Find("model/rnn/cell_1/t_3/matmul")] = 2;
  // At 13 the steps (11 groups) cut by device (13) fit; at 12 they do not,
  // and coarser scopes cut by device do.
  const std::vector<int> fine = scopes.GroupsFollowing(13, devices);
  EXPECT_EQ(Count(fine), 13);
  ExpectOneDevicePerGroup(fine, devices);
  for (int cap = 3; cap <= 12; ++cap) {
    const std::vector<int> groups = scopes.GroupsFollowing(cap, devices);
    EXPECT_LE(Count(groups), cap) << "cap " << cap;
    ExpectOneDevicePerGroup(groups, devices);
  }
  // Fewer groups than the devices used: the scopes alone.
  EXPECT_EQ(scopes.GroupsFollowing(2, devices), scopes.Groups(2));
}

TEST(ScopeGroupsTest, TheScopesKeptAreFewerTheMoreAPlacementScattersOpsAcrossScopes) {
  const graph::Graph g = Rnn();
  const ScopeGrouping scopes(g);
  const int cap = Count(scopes.Groups(12));  // the finest: each step and kernel alone
  std::vector<int> devices(g.size(), 0);
  const int whole = scopes.ScopesFollowing(cap, devices);
  EXPECT_EQ(whole, cap);
  devices[g.Find("model/rnn/cell_0/t_1/tanh")] = 1;  // one op apart from its step
  const int one_cut = scopes.ScopesFollowing(cap, devices);
  // Every other op on the other device, across every step.
  for (graph::NodeId id = 0; id < g.size(); ++id) devices[id] = id % 2;
  const int scattered = scopes.ScopesFollowing(cap, devices);
  EXPECT_LT(one_cut, whole);
  EXPECT_LT(scattered, one_cut);
  EXPECT_GE(scattered, 1);
  // Each is the count of scope groups that GroupsFollowing then cuts by device.
  const std::vector<int> followed = scopes.GroupsFollowing(cap, devices);
  EXPECT_LE(Count(followed), cap);
  EXPECT_GE(Count(followed), scattered);
  // More devices used than groups allowed: nothing fits.
  EXPECT_EQ(scopes.ScopesFollowing(1, devices), 0);
}

}  // namespace
}  // namespace planner::search
