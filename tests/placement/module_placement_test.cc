// The placement per PyTorch module, on graphs named as torch.onnx.export names
// them: module scopes on ops, qualified names on parameters.
#include "placement/module_placement.h"

#include <gtest/gtest.h>

#include "graph/file_util.h"
#include "tests/graph/test_util.h"
#include "tests/scratch_dir.h"

namespace placement {
namespace {

graph::NodeSpec Param(const std::string& name) {
  graph::Tensor v(graph::DType::kFloat, graph::Shape({1}), std::string(4, '\0'));
  return {name,
          "Const",
          {},
          "",
          {{"dtype", graph::MakeAttr(graph::DType::kFloat)}, {"value", graph::MakeAttr(v)}}};
}

graph::NodeSpec Op(const std::string& name, const std::string& op,
                   std::vector<std::string> inputs) {
  return {name, op, std::move(inputs), "", {}};
}

// A residual block as ResNet's BasicBlock exports: two convolutions with
// parameters, and the block's own Add of their output and its input.
graph::Graph Block() {
  std::vector<graph::NodeSpec> s = {
      {"x", "Placeholder", {}, "", {{"dtype", graph::MakeAttr(graph::DType::kFloat)}}},
      Param("layer1.0.conv1.weight"),
      Param("layer1.0.conv2.weight"),
      Op("layer1/layer1.0/conv1/Conv", "Mul", {"x", "layer1.0.conv1.weight"}),
      Op("layer1/layer1.0/conv1/Conv/helper", "Neg", {"layer1/layer1.0/conv1/Conv"}),
      Op("layer1/layer1.0/conv2/Conv", "Mul",
         {"layer1/layer1.0/conv1/Conv/helper", "layer1.0.conv2.weight"}),
      Op("layer1/layer1.0/Add", "AddV2", {"layer1/layer1.0/conv2/Conv", "x"}),
      Op("Flatten", "Identity", {"layer1/layer1.0/Add"}),
  };
  auto g = graph::Graph::Create(std::move(s), "block");
  EXPECT_TRUE(g.ok()) << g.status().message();
  return *std::move(g);
}

cluster::Cluster TwoGpus() {
  auto c = cluster::ParseDevicesYaml(
      "devices:\n"
      "  - {name: cpu0, kind: sim, simulates: cpu, peak_flops: 1e11, memory_bandwidth: 1e10}\n"
      "  - {name: gpu0, kind: sim, simulates: gpu, peak_flops: 1e13, memory_bandwidth: 1e12}\n"
      "  - {name: gpu1, kind: sim, simulates: gpu, peak_flops: 1e13, memory_bandwidth: 1e12}\n"
      "default_link: {bandwidth: 10 GB/s, latency: 10us}\n",
      "test");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

TEST(ModulePlacementTest, ScopesSpellQualifiedModuleNames) {
  const std::set<std::string> known = {"layer1",
                                       "layer1.0",
                                       "layer1.0.conv1",
                                       "features",
                                       "features.8",
                                       "features.8.1",
                                       "encoder",
                                       "encoder.layers.0",
                                       "encoder.layers.0.self_attn",
                                       "features.1",
                                       "features.1.0",
                                       "features.1.0.block",
                                       "features.1.0.block.0",
                                       "features.1.0.block.0.0"};
  EXPECT_EQ(ModuleOfNode("layer1/layer1.0/conv1/Conv", known), "layer1.0.conv1");
  EXPECT_EQ(ModuleOfNode("layer1/layer1.0/conv1/Conv/weight_hwio", known), "layer1.0.conv1");
  EXPECT_EQ(ModuleOfNode("features/features.8/features.8.1/BatchNormalization", known),
            "features.8.1");
  EXPECT_EQ(ModuleOfNode("encoder/layers.0/self_attn/MatMul", known), "encoder.layers.0.self_attn");
  EXPECT_EQ(ModuleOfNode("layer1/layer1.0/Add", known), "layer1.0");
  EXPECT_EQ(ModuleOfNode("features/features.1/features.1.0/block/block.0/block.0.0/Conv", known),
            "features.1.0.block.0.0");
  EXPECT_EQ(ModuleOfNode("layer1.0.conv1.weight", known), "layer1.0.conv1");
  EXPECT_EQ(ModuleOfNode("Flatten", known), "");
  // A module's second call: torch.onnx.export appends "_1" to its scope.
  EXPECT_EQ(ModuleOfNode("layer1/layer1.0/conv1_1/Conv", known), "layer1.0.conv1");
  EXPECT_EQ(ModuleOfNode("other/Conv", known), "");
}

TEST(ModulePlacementTest, ModulesTakeTheirOpsDeviceAndReturnOutputsToTheirContainer) {
  graph::Graph g = Block();
  cluster::Cluster c = TwoGpus();
  // x, 2 params, conv1, helper, conv2, add, flatten
  std::vector<int> device = {0, 1, 2, 1, 1, 2, 0, 0};
  std::vector<ModuleDevice> m = PlaceModules(g, c, device);
  ASSERT_EQ(m.size(), 4u);
  // The model itself first (its Flatten), then the block (its Add): their
  // inputs move to their devices on entry.
  EXPECT_EQ(m[0].module, "");
  EXPECT_EQ(m[0].torch, "cpu");
  EXPECT_EQ(m[1].module, "layer1.0");
  EXPECT_EQ(m[1].torch, "cpu");
  EXPECT_EQ(m[1].ops, 1);
  EXPECT_EQ(m[2].module, "layer1.0.conv1");
  EXPECT_EQ(m[2].device, "gpu0");
  EXPECT_EQ(m[2].torch, "cuda:0");
  EXPECT_EQ(m[2].ops, 2);
  EXPECT_EQ(m[3].module, "layer1.0.conv2");
  EXPECT_EQ(m[3].torch, "cuda:1");
  // The block's own Add, on cpu0, reads conv2's output: it goes there. Only
  // conv2 reads conv1's, and conv2's entry moves it: it stays where it is made.
  EXPECT_EQ(m[2].output, "cuda:0");
  EXPECT_EQ(m[3].output, "cpu");

  const std::string path = planner_test::ScratchDir() + "/block.modules.yaml";
  ASSERT_TRUE(WriteModulePlacement(path, m, "block.onnx", "two.yaml", "etf").ok());
  auto text = graph::ReadFile(path);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("{module: \"layer1.0.conv2\", device: \"gpu1\", torch: \"cuda:1\", output: "
                       "\"cpu\", ops: 1}"),
            std::string::npos)
      << *text;
}

// A ViT's position embedding is the model's own parameter and its add the
// model's own op; a residual block holds no parameter itself. Both were left
// out, and the placed PyTorch model failed with operands on two devices.
TEST(ModulePlacementTest, TheModelsOwnParametersAndContainersWithOpsAreListed) {
  std::vector<graph::NodeSpec> s = {
      {"x", "Placeholder", {}, "", {{"dtype", graph::MakeAttr(graph::DType::kFloat)}}},
      Param("pos"),
      Param("blocks.0.fc.weight"),
      Op("Add", "AddV2", {"x", "pos"}),
      Op("blocks/blocks.0/fc/MatMul", "Mul", {"Add", "blocks.0.fc.weight"}),
      Op("blocks/blocks.0/Add", "AddV2", {"blocks/blocks.0/fc/MatMul", "Add"}),
      Op("Flatten", "Identity", {"blocks/blocks.0/Add"}),
  };
  auto g = graph::Graph::Create(std::move(s), "vit");
  ASSERT_TRUE(g.ok()) << g.status().message();
  // x, pos, weight, root's add, fc, block's add, root's flatten
  std::vector<ModuleDevice> m = PlaceModules(*g, TwoGpus(), {0, 2, 1, 2, 1, 1, 2});
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].module, "");
  EXPECT_EQ(m[0].torch, "cuda:1");
  EXPECT_EQ(m[0].output, "cuda:1");
  EXPECT_EQ(m[1].module, "blocks.0");
  EXPECT_EQ(m[1].torch, "cuda:0");
  EXPECT_EQ(m[1].output, "cuda:1");
  EXPECT_EQ(m[2].module, "blocks.0.fc");
  EXPECT_EQ(m[2].output, "cuda:0");
}

