#include "placement/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "tests/placement/two_cpus.h"
#include "tests/scratch_dir.h"

namespace placement {
namespace {

graph::Graph Model() {
  auto g = graph::ParseTextGraphDef(
      "node { name: 'x' op: 'Placeholder' }"
      "node { name: 'a' op: 'Relu' input: 'x' }"
      "node { name: 'b/c:d' op: 'Neg' input: 'x' }",
      "m.pbtxt");
  EXPECT_TRUE(g.ok());
  return std::move(g).value();
}

std::string Write(const std::string& name, const std::string& text) {
  std::string path = planner_test::ScratchDir() + "/" + name;
  EXPECT_TRUE(graph::WriteFileAtomic(path, text).ok());
  return path;
}

TEST(PlacementTest, WrittenFileReadsBackTheSame) {
  graph::Graph g = Model();
  Placement p = SingleDevicePlacement(g, "cpu0");
  p.ops[2].second = "cpu1";
  p.devices = "two.yaml";
  p.devices_digest = Devices().digest;
  p.measured_step_s = 0.0125;
  p.search = {{"iterations", 40}, {"seconds", 12.5}};
  p.optimizer = "momentum";
  std::string path = planner_test::ScratchDir() + "/roundtrip.yaml";
  ASSERT_TRUE(WritePlacement(path, p).ok());
  auto back = ReadPlacement(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ops, p.ops);  // names with '/' and ':' survive quoting
  EXPECT_EQ(back->model_digest, p.model_digest);
  EXPECT_EQ(back->method, "single:cpu0");
  EXPECT_DOUBLE_EQ(*back->measured_step_s, 0.0125);
  EXPECT_EQ(back->search, p.search);
  EXPECT_EQ(back->optimizer, "momentum");
  EXPECT_TRUE(ValidatePlacement(*back, g, Devices(), path).ok());
  std::vector<int> dev = DeviceOfNode(*back, g, Devices());
  EXPECT_EQ(dev, (std::vector<int>{0, 0, 1}));
}

// The optimizer's accumulators follow their parameter, so a placement found
// for one optimizer places the other's step too, but its times are another
// step's: said, not refused; a file that does not record it says nothing.
TEST(PlacementTest, AnotherOptimizerIsNotedAndAnUnrecordedOneIsNot) {
  Placement p = SingleDevicePlacement(Model(), "cpu0");
  EXPECT_EQ(OptimizerNote(p, "momentum", "p.yaml"), "");
  p.optimizer = "sgd";
  EXPECT_EQ(OptimizerNote(p, "sgd", "p.yaml"), "");
  EXPECT_EQ(OptimizerNote(p, "momentum", "p.yaml"),
            "note: p.yaml was made for --optimizer sgd (momentum here): every op is placed, but "
            "the placement was found for another step");
}

TEST(PlacementTest, ModelDigestIgnoresTheFileFormat) {
  graph::Graph g = Model();
  auto again = graph::ParseBinaryGraphDef(graph::SerializeGraphDef(g), "m.pb");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ModelDigest(g), ModelDigest(*again));
}

// --export-graphdef writes the model with its devices set; its placement file
// was refused for it as "made for another model".
TEST(PlacementTest, ModelDigestIgnoresTheNodesDevices) {
  graph::Graph g = Model();
  graph::GraphDefWriteOptions placed;
  placed.devices = {"/device:CPU:0", "/device:GPU:0", "/device:GPU:1"};
  auto exported = graph::ParseBinaryGraphDef(graph::SerializeGraphDef(g, placed), "placed.pb");
  ASSERT_TRUE(exported.ok());
  EXPECT_EQ(exported->node(1).requested_device, "/device:GPU:0");
  EXPECT_EQ(ModelDigest(g), ModelDigest(*exported));
}

TEST(PlacementTest, UnknownOpIsNamed) {
  Placement p = SingleDevicePlacement(Model(), "cpu0");
  p.ops.emplace_back("ghost", "cpu0");
  p.model_digest.clear();
  graph::Status st = ValidatePlacement(p, Model(), Devices(), "p.yaml");
  EXPECT_EQ(st.message(), "p.yaml: 1 placed op(s) are not in the model: 'ghost'");
}

TEST(PlacementTest, UnknownDeviceIsNamedWithTheDevicesThatExist) {
  Placement p = SingleDevicePlacement(Model(), "gpu7");
  graph::Status st = ValidatePlacement(p, Model(), Devices(), "p.yaml");
  EXPECT_EQ(st.message(), "p.yaml: device(s) 'gpu7' are not in two.yaml (it has cpu0, cpu1)");
}

TEST(PlacementTest, OpsLeftOutAreCountedAndNamed) {
  Placement p = SingleDevicePlacement(Model(), "cpu0");
  p.ops.resize(1);
  graph::Status st = ValidatePlacement(p, Model(), Devices(), "p.yaml");
  EXPECT_EQ(st.message(), "p.yaml: 2 op(s) of the model have no device: 'a', 'b/c:d'");
}

TEST(PlacementTest, DigestsInCapitalsStillMatch) {
  Placement p = SingleDevicePlacement(Model(), "cpu0");
  for (char& ch : p.model_digest)
    ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  ASSERT_NE(p.model_digest, ModelDigest(Model()));
  EXPECT_TRUE(ValidatePlacement(p, Model(), Devices(), "p.yaml").ok());
}

TEST(PlacementTest, PlacementForAnotherModelIsRejected) {
  Placement p = SingleDevicePlacement(Model(), "cpu0");
  p.model_digest = "0123456789abcdef";
  graph::Status st = ValidatePlacement(p, Model(), Devices(), "p.yaml");
  EXPECT_NE(st.message().find("p.yaml: made for another model (digest 0123456789abcdef"),
            std::string::npos);
}

// A placement records its model's input sizes: the same model imported at
// other --input-shape sizes (an unrolled LSTM's graph follows them) digests
// otherwise, and was refused as "made for another model".
TEST(PlacementTest, TheSameModelAtOtherInputSizesIsNamedAsSuch) {
  auto at = [](const std::string& input, int width) {
    auto g = graph::ParseTextGraphDef(
        "node { name: '" + input + "' op: 'Placeholder' attr { key: 'dtype' value { type: "
        "DT_FLOAT } } attr { key: 'shape' value { shape { dim { size: 2 } dim { size: " +
        std::to_string(width) + " } } } } } node { name: 'y' op: 'Neg' input: '" + input + "' }",
        "m.pbtxt");
    EXPECT_TRUE(g.ok()) << g.status().message();
    graph::InferShapes(*g);
    return std::move(g).value();
  };
  Placement p = SingleDevicePlacement(at("x", 3), "cpu0");
  const std::string path = planner_test::ScratchDir() + "/inputs.yaml";
  ASSERT_TRUE(WritePlacement(path, p).ok());
  auto back = ReadPlacement(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->inputs, (std::vector<std::pair<std::string, std::string>>{{"x", "[2,3]"}}));
  EXPECT_TRUE(ValidatePlacement(*back, at("x", 3), Devices(), path).ok());
  EXPECT_EQ(InputShapesNote(*back, at("x", 3), path), "");
  Placement spaced = *back;  // as a person writes it
  spaced.inputs[0].second = "[2, 3]";
  EXPECT_EQ(InputShapesNote(spaced, at("x", 3), path), "");
  EXPECT_NE(InputShapesNote(spaced, at("x", 4), path).find("(x [2, 3] there, [2,4] here)"),
            std::string::npos);
  EXPECT_EQ(ValidatePlacement(*back, at("x", 4), Devices(), "p.yaml").message(),
            "p.yaml: made for this model's inputs at other sizes (x [2,3] there, [2,4] here): "
            "give the sizes it was made at (--input-shape, --batch), or place the model again");
  EXPECT_NE(ValidatePlacement(*back, at("z", 4), Devices(), "p.yaml")
                .message()
                .find("p.yaml: made for another model (digest "),
            std::string::npos);
}

TEST(PlacementTest, PlacementForAnotherDevicesFileIsRejected) {
  Placement p = SingleDevicePlacement(Model(), "cpu0");
  p.devices_digest = "ffffffffffffffff";
  graph::Status st = ValidatePlacement(p, Model(), Devices(), "p.yaml");
  EXPECT_NE(st.message().find("made for another devices file"), std::string::npos);
}

// What a placement depends on is the devices, not how they run: the same file
// with a comment or another `spin` takes it; a file written before the
// placement digest (its bytes' digest) is still taken.
TEST(PlacementTest, ThePlacementFitsItsDevicesFileRunAnotherWayAndOlderFilesStillFit) {
  const cluster::Cluster made = Devices();
  auto respun = cluster::ParseDevicesYaml(
      "# measured with the workers polling longer\n"
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0], spin: 1ms}\n"
      "  - {name: cpu1, kind: cpu, cores: [1], spin: 1ms}\n",
      "respun.yaml");
  ASSERT_TRUE(respun.ok()) << respun.status().message();
  ASSERT_NE(respun->digest, made.digest);
  Placement p = SingleDevicePlacement(Model(), "cpu0");
  p.devices_digest = made.placement_digest;
  EXPECT_TRUE(ValidatePlacement(p, Model(), *respun, "p.yaml").ok());
  p.devices_digest = made.digest;  // an older file's
  EXPECT_TRUE(ValidatePlacement(p, Model(), made, "p.yaml").ok());
}

