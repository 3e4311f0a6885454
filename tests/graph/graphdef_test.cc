#include "graph/graphdef.h"

#include <gtest/gtest.h>

#include "graph/proto/tf_graph.pb.h"
#include "test_util.h"

namespace graph {
namespace {

using testing::FromText;

const char* kSmall = R"(
node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }
       attr { key: 'shape' value { shape { dim { size: -1 } dim { size: 4 } } } } }
node { name: 'w' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
       attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 2 } }
              float_val: 1 float_val: 2 } } } }
node { name: 'y' op: 'MatMul' input: 'x' input: 'w' device: '/device:CPU:0'
       attr { key: 'T' value { type: DT_FLOAT } }
       attr { key: 'transpose_a' value { b: false } }
       attr { key: 'note' value { s: 'hi' } }
       attr { key: 'f' value { func { name: 'fn' } } } }
node { name: 'z' op: 'NoOp' input: '^y' }
versions { producer: 1205 }
)";

TEST(GraphDefTest, BinaryRoundTripPreservesTheGraph) {
  Graph g = FromText(kSmall);
  std::string bytes = SerializeGraphDef(g);
  auto back = ParseBinaryGraphDef(bytes, "rt.pb");
  ASSERT_TRUE(back.ok()) << back.status().message();
  std::string diff;
  EXPECT_TRUE(g.SameStructure(*back, &diff)) << diff;
  EXPECT_EQ(back->producer_version(), 1205);
}

TEST(GraphDefTest, SerializationIsDeterministic) {
  // Model digests hash these bytes: protobuf's map order (NodeDef.attr) must not
  // leak into them. Each call builds a fresh proto, whose maps may iterate
  // differently unless the writer asks for deterministic output.
  Graph g = FromText(kSmall);
  const std::string first = SerializeGraphDef(g);
  for (int i = 0; i < 50; ++i) {
    Graph copy = FromText(kSmall);
    ASSERT_EQ(SerializeGraphDef(copy), first) << "call " << i;
  }
}

TEST(GraphDefTest, TextRoundTripPreservesTheGraph) {
  Graph g = FromText(kSmall);
  auto back = ParseTextGraphDef(GraphDefToText(g), "rt.pbtxt");
  ASSERT_TRUE(back.ok()) << back.status().message();
  std::string diff;
  EXPECT_TRUE(g.SameStructure(*back, &diff)) << diff;
}

TEST(GraphDefTest, FewerValuesThanElementsRepeatTheLast) {
  Graph g = FromText(kSmall);
  const Tensor* t = g.node(g.Find("w")).attr("value")->get<Tensor>();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->ToDoubles(), (std::vector<double>{1, 2, 2, 2, 2, 2, 2, 2}));
}

TEST(GraphDefTest, WrittenFileUsesTensorFlowFieldNumbers) {
  // NodeDef.device is field 4 of NodeDef, which is field 1 of GraphDef; check the
  // wire bytes directly rather than through our own parser.
  Graph g = FromText("node { name: 'n' op: 'NoOp' device: '/device:GPU:1' }");
  std::string bytes = SerializeGraphDef(g);
  // GraphDef.node (1, length-delimited) -> 0x0a
  ASSERT_EQ(static_cast<unsigned char>(bytes[0]), 0x0a);
  // Inside: name (1) 0x0a 01 'n', op (2) 0x12 04 'NoOp', device (4) 0x22 ...
  const char kExpected[] = "\x0a\x01n\x12\x04NoOp\x22\x0d/device:GPU:1";
  EXPECT_NE(bytes.find(std::string(kExpected, sizeof(kExpected) - 1)), std::string::npos);
}

TEST(GraphDefTest, DeviceOverrideWritesOneDevicePerNode) {
  Graph g = FromText(kSmall);
  GraphDefWriteOptions opts;
  opts.devices = {"/device:CPU:0", "/device:GPU:0", "/device:GPU:1", "/device:CPU:0"};
  tensorflow::GraphDef gd;
  ASSERT_TRUE(gd.ParseFromString(SerializeGraphDef(g, opts)));
  EXPECT_EQ(gd.node(2).device(), "/device:GPU:1");
}

TEST(GraphDefTest, TruncatedBinaryIsAnErrorNamingTheFile) {
  std::string bytes = SerializeGraphDef(FromText(kSmall));
  auto r = ParseBinaryGraphDef(bytes.substr(0, bytes.size() / 2), "cut.pb");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("cut.pb: ", 0), 0u) << r.status().message();
}

