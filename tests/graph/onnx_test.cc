// The ONNX importer on model files written here with ONNX's own protobuf
// schema (libonnx): what it reads (initializers, symbolic inputs, external
// data, constants) and the one-line errors for what it refuses.
#include "graph/onnx.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>

#include <cstring>

#include "graph/cost.h"
#include "graph/file_util.h"
#include "graph/importer.h"
#include "graph/shape_inference.h"
#include "tests/graph/onnx_model_builder.h"
#include "tests/scratch_dir.h"

namespace graph {
namespace {

using namespace onnx_test;  // NOLINT: the model builders these tests are written in

// x [N, 4] -> MatMul(fc.weight [4, 3]) -> Relu -> y
onnx::ModelProto LinearRelu(int opset = 13) {
  onnx::ModelProto m = Model(opset);
  Input(&m, "x", {-1, 4});
  Initializer(&m, "fc.weight", {4, 3}, 0.5f);
  AddNode(&m, "MatMul", {"x", "fc.weight"}, {"h"}, "/fc/MatMul");
  AddNode(&m, "Relu", {"h"}, {"y"}, "/act/Relu");
  Output(&m, "y", {-1, 3});
  return m;
}

TEST(OnnxTest, FormatIsRecognisedFromContentNotExtension) {
  std::string bytes = LinearRelu().SerializeAsString();
  EXPECT_TRUE(LooksLikeOnnx(bytes));
  EXPECT_EQ(DetectModelFormat(bytes), ModelFormat::kOnnx);
  auto g = ImportModelContents(bytes, "model.pb");
  ASSERT_TRUE(g.ok()) << g.status().message();
}

TEST(OnnxTest, InitializersBecomeTrainableConstsNamedAsInTheFile) {
  OnnxSignature sig;
  auto g = Import(LinearRelu(), "m.onnx", &sig);
  ASSERT_TRUE(g.ok()) << g.status().message();
  InferShapes(*g);
  NodeId w = g->Find("fc.weight");
  ASSERT_GE(w, 0);
  EXPECT_EQ(g->node(w).op, "Const");
  EXPECT_TRUE(IsTrainableParameter(g->node(w)));
  // PyTorch's scopes become IR scopes; the op keeps the ONNX node's name.
  EXPECT_EQ(g->node(g->Find("fc/MatMul")).op, "MatMul");
  ASSERT_EQ(sig.inputs, std::vector<std::string>{"x"});
  ASSERT_EQ(sig.outputs, std::vector<std::string>{"y"});
}

TEST(OnnxTest, ConstantNodesAreNotTrained) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {2});
  onnx::NodeProto* k = AddNode(&m, "Constant", {}, {"c"}, "/scale/Constant");
  onnx::AttributeProto* a = k->add_attribute();
  a->set_name("value_float");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(2.0f);
  AddNode(&m, "Mul", {"x", "c"}, {"y"});
  Output(&m, "y", {2});
  auto g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  InferShapes(*g);
  NodeId c = g->Find("scale/Constant");
  ASSERT_GE(c, 0);
  EXPECT_FALSE(IsTrainableParameter(g->node(c)));
}

TEST(OnnxTest, SymbolicDimsAreUnknownUntilGivenAnInputShape) {
  auto g = Import(LinearRelu());
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Node& x = g->node(g->Find("x"));
  EXPECT_EQ(x.attr("shape")->get<Shape>()->ToString(), "[?,4]");
  InferenceOptions opts;
  opts.input_shapes["x"] = {5, 4};
  ASSERT_TRUE(CheckInputShapes(*g, opts).ok());
  InferShapes(*g, opts);
  EXPECT_EQ(g->node(g->Find("y")).output_shapes[0].ToString(), "[5,3]");
}

// x [T=3, batch N, 2] -> LSTM(hidden 4) -> Y, as torch.onnx.export writes an
// nn.LSTM exported with a dynamic batch axis.
onnx::ModelProto DynamicBatchLstm() {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {3, -1, 2});
  Initializer(&m, "lstm.W", {1, 16, 2}, 0.01f);
  Initializer(&m, "lstm.R", {1, 16, 4}, 0.01f);
  onnx::NodeProto* n = AddNode(&m, "LSTM", {"x", "lstm.W", "lstm.R"}, {"y"}, "/lstm/LSTM");
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("hidden_size");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(4);
  Output(&m, "y", {3, 1, -1, 4});
  return m;
}