TEST(PlacementTest, OpPlacedTwiceIsAnErrorWithItsLine) {
  auto p = ReadPlacement(Write("twice.yaml", "placement:\n  a: cpu0\n  a: cpu1\n"));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("twice.yaml:3: op 'a' is placed twice"), std::string::npos)
      << p.status().message();
}

TEST(PlacementTest, BadYamlAndUnknownKeysAreOneLineErrors) {
  auto bad = ReadPlacement(Write("bad.yaml", "placement: [a: b\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind(planner_test::ScratchDir() + "/bad.yaml:", 0), 0u);
  EXPECT_EQ(bad.status().message().find('\n'), std::string::npos);
  auto unknown = ReadPlacement(Write("unknown.yaml", "placment:\n  a: cpu0\n"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown key 'placment'"), std::string::npos);
  auto empty = ReadPlacement(Write("empty.yaml", "method: x\n"));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no 'placement' map"), std::string::npos);
  auto none = ReadPlacement(Write("none.yaml", "placement: {}\n"));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("none.yaml: 'placement' places no op"), std::string::npos);
  auto seconds =
      ReadPlacement(Write("seconds.yaml", "measured_step_s: -1\nplacement: {a: cpu0}\n"));
  ASSERT_FALSE(seconds.ok());
  EXPECT_NE(seconds.status().message().find("positive number of seconds"), std::string::npos);
  // A list where a map belongs says what the map holds ("to a device names" before).
  auto list = ReadPlacement(Write("list.yaml", "placement: [a, b]\ninputs: [x]\n"));
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.status().message().find("'placement' must map op names to device names"),
            std::string::npos)
      << list.status().message();
  auto inputs = ReadPlacement(Write("inputs.yaml", "placement: {a: cpu0}\ninputs: [x]\n"));
  ASSERT_FALSE(inputs.ok());
  EXPECT_NE(inputs.status().message().find("'inputs' must map input names to shapes"),
            std::string::npos)
      << inputs.status().message();
}

}  // namespace
}  // namespace placement

