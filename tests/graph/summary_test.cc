#include "graph/summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "graph/importer.h"
#include "test_util.h"

namespace graph {
namespace {

using testing::FloatConst;
using testing::Inferred;
using testing::Placeholder;

TEST(SummaryTest, CountsParametersFlopsInputsAndOutputs) {
  InferenceReport r;
  Graph g = Inferred(Placeholder("x", {4, 3}) + FloatConst("w", {3, 2}) +
                         "node { name: 'y' op: 'MatMul' input: 'x' input: 'w' }"
                         "node { name: 'z' op: 'Relu' input: 'y' }",
                     &r);
  GraphSummary s = Summarize(g, r, {});
  EXPECT_EQ(s.nodes, 4);
  EXPECT_EQ(s.parameters, 6);
  EXPECT_EQ(s.parameter_bytes, 24);
  EXPECT_DOUBLE_EQ(s.forward_flops, 2.0 * 4 * 3 * 2 + 4 * 2);
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.inputs[0].name, "x");
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(s.outputs[0].name, "z");
  EXPECT_EQ(s.op_histogram.at("MatMul"), 1);
  // x (48) + y (32) + z (32) bytes of activations. x and y are live together
  // while y runs; x is freed before z is allocated.
  EXPECT_EQ(s.activation_bytes, 48 + 32 + 32);
  EXPECT_EQ(s.peak_activation_bytes, 48 + 32);
}

TEST(SummaryTest, PeakActivationFreesTensorsAfterTheirLastConsumer) {
  InferenceReport r;
  Graph g = Inferred(Placeholder("x", {256}) + "node { name: 'a' op: 'Relu' input: 'x' }" +
                         "node { name: 'b' op: 'Relu' input: 'a' }" +
                         "node { name: 'c' op: 'Relu' input: 'b' }",
                     &r);
  GraphSummary s = Summarize(g, r, {});
  EXPECT_EQ(s.activation_bytes, 4 * 1024);
  EXPECT_EQ(s.peak_activation_bytes, 2 * 1024);  // only a producer and its consumer live
}

TEST(SummaryTest, UnknownsAreListedInTextAndJson) {
  InferenceReport r;
  Graph g = Inferred(Placeholder("x", {2}) + "node { name: 'u' op: 'Mystery' input: 'x' }", &r);
  GraphSummary s = Summarize(g, r, {});
  EXPECT_EQ(s.unknown_ops, std::vector<std::string>{"Mystery"});
  std::string text = SummaryToText(s, "m.pb");
  EXPECT_NE(text.find("unsupported ops (1)\n  Mystery"), std::string::npos) << text;
  std::string json = SummaryToJson(s, "m.pb");
  EXPECT_NE(json.find("\"unsupported_ops\":[\"Mystery\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"unknown_shape_nodes\":[\"u (Mystery)\"]"), std::string::npos);
}

TEST(SummaryTest, JsonEscapesNames) {
  InferenceReport r;
  Graph g = Inferred(Placeholder("we\\\\ird\"name", {1}), &r);
  std::string json = SummaryToJson(Summarize(g, r, {}), "m.pb");
  EXPECT_NE(json.find(R"("we\\ird\"name")"), std::string::npos) << json;
}

TEST(SummaryTest, RealModelSummaryHasNoUnknowns) {
  auto g = ImportModel(testing::ModelJson("movenet-lightning"));
  ASSERT_TRUE(g.ok());
  InferenceReport r = InferShapes(*g);
  GraphSummary s = Summarize(*g, r, {});
  EXPECT_EQ(s.nodes, 331);
  EXPECT_TRUE(s.unknown_cost_nodes.empty());
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(s.outputs[0].shape, Shape({1, 1, 17, 3}));  // the model's own signature
  EXPECT_GT(s.forward_flops, 1e8);
}

TEST(JsonNumberTest, FiniteNumbersPrintWithTheirDecimalsAndTheOthersAsNull) {
  EXPECT_EQ(JsonNumber(0.125, 3), "0.125");
  EXPECT_EQ(JsonNumber(-2, 1), "-2.0");
  EXPECT_EQ(JsonNumber(std::nan(""), 5), "null");
  EXPECT_EQ(JsonNumber(-std::numeric_limits<double>::infinity(), 5), "null");
}

}  // namespace
}  // namespace graph