// The LSTM is unrolled during translation, over static sizes only: the sizes
// --input-shape gives must reach it, not only the shape inference after.
TEST(OnnxTest, AnInputShapeFixesSymbolicSizesBeforeRecurrentOpsAreUnrolled) {
  const std::string bytes = DynamicBatchLstm().SerializeAsString();
  auto unsized = ImportOnnx(bytes, "m.onnx");
  ASSERT_FALSE(unsized.ok());
  EXPECT_NE(unsized.status().message().find("--input-shape"), std::string::npos)
      << unsized.status().message();
  auto g = ImportOnnx(bytes, "m.onnx", nullptr, {{"x", {3, 5, 2}}});
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->node(g->Find("x")).attr("shape")->get<Shape>()->ToString(), "[3,5,2]");
  InferShapes(*g);
  EXPECT_EQ(g->node(g->Find("y")).output_shapes[0].ToString(), "[3,1,5,4]");
  // The same refusals as CheckInputShapes, before the translation fails.
  EXPECT_EQ(ImportOnnx(bytes, "m.onnx", nullptr, {{"z", {3, 5, 2}}}).status().message(),
            "m.onnx: --input-shape names 'z', which is not an input (inputs: x)");
  EXPECT_EQ(ImportOnnx(bytes, "m.onnx", nullptr, {{"x", {4, 5, 2}}}).status().message(),
            "m.onnx: --input-shape x=[4,5,2] does not fit its declared shape [3,?,2]");
  // An input declared with no shape at all takes the sizes given.
  onnx::ModelProto rankless = DynamicBatchLstm();
  rankless.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  auto sized = ImportOnnx(rankless.SerializeAsString(), "m.onnx", nullptr, {{"x", {3, 5, 2}}});
  ASSERT_TRUE(sized.ok()) << sized.status().message();
  EXPECT_EQ(sized->node(sized->Find("x")).attr("shape")->get<Shape>()->ToString(), "[3,5,2]");
}

TEST(OnnxTest, ReadsExternalDataBesideTheModel) {
  const std::string dir = planner_test::ScratchDir() + "/onnx_external";
  ::mkdir(dir.c_str(), 0755);
  onnx::ModelProto m = LinearRelu();
  onnx::TensorProto* w = m.mutable_graph()->mutable_initializer(0);
  std::vector<float> values(12);
  for (int i = 0; i < 12; ++i) values[i] = 0.25f * i;
  std::string bytes(48, '\0');
  std::memcpy(bytes.data(), values.data(), 48);
  ASSERT_TRUE(WriteFileAtomic(dir + "/weights.bin", "pad!" + bytes).ok());
  w->clear_float_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [k, v] : {std::pair<const char*, const char*>{"location", "weights.bin"},
                      {"offset", "4"},
                      {"length", "48"}}) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  auto g = Import(m, dir + "/model.onnx");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Tensor* t = g->node(g->Find("fc.weight")).attr("value")->get<Tensor>();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->ToDoubles()[5], 1.25);

  // The same model without its data file: one line naming the missing file.
  auto missing = Import(m, dir + "/elsewhere/model.onnx");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("weights.bin"), std::string::npos)
      << missing.status().message();
  EXPECT_EQ(missing.status().message().find('\n'), std::string::npos);

  // A location outside the model's directory is refused.
  w->mutable_external_data(0)->set_value("../weights.bin");
  auto outside = Import(m, dir + "/model.onnx");
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("inside the model's directory"), std::string::npos);

  // An offset or length with anything but digits is corrupt (std::stoll read
  // "4abc" as 4 and went on).
  w->mutable_external_data(0)->set_value("weights.bin");
  for (const char* bad : {"4abc", "-4", "", "99999999999999999999"}) {
    w->mutable_external_data(1)->set_value(bad);
    auto corrupt = Import(m, dir + "/model.onnx");
    ASSERT_FALSE(corrupt.ok()) << bad;
    EXPECT_NE(corrupt.status().message().find("initializer 'fc.weight' has a malformed offset '" +
                                              std::string(bad) + "'"),
              std::string::npos)
        << corrupt.status().message();
  }
}

TEST(OnnxTest, TruncatedAndCorruptFilesGiveOneLineErrors) {
  std::string bytes = LinearRelu().SerializeAsString();
  for (size_t cut : {size_t{1}, bytes.size() / 3, bytes.size() - 3}) {
    auto g = ImportModelContents(bytes.substr(0, cut), "cut.onnx");
    ASSERT_FALSE(g.ok()) << cut;
    EXPECT_EQ(g.status().message().rfind("cut.onnx: ", 0), 0u) << g.status().message();
    EXPECT_EQ(g.status().message().find('\n'), std::string::npos);
  }
}

// A PyTorch user's .onnx that is not a model is not reported as a bad GraphDef.
TEST(OnnxTest, ABareGraphProtoOrGarbageNamedOnnxIsSaidSo) {
  const std::string graph_only = LinearRelu().graph().SerializeAsString();
  EXPECT_TRUE(IsOnnxGraphProto(graph_only));
  auto g = ImportModelContents(graph_only, "graph.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message().rfind("graph.onnx: an ONNX GraphProto, not a model", 0), 0u)
      << g.status().message();
  auto junk = ImportModelContents(std::string("\x0a\xff\xff\x01junk", 8), "junk.onnx");
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.status().message(),
            "junk.onnx: not an ONNX model (an ONNX file starts with the ModelProto's ir_version) "
            "and not a binary GraphDef either");
  auto pb = ImportModelContents(std::string("\x0a\xff\xff\x01junk", 8), "junk.pb");
  ASSERT_FALSE(pb.ok());
  EXPECT_NE(pb.status().message().find("GraphDef"), std::string::npos);
}