namespace placement {
namespace {

// x -> MatMul(w) -> Relu (output), and Neg (output): no loss node, so the
// training graph adds a synthetic one reading both outputs.
graph::Graph TwoOutputs() {
  auto g = graph::ParseTextGraphDef(
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }"
      "  attr { key: 'shape' value { shape { dim { size: 2 } dim { size: 3 } } } } }"
      "node { name: 'w' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }"
      "  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 }"
      "  dim { size: 2 } } float_val: 0.5 } } } }"
      "node { name: 'm' op: 'MatMul' input: 'x' input: 'w' attr { key: 'T' value { type: DT_FLOAT "
      "} } }"
      "node { name: 'r' op: 'Relu' input: 'm' attr { key: 'T' value { type: DT_FLOAT } } }"
      "node { name: 'n' op: 'Neg' input: 'm' attr { key: 'T' value { type: DT_FLOAT } } }",
      "two_outputs.pbtxt");
  EXPECT_TRUE(g.ok()) << g.status().message();
  graph::InferShapes(*g);
  return std::move(g).value();
}

TEST(TrainingPlacementTest, ForwardOpsKeepTheirDeviceAndAddedOpsFollowWhatTheyBelongTo) {
  graph::Graph fwd = TwoOutputs();
  auto t = graph::BuildTrainingGraph(fwd, {"momentum", 0.1f, 0.9f, ""});
  ASSERT_TRUE(t.ok()) << t.status().message();
  const graph::Graph& g = t->graph;
  // x, w, m on cpu0; r on cpu1; n on cpu0.
  std::vector<int> fwd_dev(fwd.size(), 0);
  fwd_dev[fwd.Find("r")] = 1;
  std::vector<int> d = TrainingDeviceOfNode(g, fwd, fwd_dev);
  ASSERT_EQ(static_cast<int>(d.size()), g.size());
  for (graph::NodeId id = 0; id < fwd.size(); ++id) {
    EXPECT_EQ(d[g.Find(fwd.node(id).name)], fwd_dev[id]) << fwd.node(id).name;
  }
  int colocated = 0, loss_reading_r = 0;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const graph::Node& n = g.node(id);
    if (fwd.Find(n.name) >= 0) continue;
    if (!n.colocation.empty()) {  // gradients of r on cpu1; updates of w on cpu0
      ++colocated;
      EXPECT_EQ(d[id], d[g.Find(n.colocation[0])]) << n.name;
    }
    if (n.name.rfind("synthetic_loss/", 0) == 0 && !n.inputs.empty() &&
        g.node(n.inputs[0].node).name == "r") {
      ++loss_reading_r;
      EXPECT_EQ(d[id], 1) << n.name << " reads r, which is on cpu1";
    }
  }
  EXPECT_GT(colocated, 0);
  EXPECT_EQ(loss_reading_r, 1);
  // A constant with no inputs and no colocation sits with a consumer.
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const graph::Node& n = g.node(id);
    if (fwd.Find(n.name) >= 0 || !n.inputs.empty() || !n.colocation.empty()) continue;
    bool with_a_consumer = false, consumed = false;
    for (graph::NodeId c = 0; c < g.size(); ++c) {
      for (const graph::TensorRef& in : g.node(c).inputs) {
        if (in.node != id) continue;
        consumed = true;
        with_a_consumer |= d[c] == d[id];
      }
    }
    EXPECT_TRUE(with_a_consumer || !consumed) << n.name;
  }
}

