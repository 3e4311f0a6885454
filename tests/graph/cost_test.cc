#include "graph/cost.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace graph {
namespace {

using testing::FloatConst;
using testing::Inferred;
using testing::Placeholder;

const OpCost& CostOf(const Graph& g, const std::vector<OpCost>& costs, const std::string& name) {
  return costs[g.Find(name)];
}

TEST(CostTest, EveryOpWithAShapeRuleHasACostRule) {
  for (const std::string& op : ShapeRuleOps()) EXPECT_TRUE(HasCostRule(op)) << op;
}

TEST(CostTest, ConvCountsTwoFlopsPerTapPerOutput) {
  Graph g = Inferred(Placeholder("x", {1, 8, 8, 3}) + FloatConst("f", {3, 3, 3, 16}) +
                     "node { name: 'y' op: 'Conv2D' input: 'x' input: 'f' attr { key: 'padding' "
                     "value { s: 'SAME' } } attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: "
                     "1 } } } }");
  auto costs = ComputeCosts(g);
  const OpCost& c = CostOf(g, costs, "y");
  EXPECT_TRUE(c.known);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 3 * 3 * 3 * (8 * 8 * 16));
  EXPECT_EQ(c.bytes_read, (8 * 8 * 3 + 3 * 3 * 3 * 16) * 4);
  EXPECT_EQ(c.bytes_written, 8 * 8 * 16 * 4);
  EXPECT_EQ(c.param_bytes, 3 * 3 * 3 * 16 * 4);
}

TEST(CostTest, FusedConvAddsOneFlopPerOutputPerEpilogueOp) {
  Graph g = Inferred(Placeholder("x", {1, 4, 4, 2}) + FloatConst("f", {1, 1, 2, 2}) +
                     FloatConst("b", {2}) +
                     "node { name: 'y' op: '_FusedConv2D' input: 'x' input: 'f' input: 'b' attr { "
                     "key: 'padding' value { s: 'VALID' } } attr { key: 'fused_ops' value { list "
                     "{ s: 'BiasAdd' s: 'Relu' } } } }");
  auto costs = ComputeCosts(g);
  EXPECT_DOUBLE_EQ(CostOf(g, costs, "y").flops, 2.0 * 2 * 32 + 2 * 32);
}

TEST(CostTest, DepthwiseConvCountsOnlyItsOwnChannel) {
  Graph g = Inferred(Placeholder("x", {1, 4, 4, 8}) + FloatConst("f", {3, 3, 8, 1}) +
                     "node { name: 'y' op: 'DepthwiseConv2dNative' input: 'x' input: 'f' attr { "
                     "key: 'padding' value { s: 'SAME' } } }");
  auto costs = ComputeCosts(g);
  EXPECT_DOUBLE_EQ(CostOf(g, costs, "y").flops, 2.0 * 9 * (4 * 4 * 8));
}

TEST(CostTest, Conv3DCountsEveryTapOfItsGroupsChannels) {
  // Input depth 4 on a filter of depth 2: two groups, each output reads 2 channels.
  Graph g = Inferred(Placeholder("x", {1, 4, 5, 5, 4}) + FloatConst("f", {3, 3, 3, 2, 6}) +
                     "node { name: 'y' op: 'Conv3D' input: 'x' input: 'f' attr { key: 'padding' "
                     "value { s: 'SAME' } } attr { key: 'strides' value { list { i: 1 i: 1 i: 1 "
                     "i: 1 i: 1 } } } }\n" +
                     "node { name: 'p' op: 'AvgPool3D' input: 'y' attr { key: 'padding' value { "
                     "s: 'VALID' } } attr { key: 'ksize' value { list { i: 1 i: 2 i: 2 i: 2 i: 1 "
                     "} } } attr { key: 'strides' value { list { i: 1 i: 2 i: 2 i: 2 i: 1 } } } }");
  auto costs = ComputeCosts(g);
  EXPECT_DOUBLE_EQ(CostOf(g, costs, "y").flops, 2.0 * 27 * 2 * (4 * 5 * 5 * 6));
  EXPECT_DOUBLE_EQ(CostOf(g, costs, "p").flops, 8.0 * (2 * 2 * 2 * 6));
}

TEST(CostTest, MatMulIsTwoMnk) {
  Graph g = Inferred(Placeholder("a", {5, 3}) + Placeholder("b", {3, 7}) +
                     "node { name: 'y' op: 'MatMul' input: 'a' input: 'b' }");
  auto costs = ComputeCosts(g);
  EXPECT_DOUBLE_EQ(CostOf(g, costs, "y").flops, 2.0 * 5 * 3 * 7);
}

TEST(CostTest, UnknownOpOrShapeMakesCostUnknown) {
  Graph g = Inferred(Placeholder("a", {5}) + "node { name: 'u' op: 'Mystery' input: 'a' }" +
                     "node { name: 'r' op: 'Relu' input: 'u' }");
  auto costs = ComputeCosts(g);
  EXPECT_FALSE(CostOf(g, costs, "u").known);
  EXPECT_FALSE(CostOf(g, costs, "r").known);
  EXPECT_TRUE(CostOf(g, costs, "a").known);
}

TEST(CostTest, FloatConstantsAreParametersIntegerConstantsAreNot) {
  Graph g = Inferred(FloatConst("w", {2, 2}) + testing::IntConst("s", {1, 2}));
  EXPECT_TRUE(IsTrainableParameter(g.node(g.Find("w"))));
  EXPECT_FALSE(IsTrainableParameter(g.node(g.Find("s"))));
}

TEST(CostTest, WithVariablesOnlyTheVariablesAreTrainable) {
  const std::string var =
      "node { name: 'v' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } } attr { "
      "key: 'shape' value { shape { dim { size: 2 } } } } }";
  Graph with = Inferred(FloatConst("w", {2, 2}) + var);
  std::vector<char> t = TrainableParameters(with);
  EXPECT_TRUE(t[with.Find("v")]);
  EXPECT_FALSE(t[with.Find("w")]) << "a constant of a graph with variables stays constant";
  Graph without = Inferred(FloatConst("w", {2, 2}));
  EXPECT_TRUE(TrainableParameters(without)[without.Find("w")]);
}

}  // namespace
}  // namespace graph