TEST(OnnxTest, UnsupportedOpNamesTheNodeDomainAndOpset) {
  onnx::ModelProto m = Model(14);
  Input(&m, "x", {2, 2});
  AddNode(&m, "Shrink", {"x"}, {"y"}, "/act/Shrink");
  Output(&m, "y", {2, 2});
  auto g = Import(m);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kUnimplemented);
  const std::string& msg = g.status().message();
  EXPECT_NE(msg.find("'/act/Shrink' (Shrink, domain 'ai.onnx', opset 14)"), std::string::npos)
      << msg;
}

// The first untranslatable op used to hide the rest: a user fixed one, re-ran,
// and met the next.
TEST(OnnxTest, EveryOpTypeWithoutATranslationIsNamedAtOnce) {
  onnx::ModelProto m = Model(14);
  Input(&m, "x", {2, 2});
  AddNode(&m, "Shrink", {"x"}, {"a"}, "/act/Shrink");
  AddNode(&m, "Hardmax", {"a"}, {"b"}, "/hm/Hardmax");
  AddNode(&m, "Hardmax", {"b"}, {"c"}, "/hm2/Hardmax");
  AddNode(&m, "Relu", {"c"}, {"y"}, "/act/Relu");
  Output(&m, "y", {2, 2});
  EXPECT_EQ(Import(m).status().message(),
            "m.onnx: node '/act/Shrink' (Shrink, domain 'ai.onnx', opset 14): op has no "
            "translation; also without one: Hardmax (2 nodes) (build/bench/onnx_conformance "
            "--ops lists the supported ops)");
}

TEST(OnnxTest, OpsetNewerThanSupportedIsRefused) {
  auto g = Import(LinearRelu(kMaxOnnxOpset + 1));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("opset 18 is newer than 17"), std::string::npos)
      << g.status().message();
  // 2^32 + 13 was cut to an int, opset 13, while libonnx read it whole.
  EXPECT_EQ(Import(LinearRelu(0)).status().message(),
            "m.onnx: opset 0 is older than 1, the oldest this planner reads");
  onnx::ModelProto wide = LinearRelu();
  wide.mutable_opset_import(0)->set_version((int64_t{1} << 32) + 13);
  EXPECT_EQ(Import(wide).status().message(),
            "m.onnx: opset 4294967309 is newer than 17, the newest this planner reads");
}

TEST(OnnxTest, ControlFlowIsRefusedInOneLine) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {1});
  onnx::TensorProto* cond = m.mutable_graph()->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(onnx::TensorProto::BOOL);
  cond->add_int32_data(1);
  onnx::NodeProto* n = AddNode(&m, "If", {"cond"}, {"y"}, "/branch/If");
  for (const char* branch : {"then_branch", "else_branch"}) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* body = a->mutable_g();
    body->set_name(branch);
    onnx::NodeProto* id = body->add_node();
    id->set_op_type("Identity");
    id->add_input("x");
    id->add_output(std::string(branch) + "_y");
    onnx::ValueInfoProto* o = body->add_output();
    o->set_name(std::string(branch) + "_y");
    o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    o->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(1);
  }
  Output(&m, "y", {1});
  auto g = Import(m);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("control flow is not supported"), std::string::npos)
      << g.status().message();
}

TEST(OnnxTest, AGraphInputOrOutputWithoutTypeOrShapeIsNamed) {
  onnx::ModelProto in = LinearRelu();
  in.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  EXPECT_EQ(Import(in).status().message(),
            "m.onnx: graph input 'x' has no shape (ONNX requires one on the graph's inputs and "
            "outputs; give it with --input-shape x=D0,D1,...)");
  onnx::ModelProto m = LinearRelu();
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  auto g = Import(m);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message().rfind("m.onnx: graph output 'y' has no shape", 0), 0u)
      << g.status().message();
  m.mutable_graph()->mutable_output(0)->clear_type();
  g = Import(m);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "m.onnx: graph output 'y' has no type (ONNX requires one)");
}

TEST(OnnxTest, OpsOfOtherDomainsAreRefused) {
  onnx::ModelProto m = LinearRelu();
  onnx::OperatorSetIdProto* o = m.add_opset_import();
  o->set_domain("com.microsoft");
  o->set_version(1);
  m.mutable_graph()->mutable_node(1)->set_domain("com.microsoft");
  m.mutable_graph()->mutable_node(1)->set_op_type("FusedGelu");
  auto g = Import(m);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("domain 'com.microsoft'"), std::string::npos)
      << g.status().message();
}

TEST(OnnxTest, AnInputNothingMakesIsNamedApartFromAMisorderedOne) {
  onnx::ModelProto m = LinearRelu();
  m.mutable_graph()->mutable_node(1)->set_input(0, "never_made");
  EXPECT_EQ(Import(m).status().message(),
            "m.onnx: node '/act/Relu' (Relu): input 'never_made' is made by no node and is no "
            "initializer or graph input");
}

