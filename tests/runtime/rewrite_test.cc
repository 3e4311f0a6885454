#include "sim/rewrite.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "graph/graphdef.h"
#include "graph/models.h"
#include "graph/training.h"
#include "runtime/kernel.h"

namespace runtime {
namespace {

std::map<std::string, int> OpCounts(const graph::Graph& g) {
  std::map<std::string, int> n;
  for (const graph::Node& node : g.nodes()) ++n[node.op];
  return n;
}

TEST(RewriteTest, LeNetPoolsKeepTheirIndicesForTheirGradientsWithIdsAndNamesUnchanged) {
  auto fwd = graph::BuildLeNet({4, 1});
  ASSERT_TRUE(fwd.ok());
  auto t = graph::BuildTrainingGraph(*fwd, {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  graph::Graph r = sim::RewriteForExecution(t->graph);
  ASSERT_EQ(r.size(), t->graph.size());
  for (graph::NodeId id = 0; id < r.size(); ++id) {
    EXPECT_EQ(r.node(id).name, t->graph.node(id).name);
  }
  std::map<std::string, int> before = OpCounts(t->graph), after = OpCounts(r);
  EXPECT_EQ(before["MaxPool"], 2);
  EXPECT_EQ(before["MaxPoolGrad"], 2);
  EXPECT_EQ(after["MaxPool"], 0);
  EXPECT_EQ(after["MaxPoolGrad"], 0);
  EXPECT_EQ(after["_MaxPoolWithIndices"], 2);
  EXPECT_EQ(after["_MaxPoolGradWithIndices"], 2);
  for (const graph::Node& n : r.nodes()) {
    if (n.op == "_MaxPoolWithIndices") {
      ASSERT_EQ(n.num_outputs(), 2) << n.name;
      EXPECT_EQ(n.output_dtypes[1], graph::DType::kInt64);
      EXPECT_EQ(n.output_shapes[1].dims(), n.output_shapes[0].dims());
    }
    if (n.op == "_MaxPoolGradWithIndices") {
      ASSERT_EQ(n.inputs.size(), 3u);
      EXPECT_EQ(r.node(n.inputs[2].node).op, "_MaxPoolWithIndices");
      EXPECT_EQ(n.inputs[2].index, 1);
    }
  }
}

TEST(RewriteTest, GradientOfAnotherTensorIsLeftAlone) {
  // MaxPoolGrad whose orig_input is not the pool's input: not the pool's gradient.
  auto g = graph::ParseTextGraphDef(
      "node { name: 'x' op: 'Placeholder' } node { name: 'z' op: 'Placeholder' }"
      "node { name: 'p' op: 'MaxPool' input: 'x' attr { key: 'ksize' value { list { i: 1 i: 2 "
      "i: 2 i: 1 } } } attr { key: 'strides' value { list { i: 1 i: 2 i: 2 i: 1 } } } attr { "
      "key: 'padding' value { s: 'VALID' } } }"
      "node { name: 'g' op: 'MaxPoolGrad' input: 'z' input: 'p' input: 'p' attr { key: 'ksize' "
      "value { list { i: 1 i: 2 i: 2 i: 1 } } } attr { key: 'strides' value { list { i: 1 i: 2 "
      "i: 2 i: 1 } } } attr { key: 'padding' value { s: 'VALID' } } }",
      "m.pbtxt");
  ASSERT_TRUE(g.ok()) << g.status().message();
  graph::Graph r = sim::RewriteForExecution(*g);
  EXPECT_EQ(r.node(r.Find("p")).op, "MaxPool");
  EXPECT_EQ(r.node(r.Find("g")).op, "MaxPoolGrad");
}

// One pool node of the given window; the kernels read only its attributes.
graph::Graph PoolNode(int64_t k, int64_t s, const std::string& padding, bool nchw) {
  auto four = [&](int64_t v) {
    return nchw ? "list { i: 1 i: 1 i: " + std::to_string(v) + " i: " + std::to_string(v) + " }"
                : "list { i: 1 i: " + std::to_string(v) + " i: " + std::to_string(v) + " i: 1 }";
  };
  auto g = graph::ParseTextGraphDef("node { name: 'p' op: 'MaxPool' attr { key: 'ksize' value { " +
                                        four(k) + " } } attr { key: 'strides' value { " + four(s) +
                                        " } } attr { key: 'padding' value { "
                                        "s: '" +
                                        padding + "' } } attr { key: 'data_format' value { s: '" +
                                        (nchw ? "NCHW" : "NHWC") + "' } } }",
                                    "pool.pbtxt");
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

std::vector<at::Tensor> RunOp(const char* op, const graph::Node& node, std::vector<at::Tensor> in) {
  KernelContext c{node, std::move(in), {}, {}};
  graph::Status st = RunKernel(c);
  EXPECT_TRUE(st.ok()) << op << ": " << st.message();
  return c.outputs;
}

TEST(RewriteTest, KernelPairMatchesMaxPoolAndMaxPoolGradForEveryPadding) {
  struct Case {
    int64_t size, k, s;
    const char* padding;
    bool nchw;
  };
  // 6 with k3 s2 SAME pads 0 before and 1 after: PyTorch cannot pad that itself.
  for (const Case& cs :
       {Case{7, 3, 2, "SAME", false}, Case{6, 3, 2, "SAME", false}, Case{8, 2, 2, "VALID", false},
        Case{7, 3, 1, "SAME", true}, Case{9, 3, 2, "VALID", true}}) {
    SCOPED_TRACE(std::to_string(cs.size) + " k" + std::to_string(cs.k) + " s" +
                 std::to_string(cs.s) + " " + cs.padding + (cs.nchw ? " NCHW" : " NHWC"));
    graph::Graph g = PoolNode(cs.k, cs.s, cs.padding, cs.nchw);
    graph::Node pool = g.node(0);
    // Distinct values: no ties, so both gradients route to the same element.
    at::Tensor x = at::randperm(2 * 3 * cs.size * cs.size, at::kFloat) - 40;
    x = cs.nchw ? x.view({2, 3, cs.size, cs.size}) : x.view({2, cs.size, cs.size, 3});
    at::Tensor y = RunOp("MaxPool", pool, {x})[0];
    at::Tensor dy = at::rand(y.sizes());
    graph::Node grad = pool, with = pool, grad_with = pool;
    grad.op = "MaxPoolGrad";
    with.op = "_MaxPoolWithIndices";
    grad_with.op = "_MaxPoolGradWithIndices";
    at::Tensor expected = RunOp("MaxPoolGrad", grad, {x, y, dy})[0];
    std::vector<at::Tensor> yi = RunOp("_MaxPoolWithIndices", with, {x});
    ASSERT_EQ(yi.size(), 2u);
    EXPECT_TRUE(at::equal(yi[0], y));
    at::Tensor got = RunOp("_MaxPoolGradWithIndices", grad_with, {x, dy, yi[1]})[0];
    EXPECT_EQ(got.sizes(), x.sizes());
    EXPECT_TRUE(at::allclose(got, expected)) << (got - expected).abs().max().item<float>();
  }
}

}  // namespace
}  // namespace runtime
