#include "planner/baselines/metis_partition.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "graph/cost.h"
#include "placement/placement.h"
#include "tests/planner/search_test_util.h"

namespace planner::baselines {
namespace {

using testing::Problem;
using testing::SimCluster;
using testing::Zoo;

TEST(MetisPartitionTest, SplitsTheStepOverTheGpusWithBalancedKernelTime) {
  Problem p = Zoo("rnnlm", {16, 2, 256, 1000, 8});
  cluster::Cluster c = SimCluster(2);  // cpu0, gpu0, gpu1
  sim::Simulator sim = testing::SimCosts(p, c);
  auto placed = MetisPlacement(p.forward, sim, c);
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  EXPECT_EQ(std::count(placed->begin(), placed->end(), 0), 0) << "nothing on the CPU";
  const std::vector<double> work = testing::KernelSecondsPerDevice(p, sim, *placed, 3);
  ASSERT_GT(work[1], 0);
  ASSERT_GT(work[2], 0);
  EXPECT_LT(std::max(work[1], work[2]) / std::min(work[1], work[2]), 1.15)
      << work[1] << " s against " << work[2] << " s";
}

TEST(MetisPartitionTest, CutsFewerBytesThanAnAlternatingSplit) {
  Problem p = Zoo("rnnlm", {16, 2, 256, 1000, 8});
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  auto placed = MetisPlacement(p.forward, sim, c);
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  std::vector<int> alternating(p.forward.size());
  for (size_t i = 0; i < alternating.size(); ++i) alternating[i] = 1 + static_cast<int>(i % 2);
  auto cut = [&](const std::vector<int>& fwd) {
    const std::vector<int> d = placement::TrainingDeviceOfNode(sim.graph(), p.forward, fwd);
    int64_t bytes = 0;
    for (graph::NodeId id = 0; id < sim.graph().size(); ++id) {
      for (const graph::TensorRef& in : sim.graph().node(id).inputs) {
        if (d[in.node] != d[id]) bytes += graph::OutputBytes(sim.graph().node(in.node), in.index);
      }
    }
    return bytes;
  };
  EXPECT_LT(cut(*placed), cut(alternating) / 4);
}

TEST(MetisPartitionTest, OneGpuTakesEverythingAndRunsRepeat) {
  Problem p = testing::SmallRnnlm();
  cluster::Cluster one = SimCluster(1);
  sim::Simulator sim = testing::SimCosts(p, one);
  auto placed = MetisPlacement(p.forward, sim, one);
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  EXPECT_EQ(std::count(placed->begin(), placed->end(), 1), p.forward.size());
  cluster::Cluster two = SimCluster(2);
  sim::Simulator sim2 = testing::SimCosts(p, two);
  EXPECT_EQ(MetisPlacement(p.forward, sim2, two).value(),
            MetisPlacement(p.forward, sim2, two).value());
}

TEST(MetisPartitionTest, RealDevicesWithoutAProfileAreAnErrorNamingTheDevice) {
  Problem p = Zoo("mlp");
  const cluster::Cluster c = testing::UnprofiledCpus();
  sim::Simulator sim = testing::SimCosts(p, c);
  auto placed = MetisPlacement(p.forward, sim, c);
  ASSERT_FALSE(placed.ok());
  EXPECT_NE(placed.status().message().find("two-cpus.yaml: device 'cpu0' cannot give op '"),
            std::string::npos)
      << placed.status().message();
}

}  // namespace
}  // namespace planner::baselines