// What only ONNX's checker refuses (an output written twice: not SSA) is one
// line naming the file, in the checker's words.
TEST(OnnxTest, WhatOnlyTheCheckerRefusesIsOneLineNamingTheFile) {
  onnx::ModelProto m = LinearRelu();
  m.mutable_graph()->mutable_node(1)->set_output(0, m.graph().node(0).output(0));
  const std::string said = Import(m).status().message();
  EXPECT_EQ(said.rfind("m.onnx: not a valid ONNX model: ", 0), 0u) << said;
  EXPECT_NE(said.find(m.graph().node(0).output(0)), std::string::npos) << said;
  EXPECT_EQ(said.find('\n'), std::string::npos) << said;
}

// What ONNX's checker said in its own words ("No Op registered for FooBar with
// domain_version of 13 ==> Context: Bad node spec for node. Name: ...", "Your
// model ir_version is higher than the checker's."), said in ours.
TEST(OnnxTest, WhatTheCheckerRefusesIsSaidInOurWordsNamingTheNode) {
  onnx::ModelProto unknown = LinearRelu();
  unknown.mutable_graph()->mutable_node(1)->set_op_type("FooBar");
  EXPECT_EQ(Import(unknown).status().message(),
            "m.onnx: node '/act/Relu' (FooBar): ONNX defines no op 'FooBar' at opset 13");
  onnx::ModelProto unsorted = LinearRelu();
  unsorted.mutable_graph()->mutable_node()->SwapElements(0, 1);
  EXPECT_EQ(Import(unsorted).status().message(),
            "m.onnx: node '/act/Relu' (Relu): input 'h' is made by no earlier node (ONNX lists "
            "nodes in topological order)");
  onnx::ModelProto newer = LinearRelu();
  newer.set_ir_version(99);
  EXPECT_EQ(Import(newer).status().message(),
            "m.onnx: ONNX IR version 99 is newer than 8, the newest this planner reads");
}

// A negative size was read as unknown and then bound to --batch; sizes whose
// product overflows made a tensor of no elements and a step of 0 ms.
TEST(OnnxTest, InputSizesNoTensorCanHaveAreRefused) {
  onnx::ModelProto negative = LinearRelu();
  negative.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(-5);
  EXPECT_EQ(Import(negative).status().message(),
            "m.onnx: graph input 'x' has size -5 in dimension 1");
  onnx::ModelProto huge = LinearRelu();
  auto* shape = huge.mutable_graph()
                    ->mutable_input(0)
                    ->mutable_type()
                    ->mutable_tensor_type()
                    ->mutable_shape();
  shape->mutable_dim(0)->set_dim_value(int64_t{1} << 40);
  shape->mutable_dim(1)->set_dim_value(int64_t{1} << 40);
  EXPECT_EQ(Import(huge).status().message(),
            "m.onnx: graph input 'x' of shape [1099511627776,1099511627776] has more elements "
            "than 2^63");
}

// Every node was pruned and the input listed as the output, silently.
TEST(OnnxTest, AGraphWithoutOutputsIsRefused) {
  onnx::ModelProto m = LinearRelu();
  m.mutable_graph()->clear_output();
  EXPECT_EQ(Import(m).status().message(), "m.onnx: the ONNX model's graph has no outputs");
}

TEST(OnnxTest, UnusedNodesArePruned) {
  onnx::ModelProto m = LinearRelu();
  AddNode(&m, "Neg", {"h"}, {"dangling"}, "/unused/Neg");
  auto g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->Find("unused/Neg"), -1);
}

TEST(OnnxTest, SupportedOpsMarkWhatTrainingDoesNotDifferentiate) {
  bool saw_argmax = false, saw_conv = false;
  for (const OnnxOpInfo& op : SupportedOnnxOps()) {
    if (op.op == "ArgMax") saw_argmax = !op.differentiable;
    if (op.op == "Conv") saw_conv = op.differentiable;
  }
  EXPECT_TRUE(saw_argmax);
  EXPECT_TRUE(saw_conv);
}

TEST(OnnxTest, ReadsTensorFiles) {
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(3);
  for (int64_t v : {7, -1, 4}) t.add_int64_data(v);
  const std::string path = planner_test::ScratchDir() + "/tensor.pb";
  ASSERT_TRUE(WriteFileAtomic(path, t.SerializeAsString()).ok());
  std::string name;
  auto r = ReadOnnxTensor(path, &name);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(name, "w");
  EXPECT_EQ(r->ToInt64s(), (std::vector<int64_t>{7, -1, 4}));
  // Claimed size and data disagree: an error, not a read past the end.
  t.add_dims(2);
  ASSERT_TRUE(WriteFileAtomic(path, t.SerializeAsString()).ok());
  EXPECT_FALSE(ReadOnnxTensor(path).ok());
}

// ---- Crafted files: each was a crash, a hang or gigabytes before its fix ----

