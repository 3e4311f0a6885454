#include "graph/fused_ops.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace graph {
namespace {

// A _FusedConv2D node with `ops` and `num_args`, reading `inputs` extra operands.
Result<FusedOps> Parse(const std::vector<std::string>& ops, int num_args, int extra) {
  std::string text =
      testing::Placeholder("x", {1, 4, 4, 2}) + testing::FloatConst("f", {1, 1, 2, 2});
  std::string node = "node { name: 'y' op: '_FusedConv2D' input: 'x' input: 'f'";
  for (int i = 0; i < extra; ++i) {
    text += testing::FloatConst("a" + std::to_string(i), {2});
    node += " input: 'a" + std::to_string(i) + "'";
  }
  node += " attr { key: 'fused_ops' value { list {";
  for (const std::string& o : ops) node += " s: '" + o + "'";
  node += " } } } attr { key: 'num_args' value { i: " + std::to_string(num_args) + " } } }";
  Graph g = testing::FromText(text + node);
  return ParseFusedOps(g.node(g.Find("y")));
}

TEST(FusedOpsTest, BiasThenEachActivation) {
  auto f = Parse({"BiasAdd"}, 1, 1);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->activation, FusedActivation::kNone);
  EXPECT_EQ(f->bias_input, 2);
  for (const char* act :
       {"Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh", "GeluApproximate", "GeluExact"}) {
    auto a = Parse({"BiasAdd", act}, 1, 1);
    ASSERT_TRUE(a.ok()) << act << ": " << a.status().message();
    EXPECT_EQ(a->activation_name, act);
    EXPECT_EQ(a->alpha_input, -1);
  }
}

TEST(FusedOpsTest, PreluTakesItsAlphaAsASecondArgument) {
  auto f = Parse({"BiasAdd", "Prelu"}, 2, 2);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->activation, FusedActivation::kPrelu);
  EXPECT_EQ(f->alpha_input, 3);
  auto missing = Parse({"BiasAdd", "Prelu"}, 1, 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("num_args is 1, fused_ops need 2"), std::string::npos);
}

TEST(FusedOpsTest, UnsupportedFusionsAreNamed) {
  auto bn = Parse({"FusedBatchNorm", "Relu"}, 4, 4);
  ASSERT_FALSE(bn.ok());
  EXPECT_EQ(bn.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(bn.status().message().find("node 'y' (_FusedConv2D): a fused FusedBatchNorm"),
            std::string::npos);
  auto swish = Parse({"BiasAdd", "Swish"}, 1, 1);
  ASSERT_FALSE(swish.ok());
  EXPECT_NE(swish.status().message().find("unsupported fused activation 'Swish'"),
            std::string::npos);
  EXPECT_FALSE(Parse({"BiasAdd", "Relu", "Relu"}, 1, 1).ok());
  EXPECT_FALSE(Parse({"BiasAdd"}, 1, 2).ok());  // an extra operand num_args does not count
}

}  // namespace
}  // namespace graph