TEST(ModulePlacementTest, GraphsWithoutPyTorchNamesHaveNoModules) {
  std::vector<graph::NodeSpec> s = {Param("w"), Op("y", "Neg", {"w"})};
  auto g = graph::Graph::Create(std::move(s), "plain");
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(PlaceModules(*g, TwoGpus(), {0, 0}).empty());
}

// A module goes where most of its work runs, not most of its ops: by count,
// the importer's filter transpose beside resnet18's convolutions outvoted the
// convolution wherever the two were split, and applying the file simulated
// 40% slower than etf's placement it was read off.
TEST(ModulePlacementTest, AModuleFollowsItsWorkNotItsOpCount) {
  using graph::testing::FloatConst;
  using graph::testing::Inferred;
  using graph::testing::Placeholder;
  graph::Graph g = Inferred(
      Placeholder("x", {64, 64}) + FloatConst("conv.weight", {64, 64}) +
      FloatConst("conv.bias", {1}) +
      "node { name: 'conv/MatMul' op: 'MatMul' input: 'x' input: 'conv.weight' }\n"
      "node { name: 'conv/bias_t' op: 'Neg' input: 'conv.bias' }\n"
      "node { name: 'conv/bias_tt' op: 'Neg' input: 'conv/bias_t' }\n");
  // x, weight, bias on cpu0; the MatMul on gpu1; the two small ops on gpu0.
  std::vector<ModuleDevice> m = PlaceModules(g, TwoGpus(), {0, 0, 0, 2, 1, 1});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].module, "conv");
  EXPECT_EQ(m[0].device, "gpu1");
  EXPECT_EQ(m[0].ops, 3);
  EXPECT_EQ(m[0].ops_elsewhere, 2);
}