// GatherElements, ScatterElements and Trilu become GatherNd, ScatterNd and a
// select by constants made at import (their values are checked by ONNX's own
// backend tests, bench/onnx_conformance): what those constants cannot be made
// from is refused in one line naming the node.
TEST(OnnxTest, ElementIndexOpsRefuseWhatTheirConstantsCannotBeMadeFrom) {
  auto refusal = [](const onnx::ModelProto& m) { return Import(m).status().message(); };
  {  // indices whose shape is only known at run time
    onnx::ModelProto m = Model(13);
    Input(&m, "x", {4, 3});
    crafted::TypedInput(&m, "i", {-1, 3}, onnx::TensorProto::INT64);
    AddNode(&m, "GatherElements", {"x", "i"}, {"y"});
    Output(&m, "y", {-1, 3});
    EXPECT_EQ(
        refusal(m),
        "m.onnx: node '/GatherElements' (GatherElements, opset 13): indices of unknown shape");
  }
  {  // a known index past the axis
    onnx::ModelProto m = Model(13);
    Input(&m, "x", {4, 3});
    onnx::TensorProto* i = m.mutable_graph()->add_initializer();
    i->set_name("i");
    i->set_data_type(onnx::TensorProto::INT64);
    i->add_dims(1);
    i->add_dims(3);
    for (int64_t v : {0, 4, -5}) i->add_int64_data(v);
    AddNode(&m, "GatherElements", {"x", "i"}, {"y"});
    Output(&m, "y", {1, 3});
    EXPECT_EQ(refusal(m),
              "m.onnx: node '/GatherElements' (GatherElements): index 4 is out of range for a dim "
              "of 4");
  }
  {  // a reduction the IR has no scatter for
    onnx::ModelProto m = Model(16);
    Input(&m, "x", {4, 3});
    crafted::TypedInput(&m, "i", {2, 3}, onnx::TensorProto::INT64);
    Input(&m, "u", {2, 3});
    AddNode(&m, "ScatterElements", {"x", "i", "u"}, {"y"})->add_attribute()->CopyFrom([] {
      onnx::AttributeProto a;
      a.set_name("reduction");
      a.set_type(onnx::AttributeProto::STRING);
      a.set_s("mul");
      return a;
    }());
    Output(&m, "y", {4, 3});
    EXPECT_EQ(refusal(m),
              "m.onnx: node '/ScatterElements' (ScatterElements, opset 16): reduction 'mul' (only "
              "'none' and 'add')");
  }
  {  // a diagonal known only at run time
    onnx::ModelProto m = Model(14);
    Input(&m, "x", {4, 4});
    crafted::TypedInput(&m, "k", {}, onnx::TensorProto::INT64);
    m.mutable_graph()->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape();
    AddNode(&m, "Trilu", {"x", "k"}, {"y"});
    Output(&m, "y", {4, 4});
    EXPECT_EQ(refusal(m),
              "m.onnx: node '/Trilu' (Trilu, opset 14): k (input 'k') must be a constant");
  }
}

// A pad to a computed size, as torch.onnx writes F.pad(x, (0, p)) for Swin's
// windows: p from Python's Mod, the pads list completed by ConstantOfShape,
// reversed in pairs (Reshape, Slice with step -1, Transpose) into ONNX's
// order. ONNX's shape inference does not follow it; the importer folds it,
// sizes the Pad's output, and so a Reshape to Shape(padded) gets a constant
// target (it was refused: "a computed shape whose length is unknown").
TEST(OnnxTest, APadToAComputedSizeIsFoldedAndSizesWhatFollows) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {1, 5, 3});
  auto ints = [&](const std::string& name, const std::vector<int64_t>& dims,
                  const std::vector<int64_t>& values) {
    onnx::TensorProto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
  };
  ints("minus5", {}, {-5});
  ints("four", {}, {4});
  ints("zero1", {1}, {0});
  ints("axis0", {1}, {0});
  ints("len4", {1}, {4});
  ints("pairs", {2}, {-1, 2});
  ints("last", {1}, {-1});
  ints("to_start", {1}, {INT64_MIN + 1});
  ints("minus1", {1}, {-1});
  ints("flat", {1}, {-1});
  AddNode(&m, "Mod", {"minus5", "four"}, {"p"});  // Python's: 3 (C's -1 would be refused)
  AddNode(&m, "Unsqueeze", {"p", "axis0"}, {"p1"});
  onnx::NodeProto* zeros = AddNode(&m, "ConstantOfShape", {"len4"}, {"rest"});
  zeros->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("value");
    a.set_type(onnx::AttributeProto::TENSOR);
    a.mutable_t()->set_data_type(onnx::TensorProto::INT64);
    a.mutable_t()->add_dims(1);
    a.mutable_t()->add_int64_data(0);
    return a;
  }());
  crafted::IntAttr(AddNode(&m, "Concat", {"zero1", "p1", "rest"}, {"torch_pads"}), "axis", 0);
  AddNode(&m, "Reshape", {"torch_pads", "pairs"}, {"by_dim"});  // [[0,3],[0,0],[0,0]]
  AddNode(&m, "Slice", {"by_dim", "last", "to_start", "axis0", "minus1"}, {"reversed"});
  crafted::IntsAttr(AddNode(&m, "Transpose", {"reversed"}, {"begin_end"}), "perm", {1, 0});
  AddNode(&m, "Reshape", {"begin_end", "flat"}, {"pads"});  // [0,0,0,0,0,3]
  AddNode(&m, "Pad", {"x", "pads"}, {"padded"});
  AddNode(&m, "Shape", {"padded"}, {"padded_shape"});
  AddNode(&m, "Reshape", {"padded", "padded_shape"}, {"y"});
  Output(&m, "y", {-1, -1, -1});
  auto g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  // The pads were folded into a constant: [[0, 0], [0, 0], [0, 3]] as TF's paddings.
  ASSERT_GE(g->Find("Pad/paddings"), 0);
  const Node& paddings = g->node(g->Find("Pad/paddings"));
  ASSERT_EQ(paddings.op, "Const");
  EXPECT_EQ(paddings.attr("value")->get<Tensor>()->ToInt64s(),
            (std::vector<int64_t>{0, 0, 0, 0, 0, 3}));
  EXPECT_TRUE(InferShapes(*g, {}).problems.empty());
  EXPECT_EQ(g->node(g->Find("y")).output_shapes[0].ToString(), "[1,5,6]");
}

