// The ONNX importer's neural-network rules (graph/onnx_ops_nn.cc) on models
// written with ONNX's own schema: how 3-D convolutions and pools become TF's
// 3-D ops (which pad SAME or VALID only), and what batch normalisation trains.
// Their values are checked against PyTorch (bench/onnx_pytorch_parity's
// video3d) and ONNX's own backend tests (bench/onnx_conformance).
#include <gtest/gtest.h>

#include "graph/shape_inference.h"
#include "graph/training.h"
#include "tests/graph/onnx_model_builder.h"

namespace graph {
namespace {

using namespace onnx_test;  // NOLINT: the model builders these tests are written in

// The imported graph with shapes inferred, or the import's error.
Result<Graph> ImportInferred(const onnx::ModelProto& m) {
  auto g = Import(m);
  if (g.ok()) InferShapes(*g);
  return g;
}

const Node& Named(const Graph& g, const std::string& name) {
  const NodeId id = g.Find(name);
  EXPECT_GE(id, 0) << "no node " << name;
  return g.node(id >= 0 ? id : 0);
}

TEST(OnnxNnTest, A3dConvolutionsPadsAreTfsSameOrAPadNodeBeforeAValidWindow) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {1, 2, 6, 8, 8});
  Initializer(&m, "w1", {4, 2, 3, 3, 3}, 0.0f);
  Initializer(&m, "w2", {4, 4, 3, 7, 7}, 0.0f);
  Initializer(&m, "b2", {4}, 0.0f);
  // Pads 1 around a 3-wide window at stride 1: TF's SAME.
  onnx::NodeProto* c1 = AddNode(&m, "Conv", {"x", "w1"}, {"h"}, "/c1/Conv");
  crafted::IntsAttr(c1, "pads", {1, 1, 1, 1, 1, 1});
  // Pads 3 around a 7-wide window at stride 2 on 8: SAME would pad 2 and 3.
  onnx::NodeProto* c2 = AddNode(&m, "Conv", {"h", "w2", "b2"}, {"y"}, "/c2/Conv");
  crafted::IntsAttr(c2, "pads", {1, 3, 3, 1, 3, 3});
  crafted::IntsAttr(c2, "strides", {1, 2, 2});
  Output(&m, "y", {1, 4, 6, 4, 4});
  auto g = ImportInferred(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Node& first = Named(*g, "c1/Conv");
  EXPECT_EQ(first.op, "Conv3D");
  EXPECT_EQ(first.attr_string("padding", ""), "SAME");
  EXPECT_EQ(first.attr_string("data_format", ""), "NCDHW");
  EXPECT_EQ(g->node(first.inputs[0].node).name, "x");
  const Node& second = Named(*g, "c2/Conv/conv");
  EXPECT_EQ(second.attr_string("padding", ""), "VALID");
  EXPECT_EQ(g->node(second.inputs[0].node).op, "Pad");
  EXPECT_EQ(Named(*g, "c2/Conv").output_shapes[0], Shape({1, 4, 6, 4, 4}));
}

TEST(OnnxNnTest, A3dPoolsPaddingIsTfsSamePaddedFirstOrRefusedInOneLine) {
  auto pool = [](const char* op, std::vector<int64_t> pads, int64_t stride, int count_pad) {
    onnx::ModelProto m = Model(13);
    Input(&m, "x", {1, 2, 10, 8, 8});
    onnx::NodeProto* p = AddNode(&m, op, {"x"}, {"y"});
    crafted::IntsAttr(p, "kernel_shape", {3, 3, 3});
    crafted::IntsAttr(p, "strides", {stride, stride, stride});
    crafted::IntsAttr(p, "pads", pads);
    if (count_pad >= 0) crafted::IntAttr(p, "count_include_pad", count_pad);
    Output(&m, "y", {-1, -1, -1, -1, -1});
    return ImportInferred(m);
  };
  const std::vector<int64_t> ones(6, 1);
  // Max, stride 2: SAME would pad 0 and 1; the input is padded with -inf first.
  auto max = pool("MaxPool", ones, 2, -1);
  ASSERT_TRUE(max.ok()) << max.status().message();
  const Node& m = Named(*max, "MaxPool");
  EXPECT_EQ(m.op, "MaxPool3D");
  EXPECT_EQ(m.attr_string("padding", ""), "VALID");
  EXPECT_EQ(max->node(m.inputs[0].node).op, "PadV2");
  EXPECT_EQ(m.output_shapes[0], Shape({1, 2, 5, 4, 4}));
  // Average leaving the padding out of its count at stride 1: TF's SAME.
  auto same = pool("AveragePool", ones, 1, 0);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(Named(*same, "AveragePool").attr_string("padding", ""), "SAME");
  // Counting it: zeros padded first.
  auto counted = pool("AveragePool", ones, 2, 1);
  ASSERT_TRUE(counted.ok()) << counted.status().message();
  const Node& a = Named(*counted, "AveragePool");
  EXPECT_EQ(counted->node(a.inputs[0].node).op, "Pad");
  EXPECT_EQ(a.output_shapes[0], Shape({1, 2, 5, 4, 4}));
  // Not counting pads that are not SAME's: TF has no such 3-D pool.
  auto refused = pool("AveragePool", ones, 2, 0);
  EXPECT_EQ(refused.status().message(),
            "m.onnx: node '/AveragePool' (AveragePool, opset 13): 3-D average pooling with pads "
            "other than SAME's, left out of the count");
}

TEST(OnnxNnTest, A3dConvTransposeIsTheFullValidGradientCroppedByItsPads) {
  onnx::ModelProto m = Model(13);
  Input(&m, "x", {1, 4, 3, 3, 3});
  Initializer(&m, "w", {4, 2, 3, 3, 3}, 0.0f);
  onnx::NodeProto* t = AddNode(&m, "ConvTranspose", {"x", "w"}, {"y"});
  crafted::IntsAttr(t, "strides", {2, 2, 2});
  crafted::IntsAttr(t, "pads", {1, 1, 1, 1, 1, 1});
  crafted::IntsAttr(t, "output_padding", {1, 1, 1});
  Output(&m, "y", {-1, -1, -1, -1, -1});
  auto g = ImportInferred(m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  // (3 - 1) * 2 + 3 + 1 = 8 in full, less a pad each side: 6.
  const Node& grad = Named(*g, "ConvTranspose/conv");
  EXPECT_EQ(grad.op, "Conv3DBackpropInputV2");
  EXPECT_EQ(grad.output_shapes[0], Shape({1, 2, 8, 8, 8}));
  const Node& crop = Named(*g, "ConvTranspose");
  EXPECT_EQ(crop.op, "Slice");
  EXPECT_EQ(crop.output_shapes[0], Shape({1, 2, 6, 6, 6}));
}

// A Resize of 5-D NCDHW (nn.Upsample's trilinear and nearest) is TF's 2-D
// resize twice: height and width as planes, then depth; a pass whose sizes do
// not change is left out. The scales come as a Concat of two Constants, as
// PyTorch writes them: folded at import.
TEST(OnnxNnTest, A3dResizeIsTwoSeparable2dResizesOfItsScalesFoldedAtImport) {
  auto resize = [](const std::string& mode, std::vector<float> spatial) {
    onnx::ModelProto m = Model(13);
    Input(&m, "x", {2, 3, 4, 5, 6});
    auto constant = [&](const std::string& name, const std::vector<float>& v) {
      onnx::NodeProto* k = AddNode(&m, "Constant", {}, {name}, "/" + name);
      onnx::AttributeProto* a = k->add_attribute();
      a->set_name("value");
      a->set_type(onnx::AttributeProto::TENSOR);
      onnx::TensorProto* t = a->mutable_t();
      t->set_data_type(onnx::TensorProto::FLOAT);
      t->add_dims(static_cast<int64_t>(v.size()));
      for (float f : v) t->add_float_data(f);
    };
    constant("batch_channels", {1, 1});
    constant("spatial", spatial);
    crafted::IntAttr(AddNode(&m, "Concat", {"batch_channels", "spatial"}, {"scales"}), "axis", 0);
    onnx::NodeProto* r = AddNode(&m, "Resize", {"x", "", "scales"}, {"y"});
    // What PyTorch writes for interpolate(mode="nearest"); half-pixel for linear.
    const bool nearest = mode == "nearest";
    for (const auto& [name, value] :
         {std::pair<std::string, std::string>{"mode", mode},
          {"coordinate_transformation_mode", nearest ? "asymmetric" : "half_pixel"},
          {"nearest_mode", "floor"}}) {
      onnx::AttributeProto* a = r->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(value);
    }
    Output(&m, "y", {-1, -1, -1, -1, -1});
    return ImportInferred(m);
  };
  auto count = [](const Graph& g, const std::string& op) {
    int n = 0;
    for (const Node& node : g.nodes()) n += node.op == op;
    return n;
  };
  auto linear = resize("linear", {2, 2, 2});
  ASSERT_TRUE(linear.ok()) << linear.status().message();
  EXPECT_EQ(count(*linear, "ResizeBilinear"), 2);
  EXPECT_EQ(Named(*linear, "Resize").output_shapes[0], Shape({2, 3, 8, 10, 12}));
  auto nearest = resize("nearest", {1, 2, 2});
  ASSERT_TRUE(nearest.ok()) << nearest.status().message();
  EXPECT_EQ(count(*nearest, "ResizeNearestNeighbor"), 1);
  EXPECT_EQ(Named(*nearest, "Resize").output_shapes[0], Shape({2, 3, 4, 10, 12}));
  EXPECT_EQ(resize("cubic", {2, 2, 2}).status().message(),
            "m.onnx: node '/Resize' (Resize, opset 13): mode 'cubic'");
}

// BatchNorm1d's input is 3-D: the affine form, whose running statistics are
// inputs to arithmetic like any other; the training graph updated them.
TEST(OnnxNnTest, BatchNormOfAnyRankTrainsItsScaleAndOffsetNotItsStatistics) {
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{2, 4, 5}, {2, 4, 3, 3}, {2, 4, 2, 3, 3}}) {
    onnx::ModelProto m = Model(13);
    Input(&m, "x", dims);
    for (const char* p : {"bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"}) {
      Initializer(&m, p, {4}, 1.0f);
    }
    AddNode(&m, "BatchNormalization",
            {"x", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"}, {"y"});
    Output(&m, "y", dims);
    auto g = ImportInferred(m);
    ASSERT_TRUE(g.ok()) << g.status().message();
    auto train = BuildTrainingGraph(*g, {});
    ASSERT_TRUE(train.ok()) << train.status().message();
    std::vector<std::string> trained;
    for (NodeId p : train->parameters) trained.push_back(train->graph.node(p).name);
    std::sort(trained.begin(), trained.end());
    EXPECT_EQ(trained, (std::vector<std::string>{"bn.bias", "bn.weight"})) << dims.size() << "-D";
  }
}

// A model exported in train mode: batch norm by the batch's statistics (TF's
// FusedBatchNormV3 with is_training); its running statistics' outputs, when
// read, are the momentum-weighted update, and still only the scale and offset
// train.
TEST(OnnxNnTest, ATrainingModeBatchNormNormalisesByTheBatchAndTrainsOnlyItsScaleAndOffset) {
  auto model = [](const std::vector<int64_t>& dims) {
    onnx::ModelProto m = Model(15);
    Input(&m, "x", dims);
    for (const char* p : {"bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"}) {
      Initializer(&m, p, {4}, 1.0f);
    }
    onnx::NodeProto* bn = AddNode(
        &m, "BatchNormalization",
        {"x", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"}, {"y", "mean", "var"});
    crafted::IntAttr(bn, "training_mode", 1);
    Output(&m, "y", dims);
    Output(&m, "mean", {4});
    return ImportInferred(m);
  };
  auto g = model({2, 4, 3, 3});
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Node& bn = Named(*g, "BatchNormalization");
  EXPECT_EQ(bn.op, "FusedBatchNormV3");
  EXPECT_TRUE(bn.attr_bool("is_training", false));
  EXPECT_EQ(Named(*g, "BatchNormalization/running_mean").output_shapes[0], Shape({4}));
  auto train = BuildTrainingGraph(*g, {});
  ASSERT_TRUE(train.ok()) << train.status().message();
  std::vector<std::string> trained;
  for (NodeId p : train->parameters) trained.push_back(train->graph.node(p).name);
  std::sort(trained.begin(), trained.end());
  EXPECT_EQ(trained, (std::vector<std::string>{"bn.bias", "bn.weight"}));
  EXPECT_EQ(model({2, 4, 5}).status().message(),
            "m.onnx: node '/BatchNormalization' (BatchNormalization, opset 15): training-mode "
            "batch normalization of other than a 4-D or 5-D float input");
}

// Dropout in a model exported in train mode: the input times a mask of a
// RandomUniform at least the ratio, scaled by 1 / (1 - ratio) (the mask's
// statistics are RandomKernelsTest's); a seeded one is refused, as its mask is
// ONNX's generator's.
TEST(OnnxNnTest, ATrainingModeDropoutMasksByAUniformDrawAtLeastItsRatio) {
  auto model = [](bool seeded) {
    onnx::ModelProto m = Model(13);
    Input(&m, "x", {4, 8});
    Initializer(&m, "ratio", {}, 0.25f);
    onnx::TensorProto* t = m.mutable_graph()->add_initializer();
    t->set_name("training");
    t->set_data_type(onnx::TensorProto::BOOL);
    t->add_int32_data(1);
    onnx::NodeProto* d = AddNode(&m, "Dropout", {"x", "ratio", "training"}, {"y", "mask"});
    if (seeded) crafted::IntAttr(d, "seed", 3);
    Output(&m, "y", {4, 8});
    return ImportInferred(m);
  };
  auto g = model(false);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Node& keep = Named(*g, "Dropout/keep");
  EXPECT_EQ(keep.op, "GreaterEqual");
  EXPECT_EQ(g->node(keep.inputs[0].node).op, "RandomUniform");
  const Node& y = Named(*g, "Dropout");
  EXPECT_EQ(y.op, "Mul");
  EXPECT_EQ(y.output_shapes[0], Shape({4, 8}));
  EXPECT_EQ(model(true).status().message(),
            "m.onnx: node '/Dropout' (Dropout, opset 13): training-mode Dropout with a seed");
}

}  // namespace
}  // namespace graph