TEST(TrainingPlacementTest, SourcesNameTheForwardOpEachNodeFollowsWhateverThePlacement) {
  graph::Graph fwd = TwoOutputs();
  auto t = graph::BuildTrainingGraph(fwd, {"momentum", 0.1f, 0.9f, ""});
  ASSERT_TRUE(t.ok()) << t.status().message();
  const graph::Graph& g = t->graph;
  const std::vector<graph::NodeId> source = ForwardSourceOfNode(g, fwd);
  ASSERT_EQ(static_cast<int>(source.size()), g.size());
  for (graph::NodeId id = 0; id < fwd.size(); ++id) {
    EXPECT_EQ(source[g.Find(fwd.node(id).name)], id) << fwd.node(id).name;
  }
  // One table serves every placement: each forward op alone on device 1
  // moves exactly the training nodes whose source it is.
  for (graph::NodeId moved = 0; moved < fwd.size(); ++moved) {
    std::vector<int> fwd_dev(fwd.size(), 0);
    fwd_dev[moved] = 1;
    const std::vector<int> d = DeviceOfSources(source, fwd_dev);
    EXPECT_EQ(d, TrainingDeviceOfNode(g, fwd, fwd_dev)) << fwd.node(moved).name;
    for (graph::NodeId id = 0; id < g.size(); ++id) {
      EXPECT_EQ(d[id], source[id] == moved ? 1 : 0) << g.node(id).name;
    }
  }
}