// select_last_index reverses the input with a StridedSlice, whose 64-bit
// masks name every axis: a 64-D input shifted past them (undefined
// behaviour); it is refused as Slice refuses such a tensor.
TEST(OnnxTest, SelectLastIndexOnMoreDimensionsThanSliceTakesIsRefused) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", std::vector<int64_t>(64, 1));
  crafted::IntAttr(AddNode(&m, "ArgMax", {"x"}, {"y"}), "select_last_index", 1);
  onnx::ValueInfoProto* y = m.mutable_graph()->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  auto* dims = y->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int i = 0; i < 64; ++i) dims->add_dim()->set_dim_value(1);
  EXPECT_EQ(Import(m).status().message(),
            "m.onnx: node '/ArgMax' (ArgMax, opset 13): select_last_index on a tensor of rank "
            "above 32");
}

// Shape(scalar) is an empty vector; adding a scalar to it read element 0 of
// the empty vector while folding.
TEST(OnnxTest, FoldingAScalarWithAnEmptyVectorReadsNothingPastIt) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {});
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  onnx::TensorProto* one = m.mutable_graph()->add_initializer();
  one->set_name("one");
  one->set_data_type(onnx::TensorProto::INT64);
  one->add_int64_data(1);
  AddNode(&m, "Shape", {"x"}, {"s"});
  AddNode(&m, "Add", {"s", "one"}, {"t"});
  AddNode(&m, "ConstantOfShape", {"t"}, {"z"});
  AddNode(&m, "Add", {"x", "z"}, {"y"}, "/out/Add");
  Output(&m, "y", {});
  auto g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  InferShapes(*g);
  EXPECT_EQ(g->node(g->Find("y")).output_shapes[0].ToString(), "[]");
}

// A Squeeze of a one-element constant folded to a scalar even where its axes
// keep a dimension; the 1-D Slice of it after then did not fold, and the
// Reshape it gives a target to lost its sizes.
TEST(OnnxTest, FoldingASqueezeKeepsTheDimensionsItsAxesDoNotName) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {6});
  auto ints = [&](const std::string& name, const std::vector<int64_t>& dims, int64_t v) {
    onnx::TensorProto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    t->add_int64_data(v);
  };
  ints("c", {1, 1}, 6);
  ints("axes", {1}, 0);
  ints("zero", {1}, 0);
  ints("one", {1}, 1);
  AddNode(&m, "Squeeze", {"c", "axes"}, {"s"});
  AddNode(&m, "Slice", {"s", "zero", "one"}, {"t"});
  AddNode(&m, "Reshape", {"x", "t"}, {"y"}, "/out/Reshape");
  Output(&m, "y", {-1});
  auto g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  InferShapes(*g);
  EXPECT_EQ(g->node(g->Find("y")).output_shapes[0].ToString(), "[6]");
}

// Declared lengths are a file's numbers: a Slice's starts of 2^40 elements
// made 2^40 axes, a Reshape's target of 2^31 a shape of 16 GiB (or a
// length_error that ended the process).
TEST(OnnxTest, DeclaredLengthsOfSliceStartsAndReshapeTargetsAreBounded) {
  onnx::ModelProto slice = Model(13);
  Input(&slice, "x", {2, 3});
  crafted::TypedInput(&slice, "starts", {int64_t{1} << 40}, onnx::TensorProto::INT64);
  crafted::TypedInput(&slice, "ends", {int64_t{1} << 40}, onnx::TensorProto::INT64);
  AddNode(&slice, "Slice", {"x", "starts", "ends"}, {"y"});
  Output(&slice, "y", {-1, -1});
  EXPECT_EQ(Import(slice).status().message(),
            "m.onnx: node '/Slice' (Slice): starts of length 1099511627776 for an input of rank 2");
  onnx::ModelProto reshape = Model(14);
  Input(&reshape, "x", {2, 3});
  crafted::TypedInput(&reshape, "shape", {int64_t{1} << 31}, onnx::TensorProto::INT64);
  crafted::IntAttr(AddNode(&reshape, "Reshape", {"x", "shape"}, {"y"}), "allowzero", 1);
  Output(&reshape, "y", {-1, -1});
  EXPECT_EQ(Import(reshape).status().message(),
            "m.onnx: node '/Reshape' (Reshape): a target shape of length 2147483648 (a tensor has "
            "at most 254 dimensions)");
}

