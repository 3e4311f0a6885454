#include "graph/training.h"

#include <gtest/gtest.h>

#include <set>

#include "graph/gradients.h"
#include "graph/importer.h"
#include "test_util.h"

namespace graph {
namespace {

using testing::FloatConst;
using testing::OutShape;
using testing::Placeholder;

Graph Forward(const std::string& pbtxt) { return testing::FromText(pbtxt); }

const Node& UpdateOf(const TrainingGraph& t, const std::string& param) {
  for (NodeId u : t.updates) {
    const Node& n = t.graph.node(u);
    if (t.graph.node(n.inputs[0].node).name == param) return n;
  }
  ADD_FAILURE() << "no update for " << param;
  return t.graph.node(0);
}

const Shape& GradShape(const TrainingGraph& t, const std::string& param) {
  const Node& u = UpdateOf(t, param);
  const TensorRef& g = u.inputs[u.op == "ApplyMomentum" ? 3 : 2];
  return t.graph.node(g.node).output_shapes[g.index];
}

const char* kMlp = R"(
node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }
       attr { key: 'shape' value { shape { dim { size: 4 } dim { size: 3 } } } } }
node { name: 'w' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
       attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 5 } } float_val: 0.1 } } } }
node { name: 'b' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
       attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 5 } } float_val: 0 } } } }
node { name: 'mm' op: 'MatMul' input: 'x' input: 'w' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'add' op: 'AddV2' input: 'mm' input: 'b' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'act' op: 'Relu' input: 'add' attr { key: 'T' value { type: DT_FLOAT } } }
)";

TEST(TrainingTest, EveryParameterGetsAGradientOfItsOwnShape) {
  auto t = BuildTrainingGraph(Forward(kMlp), {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->parameters.size(), 2u);
  EXPECT_EQ(GradShape(*t, "w"), Shape({3, 5}));
  EXPECT_EQ(GradShape(*t, "b"), Shape({5}));  // broadcast gradient summed back to [5]
  EXPECT_EQ(UpdateOf(*t, "w").op, "ApplyGradientDescent");
}

TEST(TrainingTest, WithoutALossNodeTheSyntheticLossCoversEveryFloatOutput) {
  auto t = BuildTrainingGraph(Forward(kMlp), {});
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->synthetic_loss);
  EXPECT_EQ(t->loss, "synthetic_loss");
  EXPECT_EQ(OutShape(t->graph, "synthetic_loss"), Shape::Scalar());
}

TEST(TrainingTest, NodeCountsNameEachStagesNodes) {
  // Each stage's count against the nodes that stage adds, told apart by what
  // they are: an update is its learning rate and apply op, with momentum also
  // its accumulator and momentum constant; gradients are in gradients/.
  for (const std::string optimizer : {"sgd", "momentum"}) {
    TrainingOptions o;
    o.optimizer = optimizer;
    auto t = BuildTrainingGraph(Forward(kMlp), o);
    ASSERT_TRUE(t.ok());
    const int params = static_cast<int>(t->parameters.size());
    ASSERT_EQ(params, 2);
    int gradients = 0, loss = 0, applies = 0;
    for (NodeId id = 0; id < t->graph.size(); ++id) {
      const Node& n = t->graph.node(id);
      gradients += n.name.rfind("gradients/", 0) == 0;
      loss += n.name.rfind("synthetic_loss", 0) == 0;
      applies += n.op == (optimizer == "sgd" ? "ApplyGradientDescent" : "ApplyMomentum");
    }
    EXPECT_EQ(applies, params) << optimizer;
    EXPECT_EQ(t->counts.forward_nodes, 6) << optimizer;
    EXPECT_EQ(t->counts.update_nodes, (optimizer == "sgd" ? 2 : 4) * params) << optimizer;
    EXPECT_EQ(t->counts.backward_nodes, gradients) << optimizer;
    EXPECT_GT(gradients, 0) << optimizer;
    EXPECT_EQ(t->counts.loss_nodes, loss) << optimizer;
    EXPECT_GT(loss, 0) << optimizer;
    EXPECT_EQ(t->counts.total(), t->graph.size()) << optimizer;
  }
  auto t = BuildTrainingGraph(Forward(kMlp), {});
  ASSERT_TRUE(t.ok());
  auto plan = PlanTrainingGraph(Forward(kMlp), {});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->counts.total(), t->graph.size());
  EXPECT_EQ(static_cast<int>(plan->nodes.size()), t->graph.size());
}