// Applying the file puts each op and parameter with the nearest listed module
// at or above it, and the inputs with the model's own ops.
TEST(ModulePlacementTest, TheAppliedPlacementPutsEachOpWithItsModule) {
  graph::Graph g = Block();
  cluster::Cluster c = TwoGpus();
  // x, 2 params, conv1, helper, conv2, add, flatten
  std::vector<ModuleDevice> m = PlaceModules(g, c, {0, 1, 2, 1, 2, 2, 0, 2});
  // Flatten moves to the root's device (it is the root's only op).
  std::vector<int> applied = DeviceOfNodeFromModules(g, c, m);
  EXPECT_EQ(applied, (std::vector<int>{2, 1, 2, 1, 1, 2, 0, 2}));
  // Without the block listed, its Add goes with the model itself.
  std::vector<ModuleDevice> without;
  for (const ModuleDevice& d : m) {
    if (d.module != "layer1.0") without.push_back(d);
  }
  EXPECT_EQ(DeviceOfNodeFromModules(g, c, without)[6], 2);
}

// Weights tied between an embedding and the output layer are one parameter
// in PyTorch, on one device: the module whose ops read another's parameter
// goes with it (metis and scotch split them, and the placed forward failed
// with "embedding: operands on cuda:0, cuda:1").
TEST(ModulePlacementTest, ModulesSharingAParameterShareItsDevice) {
  std::vector<graph::NodeSpec> s = {
      {"x", "Placeholder", {}, "", {{"dtype", graph::MakeAttr(graph::DType::kFloat)}}},
      Param("emb.weight"),
      Param("dec.bias"),
      Op("emb/Gather", "Mul", {"x", "emb.weight"}),
      Op("dec/MatMul", "Mul", {"emb/Gather", "emb.weight"}),
      Op("dec/Add", "AddV2", {"dec/MatMul", "dec.bias"}),
  };
  auto g = graph::Graph::Create(std::move(s), "tied");
  ASSERT_TRUE(g.ok()) << g.status().message();
  cluster::Cluster c = TwoGpus();
  // x, emb.weight, dec.bias on cpu0; the embedding's op on gpu0, the decoder's on gpu1.
  std::vector<ModuleDevice> m = PlaceModules(*g, c, {0, 0, 0, 1, 2, 2});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].module, "emb");
  EXPECT_EQ(m[0].device, "gpu0");
  EXPECT_EQ(m[1].module, "dec");
  EXPECT_EQ(m[1].device, "gpu0");
  EXPECT_EQ(m[1].shares_with, "emb");
  EXPECT_EQ(m[1].ops_elsewhere, 2);
  const std::string path = planner_test::ScratchDir() + "/tied.modules.yaml";
  ASSERT_TRUE(WriteModulePlacement(path, m, "tied.onnx", "two.yaml", "baseline metis").ok());
  EXPECT_NE(graph::ReadFile(path)->find("shares_parameters_with: \"emb\""), std::string::npos);
}

// A parent whose forward calls F.linear with two children's weights (Swin's
// attention with its qkv and proj): the children were placed by the ops that
// read their weights, split between two GPUs, and the parent by its majority,
// and the placed forward failed with "linear: operands on cpu, cuda:1". All
// three go to one device, that of the first child listed.
TEST(ModulePlacementTest, AParentReadingItsChildrensWeightsSharesTheirDevice) {
  std::vector<graph::NodeSpec> s = {
      {"x", "Placeholder", {}, "", {{"dtype", graph::MakeAttr(graph::DType::kFloat)}}},
      Param("attn.qkv.weight"),
      Param("attn.proj.weight"),
      Op("attn/MatMul", "Mul", {"x", "attn.qkv.weight"}),
      Op("attn/Relu", "Mul", {"attn/MatMul", "attn/MatMul"}),
      Op("attn/MatMul_1", "Mul", {"attn/Relu", "attn.proj.weight"}),
  };
  auto g = graph::Graph::Create(std::move(s), "parent_reads_children");
  ASSERT_TRUE(g.ok()) << g.status().message();
  cluster::Cluster c = TwoGpus();
  std::vector<ModuleDevice> m = PlaceModules(*g, c, {0, 0, 0, 1, 2, 2});
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].module, "attn");
  EXPECT_EQ(m[1].module, "attn.qkv");
  EXPECT_EQ(m[2].module, "attn.proj");
  EXPECT_EQ(m[1].device, "gpu0");  // where the op reading its weight is
  for (const ModuleDevice& d : m) EXPECT_EQ(d.device, "gpu0") << d.module;
  EXPECT_EQ(m[0].shares_with, "attn.qkv");
  EXPECT_EQ(m[2].shares_with, "attn.qkv");
  EXPECT_EQ(m[1].shares_with, "");
}

}  // namespace
}  // namespace placement
