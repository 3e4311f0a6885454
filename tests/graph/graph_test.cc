#include "graph/graph.h"

#include <gtest/gtest.h>

namespace graph {
namespace {

NodeSpec Spec(const std::string& name, const std::string& op,
              std::vector<std::string> inputs = {}) {
  NodeSpec s;
  s.name = name;
  s.op = op;
  s.inputs = std::move(inputs);
  return s;
}

TEST(GraphTest, ResolvesDataAndControlInputs) {
  auto g = Graph::Create({Spec("a", "Placeholder"), Spec("b", "Unpack", {"a"}),
                          Spec("c", "AddV2", {"b:1", "a", "^b"})},
                         "m.pb");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Node& c = g->node(g->Find("c"));
  ASSERT_EQ(c.inputs.size(), 2u);
  EXPECT_EQ(c.inputs[0], (TensorRef{1, 1}));
  EXPECT_EQ(c.inputs[1], (TensorRef{0, 0}));
  EXPECT_EQ(c.control_inputs, std::vector<NodeId>{1});
}

TEST(GraphTest, TopologicalOrderPutsInputsFirst) {
  auto g = Graph::Create(
      {Spec("c", "AddV2", {"a", "b"}), Spec("b", "Neg", {"a"}), Spec("a", "Placeholder")}, "m.pb");
  ASSERT_TRUE(g.ok());
  std::vector<int> pos(3);
  for (int i = 0; i < 3; ++i) pos[g->topological_order()[i]] = i;
  EXPECT_LT(pos[g->Find("a")], pos[g->Find("b")]);
  EXPECT_LT(pos[g->Find("b")], pos[g->Find("c")]);
}

TEST(GraphTest, RejectsDuplicateNamesNamingFileAndNode) {
  auto g = Graph::Create({Spec("a", "Placeholder"), Spec("a", "Relu")}, "dup.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "dup.pb: duplicate node name 'a'");
}

TEST(GraphTest, RejectsDanglingInput) {
  auto g = Graph::Create({Spec("a", "Relu", {"missing:0"})}, "m.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "m.pb: node 'a' reads 'missing:0', which is not a node of the graph");
}

TEST(GraphTest, RejectsCycleNamingANodeOnIt) {
  auto g =
      Graph::Create({Spec("in", "Placeholder"), Spec("a", "AddV2", {"in", "c"}),
                     Spec("b", "Relu", {"a"}), Spec("c", "Relu", {"b"}), Spec("d", "Relu", {"c"})},
                    "cyc.pb");
  ASSERT_FALSE(g.ok());
  const std::string& m = g.status().message();
  EXPECT_EQ(m.rfind("cyc.pb: the graph has a cycle through node '", 0), 0u) << m;
  EXPECT_TRUE(m.find("'a'") != std::string::npos || m.find("'b'") != std::string::npos ||
              m.find("'c'") != std::string::npos)
      << m;
}

TEST(GraphTest, RejectsSelfLoopThroughControlInput) {
  auto g = Graph::Create({Spec("a", "NoOp", {"^a"})}, "m.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("cycle"), std::string::npos);
}

TEST(GraphTest, ImportsLoopsLeavingTheirBackEdgesOutOfTheOrder) {
  auto g = Graph::Create(
      {Spec("x", "Placeholder"), Spec("enter", "Enter", {"x"}),
       Spec("merge", "Merge", {"enter", "next"}), Spec("next", "NextIteration", {"merge"})},
      "loop.pb");
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->topological_order().size(), 4u);
  std::vector<int> position(4);
  for (int i = 0; i < 4; ++i) position[g->topological_order()[i]] = i;
  EXPECT_LT(position[g->Find("enter")], position[g->Find("merge")]);
  EXPECT_LT(position[g->Find("merge")], position[g->Find("next")]);
  EXPECT_EQ(g->first_control_flow(), g->Find("enter"));
}

TEST(GraphTest, ControlFlowIsRefusedForTrainingNamingTheFirstNode) {
  auto g = Graph::Create(
      {Spec("x", "Placeholder"), Spec("s", "Switch", {"x", "x"}), Spec("m", "Merge", {"s", "s:1"})},
      "cond.pb");
  ASSERT_TRUE(g.ok()) << g.status().message();
  Status st = CheckNoControlFlow(*g, "training");
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(st.message(),
            "node 's' is TensorFlow control flow (Switch): graphs with loops or conditionals are "
            "not supported for training");
  auto plain = Graph::Create({Spec("x", "Placeholder")}, "plain.pb");
  EXPECT_TRUE(CheckNoControlFlow(*plain, "training").ok());
}

TEST(GraphTest, ACycleNotThroughALoopBackEdgeIsStillRejected) {
  auto g = Graph::Create({Spec("m", "Merge", {"a"}), Spec("a", "Relu", {"m"})}, "m.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("cycle"), std::string::npos);
}

TEST(GraphTest, RejectsEmptyNameAndEmptyOp) {
  EXPECT_FALSE(Graph::Create({Spec("", "Relu")}, "m.pb").ok());
  auto g = Graph::Create({Spec("a", "")}, "m.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "m.pb: node 'a' has no op");
}

TEST(GraphTest, RejectsDataInputAfterControlInput) {
  auto g = Graph::Create({Spec("a", "Placeholder"), Spec("b", "Relu", {"^a", "a"})}, "m.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("after a control input"), std::string::npos);
}

TEST(GraphTest, ReadsColocationFromClassAttr) {
  NodeSpec b = Spec("b", "Relu", {"a"});
  AttrList l;
  l.s = {"loc:@a", "other"};
  b.attrs["_class"] = MakeAttr(l);
  auto g = Graph::Create({Spec("a", "Placeholder"), b}, "m.pb");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->node(1).colocation, std::vector<std::string>{"a"});
}

TEST(GraphTest, SameStructureDetectsAttributeDifference) {
  NodeSpec a1 = Spec("a", "Placeholder");
  a1.attrs["k"] = MakeAttr(int64_t{1});
  NodeSpec a2 = a1;
  a2.attrs["k"] = MakeAttr(int64_t{2});
  auto g1 = Graph::Create({a1}, "1");
  auto g2 = Graph::Create({a2}, "2");
  std::string diff;
  EXPECT_TRUE(g1->SameStructure(*g1, &diff));
  EXPECT_FALSE(g1->SameStructure(*g2, &diff));
  EXPECT_EQ(diff, "attribute 'k' of 'a' differs");
}

TEST(GraphTest, CopiedGraphStillFindsNodesByName) {
  auto g = Graph::Create({Spec("a", "Placeholder"), Spec("b", "Relu", {"a"})}, "m.pb");
  ASSERT_TRUE(g.ok());
  Graph copy = *g;
  EXPECT_EQ(copy.Find("b"), 1);
  EXPECT_EQ(copy.Find("zzz"), -1);
}

TEST(GraphTest, WithCopyAddsAnIndependentRenamedCopyOfEveryNode) {
  NodeSpec c = Spec("c", "AddV2", {"b:1", "a", "^b"});
  AttrList l;
  l.s = {"loc:@a"};
  c.attrs["_class"] = MakeAttr(l);
  auto g = Graph::Create({Spec("a", "Placeholder"), Spec("b", "Unpack", {"a"}), c}, "m.pb");
  ASSERT_TRUE(g.ok());
  g->mutable_node(1).output_shapes = {Shape(std::vector<int64_t>{2}),
                                      Shape(std::vector<int64_t>{3})};
  auto both = g->WithCopy("p/");
  ASSERT_TRUE(both.ok()) << both.status().message();
  ASSERT_EQ(both->size(), 6);
  for (NodeId id = 0; id < 3; ++id) {
    EXPECT_EQ(both->node(id).name, g->node(id).name);
    EXPECT_EQ(both->node(3 + id).name, "p/" + g->node(id).name);
    EXPECT_EQ(both->node(3 + id).op, g->node(id).op);
  }
  const Node& copy = both->node(both->Find("p/c"));
  EXPECT_EQ(copy.inputs, (std::vector<TensorRef>{{4, 1}, {3, 0}}));
  EXPECT_EQ(copy.control_inputs, std::vector<NodeId>{4});
  EXPECT_TRUE(copy.colocation.empty());
  EXPECT_EQ(both->node(2).colocation, std::vector<std::string>{"a"});
  EXPECT_EQ(both->node(4).output_shapes, g->node(1).output_shapes);

  auto clash = Graph::Create({Spec("a", "Placeholder"), Spec("p/a", "Relu", {"a"})}, "m.pb");
  ASSERT_TRUE(clash.ok());
  EXPECT_FALSE(clash->WithCopy("p/").ok()) << "p/a is taken";
}

}  // namespace
}  // namespace graph
