#include "graph/zoo.h"

#include <gtest/gtest.h>

#include <map>

#include "graph/shape_inference.h"
#include "graph/training.h"

namespace graph {
namespace {

ZooOptions Small() {
  ZooOptions o;
  o.batch = 2;
  o.hidden = 8;
  o.vocab = 11;
  o.steps = 3;
  return o;
}

std::map<std::string, int> Ops(const Graph& g) {
  std::map<std::string, int> n;
  for (const Node& node : g.nodes()) ++n[node.op];
  return n;
}

class ZooModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooModelTest, HasFullStaticShapesALossAndATrainingGraph) {
  const bool small = GetParam() != "rnnlm" && GetParam() != "nmt";
  ZooOptions o = small ? ZooOptions{} : Small();
  if (small) o.batch = 2;
  auto g = BuildZooModel(GetParam(), o);
  ASSERT_TRUE(g.ok()) << g.status().message();
  InferenceReport r = InferShapes(*g);
  EXPECT_TRUE(r.unknown_ops.empty());
  EXPECT_TRUE(r.problems.empty()) << r.problems[0];
  for (const Node& n : g->nodes()) {
    for (const Shape& s : n.output_shapes) EXPECT_TRUE(s.FullyDefined()) << n.name;
  }
  ASSERT_GE(g->Find("loss"), 0);
  auto t = BuildTrainingGraph(*g, {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_FALSE(t->synthetic_loss);
  // Only batch norm's moving statistics get no gradient (TF does not train them).
  EXPECT_EQ(t->counts.unused_parameters, 2 * Ops(*g)["FusedBatchNormV3"]);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooModelTest, ::testing::ValuesIn(ZooModels()));

TEST(ZooTest, RecurrentCellsAreUnrolledAtTensorFlowGranularity) {
  ZooOptions o = Small();
  o.layers = 2;
  auto g = BuildZooModel("rnnlm", o);
  ASSERT_TRUE(g.ok());
  std::map<std::string, int> ops = Ops(*g);
  const int cells = 2 * 3;              // layers x steps
  EXPECT_EQ(ops["MatMul"], cells + 1);  // one per cell, plus the softmax projection
  EXPECT_EQ(ops["Split"], cells);
  EXPECT_EQ(ops["Sigmoid"], 3 * cells);
  EXPECT_EQ(ops["Tanh"], 2 * cells);
  EXPECT_EQ(ops["VariableV2"], 2 * 2 + 3);  // kernel and bias per layer; embedding, softmax w, b
}

TEST(ZooTest, NmtGrowsWithItsLayers) {
  ZooOptions o = Small();
  int last = 0;
  for (int64_t layers : {2, 4, 8}) {
    o.layers = layers;
    auto g = BuildZooModel("nmt", o);
    ASSERT_TRUE(g.ok()) << g.status().message();
    EXPECT_GT(g->size(), last);
    last = g->size();
    // Encoder and decoder each: layers x steps cells, one MatMul each.
    std::map<std::string, int> ops = Ops(*g);
    EXPECT_EQ(ops["Split"], static_cast<int>(2 * layers * o.steps));
  }
}

TEST(ZooTest, ResnetDepthsHaveTheirBottleneckBlocks) {
  for (auto [depth, blocks] : {std::pair<int64_t, int>{50, 16}, {101, 33}, {152, 50}}) {
    ZooOptions o;
    o.batch = 2;
    o.layers = depth;
    auto g = BuildZooModel("resnet", o);
    ASSERT_TRUE(g.ok()) << g.status().message();
    std::map<std::string, int> ops = Ops(*g);
    // Three convolutions a block, a shortcut in each of 4 stages, and the stem.
    EXPECT_EQ(ops["Conv2D"], 3 * blocks + 4 + 1) << depth;
    EXPECT_EQ(ops["AddV2"], blocks) << depth;
  }
  ZooOptions bad;
  bad.layers = 34;
  EXPECT_EQ(BuildZooModel("resnet", bad).status().message(),
            "resnet: --layers must be 50, 101 or 152, got 34");
}

TEST(ZooTest, InceptionV3EndsAt8x8x2048From94ConvolutionUnits) {
  ZooOptions o;
  o.batch = 1;
  auto g = BuildZooModel("inception_v3", o);
  ASSERT_TRUE(g.ok()) << g.status().message();
  InferShapes(*g);
  EXPECT_EQ(Ops(*g)["Conv2D"], 94);  // as in Keras' InceptionV3
  const Node& last = g->node(g->Find("mixed10"));
  EXPECT_EQ(last.output_shapes[0].dims(), (std::vector<int64_t>{1, 8, 8, 2048}));
  EXPECT_EQ(g->node(g->Find("mixed2")).output_shapes[0].dims(),
            (std::vector<int64_t>{1, 35, 35, 288}));
  EXPECT_EQ(g->node(g->Find("mixed7")).output_shapes[0].dims(),
            (std::vector<int64_t>{1, 17, 17, 768}));
}

TEST(ZooTest, UnknownNamesAndBadSizesAreErrorsNamingTheModel) {
  auto unknown = BuildZooModel("alexnet", {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "unknown zoo model 'alexnet' (known: inception_v3, resnet, rnnlm, nmt, mlp, lenet, "
            "two_branch, chain)");
  ZooOptions o;
  o.steps = 5000;
  auto big = BuildZooModel("nmt", o);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(), "nmt: steps must be in [1, 1024], got 5000");
  ZooOptions layers;
  layers.layers = 3;
  auto small = BuildZooModel("lenet", layers);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.status().message(), "lenet: only --batch applies to the small models");
}

}  // namespace
}  // namespace graph