TEST(TrainingTest, UpdatesWaitForEveryOtherReaderOfTheirParameter) {
  auto t = BuildTrainingGraph(Forward(kMlp), {});
  ASSERT_TRUE(t.ok());
  const Graph& g = t->graph;
  NodeId w = g.Find("w");
  const Node& u = UpdateOf(*t, "w");
  NodeId u_id = g.Find(u.name);
  for (NodeId id = 0; id < g.size(); ++id) {
    if (id == u_id) continue;
    for (const TensorRef& in : g.node(id).inputs) {
      if (in.node != w) continue;
      bool waits =
          std::find(u.control_inputs.begin(), u.control_inputs.end(), id) != u.control_inputs.end();
      EXPECT_TRUE(waits) << g.node(id).name << " reads w but the update does not wait for it";
    }
  }
}

TEST(TrainingTest, UpdatesAlsoWaitForReadersOfAliasesOfTheParameter) {
  // TF1 style: ops read `w/read`, an Identity of the variable, which shares its
  // storage; the backprop MatMul reads it too and must run before w changes.
  std::string g = Placeholder("x", {4, 3}) + FloatConst("w", {3, 5}) +
                  "node { name: 'w/read' op: 'Identity' input: 'w' }"
                  "node { name: 'r' op: 'Reshape' input: 'w/read' input: 'shape' }" +
                  testing::IntConst("shape", {15}) +
                  "node { name: 'mm' op: 'MatMul' input: 'x' input: 'w/read' }"
                  "node { name: 'out' op: 'AddV2' input: 'mm' input: 'mm' }"
                  "node { name: 'out2' op: 'Neg' input: 'r' }";
  auto t = BuildTrainingGraph(Forward(g), {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  const Graph& tg = t->graph;
  const Node& u = UpdateOf(*t, "w");
  std::set<NodeId> waits(u.control_inputs.begin(), u.control_inputs.end());
  for (const char* alias : {"w/read", "r"}) {
    NodeId a = tg.Find(alias);
    for (NodeId id = 0; id < tg.size(); ++id) {
      if (tg.node(id).name == u.name) continue;
      for (const TensorRef& in : tg.node(id).inputs) {
        if (in.node == a) {
          EXPECT_TRUE(waits.count(id)) << tg.node(id).name << " reads " << alias;
        }
      }
    }
  }
}

TEST(TrainingTest, MomentumAddsAnAccumulatorPerParameter) {
  TrainingOptions o;
  o.optimizer = "momentum";
  auto t = BuildTrainingGraph(Forward(kMlp), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const Node& u = UpdateOf(*t, "w");
  EXPECT_EQ(u.op, "ApplyMomentum");
  const Node& accum = t->graph.node(u.inputs[1].node);
  EXPECT_EQ(accum.op, "VariableV2");
  EXPECT_EQ(accum.output_shapes[0], Shape({3, 5}));
}

TEST(TrainingTest, GradientOpsAreColocatedWithTheirForwardOp) {
  auto t = BuildTrainingGraph(Forward(kMlp), {});
  ASSERT_TRUE(t.ok());
  int checked = 0;
  for (const Node& n : t->graph.nodes()) {
    if (n.name.rfind("gradients/mm/", 0) != 0) continue;
    EXPECT_EQ(n.colocation, std::vector<std::string>{"mm"}) << n.name;
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

TEST(TrainingTest, GradientsNoParameterNeedsAreNotBuilt) {
  // mm = MatMul(x, w): only w trains, so the MatMul giving x's gradient is pruned.
  auto t = BuildTrainingGraph(Forward(kMlp), {});
  ASSERT_TRUE(t.ok());
  int matmuls = 0;
  for (const Node& n : t->graph.nodes()) {
    matmuls += n.op == "MatMul" && n.name.rfind("gradients/mm/", 0) == 0;
  }
  EXPECT_EQ(matmuls, 1);
}

TEST(TrainingTest, AllMatMulTransposesGiveOperandShapedGradients) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      std::string a =
          Placeholder("a", ta ? std::vector<int64_t>{3, 4} : std::vector<int64_t>{4, 3});
      std::string w = FloatConst("w", tb ? std::vector<int64_t>{5, 3} : std::vector<int64_t>{3, 5});
      std::string mm = std::string(
                           "node { name: 'y' op: 'MatMul' input: 'a' input: 'w' attr { key: "
                           "'transpose_a' value { b: ") +
                       (ta ? "true" : "false") +
                       " } } attr { key: 'transpose_b' value { b: " + (tb ? "true" : "false") +
                       " } } }";
      auto t = BuildTrainingGraph(Forward(a + w + mm), {});
      ASSERT_TRUE(t.ok()) << t.status().message();
      EXPECT_EQ(GradShape(*t, "w"), tb ? Shape({5, 3}) : Shape({3, 5})) << ta << tb;
    }
  }
}

TEST(TrainingTest, OpsWithoutGradientRulesAreAllListed) {
  std::string g = Placeholder("x", {4}) + FloatConst("w", {4}) +
                  "node { name: 'm' op: 'Mul' input: 'x' input: 'w' }"
                  "node { name: 'e1' op: 'TruncateMod' input: 'm' input: 'w' }"
                  "node { name: 'e2' op: 'TruncateMod' input: 'm' input: 'w' }"
                  "node { name: 's' op: 'LRN' input: 'm' }"
                  "node { name: 'sum' op: 'AddN' input: 'e1' input: 'e2' input: 's' }";
  auto t = BuildTrainingGraph(Forward(g), {});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(t.status().message(), "no gradient rule for: LRN (1 node), TruncateMod (2 nodes)");
}

TEST(TrainingTest, NamedLossMustExistAndBeAScalar) {
  TrainingOptions o;
  o.loss = "nope";
  auto t = BuildTrainingGraph(Forward(kMlp), o);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "loss node 'nope' is not in the graph");
  o.loss = "act";
  t = BuildTrainingGraph(Forward(kMlp), o);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "loss 'act' must be a scalar float, is float32 [4,5]");
}

