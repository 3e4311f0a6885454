#include "planner/baselines/list_schedule.h"

#include <gtest/gtest.h>

#include "placement/placement.h"
#include "tests/planner/search_test_util.h"

namespace planner::baselines {
namespace {

using testing::Problem;
using testing::SimCluster;
using testing::Zoo;

int OpsOn(const std::vector<int>& device_of_node, int d) {
  return static_cast<int>(std::count(device_of_node.begin(), device_of_node.end(), d));
}

TEST(ListScheduleTest, TwoIndependentBranchesRunOnTwoGpusFasterThanOne) {
  Problem p = Zoo("two_branch");
  cluster::Cluster c = SimCluster(2);  // cpu0, gpu0, gpu1
  sim::Simulator sim = testing::SimCosts(p, c);
  auto s = EarliestTaskFirst(p.forward, sim, c);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_GT(OpsOn(s->device_of_node, 1), 0);
  EXPECT_GT(OpsOn(s->device_of_node, 2), 0);
  const double etf = testing::SimulatedStep(p, sim, s->device_of_node);
  const double one_gpu = testing::SimulatedStep(p, sim, std::vector<int>(p.forward.size(), 1));
  ASSERT_GT(etf, 0);
  EXPECT_LT(etf, one_gpu);
}

TEST(ListScheduleTest, AChainStaysOffTheSlowCpu) {
  // The zoo's chain trains as one chain: no op can start before its predecessor
  // ends, so every op's earliest finish is on a GPU, 40x faster than the
  // modelled CPU.
  Problem p = Zoo("chain");
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  auto s = EarliestTaskFirst(p.forward, sim, c);
  ASSERT_TRUE(s.ok()) << s.status().message();
  for (graph::NodeId id = 0; id < p.forward.size(); ++id) {
    if (sim.Scheduled(id)) {
      EXPECT_NE(s->device_of_node[id], 0) << p.forward.node(id).name;
    }
  }
}

TEST(ListScheduleTest, AGpuWithoutRoomGetsOnlyWhatFits) {
  Problem p = Zoo("two_branch");
  const cluster::Cluster c = testing::TinyGpu0Cluster();
  sim::Simulator sim = testing::SimCosts(p, c);
  auto s = EarliestTaskFirst(p.forward, sim, c);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_LE(testing::BytesKeptOn(p, sim, s->device_of_node, 1), 1024);
  EXPECT_GT(testing::SimulatedStep(p, sim, s->device_of_node), 0) << "the placement fits";
  // Without the limit, gpu0 takes a branch.
  auto roomy = EarliestTaskFirst(p.forward, sim, SimCluster(2));
  ASSERT_TRUE(roomy.ok());
  EXPECT_GT(OpsOn(roomy->device_of_node, 1), OpsOn(s->device_of_node, 1) + 5);
}

TEST(ListScheduleTest, ItsOwnMakespanLiesBetweenTheDependencyBoundAndTheSimulatedStep) {
  Problem p = testing::SmallRnnlm();
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  auto s = EarliestTaskFirst(p.forward, sim, c);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_GE(s->predicted_s, sim.DependencyBoundSeconds() * (1 - 1e-9));
  // Without contention or the executor's overheads, its own makespan is no
  // more than the simulator's step for the same placement.
  EXPECT_LE(s->predicted_s, testing::SimulatedStep(p, sim, s->device_of_node) * (1 + 1e-9));
  auto again = EarliestTaskFirst(p.forward, sim, c);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->device_of_node, s->device_of_node) << "deterministic";
}

TEST(ListScheduleTest, RealDevicesWithoutAProfileAreAnErrorNamingAnOp) {
  Problem p = Zoo("mlp");
  const cluster::Cluster c = testing::UnprofiledCpus();
  sim::Simulator sim = testing::SimCosts(p, c);
  auto s = EarliestTaskFirst(p.forward, sim, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("two-cpus.yaml: no device can give op '"), std::string::npos)
      << s.status().message();
  EXPECT_NE(s.status().message().find("planner profile"), std::string::npos);
}

}  // namespace
}  // namespace planner::baselines
