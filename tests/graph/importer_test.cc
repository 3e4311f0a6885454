#include "graph/importer.h"

#include <gtest/gtest.h>

#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "graph/shape_inference.h"
#include "test_util.h"
#include "tests/scratch_dir.h"

namespace graph {
namespace {

using testing::ModelJson;
using testing::ModelNames;

TEST(ImporterTest, DetectsFormatFromContentNotExtension) {
  EXPECT_EQ(DetectModelFormat("  {\"modelTopology\": {}}"), ModelFormat::kTfjs);
  EXPECT_EQ(DetectModelFormat("{\"node\": []}"), ModelFormat::kJsonGraphDef);
  EXPECT_EQ(DetectModelFormat("node { name: 'a' op: 'NoOp' }"), ModelFormat::kTextGraphDef);
  EXPECT_EQ(DetectModelFormat(std::string("\x0a\x05\x0a\x01"
                                          "a",
                                          5)),
            ModelFormat::kBinaryGraphDef);
}

// A byte order mark (an editor's) before any text format: read as without it.
TEST(ImporterTest, TextModelsWithAByteOrderMarkImportAsWithout) {
  const std::string bom = "\xEF\xBB\xBF";
  const std::string pbtxt = "node { name: 'a' op: 'NoOp' }";
  auto text = ImportModelContents(bom + pbtxt, "bom.pbtxt");
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(text->size(), 1);
  auto json =
      ImportModelContents(bom + "{\"node\": [{\"name\": \"a\", \"op\": \"NoOp\"}]}", "bom.json");
  ASSERT_TRUE(json.ok()) << json.status().message();
  EXPECT_EQ(json->size(), 1);
  const std::string tfjs = ModelJson("emotion");
  auto model = ImportModelContents(bom + *ReadFile(tfjs), tfjs);
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ(model->size(), ImportModel(tfjs)->size());
}

// protobuf's JSON parser draws a caret under an excerpt; one line keeps no
// dangling "^".
TEST(ImporterTest, TruncatedJsonSaysWhyWithoutProtobufsCaret) {
  for (const std::string json :
       {"{\"modelTopology\": {\"node\": [{\"name\": \"a", "{\"node\": [{\"name\": \"a\"}"}) {
    auto r = ImportModelContents(json, "t.json");
    ASSERT_FALSE(r.ok());
    const std::string& m = r.status().message();
    EXPECT_EQ(m.rfind("t.json: not a ", 0), 0u) << m;
    EXPECT_EQ(m.find('^'), std::string::npos) << m;
    EXPECT_NE(m.back(), ' ') << m;
  }
}

// A devices file given as the model was read as a text GraphDef and refused
// in protobuf's words alone ("x.yaml:6:5: Invalid float number: name").
TEST(ImporterTest, PrintableTextThatIsNoGraphDefSaysWhatItWasTakenFor) {
  auto r = ImportModelContents("devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n", "d.yaml");
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_EQ(m.rfind("d.yaml: not a model (printable text, so read as a TensorFlow text GraphDef, "
                    "which fails at 2:5: ",
                    0),
            0u)
      << m;
  EXPECT_NE(m.find("); a model is a GraphDef (binary or text), an ONNX model or a TF.js "
                   "model.json"),
            std::string::npos)
      << m;
  // A text GraphDef that parses but is no graph we take keeps its own error.
  auto dup = ImportModelContents("node { name: 'a' op: 'NoOp' }\nnode { name: 'a' op: 'NoOp' }\n",
                                 "dup.pbtxt");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().message().find("not a model"), std::string::npos)
      << dup.status().message();
}

TEST(ImporterTest, EmptyFileIsAnError) {
  auto r = ImportModelContents("", "empty.pb");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "empty.pb: file is empty");
}

TEST(ImporterTest, RandomBytesAreAnErrorNotACrash) {
  std::string junk;
  uint32_t x = 12345;
  for (int i = 0; i < 4096; ++i) {
    x = x * 1664525 + 1013904223;
    junk.push_back(static_cast<char>(x >> 24));
  }
  auto r = ImportModelContents(junk, "junk.bin");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("junk.bin: ", 0), 0u);
}

TEST(ImporterTest, MissingFileIsAnErrorNamingIt) {
  auto r = ImportModel("/no/such/model.pb");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("/no/such/model.pb: cannot open", 0), 0u);
}

class RealModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealModelTest, ImportsConvertsAndReimportsToAnIdenticalGraph) {
  auto g = ImportModel(ModelJson(GetParam()));
  ASSERT_TRUE(g.ok()) << g.status().message();
  std::string path = planner_test::ScratchDir() + "/" + GetParam() + ".pb";
  ASSERT_TRUE(WriteFileAtomic(path, SerializeGraphDef(*g)).ok());
  auto back = ImportModel(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  std::string diff;
  EXPECT_TRUE(g->SameStructure(*back, &diff)) << diff;
  // And the text form too.
  auto text = ImportModelContents(GraphDefToText(*g), GetParam() + ".pbtxt");
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_TRUE(g->SameStructure(*text, &diff)) << diff;
}

TEST_P(RealModelTest, EveryNodeGetsStaticShapesAndNoOpIsUnknown) {
  auto g = ImportModel(ModelJson(GetParam()));
  ASSERT_TRUE(g.ok()) << g.status().message();
  InferenceReport r = InferShapes(*g);
  EXPECT_TRUE(r.unknown_ops.empty()) << r.unknown_ops[0];
  EXPECT_TRUE(r.problems.empty()) << r.problems[0];
  EXPECT_TRUE(r.unknown_shape_nodes.empty()) << g->node(r.unknown_shape_nodes[0]).name;
  for (const Node& n : g->nodes()) {
    for (const Shape& s : n.output_shapes) EXPECT_TRUE(s.FullyDefined()) << n.name;
  }
}

INSTANTIATE_TEST_SUITE_P(SharedModels, RealModelTest, ::testing::ValuesIn(ModelNames()),
                         testing::ParamName);

}  // namespace
}  // namespace graph
