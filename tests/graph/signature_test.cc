#include "graph/signature.h"

#include <gtest/gtest.h>

#include "graph/graphdef.h"
#include "graph/shape_inference.h"

namespace graph {
namespace {

Graph Two(const std::string& shape_a, const std::string& shape_b, const std::string& extra = "") {
  auto g = ParseTextGraphDef(
      "node { name: 'a' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } attr { "
      "key: 'shape' value { shape { " +
          shape_a +
          " } } } }"
          "node { name: 'b' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } attr "
          "{ key: 'shape' value { shape { " +
          shape_b +
          " } } } }"
          "node { name: 'r1' op: 'Relu' input: 'a' attr { key: 'T' value { type: DT_FLOAT } } }"
          "node { name: 'r2' op: 'Relu' input: 'b' attr { key: 'T' value { type: DT_FLOAT } } " +
          extra + " }",
      "two.pbtxt");
  EXPECT_TRUE(g.ok()) << g.status().message();
  InferShapes(*g);
  return std::move(g).value();
}

TEST(SignatureTest, SameOpShapesAndAttributesGiveTheSameSignature) {
  Graph g = Two("dim { size: 2 } dim { size: 3 }", "dim { size: 2 } dim { size: 3 }");
  EXPECT_EQ(OpSignature(g, g.Find("r1")), OpSignature(g, g.Find("r2")));
  EXPECT_EQ(OpSignature(g, g.Find("r1")), "Relu|float32[2,3]|T=float32");
}

TEST(SignatureTest, ShapesAndAttributesTellOpsApart) {
  Graph shapes = Two("dim { size: 2 } dim { size: 3 }", "dim { size: 3 } dim { size: 2 }");
  EXPECT_NE(OpSignature(shapes, shapes.Find("r1")), OpSignature(shapes, shapes.Find("r2")));
  Graph attrs = Two("dim { size: 2 }", "dim { size: 2 }", "attr { key: 'x' value { i: 4 } }");
  EXPECT_NE(OpSignature(attrs, attrs.Find("r1")), OpSignature(attrs, attrs.Find("r2")));
}

TEST(SignatureTest, ColocationAndOtherInternalAttributesAreLeftOut) {
  Graph g = Two("dim { size: 2 }", "dim { size: 2 }",
                "attr { key: '_class' value { list { s: 'loc:@a' } } }");
  EXPECT_EQ(OpSignature(g, g.Find("r1")), OpSignature(g, g.Find("r2")));
}

TEST(SignatureTest, TabsAndNewlinesInAttributesBecomeSpaces) {
  Graph g = Two("dim { size: 2 }", "dim { size: 2 }", "attr { key: 'x' value { s: 'a\\tb\\nc' } }");
  const std::string s = OpSignature(g, g.Find("r2"));
  EXPECT_EQ(s.find('\t'), std::string::npos);
  EXPECT_EQ(s.find('\n'), std::string::npos);
  EXPECT_NE(s.find("x='a b c'"), std::string::npos) << s;
}

}  // namespace
}  // namespace graph
