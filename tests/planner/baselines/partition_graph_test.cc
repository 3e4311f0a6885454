#include "planner/baselines/partition_graph.h"

#include <gtest/gtest.h>

#include <cmath>

#include "placement/placement.h"
#include "tests/planner/search_test_util.h"

namespace planner::baselines {
namespace {

using testing::Problem;
using testing::SimCluster;

TEST(PartitionGraphTest, VerticesCarryTheKernelTimeOfTheirTrainingNodes) {
  Problem p = testing::SmallRnnlm();
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  auto pg = BuildPartitionGraph(p.forward, sim, c, 1, 1, 2);
  ASSERT_TRUE(pg.ok()) << pg.status().message();
  ASSERT_EQ(static_cast<int>(pg->work.size()), p.forward.size());
  double step = 0, vertices = 0;
  const std::vector<graph::NodeId> source = placement::ForwardSourceOfNode(sim.graph(), p.forward);
  for (graph::NodeId id = 0; id < sim.graph().size(); ++id) {
    if (source[id] >= 0 && sim.Scheduled(id)) step += sim.OpSeconds(id, 1);
  }
  for (double w : pg->work) vertices += w;
  EXPECT_GT(step, 0);
  EXPECT_NEAR(vertices, step, 1e-9 * step);
  // A gradient's time lands on its forward op: the softmax MatMul's vertex
  // weighs more than the forward MatMul alone.
  const graph::NodeId matmul = p.forward.Find("rnnlm/softmax/MatMul");
  ASSERT_GE(matmul, 0);
  EXPECT_GT(pg->work[matmul], sim.OpSeconds(sim.graph().Find("rnnlm/softmax/MatMul"), 1));
}

TEST(PartitionGraphTest, EdgesAreSymmetricAndTimedOnTheGivenLink) {
  Problem p = testing::SmallRnnlm();
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  auto pg = BuildPartitionGraph(p.forward, sim, c, 1, 1, 2);
  ASSERT_TRUE(pg.ok()) << pg.status().message();
  int edges = 0;
  for (int v = 0; v < static_cast<int>(pg->edges.size()); ++v) {
    for (const auto& [u, s] : pg->edges[v]) {
      EXPECT_NE(u, v) << "no self-loops";
      ASSERT_EQ(pg->edges[u].count(v), 1u) << v << " -> " << u;
      EXPECT_DOUBLE_EQ(pg->edges[u].at(v), s);
      // Every edge moves at least one tensor, so it costs at least the link's latency.
      EXPECT_GE(s, 10e-6 - 1e-12);
      ++edges;
    }
  }
  EXPECT_GT(edges, 0);
}

TEST(PartitionGraphTest, CsrListsEveryEdgeWithWeightsInProportionAndAtLeastOne) {
  PartitionGraph g;
  g.work = {0.0, 1e-9, 1.0, 3.0};
  g.edges = {{{1, 1e-6}}, {{0, 1e-6}, {2, 3e-3}}, {{1, 3e-3}}, {}};
  const Csr csr = ToCsr(g);
  EXPECT_EQ(csr.xadj, (std::vector<int32_t>{0, 1, 3, 4, 4}));
  EXPECT_EQ(csr.adjncy, (std::vector<int32_t>{1, 0, 2, 1}));
  ASSERT_EQ(csr.adjwgt.size(), 4u);
  EXPECT_EQ(csr.adjwgt[0], csr.adjwgt[1]) << "both directions weigh the same";
  EXPECT_NEAR(static_cast<double>(csr.adjwgt[2]) / csr.adjwgt[0], 3000, 1);
  // Zero work and a nanosecond both become 1; the rest keep their proportion,
  // and the total is about 2^24.
  ASSERT_EQ(csr.vwgt.size(), 4u);
  EXPECT_EQ(csr.vwgt[0], 1);
  EXPECT_EQ(csr.vwgt[1], 1);
  EXPECT_NEAR(static_cast<double>(csr.vwgt[3]) / csr.vwgt[2], 3, 1e-6);
  EXPECT_NEAR(csr.vwgt[2] + csr.vwgt[3], 1 << 24, 2);
}

TEST(PartitionGraphTest, StepKernelSecondsTimesTheWholeStepOnEachDevice) {
  Problem p = testing::SmallRnnlm();
  cluster::Cluster c = SimCluster(2);  // cpu0 (40x slower), gpu0, gpu1
  sim::Simulator sim = testing::SimCosts(p, c);
  auto step = StepKernelSeconds(p.forward, sim, c);
  ASSERT_TRUE(step.ok()) << step.status().message();
  ASSERT_EQ(step->size(), 3u);
  auto pg = BuildPartitionGraph(p.forward, sim, c, 1, 1, 2);
  ASSERT_TRUE(pg.ok()) << pg.status().message();
  double vertices = 0;
  for (double w : pg->work) vertices += w;
  EXPECT_NEAR((*step)[1], vertices, 1e-9 * vertices) << "the vertices hold the step's time";
  EXPECT_DOUBLE_EQ((*step)[1], (*step)[2]) << "identical GPUs";
  EXPECT_GT((*step)[0], 5 * (*step)[1]) << "the modelled CPU is slower";
}

TEST(PartitionGraphTest, ADeviceWithoutTimesIsAnErrorNamingIt) {
  Problem p = testing::Zoo("mlp");
  const cluster::Cluster c = testing::UnprofiledCpus();
  sim::Simulator sim = testing::SimCosts(p, c);
  auto pg = BuildPartitionGraph(p.forward, sim, c, 1, 0, 1);
  ASSERT_FALSE(pg.ok());
  EXPECT_NE(pg.status().message().find("two-cpus.yaml: device 'cpu1' cannot give op '"),
            std::string::npos)
      << pg.status().message();
  auto step = StepKernelSeconds(p.forward, sim, c);
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.status().message().find("two-cpus.yaml: device 'cpu0' cannot give op '"),
            std::string::npos)
      << step.status().message();
}

}  // namespace
}  // namespace planner::baselines