TEST(CanonicalDevicesTest, PlacementsThatSwapIdenticalGpusCompareEqual) {
  auto c = cluster::ParseDevicesYaml(
      "devices:\n"
      "  - {name: cpu0, kind: sim, simulates: cpu, peak_flops: 1T, memory_bandwidth: 50GB/s}\n"
      "  - {name: gpu0, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s}\n"
      "  - {name: gpu1, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s}\n"
      "  - {name: gpu2, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s}\n"
      "default_link: {bandwidth: 12GB/s, latency: 10us}\n",
      "sims.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(CanonicalDevices({2, 2, 0, 3}, *c), (std::vector<int>{1, 1, 0, 2}));
  EXPECT_EQ(CanonicalDevices({3, 3, 0, 1}, *c), CanonicalDevices({2, 2, 0, 3}, *c));
  EXPECT_EQ(CanonicalDevices(std::vector<int>(5, 3), *c), std::vector<int>(5, 1));
  EXPECT_NE(CanonicalDevices({1, 2, 0}, *c), CanonicalDevices({1, 1, 0}, *c));
  EXPECT_NE(CanonicalDevices({1, 0}, *c), CanonicalDevices({0, 1}, *c)) << "the cpu is no gpu";
}

TEST(CanonicalDevicesTest, RealDevicesKeepTheirNumbers) {
  EXPECT_EQ(CanonicalDevices({1, 1, 0}, Devices()), (std::vector<int>{1, 1, 0}));
}

// x times a parameter w: its training graph has w's gradient (a MatMul
// colocated with m) and w's update (colocated with w).
struct Trained {
  graph::Graph forward;
  graph::TrainingGraph training;
  Trained() {
    auto g = graph::ParseTextGraphDef(
        "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
        "attr { key: 'shape' value { shape { dim { size: 4 } dim { size: 4 } } } } }\n"
        "node { name: 'w' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: "
        "'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 4 } "
        "} float_val: 0.5 } } } }\n"
        "node { name: 'm' op: 'MatMul' input: 'x' input: 'w' attr { key: 'T' value { type: "
        "DT_FLOAT } } }\n",
        "xw.pbtxt");
    EXPECT_TRUE(g.ok()) << g.status().message();
    forward = std::move(g).value();
    graph::InferShapes(forward);
    auto t = graph::BuildTrainingGraph(forward, {});
    EXPECT_TRUE(t.ok()) << t.status().message();
    training = std::move(t).value();
  }
  // The first node of type `op` that training added.
  std::string NodeOf(const std::string& op) const {
    for (const graph::Node& n : training.graph.nodes()) {
      if (n.op == op && forward.Find(n.name) < 0) return n.name;
    }
    ADD_FAILURE() << "no " << op;
    return "";
  }
};

TEST(PlacementTest, GradientsApartReadBackAndRunOnTheirOwnDevices) {
  Trained t;
  Placement p = SingleDevicePlacement(t.forward, "cpu0");
  const std::string gradient = t.NodeOf("MatMul");  // w's gradient
  p.gradients_apart = {{gradient, "cpu1"}};
  const std::string path = planner_test::ScratchDir() + "/apart.yaml";
  ASSERT_TRUE(WritePlacement(path, p).ok());
  auto back = ReadPlacement(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->gradients_apart, p.gradients_apart);
  auto devices = TrainingDevices(*back, t.training.graph, t.forward, Devices(), path);
  ASSERT_TRUE(devices.ok()) << devices.status().message();
  std::vector<int> expected =
      TrainingDeviceOfNode(t.training.graph, t.forward, std::vector<int>(t.forward.size(), 0));
  EXPECT_EQ(std::count(expected.begin(), expected.end(), 1), 0);
  expected[t.training.graph.Find(gradient)] = 1;
  EXPECT_EQ(*devices, expected);
  // Without the section, every gradient follows its op, as before.
  p.gradients_apart.clear();
  ASSERT_TRUE(WritePlacement(path, p).ok());
  EXPECT_EQ(graph::ReadFile(path)->find("gradients_apart"), std::string::npos);
}

TEST(PlacementTest, OnlyGradientOpsMayRunApart) {
  Trained t;
  const graph::Graph& training = t.training.graph;
  const std::vector<graph::NodeId> source = ForwardSourceOfNode(training, t.forward);
  auto may = [&](const std::string& name) {
    const graph::NodeId id = training.Find(name);
    EXPECT_GE(id, 0) << name;
    return id >= 0 && MayRunApart(training, t.forward, source, id);
  };
  EXPECT_TRUE(may(t.NodeOf("MatMul"))) << "w's gradient";
  EXPECT_FALSE(may("m")) << "a forward op";
  EXPECT_FALSE(may(t.NodeOf("ApplyGradientDescent"))) << "w's update writes w in place";
  // Added nodes colocated with nothing (the synthetic loss) differentiate no op.
  int uncolocated = 0;
  for (graph::NodeId id = 0; id < training.size(); ++id) {
    if (!training.node(id).colocation.empty() || t.forward.Find(training.node(id).name) >= 0) {
      continue;
    }
    ++uncolocated;
    EXPECT_FALSE(MayRunApart(training, t.forward, source, id)) << training.node(id).name;
  }
  EXPECT_GT(uncolocated, 0);
}

TEST(PlacementTest, AGradientApartThatIsNoGradientOrNoDeviceIsNamed) {
  Trained t;
  Placement p = SingleDevicePlacement(t.forward, "cpu0");
  const std::string not_gradient =
      "' is not a gradient op that may run apart (the model's own ops go under 'placement'; a "
      "parameter's update, and the gradients of ops colocated with a parameter, run with it)";
  const std::string update = t.NodeOf("ApplyGradientDescent");
  const std::pair<std::string, std::string> cases[] = {
      {"ghost", "p.yaml: gradients_apart: 'ghost' is not a node of the training graph"},
      {"m", "p.yaml: gradients_apart: 'm" + not_gradient},
      {update, "p.yaml: gradients_apart: '" + update + not_gradient}};
  for (const auto& [node, message] : cases) {
    p.gradients_apart = {{node, "cpu1"}};
    auto devices = TrainingDevices(p, t.training.graph, t.forward, Devices(), "p.yaml");
    EXPECT_EQ(devices.status().message(), message);
  }
  p.gradients_apart = {{t.NodeOf("MatMul"), "gpu9"}};
  EXPECT_EQ(
      TrainingDevices(p, t.training.graph, t.forward, Devices(), "p.yaml").status().message(),
      "p.yaml: gradients_apart: '" + t.NodeOf("MatMul") + "': device 'gpu9' is not in two.yaml");
  auto twice = ReadPlacement(Write("twice.yaml",
                                   "placement: {x: cpu0, w: cpu0, m: cpu0}\n"
                                   "gradients_apart: {g: cpu1, g: cpu0}\n"));
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("op 'g' is placed twice"), std::string::npos)
      << twice.status().message();
}

}  // namespace
}  // namespace placement
