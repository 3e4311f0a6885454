#include "planner/baselines/scotch_mapping.h"

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

// Seconds to move every tensor that crosses devices, each over the GPUs' link:
// the cut the mapper minimises (its weights are transfer times, not bytes).
double CutSeconds(const sim::Simulator& sim, const Problem& p, const std::vector<int>& fwd) {
  const std::vector<int> d = placement::TrainingDeviceOfNode(sim.graph(), p.forward, fwd);
  double seconds = 0;
  for (graph::NodeId id = 0; id < sim.graph().size(); ++id) {
    for (const graph::TensorRef& in : sim.graph().node(id).inputs) {
      if (d[in.node] == d[id]) continue;
      seconds += sim.TransferSeconds(1, 2, graph::OutputBytes(sim.graph().node(in.node), in.index));
    }
  }
  return seconds;
}

TEST(ScotchMappingTest, EqualGpusGetBalancedKernelTimeAndTheSlowCpuLess) {
  Problem p = Zoo("rnnlm", {16, 2, 256, 1000, 8});
  cluster::Cluster c = SimCluster(2);  // cpu0, gpu0, gpu1
  sim::Simulator sim = testing::SimCosts(p, c);
  auto placed = ScotchPlacement(p.forward, sim, c);
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  const std::vector<double> work = testing::KernelSecondsPerDevice(p, sim, *placed, 3);
  ASSERT_GT(work[1], 0);
  ASSERT_GT(work[2], 0);
  EXPECT_LT(std::max(work[1], work[2]) / std::min(work[1], work[2]), 1.15)
      << work[1] << " s against " << work[2] << " s";
  // The CPU's share of the GPU-timed work is at most its share of capacity
  // (about 1 in 30 on these sims), with Scotch's 5% imbalance allowed.
  std::vector<double> gpu_timed(3, 0);
  const std::vector<int> d = placement::TrainingDeviceOfNode(sim.graph(), p.forward, *placed);
  for (graph::NodeId id = 0; id < sim.graph().size(); ++id) {
    if (sim.Scheduled(id)) gpu_timed[d[id]] += sim.OpSeconds(id, 1);
  }
  EXPECT_LT(gpu_timed[0], 0.1 * std::min(gpu_timed[1], gpu_timed[2]))
      << gpu_timed[0] << " s of GPU time on the CPU";
}

TEST(ScotchMappingTest, CutsFarLessTransferTimeThanARoundRobinOverTheDevices) {
  Problem p = Zoo("rnnlm", {16, 2, 256, 1000, 8});
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  auto placed = ScotchPlacement(p.forward, sim, c);
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  std::vector<int> round_robin(p.forward.size());
  for (size_t i = 0; i < round_robin.size(); ++i) round_robin[i] = static_cast<int>(i % 3);
  EXPECT_LT(CutSeconds(sim, p, *placed), CutSeconds(sim, p, round_robin) / 4);
}

TEST(ScotchMappingTest, OneDeviceTakesEverythingAndRunsRepeat) {
  Problem p = testing::SmallRnnlm();
  cluster::Cluster two = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, two);
  auto first = ScotchPlacement(p.forward, sim, two);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(*first, ScotchPlacement(p.forward, sim, two).value());

  auto parsed = cluster::ParseDevicesYaml(
      "devices:\n  - {name: gpu0, kind: sim, simulates: gpu, peak_flops: 4T, "
      "memory_bandwidth: 288GB/s, memory: 12GiB}\n",
      "one-gpu.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const cluster::Cluster& one = *parsed;
  sim::Simulator alone = testing::SimCosts(p, one);
  auto placed = ScotchPlacement(p.forward, alone, one);
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  EXPECT_EQ(std::count(placed->begin(), placed->end(), 0), p.forward.size());
}

TEST(ScotchMappingTest, RealDevicesWithoutAProfileAreAnErrorNamingTheDevice) {
  Problem p = Zoo("mlp");
  const cluster::Cluster c = testing::UnprofiledCpus();
  sim::Simulator sim = testing::SimCosts(p, c);
  auto placed = ScotchPlacement(p.forward, sim, c);
  ASSERT_FALSE(placed.ok());
  EXPECT_NE(placed.status().message().find("two-cpus.yaml: device 'cpu0' cannot give op '"),
            std::string::npos)
      << placed.status().message();
}

}  // namespace
}  // namespace planner::baselines