TEST(TrainingTest, UnknownOptimizerIsRejected) {
  TrainingOptions o;
  o.optimizer = "adamw";
  auto t = BuildTrainingGraph(Forward(kMlp), o);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("unknown optimizer 'adamw'"), std::string::npos);
}

TEST(TrainingTest, IntegerPathsGetNoGradient) {
  // ArgMax feeds only integer ops; the parameter before it still trains through
  // the float output, and nothing asks for ArgMax's gradient.
  std::string g = Placeholder("x", {2, 3}) + FloatConst("w", {3}) +
                  testing::IntConst("axis", {1}, true) +
                  "node { name: 'm' op: 'Mul' input: 'x' input: 'w' }"
                  "node { name: 'am' op: 'ArgMax' input: 'm' input: 'axis' }"
                  "node { name: 'out' op: 'Relu' input: 'm' }";
  auto t = BuildTrainingGraph(Forward(g), {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(GradShape(*t, "w"), Shape({3}));
}

class SharedModelTrainingTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedModelTrainingTest, BuildsAShapeCheckedTrainingGraph) {
  auto g = ImportModel(testing::ModelJson(GetParam()));
  ASSERT_TRUE(g.ok());
  for (const char* opt : {"sgd", "momentum"}) {
    TrainingOptions o;
    o.optimizer = opt;
    auto t = BuildTrainingGraph(*g, o);
    ASSERT_TRUE(t.ok()) << GetParam() << " " << opt << ": " << t.status().message();
    EXPECT_FALSE(t->parameters.empty());
    EXPECT_EQ(t->updates.size(), t->parameters.size());
    for (const Node& n : t->graph.nodes()) {
      for (const Shape& s : n.output_shapes) EXPECT_TRUE(s.FullyDefined()) << n.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SharedModels, SharedModelTrainingTest,
                         ::testing::ValuesIn(testing::ModelNames()), testing::ParamName);

}  // namespace
}  // namespace graph

namespace graph {
namespace {

TEST(TrainingTest, BroadcastBatchMatMulGradientIsSummedToTheOperandsShape) {
  Graph g = testing::FromText(R"(
node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }
       attr { key: 'shape' value { shape { dim { size: 2 } dim { size: 3 } dim { size: 4 } } } } }
node { name: 'w' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
       attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 5 } } float_val: 0.1 } } } }
node { name: 'y' op: 'BatchMatMulV2' input: 'x' input: 'w' attr { key: 'T' value { type: DT_FLOAT } } }
)");
  auto t = BuildTrainingGraph(g, {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(GradShape(*t, "w"), Shape({4, 5}));
}

}  // namespace
}  // namespace graph
