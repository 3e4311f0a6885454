#include "planner/baselines/baselines.h"

#include <gtest/gtest.h>

#include "planner/rewards/reward.h"
#include "tests/planner/search_test_util.h"

namespace planner::baselines {
namespace {

using testing::SimCluster;
using testing::SmallRnnlm;
using testing::Zoo;

int DeviceOf(const graph::Graph& g, const BaselinePlacement& p, const std::string& name) {
  graph::NodeId id = g.Find(name);
  EXPECT_GE(id, 0) << name;
  return id < 0 ? -1 : p.device_of_node[id];
}

TEST(BaselinesTest, MethodsAreEachDeviceThenTheExpertThenEtfMsctMetisAndScotch) {
  cluster::Cluster c = SimCluster(2);
  EXPECT_EQ(BaselineMethods(c),
            (std::vector<std::string>{"single:cpu0", "single:gpu0", "single:gpu1", "expert", "etf",
                                      "msct", "metis", "scotch"}));
}

TEST(BaselinesTest, MakeBaselinePlacesEveryOpOnTheNamedDevice) {
  testing::Problem p = SmallRnnlm();
  cluster::Cluster c = SimCluster(2);
  auto b = MakeBaseline("single:gpu1", p.forward, c, nullptr);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->method, "single:gpu1");
  ASSERT_EQ(static_cast<int>(b->device_of_node.size()), p.forward.size());
  for (int d : b->device_of_node) EXPECT_EQ(d, 2);
}

TEST(BaselinesTest, AnUnknownMethodOrDeviceIsAnErrorListingTheMethods) {
  testing::Problem p = SmallRnnlm();
  cluster::Cluster c = SimCluster(2);
  for (const char* bad : {"mincut", "single:gpu7", "single:"}) {
    auto b = MakeBaseline(bad, p.forward, c, nullptr);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_NE(b.status().message().find(std::string("'") + bad + "'"), std::string::npos);
    EXPECT_NE(b.status().message().find(
                  "single:cpu0, single:gpu0, single:gpu1, expert, etf, msct, metis, scotch; "
                  "also msct:dual"),
              std::string::npos)
        << b.status().message();
  }
}

TEST(BaselinesTest, EtfMsctMetisAndScotchWithoutCostsAreErrors) {
  testing::Problem p = SmallRnnlm();
  for (const char* m : {"etf", "msct", kMsctDual, "metis", "scotch"}) {
    auto b = MakeBaseline(m, p.forward, SimCluster(2), nullptr);
    ASSERT_FALSE(b.ok()) << m;
    EXPECT_NE(b.status().message().find("costs"), std::string::npos) << b.status().message();
  }
}

TEST(BaselinesTest, ExpertPutsALayerPerGpuAndTheSoftmaxWithTheLast) {
  testing::Problem p = SmallRnnlm();
  cluster::Cluster c = SimCluster(2);  // devices: cpu0, gpu0 (1), gpu1 (2)
  BaselinePlacement e = ExpertPlacement(p.forward, c);
  const graph::Graph& g = p.forward;
  EXPECT_EQ(DeviceOf(g, e, "rnnlm/rnn/cell_0/kernel"), 1);
  EXPECT_EQ(DeviceOf(g, e, "rnnlm/rnn/cell_1/kernel"), 2);
  EXPECT_EQ(DeviceOf(g, e, "rnnlm/embedding"), 1);
  EXPECT_EQ(DeviceOf(g, e, "rnnlm/softmax/MatMul"), 2);
  EXPECT_EQ(DeviceOf(g, e, "rnnlm/softmax/softmax_w"), 2) << "a weight lives with its reader";
  EXPECT_EQ(DeviceOf(g, e, "loss"), 2);
  for (int d : e.device_of_node) EXPECT_NE(d, 0) << "the expert leaves the CPU out";
}

TEST(BaselinesTest, MoreGpusThanLayersSpreadsLayersInOrder) {
  testing::Problem p = Zoo("rnnlm", {4, 4, 16, 50, 2});
  cluster::Cluster c = SimCluster(2);
  BaselinePlacement e = ExpertPlacement(p.forward, c);
  EXPECT_EQ(DeviceOf(p.forward, e, "rnnlm/rnn/cell_1/kernel"), 1);
  EXPECT_EQ(DeviceOf(p.forward, e, "rnnlm/rnn/cell_2/kernel"), 2);
}

TEST(BaselinesTest, ModelsWithoutLayersGoOnTheFirstGpu) {
  testing::Problem p = Zoo("lenet");
  BaselinePlacement e = ExpertPlacement(p.forward, SimCluster(2));
  for (int d : e.device_of_node) EXPECT_EQ(d, 1);
}

TEST(BaselinesTest, WithoutAcceleratorsTheExpertUsesEveryDevice) {
  testing::Problem p = SmallRnnlm();
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: a, kind: sim, simulates: cpu, peak_flops: 1T, memory_bandwidth: "
      "1GB/s}\n"
      "  - {name: b, kind: sim, simulates: cpu, peak_flops: 1T, memory_bandwidth: 1GB/s}\n"
      "default_link: {bandwidth: 1GB/s, latency: 1us}\n",
      "cpus.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  BaselinePlacement e = ExpertPlacement(p.forward, *c);
  EXPECT_EQ(DeviceOf(p.forward, e, "rnnlm/rnn/cell_0/kernel"), 0);
  EXPECT_EQ(DeviceOf(p.forward, e, "rnnlm/rnn/cell_1/kernel"), 1);
}

TEST(BaselinesTest, ALogLineNamesTheMethodItsStepAndItsPlanningTime) {
  BaselinePlacement b{"etf", {}, 0.4123};
  rewards::Evaluation ok{graph::Status::Ok(), 0.2608};
  EXPECT_EQ(DescribeBaseline(b, ok), "  etf              260.800 ms (planned in 0.41 s)");
  rewards::Evaluation oom{graph::Status(graph::StatusCode::kOutOfMemory, "device 'gpu0' is full"),
                          0};
  EXPECT_EQ(DescribeBaseline(b, oom),
            "  etf              out of memory: device 'gpu0' is full (planned in 0.41 s)");
  BaselinePlacement long_name{"single:a_device_with_a_long_name", {}, 0};
  EXPECT_EQ(DescribeBaseline(long_name, ok),
            "  single:a_device_with_a_long_name 260.800 ms (planned in 0.00 s)");
}

TEST(BaselinesTest, MsctByTheDualSimplexIsMadeByNameAndPlacesEveryOp) {
  testing::Problem p = SmallRnnlm();
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  auto b = MakeBaseline(kMsctDual, p.forward, c, &sim);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->method, "msct:dual");
  ASSERT_EQ(static_cast<int>(b->device_of_node.size()), p.forward.size());
  for (int d : b->device_of_node) {
    EXPECT_GE(d, 0);
    EXPECT_LT(d, static_cast<int>(c.devices.size()));
  }
  EXPECT_GT(testing::SimulatedStep(p, sim, b->device_of_node), 0) << "the placement runs";
}

