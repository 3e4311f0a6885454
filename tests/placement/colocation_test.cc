#include "placement/colocation.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "placement/placement.h"
#include "tests/placement/two_cpus.h"
#include "tests/scratch_dir.h"

namespace placement {
namespace {

// w/read follows its parameter (as TensorFlow writes it; listed first here);
// b names a, c names b (a chain), d names a node the graph lacks.
graph::Graph Model() {
  const std::string f = " attr { key: 'T' value { type: DT_FLOAT } }";
  auto g = graph::ParseTextGraphDef(
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }"
      "  attr { key: 'shape' value { shape { dim { size: 2 } dim { size: 2 } } } } }"
      "node { name: 'a' op: 'MatMul' input: 'x' input: 'w/read'" +
          f +
          " }"
          "node { name: 'w/read' op: 'Identity' input: 'w'" +
          f +
          " attr { key: '_class' value { list { s: 'loc:@w' } } } }"
          "node { name: 'w' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }"
          "  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 }"
          "  dim { size: 2 } } float_val: 0.5 } } } }"
          "node { name: 'b' op: 'MatMul' input: 'x' input: 'w/read'" +
          f +
          " attr { key: '_class' value { list { s: 'loc:@a' } } } }"
          "node { name: 'c' op: 'Relu' input: 'b'" +
          f +
          " attr { key: '_class' value { list { s: 'loc:@b' } } } }"
          "node { name: 'd' op: 'Neg' input: 'a'" +
          f + " attr { key: '_class' value { list { s: 'loc:@gone' } } } }",
      "colocated.pbtxt");
  EXPECT_TRUE(g.ok()) << g.status().message();
  graph::InferShapes(*g);
  return std::move(g).value();
}

graph::NodeId Id(const graph::Graph& g, const char* name) {
  const graph::NodeId id = g.Find(name);
  EXPECT_GE(id, 0) << name;
  return id;
}

TEST(ColocationTest, GroupsCloseOverChainsAndAreLedByTheirParameter) {
  const graph::Graph g = Model();
  const std::vector<graph::NodeId> root = ColocationRoots(g);
  EXPECT_EQ(root[Id(g, "x")], Id(g, "x"));
  EXPECT_EQ(root[Id(g, "a")], Id(g, "a"));
  EXPECT_EQ(root[Id(g, "b")], Id(g, "a"));
  EXPECT_EQ(root[Id(g, "c")], Id(g, "a"));  // through b
  // w/read comes before w, yet the parameter leads.
  ASSERT_LT(Id(g, "w/read"), Id(g, "w"));
  EXPECT_EQ(root[Id(g, "w/read")], Id(g, "w"));
  EXPECT_EQ(root[Id(g, "w")], Id(g, "w"));
  EXPECT_EQ(root[Id(g, "d")], Id(g, "d"));  // 'gone' is not in the graph
  EXPECT_TRUE(HasColocation(root));
}

TEST(ColocationTest, AGroupWithoutAParameterIsLedByItsFirstNodeWhicheverNamesWhich) {
  // The first node names the second: the first still leads.
  auto g = graph::ParseTextGraphDef(
      "node { name: 'p' op: 'Placeholder' attr { key: '_class' value { list { s: 'loc:@q' } } } }"
      "node { name: 'q' op: 'Neg' input: 'p' }",
      "m.pbtxt");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(ColocationRoots(*g), (std::vector<graph::NodeId>{0, 0}));
  auto plain = graph::ParseTextGraphDef(
      "node { name: 'p' op: 'Placeholder' } node { name: 'q' op: 'Neg' input: 'p' }", "m.pbtxt");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(HasColocation(ColocationRoots(*plain)));
}

TEST(ColocationTest, EachNodeTakesItsRootsDeviceAndSlotsBeyondTheGraphAreKept) {
  const graph::Graph g = Model();
  std::vector<int> d(g.size(), 0);
  d[Id(g, "a")] = 1;
  d[Id(g, "w/read")] = 1;
  d.push_back(1);  // a slot past the graph (a gradient placed apart)
  const std::vector<int> got = Colocated(ColocationRoots(g), d);
  ASSERT_EQ(got.size(), d.size());
  EXPECT_EQ(got[Id(g, "b")], 1);
  EXPECT_EQ(got[Id(g, "c")], 1);
  EXPECT_EQ(got[Id(g, "w/read")], 0);  // w's
  EXPECT_EQ(got[Id(g, "d")], 0);
  EXPECT_EQ(got.back(), 1);
}

TEST(ColocationTest, OpsApartFromTheirGroupAreCountedAndNamedWithBothDevices) {
  const graph::Graph g = Model();
  const cluster::Cluster c = Devices();
  const std::vector<graph::NodeId> root = ColocationRoots(g);
  std::vector<int> d(g.size(), 0);
  EXPECT_EQ(ColocationConflicts(g, root, d, c), "");
  d[Id(g, "c")] = 1;
  d[Id(g, "w/read")] = 1;
  const std::string line = ColocationConflicts(g, root, d, c);
  EXPECT_NE(line.find("2 op(s)"), std::string::npos) << line;
  EXPECT_NE(line.find("'c' on 'cpu1' but its group's 'a' on 'cpu0'"), std::string::npos) << line;
  EXPECT_NE(line.find("'w/read' on 'cpu1' but its group's 'w' on 'cpu0'"), std::string::npos)
      << line;
}

TEST(ColocationTest, UnitsGrowToWholeGroupsAndKeepSlotsBeyondTheGraph) {
  const graph::Graph g = Model();
  const std::vector<graph::NodeId> root = ColocationRoots(g);
  const graph::NodeId past = g.size();
  const auto units = ClosedUnderColocation(root, {{Id(g, "c")}, {Id(g, "x"), past}});
  ASSERT_EQ(units.size(), 2u);
  std::vector<graph::NodeId> abc = {Id(g, "a"), Id(g, "b"), Id(g, "c")};
  std::sort(abc.begin(), abc.end());
  EXPECT_EQ(units[0], abc);
  EXPECT_EQ(units[1], (std::vector<graph::NodeId>{Id(g, "x"), past}));
}

// What the rest of the placement layer does with groups: the training graph
// runs them on one device, files and exports say so, and a file that places
// them apart is refused.
TEST(ColocationTest, TrainingGraphRunsAGroupOnItsRootsDevice) {
  const graph::Graph fwd = Model();
  auto t = graph::BuildTrainingGraph(fwd, {"sgd", 0.1f, 0.9f, ""});
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::vector<int> fwd_dev(fwd.size(), 0);
  fwd_dev[Id(fwd, "a")] = 1;  // b and c were left on cpu0: they follow a
  const std::vector<int> d = TrainingDeviceOfNode(t->graph, fwd, fwd_dev);
  EXPECT_EQ(d[t->graph.Find("b")], 1);
  EXPECT_EQ(d[t->graph.Find("c")], 1);
  int gradients_of_c = 0;
  for (graph::NodeId id = 0; id < t->graph.size(); ++id) {
    const graph::Node& n = t->graph.node(id);
    if (fwd.Find(n.name) < 0 && n.colocation == std::vector<std::string>{"c"}) {
      ++gradients_of_c;
      EXPECT_EQ(d[id], 1) << n.name;
    }
  }
  EXPECT_GT(gradients_of_c, 0);
}

TEST(ColocationTest, WrittenPlacementsAndGraphDefsKeepGroupsTogether) {
  const graph::Graph g = Model();
  const cluster::Cluster c = Devices();
  std::vector<int> d(g.size(), 0);
  d[Id(g, "a")] = 1;
  const Placement p = MakePlacement("m.pbtxt", g, ModelDigest(g), "two.yaml", c, "test", d, "");
  EXPECT_EQ(p.ops[Id(g, "b")].second, "cpu1");
  EXPECT_EQ(p.ops[Id(g, "c")].second, "cpu1");
  EXPECT_TRUE(ValidatePlacement(p, g, c, "p.yaml").ok());

  const std::string path = planner_test::ScratchDir() + "/colocated.pb";
  ASSERT_TRUE(WritePlacedGraphDef(path, g, c, d).ok());
  auto bytes = graph::ReadFile(path);
  ASSERT_TRUE(bytes.ok());
  auto back = graph::ParseBinaryGraphDef(*bytes, path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->node(back->Find("b")).requested_device,
            back->node(back->Find("a")).requested_device);
  EXPECT_EQ(back->node(back->Find("c")).requested_device,
            back->node(back->Find("a")).requested_device);
  EXPECT_NE(back->node(back->Find("c")).requested_device,
            back->node(back->Find("x")).requested_device);
}

TEST(ColocationTest, APlacementFileThatSplitsAGroupIsRefusedNamingTheOps) {
  const graph::Graph g = Model();
  const cluster::Cluster c = Devices();
  Placement p = SingleDevicePlacement(g, "cpu0");
  p.ops[Id(g, "b")].second = "cpu1";
  const graph::Status s = ValidatePlacement(p, g, c, "p.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("p.yaml: 1 op(s) placed apart", 0), 0u) << s.message();
  EXPECT_NE(s.message().find("'b' on 'cpu1' but its group's 'a' on 'cpu0'"), std::string::npos);
}

}  // namespace
}  // namespace placement
