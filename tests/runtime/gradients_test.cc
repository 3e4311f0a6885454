// For every op type with a gradient rule: the gradients a training graph computes
// (graph/gradients.cc rules + gradient kernels) match LibTorch autograd run
// through the forward kernels on the same computation, within 1e-4 relative.
// This file has the harness and the cases of gradients.cc's own rules; the
// cases of gradient_rules_math.cc and gradient_rules_array.cc have files of
// their names.
#include "graph/gradients.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <set>

#include "graph/cost.h"
#include "graph/graphdef.h"
#include "graph/training.h"
#include "runtime/reference_executor.h"
#include "tests/runtime/gradient_check.h"

namespace runtime::gradient_check {

std::vector<Case> CoreCases() {
  std::string x4 = X({2, 5, 5, 3});
  return {
      {"Elementwise",
       {"Relu", "Tanh", "Sigmoid", "Neg", "Abs", "Square", "Identity", "Snapshot"},
       X({4, 6}) + W("w", {4, 6}) + N("m", "Mul", {"x", "w"}) + N("r", "Relu", {"m"}) +
           N("t", "Tanh", {"m"}) + N("s", "Sigmoid", {"r"}) + N("n", "Neg", {"t"}) +
           N("a", "Abs", {"m"}) + N("q", "Square", {"a"}) + N("i", "Identity", {"q"}) +
           N("sn", "Snapshot", {"s"}) + N("y", "AddN", {"i", "sn", "n"}, A("N", "i: 3"))},
      {"Positive",
       {"Sqrt", "Rsqrt", "Exp", "Log", "RealDiv", "Div", "Relu6"},
       X({3, 4}) + W("w", {3, 4}) + N("m", "Mul", {"x", "w"}) + N("s", "Sqrt", {"m"}) +
           N("r", "Rsqrt", {"m"}) + N("e", "Exp", {"s"}) + N("l", "Log", {"r"}) +
           N("d", "RealDiv", {"e", "w"}) + N("d2", "Div", {"l", "x"}) + N("r6", "Relu6", {"d"}) +
           N("y", "AddV2", {"r6", "d2"}),
       true},
      {"Broadcasting",
       {"Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference", "AddN", "Cast",
        "StopGradient"},
       X({2, 3, 4}) + W("w", {4}) + W("v", {3, 1}) + N("a", "Add", {"x", "w"}) +
           N("b", "Sub", {"a", "v"}) + N("c", "Mul", {"b", "w"}) + N("mx", "Maximum", {"c", "v"}) +
           N("mn", "Minimum", {"c", "w"}) + N("sd", "SquaredDifference", {"mx", "w"}) +
           "node { name: 'cast' op: 'Cast' input: 'mn' attr { key: 'SrcT' value { type: DT_FLOAT } "
           "} attr { key: 'DstT' value { type: DT_FLOAT } } }\n" +
           N("sg", "StopGradient", {"c"}) + N("y", "AddN", {"sd", "cast", "sg"}, A("N", "i: 3"))},
      {"Dense",
       {"MatMul", "BiasAdd", "Softmax", "Sum", "Mean", "Reshape", "Squeeze", "ExpandDims"},
       X({4, 6}) + W("w", {6, 5}) + W("v", {5, 3}) + W("b", {3}) + I("ax", {1}) + I("sh", {2, 6}) +
           I("zero", {0}, true) + N("h", "MatMul", {"x", "w"}) +
           N("h2", "MatMul", {"h", "v"},
             A("transpose_a", "b: false") + A("transpose_b", "b: false")) +
           N("ba", "BiasAdd", {"h2", "b"}) + N("sm", "Softmax", {"ba"}) +
           N("su", "Sum", {"sm", "ax"}, A("keep_dims", "b: true")) + N("me", "Mean", {"ba", "ax"}) +
           N("rs", "Reshape", {"h2", "sh"}) + N("ex", "ExpandDims", {"me", "zero"}) +
           N("sq", "Squeeze", {"ex"}, A("squeeze_dims", Ints({0}))) + N("y1", "Mul", {"su", "sq"})},
      {"TransposedMatMul",
       {"MatMul"},
       X({6, 4}) + W("w", {5, 6}) +
           N("y", "MatMul", {"x", "w"}, A("transpose_a", "b: true") + A("transpose_b", "b: true"))},
      {"Conv",
       {"Conv2D", "MaxPool", "AvgPool", "_FusedConv2D"},
       x4 + W("w", {3, 3, 3, 4}) + W("w2", {2, 2, 4, 2}) + W("b", {2}) +
           N("c", "Conv2D", {"x", "w"}, Conv("SAME", 2)) +
           N("mp", "MaxPool", {"c"}, Conv("SAME", 1) + A("ksize", Ints({1, 2, 2, 1}))) +
           N("ap", "AvgPool", {"c"}, Conv("SAME", 2) + A("ksize", Ints({1, 2, 2, 1}))) +
           N("y", "_FusedConv2D", {"mp", "w2", "b"},
             Conv("VALID", 1) + A("fused_ops", "list { s: 'BiasAdd' s: 'Relu' }") +
                 A("num_args", "i: 1"))},
      // Input depth 4 on a filter of depth 2: two groups (a ResNeXt block), whose
      // input and filter gradients each refused or mis-sized the groups.
      {"GroupedConv",
       {"Conv2D"},
       X({2, 5, 5, 4}) + W("s", {4}) + W("w", {3, 3, 2, 6}) + N("m", "Mul", {"x", "s"}) +
           N("y", "Conv2D", {"m", "w"}, Conv("SAME", 2))},
      {"Depthwise",
       {"DepthwiseConv2dNative", "FusedDepthwiseConv2dNative"},
       x4 + W("w", {3, 3, 3, 2}) + W("w2", {3, 3, 6, 1}) + W("b", {6}) +
           N("d", "DepthwiseConv2dNative", {"x", "w"}, Conv("SAME", 2)) +
           N("y", "FusedDepthwiseConv2dNative", {"d", "w2", "b"},
             Conv("SAME", 1) + A("fused_ops", "list { s: 'BiasAdd' s: 'Relu6' }") +
                 A("num_args", "i: 1"))},
      {"TransposedConv",
       {"Conv2DBackpropInput"},
       X({1, 3, 3, 4}) + W("w", {3, 3, 2, 4}) + I("sizes", {1, 6, 6, 2}) +
           N("y", "Conv2DBackpropInput", {"sizes", "w", "x"}, Conv("SAME", 2))},
      // 3-D: SAME at stride 2 pads one more at the end (an asymmetric pad),
      // channels last and first, a grouped filter (input depth 4 on a filter of
      // depth 2), pools SAME and VALID.
      {"Conv3D",
       {"Conv3D", "MaxPool3D", "AvgPool3D"},
       X({2, 4, 5, 6, 3}) + W("w", {3, 3, 2, 3, 4}) + W("w2", {2, 1, 2, 2, 4}) +
           N("c", "Conv3D", {"x", "w"},
             A("padding", "s: 'SAME'") + A("strides", Ints({1, 2, 1, 2, 1})) +
                 A("dilations", Ints({1, 1, 2, 1, 1}))) +
           N("mp", "MaxPool3D", {"c"},
             A("padding", "s: 'SAME'") + A("strides", Ints({1, 1, 2, 1, 1})) +
                 A("ksize", Ints({1, 2, 3, 2, 1}))) +
           N("t", "Transpose", {"mp", "to_ncdhw"}) + I("to_ncdhw", {0, 4, 1, 2, 3}) +
           N("ap", "AvgPool3D", {"t"},
             A("padding", "s: 'SAME'") + A("strides", Ints({1, 1, 1, 2, 2})) +
                 A("ksize", Ints({1, 1, 2, 2, 3})) + A("data_format", "s: 'NCDHW'")) +
           N("y", "Conv3D", {"ap", "w2"},
             A("padding", "s: 'VALID'") + A("strides", Ints({1, 1, 1, 1, 1})) +
                 A("data_format", "s: 'NCDHW'"))},
      {"TransposedConv3D",
       {"Conv3DBackpropInputV2"},
       X({1, 2, 3, 3, 4}) + W("w", {3, 2, 3, 2, 4}) + I("sizes", {1, 4, 5, 6, 2}) +
           N("y", "Conv3DBackpropInputV2", {"sizes", "w", "x"},
             A("padding", "s: 'SAME'") + A("strides", Ints({1, 2, 2, 2, 1})))},
      {"Shapes",
       {"Pad", "ConcatV2", "Pack", "Unpack", "StridedSlice"},
       X({3, 4}) + W("w", {3, 4}) + I2("pads", {1, 0, 0, 2}) + I("axis", {1}, true) +
           I("b", {0, 0}) + I("e", {3, 8}) + I("s", {1, 2}) + N("m", "Mul", {"x", "w"}) +
           N("p", "Pad", {"m", "pads"}) + N("c", "ConcatV2", {"m", "x", "axis"}, A("N", "i: 2")) +
           N("pk", "Pack", {"m", "x"}, A("N", "i: 2") + A("axis", "i: 0")) +
           N("u", "Unpack", {"pk"}, A("num", "i: 2") + A("axis", "i: 0")) +
           N("ss", "StridedSlice", {"c", "b", "e", "s"}, A("Index", "type: DT_INT32")) +
           N("y", "AddV2", {"u", "ss"}) + N("y2", "Identity", {"p"}) + N("y3", "Neg", {"u:1"})},
      {"Gather",
       {"GatherNd", "ResizeBilinear"},
       X({1, 4, 4, 2}) + W("w", {1, 4, 4, 2}) + I("size", {6, 7}) +
           "node { name: 'idx' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { "
           "key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } dim { "
           "size: 3 } } int_val: 0 int_val: 1 int_val: 2 int_val: 0 int_val: 3 int_val: 3 "
           "int_val: 0 int_val: 1 int_val: 2 } } } }\n" +
           N("m", "Mul", {"x", "w"}) +
           N("g", "GatherNd", {"m", "idx"},
             A("Tparams", "type: DT_FLOAT") + A("Tindices", "type: DT_INT32")) +
           N("r", "ResizeBilinear", {"m", "size"}, A("half_pixel_centers", "b: true")) +
           N("r2", "ResizeBilinear", {"m", "size"}) +
           N("r3", "ResizeBilinear", {"m", "size"}, A("align_corners", "b: true"))},
      {"Embedding",
       {"GatherV2", "Split"},
       X({2, 3, 4}) + W("w", {6, 4}) + I("ax0", {0}, true) + I("ax2", {2}, true) +
           "node { name: 'ids' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr "
           "{ key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { "
           "size: 3 } } int_val: 0 int_val: 2 int_val: 2 int_val: 5 int_val: 1 int_val: 0 } } } "
           "}\n" +
           N("g", "GatherV2", {"w", "ids", "ax0"},
             A("Tparams", "type: DT_FLOAT") + A("Tindices", "type: DT_INT32") +
                 A("Taxis", "type: DT_INT32")) +
           N("m", "Mul", {"g", "x"}) + N("sp", "Split", {"ax2", "m"}, A("num_split", "i: 2")) +
           N("y", "Mul", {"sp", "sp:1"})},
      {"BatchNorm",
       {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"},
       X({2, 3, 3, 4}) + W("scale", {4}) + W("offset", {4}) + W("mean", {4}) + W("var", {4}) +
           N("bn", "FusedBatchNormV3", {"x", "scale", "offset", "mean", "var"},
             A("epsilon", "f: 0.001") + A("is_training", "b: true") + A("U", "type: DT_FLOAT")) +
           N("bn1", "FusedBatchNorm", {"bn", "scale", "offset", "mean", "var"},
             A("epsilon", "f: 0.01") + A("is_training", "b: true")) +
           N("y", "FusedBatchNormV2", {"bn1", "scale", "offset", "mean", "var"},
             A("epsilon", "f: 0.001") + A("is_training", "b: true") + A("U", "type: DT_FLOAT"))},
      // An eval-mode model's batch norm (ONNX imports of PyTorch models): the
      // statistics are inputs, held constant.
      {"InferenceBatchNorm",
       {"FusedBatchNormV3"},
       X({2, 4, 3, 3}) + W("scale", {4}) + W("offset", {4}) + W("mean", {4}) + W("var", {4}) +
           N("y", "FusedBatchNormV3", {"x", "scale", "offset", "mean", "var"},
             A("epsilon", "f: 0.001") + A("is_training", "b: false") +
                 A("data_format", "s: 'NCHW'") + A("U", "type: DT_FLOAT")),
       true,
       {"mean", "var"}},
      // Padding symmetric and at most half a window (SAME 3x3 at stride 1, and
      // VALID): MaxPoolGrad's fast path, PyTorch's own pooling backward, which
      // the cases around this one never took.
      {"SymmetricPool",
       {"MaxPool"},
       X({2, 5, 5, 3}) + W("w", {2, 5, 5, 3}) + N("m", "Mul", {"x", "w"}) +
           N("p", "MaxPool", {"m"}, Conv("SAME", 1) + A("ksize", Ints({1, 3, 3, 1}))) +
           N("y", "MaxPool", {"p"}, Conv("VALID", 2) + A("ksize", Ints({1, 2, 2, 1})))},
      // ONNX's explicit pads, symmetric (larger than PyTorch's pools take) and not.
      {"ExplicitPool",
       {"MaxPool", "AvgPool"},
       X({1, 2, 6, 5}) + W("w", {1, 2, 6, 5}) + N("m", "Mul", {"x", "w"}) +
           N("mp", "MaxPool", {"m"},
             A("ksize", Ints({1, 1, 3, 3})) + A("strides", Ints({1, 1, 2, 2})) +
                 A("padding", "s: 'EXPLICIT'") +
                 A("explicit_paddings", Ints({0, 0, 0, 0, 2, 2, 1, 1})) +
                 A("data_format", "s: 'NCHW'")) +
           N("y", "AvgPool", {"m"},
             A("ksize", Ints({1, 1, 2, 3})) + A("strides", Ints({1, 1, 1, 2})) +
                 A("padding", "s: 'EXPLICIT'") +
                 A("explicit_paddings", Ints({0, 0, 0, 0, 0, 1, 1, 0})) +
                 A("data_format", "s: 'NCHW'"))},
      {"BatchMatMul",
       {"BatchMatMulV2", "BatchMatMulV3"},
       X({2, 3, 4}) + W("w", {2, 4, 5}) + W("v", {2, 3, 5}) + N("m", "BatchMatMulV2", {"x", "w"}) +
           N("m2", "BatchMatMulV2", {"m", "v"}, A("adj_y", "b: true")) +
           N("m3", "BatchMatMulV3", {"m2", "m"},
             A("adj_x", "b: true") + A("Ta", "type: DT_FLOAT") + A("Tb", "type: DT_FLOAT") +
                 A("Tout", "type: DT_FLOAT")) +
           N("y", "BatchMatMulV2", {"m3", "m2"}, A("adj_x", "b: true") + A("adj_y", "b: true"))},
      {"BroadcastBatchMatMul",
       {"BatchMatMulV2"},
       X({2, 3, 4}) + W("w", {4, 5}) + W("v", {1, 5, 3}) + N("m", "BatchMatMulV2", {"x", "w"}) +
           N("y", "BatchMatMulV2", {"m", "v"})},
      {"GatherInnerAxis",
       {"GatherV2"},
       X({2, 5, 3}) + W("w", {2, 5, 3}) + I("ax1", {1}, true) +
           "node { name: 'ids' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr "
           "{ key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { "
           "size: 2 } } int_val: 4 int_val: 0 int_val: 4 int_val: 2 } } } }\n" +
           N("m", "Mul", {"x", "w"}) +
           N("g", "GatherV2", {"m", "ids", "ax1"},
             A("Tparams", "type: DT_FLOAT") + A("Tindices", "type: DT_INT32") +
                 A("Taxis", "type: DT_INT32"))},
      // oneDNN 2.7 crashed on the filter gradient of a strided 1x1 convolution on
      // channels-last tensors of this size (the gender model of human-models).
      {"StridedPointwiseConv",
       {"Conv2D"},
       X({1, 60, 60, 8}) + W("w", {1, 1, 8, 16}) + N("y", "Conv2D", {"x", "w"}, Conv("SAME", 2))},
      {"TensorFlowV1Ops",
       {"IdentityN", "Concat", "Gather", "BatchMatMul", "UnsortedSegmentSum", "OneHot"},
       X({3, 4}) + W("w", {3, 4}) + W("v", {3, 2}) + W("on", {}) + W("off", {}) +
           I("ax1", {1}, true) + I("seg", {2, -1, 0}) + I("n", {3}, true) + I("ids", {2, 0, 0}) +
           I("depth", {4}, true) + I("bshape", {1, 3, 6}) + N("m", "Mul", {"x", "w"}) +
           "node { name: 'idn' op: 'IdentityN' input: 'm' input: 'v' attr { key: 'T' value { list "
           "{ type: DT_FLOAT type: DT_FLOAT } } } }\n" +
           N("cat", "Concat", {"ax1", "idn", "idn:1"}, A("N", "i: 2")) +
           N("g", "Gather", {"cat", "ids"},
             A("Tparams", "type: DT_FLOAT") + A("Tindices", "type: DT_INT32")) +
           N("b3", "Reshape", {"g", "bshape"}) + N("c3", "Reshape", {"cat", "bshape"}) +
           N("bm", "BatchMatMul", {"b3", "c3"}, A("adj_y", "b: true")) +
           N("us", "UnsortedSegmentSum", {"m", "seg", "n"},
             A("Tindices", "type: DT_INT32") + A("Tnumsegments", "type: DT_INT32")) +
           N("oh", "OneHot", {"ids", "depth", "on", "off"}, A("TI", "type: DT_INT32")) +
           N("ohm", "Mul", {"oh", "m"}),
       false,
       {"on", "off"}},
      {"DenseCrossEntropy",
       {"SoftmaxCrossEntropyWithLogits"},
       X({5, 6}) + W("w", {6, 4}) + W("l", {5, 4}) + I("ax", {0}) +
           N("logits", "MatMul", {"x", "w"}) + N("labels", "Softmax", {"l"}) +
           N("xe", "SoftmaxCrossEntropyWithLogits", {"logits", "labels"}) +
           N("loss", "Mean", {"xe", "ax"})},
      {"CrossEntropy",
       {"SparseSoftmaxCrossEntropyWithLogits", "Mean"},
       X({5, 6}) + W("w", {6, 4}) + I("labels", {0, 3, 1, 2, 3}) + I("ax", {0}) +
           N("l", "MatMul", {"x", "w"}) +
           N("xe", "SparseSoftmaxCrossEntropyWithLogits", {"l", "labels"},
             A("Tlabels", "type: DT_INT32")) +
           N("loss", "Mean", {"xe", "ax"})},
  };
}

at::Tensor Random(at::IntArrayRef shape, bool positive, uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed);
  at::Tensor t = at::rand(shape, gen);
  return positive ? t + 0.5 : t * 2 - 1;
}

class GradientTest : public ::testing::TestWithParam<Case> {};

TEST_P(GradientTest, MatchesAutogradThroughTheForwardKernels) {
  const Case& tc = GetParam();
  auto fwd = graph::ParseTextGraphDef(tc.graph, tc.name + ".pbtxt");
  ASSERT_TRUE(fwd.ok()) << fwd.status().message();
  graph::InferenceReport report = graph::InferShapes(*fwd);
  ASSERT_TRUE(report.problems.empty()) << report.problems[0];
  auto train = graph::BuildTrainingGraph(*fwd, {});
  ASSERT_TRUE(train.ok()) << train.status().message();

  // The same random parameters and input for both computations.
  std::map<std::string, at::Tensor> params;
  uint64_t seed = 7;
  for (graph::NodeId p : train->parameters) {
    const graph::Node& n = train->graph.node(p);
    params[n.name] = Random(n.output_shapes[0].dims(), tc.positive, seed++);
  }
  // The parameters the training graph updates none of: autograd must agree
  // that their gradient is zero, unless the case says why not.
  std::map<std::string, at::Tensor> unupdated;
  const std::vector<char> trainable = graph::TrainableParameters(*fwd);
  for (graph::NodeId id = 0; id < fwd->size(); ++id) {
    const graph::Node& n = fwd->node(id);
    if (!trainable[id] || params.count(n.name)) continue;
    unupdated[n.name] = Random(n.output_shapes[0].dims(), tc.positive, seed++);
  }
  at::Tensor x = Random(fwd->node(fwd->Find("x")).output_shapes[0].dims(), tc.positive, 99);

  // Ours: run the training graph and fetch each update's gradient operand.
  auto ours = ReferenceExecutor::Create(train->graph);
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  std::vector<std::string> fetch;
  for (graph::NodeId u : train->updates) {
    fetch.push_back(train->graph.TensorName(train->graph.node(u).inputs[2]));
  }
  for (const auto& [name, value] : params) ours->set_state(name, value.clone());
  for (const auto& [name, value] : unupdated) ours->set_state(name, value.clone());
  std::vector<at::Tensor> grads;
  graph::Status st = ours->Run({{"x", x}}, fetch, &grads);
  ASSERT_TRUE(st.ok()) << st.message();

  // Autograd: the forward graph with the same kernels, the same loss.
  auto ref = ReferenceExecutor::Create(*fwd);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  for (const auto& [name, value] : params) {
    ref->set_state(name, value.clone().requires_grad_(true));
  }
  for (const auto& [name, value] : unupdated) {
    ref->set_state(name, value.clone().requires_grad_(tc.no_gradient.count(name) == 0));
  }
  std::vector<std::string> outputs;
  std::vector<int> consumers = fwd->ConsumerCounts();
  bool has_loss = fwd->Find("loss") >= 0;
  for (graph::NodeId id = 0; id < fwd->size(); ++id) {
    const graph::Node& n = fwd->node(id);
    if (has_loss ? n.name != "loss" : (consumers[id] != 0 || n.op == "Const")) continue;
    for (int i = 0; i < n.num_outputs(); ++i) {
      if (graph::IsFloating(n.output_dtypes[i])) outputs.push_back(fwd->TensorName({id, i}));
    }
  }
  std::vector<at::Tensor> ys;
  st = ref->Run({{"x", x}}, outputs, &ys, RunOptions{true});
  ASSERT_TRUE(st.ok()) << st.message();
  at::Tensor loss = at::zeros({});
  for (const at::Tensor& y : ys) loss = loss + (has_loss ? y : y.square().mean());
  loss.backward();

  for (size_t k = 0; k < train->updates.size(); ++k) {
    const std::string& p = train->graph.node(train->parameters[k]).name;
    at::Tensor expected = ref->state(p).grad();
    ASSERT_TRUE(expected.defined()) << p << ": autograd found no gradient";
    double scale = std::max(1.0, expected.abs().max().item<double>());
    double err = (grads[k] - expected).abs().max().item<double>();
    EXPECT_LE(err, 1e-4 * scale) << tc.name << ": gradient of '" << p << "' differs by " << err
                                 << " (scale " << scale << ")";
  }
  // A rule that drops an input's gradient leaves its parameter without an update.
  for (const auto& [p, value] : unupdated) {
    if (tc.no_gradient.count(p)) continue;
    const at::Tensor g = ref->state(p).grad();
    EXPECT_FALSE(g.defined() && g.abs().max().item<double>() > 0)
        << tc.name << ": '" << p << "' gets a gradient from autograd and no update in the "
        << "training graph";
  }
}

INSTANTIATE_TEST_SUITE_P(Core, GradientTest, ::testing::ValuesIn(CoreCases()),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Math, GradientTest, ::testing::ValuesIn(MathCases()),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Array, GradientTest, ::testing::ValuesIn(ArrayCases()),
                         [](const auto& info) { return info.param.name; });

TEST(GradientCoverageTest, EveryGradientRuleHasACase) {
  std::set<std::string> covered;
  for (const auto& cases : {CoreCases(), MathCases(), ArrayCases()}) {
    for (const Case& c : cases) covered.insert(c.ops.begin(), c.ops.end());
  }
  for (const std::string& op : graph::GradientRuleOps()) {
    EXPECT_TRUE(covered.count(op)) << "no gradient check for " << op;
  }
}

}  // namespace runtime::gradient_check
