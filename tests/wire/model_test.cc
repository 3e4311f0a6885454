#include "wire/model.h"

#include <gtest/gtest.h>

#include "graph/importer.h"
#include "placement/placement.h"
#include "wire/proto/fleet.pb.h"

namespace wire {
namespace {

graph::Graph Imported(const std::string& name) {
  auto g = graph::ImportModel(std::string(PLANNER_MODELS_DIR) + "/" + name + ".json");
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

TEST(WireModel, RebuiltModelHasTheSameNodesInTheSameOrder) {
  graph::Graph g = Imported("emotion");
  graph::InferenceOptions inference;
  inference.batch = 4;
  graph::InferShapes(g, inference);
  graph::TrainingOptions training;
  training.optimizer = "momentum";
  auto local = graph::BuildTrainingGraph(g, training, inference);
  ASSERT_TRUE(local.ok()) << local.status().message();

  const pb::Model m = ModelToWire(g, inference, training);
  auto rebuilt = ModelFromWire(pb::Model(m), "test");
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
  ASSERT_EQ(rebuilt->forward.size(), g.size());
  for (int i = 0; i < g.size(); ++i) {
    ASSERT_EQ(rebuilt->forward.node(i).name, g.node(i).name);
    ASSERT_EQ(rebuilt->forward.node(i).output_shapes.size(), g.node(i).output_shapes.size());
    for (size_t k = 0; k < g.node(i).output_shapes.size(); ++k) {
      EXPECT_EQ(rebuilt->forward.node(i).output_shapes[k].ToString(),
                g.node(i).output_shapes[k].ToString());
    }
  }
  ASSERT_EQ(rebuilt->training.graph.size(), local->graph.size());
  EXPECT_EQ(rebuilt->training.loss, local->loss);
}

TEST(WireModel, DigestFollowsTheOptions) {
  graph::Graph g = Imported("emotion");
  graph::InferenceOptions a, b;
  b.batch = 2;
  EXPECT_EQ(WireModelDigest(ModelToWire(g, a, {})), WireModelDigest(ModelToWire(g, a, {})));
  EXPECT_NE(WireModelDigest(ModelToWire(g, a, {})), WireModelDigest(ModelToWire(g, b, {})));
}

TEST(WireModel, CorruptGraphIsAnErrorNamingThePeer) {
  pb::Model m;
  m.set_graphdef("\xff\xff\xff not a graph");
  m.set_batch(1);
  auto r = ModelFromWire(m, "worker w1");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("worker w1"), std::string::npos);
}

// A peer's model is held to the command line's ranges: a batch of 2^40 or an
// input size 0 passed, which --batch and --input-shape refuse.
TEST(WireModel, BatchAndSizesOutOfTheCommandLinesRangesAreRefusedNamingThePeer) {
  graph::Graph g = Imported("emotion");
  pb::Model m = ModelToWire(g, {}, {});
  m.set_batch(0);
  EXPECT_EQ(ModelFromWire(m, "peer").status().message(),
            "peer's model: batch 0 is out of range (1 to 1048576)");
  m.set_batch(int64_t{1} << 40);
  EXPECT_EQ(ModelFromWire(m, "peer").status().message(),
            "peer's model: batch 1099511627776 is out of range (1 to 1048576)");
  m.set_batch(1);
  pb::Model::InputShape* shape = m.add_input_shapes();
  shape->set_name("input_1");
  for (int64_t d : {1, 0, 48, 1}) shape->add_dims(d);
  EXPECT_EQ(ModelFromWire(m, "peer").status().message(),
            "peer's model: input 'input_1' has size 0 (sizes are 1 to 1073741824)");
  m.clear_input_shapes();
  const int64_t limit = m.max_constant_elements();
  m.set_max_constant_elements(-1);
  EXPECT_EQ(ModelFromWire(m, "peer").status().message(),
            "peer's model: constant limit -1 is negative");
  m.set_max_constant_elements(limit);
  auto fine = ModelFromWire(m, "peer");
  EXPECT_TRUE(fine.ok()) << fine.status().message();
}

// emotion's training graph, built here as the controller builds it, with the
// names of the nodes that may run apart from their op and of some that may not.
struct ApartProblem {
  graph::Graph forward;
  graph::InferenceOptions inference;
  graph::TrainingOptions training;
  graph::TrainingGraph built;
  std::vector<std::string> may, may_not;
};

ApartProblem Apart() {
  ApartProblem p{Imported("emotion"), {}, {}, {}, {}, {}};
  p.inference.batch = 4;
  graph::InferShapes(p.forward, p.inference);
  p.training.optimizer = "momentum";
  p.built = std::move(graph::BuildTrainingGraph(p.forward, p.training, p.inference)).value();
  const std::vector<graph::NodeId> source =
      placement::ForwardSourceOfNode(p.built.graph, p.forward);
  for (graph::NodeId id = 0; id < p.built.graph.size(); ++id) {
    const bool may = placement::MayRunApart(p.built.graph, p.forward, source, id);
    (may ? p.may : p.may_not).push_back(p.built.graph.node(id).name);
  }
  return p;
}

TEST(WireModel, GradientOpsPlacedApartCrossByNameAndComeBackAsTheirNodes) {
  ApartProblem p = Apart();
  ASSERT_GE(p.may.size(), 3u);
  const std::vector<std::string> apart = {p.may[2], p.may[0]};  // any order
  const pb::Model m = ModelToWire(p.forward, p.inference, p.training, apart);
  EXPECT_NE(WireModelDigest(m), WireModelDigest(ModelToWire(p.forward, p.inference, p.training)));
  auto rebuilt = ModelFromWire(m, "the controller");
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
  ASSERT_EQ(rebuilt->apart.size(), 2u);
  EXPECT_EQ(rebuilt->apart[0], p.built.graph.Find(apart[0]));
  EXPECT_EQ(rebuilt->apart[1], p.built.graph.Find(apart[1]));
  EXPECT_NE(rebuilt->apart[0], rebuilt->apart[1]);
  EXPECT_TRUE(ModelFromWire(ModelToWire(p.forward, p.inference, p.training), "c")->apart.empty());
}

TEST(WireModel, ANodeThatMayNotRunApartIsRefusedNamingIt) {
  ApartProblem p = Apart();
  ASSERT_FALSE(p.may.empty());
  // A forward op, the loss's and the parameters' own nodes: every node that
  // MayRunApart refuses; then one that is no node, and a gradient given twice.
  std::vector<std::pair<std::string, std::string>> bad;
  for (const std::string& name : p.may_not) {
    bad.push_back({name, "' is not a gradient op that may run apart from its op"});
  }
  bad.push_back({"no/such/op", "', to be placed apart, is no node of its training graph"});
  for (const auto& [name, why] : bad) {
    auto r = ModelFromWire(ModelToWire(p.forward, p.inference, p.training, {name}), "peer w1");
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().message(), "peer w1's model: '" + name + why);
  }
  auto twice =
      ModelFromWire(ModelToWire(p.forward, p.inference, p.training, {p.may[0], p.may[0]}), "w");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "w's model: '" + p.may[0] + "' is placed apart twice");
}

}  // namespace
}  // namespace wire