// ONNX's shape inference divides by these unchecked: SIGFPE, not an exception.
TEST(OnnxTest, AZeroStrideOrAHugeBlocksizeIsRefusedBeforeOnnxDividesByIt) {
  onnx::ModelProto pool = Model(13);
  Input(&pool, "x", {1, 1, 4, 4});
  onnx::NodeProto* p = AddNode(&pool, "MaxPool", {"x"}, {"y"});
  crafted::IntsAttr(p, "kernel_shape", {2, 2});
  crafted::IntsAttr(p, "strides", {1, 0});
  Output(&pool, "y", {-1, -1, -1, -1});
  EXPECT_EQ(Import(pool).status().message(),
            "m.onnx: node '/MaxPool' (MaxPool): attribute 'strides' holds 0 (1..65536 are read)");
  onnx::ModelProto d2s = Model(13);
  Input(&d2s, "x", {1, 8, 2, 2});
  crafted::IntAttr(AddNode(&d2s, "DepthToSpace", {"x"}, {"y"}), "blocksize", int64_t{1} << 32);
  Output(&d2s, "y", {-1, -1, -1, -1});
  EXPECT_EQ(Import(d2s).status().message(),
            "m.onnx: node '/DepthToSpace' (DepthToSpace): attribute 'blocksize' holds 4294967296 "
            "(1..65536 are read)");
}

// Resize's sizes went into an int32 constant: 2^32 + 2 became 2, silently.
TEST(OnnxTest, AResizeToSizesPastTheIrsRangeIsRefused) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {1, 3, 4, 4});
  onnx::TensorProto* sizes = m.mutable_graph()->add_initializer();
  sizes->set_name("sizes");
  sizes->set_data_type(onnx::TensorProto::INT64);
  sizes->add_dims(4);
  for (int64_t v : {int64_t{1}, int64_t{3}, (int64_t{1} << 32) + 2, (int64_t{1} << 32) + 2}) {
    sizes->add_int64_data(v);
  }
  AddNode(&m, "Resize", {"x", "", "", "sizes"}, {"y"});
  Output(&m, "y", {-1, -1, -1, -1});
  EXPECT_EQ(Import(m).status().message(),
            "m.onnx: node '/Resize' (Resize): output size 4294967298 (1..16777216 are read)");
}

// A recurrent cell's hidden size sized a mask made at import: 2^30 asked 12 GiB.
TEST(OnnxTest, ARecurrentCellsHiddenSizeIsBounded) {
  onnx::ModelProto m = DynamicBatchLstm();
  m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_i(int64_t{1} << 30);
  m.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(3)
      ->set_dim_value(int64_t{1} << 30);
  EXPECT_EQ(
      ImportOnnx(m.SerializeAsString(), "m.onnx", nullptr, {{"x", {3, 5, 2}}}).status().message(),
      "m.onnx: node '/lstm/LSTM' (LSTM, opset 13): hidden_size 1073741824 (at most 1048576)");
}

// Sizes in a file may be anything up to 2^63: a Flatten's or an older
// Softmax's product of them, a ConvTranspose's output size and a ceil-mode
// pool's padded size overflowed int64 (undefined behaviour; in practice a
// wrapped size that the step was then made with).
TEST(OnnxTest, FlatteningPast64BitsIsAnErrorNotAWrappedSize) {
  const int64_t big = int64_t{1} << 40;
  onnx::ModelProto flatten = Model(13);
  // An empty input (a 0 among its sizes) may have sizes whose product is not.
  Input(&flatten, "x", {0, big, big});
  crafted::IntAttr(AddNode(&flatten, "Flatten", {"x"}, {"y"}), "axis", 1);
  Output(&flatten, "y", {-1, -1});
  EXPECT_EQ(Import(flatten).status().message(),
            "m.onnx: node '/Flatten' (Flatten): flattening [0,1099511627776,1099511627776] at "
            "axis 1 makes a dimension past 2^63 - 1");
  onnx::ModelProto softmax = Model(11);
  Input(&softmax, "x", {0, big, big});
  crafted::IntAttr(AddNode(&softmax, "Softmax", {"x"}, {"y"}), "axis", 1);
  Output(&softmax, "y", {-1, -1, -1});
  EXPECT_EQ(Import(softmax).status().message(),
            "m.onnx: node '/Softmax' (Softmax): flattening "
            "[0,1099511627776,1099511627776] at axis 1 makes a dimension past 2^63 - 1");
  // A side with a 0 among its sizes is empty, however large the others.
  onnx::ModelProto empty = Model(13);
  Input(&empty, "x", {big, big, 0});
  crafted::IntAttr(AddNode(&empty, "Flatten", {"x"}, {"y"}), "axis", 0);
  Output(&empty, "y", {-1, -1});
  EXPECT_TRUE(Import(empty).ok()) << Import(empty).status().message();
  // Empty with a side of unknown size: a Reshape to {-1, 0} cannot size its
  // -1, so the import says so rather than the step failing.
  onnx::ModelProto open = Model(13);
  Input(&open, "x", {-1, 0, 3});
  crafted::IntAttr(AddNode(&open, "Flatten", {"x"}, {"y"}), "axis", 1);
  Output(&open, "y", {-1, -1});
  EXPECT_NE(Import(open).status().message().find(
                "flattening an empty tensor with a side of unknown size"),
            std::string::npos)
      << Import(open).status().message();
  // So is an older Softmax's, over an empty dimension ({-1, 0}).
  onnx::ModelProto empty_softmax = Model(11);
  Input(&empty_softmax, "x", {2, 0, 3});
  crafted::IntAttr(AddNode(&empty_softmax, "Softmax", {"x"}, {"y"}), "axis", 1);
  Output(&empty_softmax, "y", {-1, -1, -1});
  EXPECT_NE(Import(empty_softmax).status().message().find("softmax over an empty dimension"),
            std::string::npos)
      << Import(empty_softmax).status().message();
}

