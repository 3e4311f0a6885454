// m-SCT (msct.h): the relaxation's favourite children obey its constraints and
// follow the costly edges; the schedule keeps a chain together, uses both GPUs
// for independent branches, and stays within a small GPU's memory.
#include "planner/baselines/msct.h"

#include <gtest/gtest.h>

#include "placement/placement.h"
#include "tests/planner/search_test_util.h"

namespace planner::baselines {
namespace {

using testing::Problem;
using testing::SimCluster;
using testing::Zoo;

// At most one favourite parent per op, and each favourite child reads its parent.
// (A helper of void type: gtest's ASSERTs return from it.)
void ExpectFavouritesObeyTheRelaxation(const Problem& p,
                                       const graph::Result<std::vector<graph::NodeId>>& fav) {
  ASSERT_TRUE(fav.ok()) << fav.status().message();
  ASSERT_EQ(static_cast<int>(fav->size()), p.forward.size());
  std::vector<int> parents(p.forward.size(), 0);
  int favourites = 0;
  for (graph::NodeId i = 0; i < p.forward.size(); ++i) {
    const graph::NodeId j = (*fav)[i];
    if (j < 0) continue;
    ++favourites;
    ++parents[j];
    bool consumer = false;
    for (const graph::TensorRef& in : p.forward.node(j).inputs) consumer |= in.node == i;
    for (graph::NodeId ci : p.forward.node(j).control_inputs) consumer |= ci == i;
    EXPECT_TRUE(consumer) << p.forward.node(j).name << " does not read " << p.forward.node(i).name;
  }
  EXPECT_GT(favourites, 0);
  for (int n : parents) EXPECT_LE(n, 1);
}

TEST(MsctTest, EachOpHasAtMostOneFavouriteParentAndItsChildIsAConsumer) {
  Problem p = Zoo("two_branch");
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  for (auto method : {LpOptions::Method::kSimplex, LpOptions::Method::kDualSimplex}) {
    MsctOptions o;
    o.lp_method = method;
    ExpectFavouritesObeyTheRelaxation(p, FavouriteChildren(p.forward, sim, c, o));
  }
}

TEST(MsctTest, ARelaxationThatCannotBeSolvedInTimeIsAnErrorNamingIt) {
  Problem p = Zoo("two_branch");
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  MsctOptions o;
  o.lp_time_limit_s = 1e-6;  // GLPK's simplex stops at its first check
  auto fav = FavouriteChildren(p.forward, sim, c, o);
  if (fav.ok()) GTEST_SKIP() << "GLPK solved it within its first check";
  EXPECT_NE(fav.status().message().find("m-SCT's relaxation"), std::string::npos)
      << fav.status().message();
}

TEST(MsctTest, AChainsLayersStayOnOneGpuEachTheFavouriteOfTheLast) {
  // Every edge of the chain's layers is costly and nothing runs beside them:
  // each layer's favourite child is the next, and all go where the first is,
  // a GPU, not the slow CPU. (An op whose group a gradient node decides first,
  // as the loss's, may go elsewhere, as with ETF.)
  Problem p = Zoo("chain");
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  auto fav = FavouriteChildren(p.forward, sim, c);
  ASSERT_TRUE(fav.ok()) << fav.status().message();
  auto s = ShortestCommunicationTime(p.forward, sim, c);
  ASSERT_TRUE(s.ok()) << s.status().message();
  int device = -1, layers = 0;
  for (graph::NodeId id = 0; id < p.forward.size(); ++id) {
    const graph::Node& n = p.forward.node(id);
    if (n.op != "Tanh") continue;
    ++layers;
    if (device < 0) device = s->device_of_node[id];
    EXPECT_EQ(s->device_of_node[id], device) << n.name;
    const graph::NodeId child = (*fav)[id];
    ASSERT_GE(child, 0) << n.name << " has no favourite child";
    EXPECT_EQ(p.forward.node(child).inputs[0].node, id);
  }
  EXPECT_GE(layers, 2);
  EXPECT_NE(device, 0) << "on a GPU, not the slow CPU";
}

TEST(MsctTest, TwoIndependentBranchesRunOnTwoGpusFasterThanOne) {
  Problem p = Zoo("two_branch");
  cluster::Cluster c = SimCluster(2);
  sim::Simulator sim = testing::SimCosts(p, c);
  auto s = ShortestCommunicationTime(p.forward, sim, c);
  ASSERT_TRUE(s.ok()) << s.status().message();
  const double msct = testing::SimulatedStep(p, sim, s->device_of_node);
  const double one_gpu = testing::SimulatedStep(p, sim, std::vector<int>(p.forward.size(), 1));
  ASSERT_GT(msct, 0);
  EXPECT_LT(msct, one_gpu);
}

TEST(MsctTest, AGpuWithoutRoomGetsOnlyWhatFits) {
  Problem p = Zoo("two_branch");
  const cluster::Cluster c = testing::TinyGpu0Cluster();
  sim::Simulator sim = testing::SimCosts(p, c);
  auto s = ShortestCommunicationTime(p.forward, sim, c);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_LE(testing::BytesKeptOn(p, sim, s->device_of_node, 1), 1024);
  EXPECT_GT(testing::SimulatedStep(p, sim, s->device_of_node), 0) << "the placement fits";
}

}  // namespace
}  // namespace planner::baselines
