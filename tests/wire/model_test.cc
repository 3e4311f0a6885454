#include "wire/model.h"

#include <gtest/gtest.h>

#include "graph/importer.h"
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

TEST(WireModel, BatchOutOfRangeIsRefused) {
  graph::Graph g = Imported("emotion");
  pb::Model m = ModelToWire(g, {}, {});
  m.set_batch(0);
  EXPECT_FALSE(ModelFromWire(m, "peer").ok());
}

}  // namespace
}  // namespace wire