TEST(OnnxTest, AConvTransposeOutputOrPaddingOutOfRangeIsAnError) {
  auto model = [](int64_t in, int64_t output_padding, int64_t pad) {
    onnx::ModelProto m = Model(13);
    Input(&m, "x", {1, 1, in, 2});
    Initializer(&m, "w", {1, 1, 3, 3}, 1.0f);
    onnx::NodeProto* n = AddNode(&m, "ConvTranspose", {"x", "w"}, {"y"});
    crafted::IntsAttr(n, "strides", {65536, 2});
    crafted::IntsAttr(n, "output_padding", {output_padding, 0});
    crafted::IntsAttr(n, "pads", {pad, 0, 1, 0});
    Output(&m, "y", {-1, -1, -1, -1});
    return m;
  };
  EXPECT_EQ(Import(model(int64_t{1} << 61, 0, 0)).status().message(),
            "m.onnx: node '/ConvTranspose' (ConvTranspose): the output's spatial size is not from "
            "1 to 2^63 - 1");
  EXPECT_EQ(Import(model(2, 0, int64_t{1} << 62)).status().message(),
            "m.onnx: node '/ConvTranspose' (ConvTranspose): the output's spatial size is not from "
            "1 to 2^63 - 1");
  EXPECT_EQ(Import(model(2, -1, 0)).status().message(),
            "m.onnx: node '/ConvTranspose' (ConvTranspose): output_padding -1 is not from 0 to "
            "below the stride or the dilation");
  EXPECT_TRUE(Import(model(2, 1, 0)).ok()) << Import(model(2, 1, 0)).status().message();
}

// SAME_LOWER's padding is a kernel's dilated window less a stride: a kernel
// of 2^50 dilated 2^16 times is 2^66.
TEST(OnnxTest, SameLowerPaddingPast64BitsIsAnError) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {1, 1, 4, 4});
  Input(&m, "w", {1, 1, int64_t{1} << 50, 1});
  onnx::NodeProto* p = AddNode(&m, "Conv", {"x", "w"}, {"y"});
  crafted::IntsAttr(p, "dilations", {65536, 1});
  onnx::AttributeProto* pad = p->add_attribute();
  pad->set_name("auto_pad");
  pad->set_type(onnx::AttributeProto::STRING);
  pad->set_s("SAME_LOWER");
  Output(&m, "y", {-1, -1, -1, -1});
  EXPECT_EQ(Import(m).status().message(),
            "m.onnx: node '/Conv' (Conv): auto_pad SAME_LOWER pads past 2^63");
}

TEST(OnnxTest, ACeilModePoolPaddedPast64BitsIsAnError) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {1, 1, 4, 4});
  onnx::NodeProto* p = AddNode(&m, "MaxPool", {"x"}, {"y"});
  crafted::IntsAttr(p, "kernel_shape", {2, 2});
  crafted::IntsAttr(p, "pads", {int64_t{1} << 62, 0, int64_t{1} << 62, 0});
  crafted::IntAttr(p, "ceil_mode", 1);
  Output(&m, "y", {-1, -1, -1, -1});
  EXPECT_EQ(Import(m).status().message(),
            "m.onnx: node '/MaxPool' (MaxPool): the padded input's size is past 2^63 - 1");
}

// ONNX does not require node names to be unique. Each was named by trying
// n_1, n_2, ... in turn, quadratic in the number of nodes of one name; now a
// counter per name goes on from the last suffix taken. (Its speed is not what
// this checks: that the names stay distinct and in order.)
TEST(OnnxTest, ManyNodesOfOneNameGetDistinctNames) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {2});
  std::string last = "x";
  for (int i = 0; i < 3000; ++i) {
    const std::string out = "v" + std::to_string(i);
    AddNode(&m, "Relu", {last}, {out}, "n");
    last = out;
  }
  Output(&m, last, {2});
  auto g = Import(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_NE(g->Find("n"), -1);
  EXPECT_NE(g->Find("n_1"), -1);
  EXPECT_NE(g->Find("n_2999"), -1);
}

}  // namespace
}  // namespace graph