TEST(BaselinesTest, AStopRequestedAbandonsMsctsProgramAndLeavesTheOthers) {
  testing::Problem p = SmallRnnlm();
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  volatile std::sig_atomic_t stop = 1;
  for (const char* m : {"msct", kMsctDual}) {
    auto b = MakeBaseline(m, p.forward, c, &sim, &stop);
    ASSERT_FALSE(b.ok()) << m;
    EXPECT_NE(b.status().message().find("m-SCT's relaxation"), std::string::npos)
        << b.status().message();
    EXPECT_NE(b.status().message().find("a stop was requested"), std::string::npos)
        << b.status().message();
  }
  for (const char* m : {"expert", "etf", "metis", "scotch"}) {
    EXPECT_TRUE(MakeBaseline(m, p.forward, c, &sim, &stop).ok()) << m << ": under a second";
  }
  volatile std::sig_atomic_t go_on = 0;
  auto b = MakeBaseline("msct", p.forward, c, &sim, &go_on);
  ASSERT_TRUE(b.ok()) << b.status().message();
  auto unstoppable = MakeBaseline("msct", p.forward, c, &sim);
  ASSERT_TRUE(unstoppable.ok()) << unstoppable.status().message();
  EXPECT_EQ(b->device_of_node, unstoppable->device_of_node) << "the same solve on its own thread";
}

TEST(BaselinesTest, MakeBaselineTimesItsPlanning) {
  testing::Problem p = SmallRnnlm();
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  auto b = MakeBaseline("etf", p.forward, c, &sim);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_GT(b->planning_s, 0);
  EXPECT_LT(b->planning_s, 60);
}

}  // namespace
}  // namespace planner::baselines