TEST(GraphDefTest, TextSyntaxErrorGivesLineAndColumn) {
  auto r = ParseTextGraphDef("node { name: 'a' op: 'NoOp' }\nnode { name: }", "bad.pbtxt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("bad.pbtxt:2:", 0), 0u) << r.status().message();
}

// TensorFlow writes fields our schema does not model; the binary and JSON
// readers skipped them, the text reader refused the file in protobuf's words.
TEST(GraphDefTest, TextFieldsTheSchemaDoesNotModelAreSkippedAsInBinary) {
  auto r = ParseTextGraphDef(
      "node { name: 'a' op: 'NoOp' experimental_debug_info { original_node_names: 'a0' } }\n"
      "library { function { signature { name: 'f' } } }\n",
      "tf.pbtxt");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->size(), 1);
}

TEST(GraphDefTest, TensorContentOfWrongSizeIsRejected) {
  auto r = ParseTextGraphDef(
      "node { name: 'c' op: 'Const' attr { key: 'value' value { tensor { dtype: DT_FLOAT "
      "tensor_shape { dim { size: 3 } } tensor_content: '\\000\\000\\000\\000' } } } }",
      "c.pbtxt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tensor_content has 4 bytes"), std::string::npos)
      << r.status().message();
}

TEST(GraphDefTest, TooManyValuesIsRejected) {
  auto r = ParseTextGraphDef(
      "node { name: 'c' op: 'Const' attr { key: 'value' value { tensor { dtype: DT_INT32 "
      "tensor_shape { dim { size: 1 } } int_val: 1 int_val: 2 } } } }",
      "c.pbtxt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("2 values"), std::string::npos);
}

TEST(GraphDefTest, HugeDeclaredTensorIsRejectedWithoutAllocating) {
  auto r = ParseTextGraphDef(
      "node { name: 'c' op: 'Const' attr { key: 'value' value { tensor { dtype: DT_FLOAT "
      "tensor_shape { dim { size: 100000 } dim { size: 100000 } } float_val: 1 } } } }",
      "c.pbtxt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("larger than 4 GiB"), std::string::npos);
}

TEST(GraphDefTest, ManySmallSplatConstantsCannotExpandWithoutBound) {
  // Each node is a few bytes of file asking for a 256 MiB constant.
  std::string text;
  for (int i = 0; i < 8; ++i) {
    text += "node { name: 'c" + std::to_string(i) +
            "' op: 'Const' attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { "
            "dim { size: 67108864 } } float_val: 1 } } } }\n";
  }
  auto r = ParseTextGraphDef(text, "splat.pbtxt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("would expand past the 1 GiB limit"), std::string::npos)
      << r.status().message();
}

TEST(GraphDefTest, HugeStringTensorIsRejectedWithoutAllocating) {
  auto r = ParseTextGraphDef(
      "node { name: 'c' op: 'Const' attr { key: 'value' value { tensor { dtype: DT_STRING "
      "tensor_shape { dim { size: 1000000000000 } } string_val: 'x' } } } }",
      "s.pbtxt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("string tensor is too large"), std::string::npos);
}

// A string constant's last value repeats too: 2^24 copies of 1 KiB were 16 GiB
// from a file of about 1 KiB, charged to no budget.
TEST(GraphDefTest, ASplatStringConstantIsChargedToTheBudget) {
  auto r = ParseTextGraphDef(
      "node { name: 'c' op: 'Const' attr { key: 'value' value { tensor { dtype: DT_STRING "
      "tensor_shape { dim { size: 16777216 } } string_val: '" +
          std::string(1024, 'x') + "' } } } }",
      "s.pbtxt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "s.pbtxt: node 'c' attr 'value': string constant [16777216] given by 1 value(s) would "
            "expand past "
            "the 1 GiB limit for such constants");
}

TEST(GraphDefTest, EmptyGraphIsRejected) {
  auto r = ParseTextGraphDef("versions { producer: 1 }", "e.pbtxt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "e.pbtxt: the graph has no nodes");
}

TEST(GraphDefTest, JsonGraphDefParses) {
  auto r = ParseJsonGraphDef(R"({"node":[{"name":"a","op":"Placeholder"},
                                         {"name":"b","op":"Relu","input":["a"]}]})",
                             "g.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->size(), 2);
}

}  // namespace
}  // namespace graph
