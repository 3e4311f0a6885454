#include "planner/placement.h"

#include <gtest/gtest.h>

#include "graph/file_util.h"
#include "graph/graphdef.h"

namespace planner {
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

cluster::Cluster Devices() {
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n  - {name: cpu1, kind: cpu, cores: "
      "[1]}\n",
      "two.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

std::string Write(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
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
  std::string path = ::testing::TempDir() + "/roundtrip.yaml";
  ASSERT_TRUE(WritePlacement(path, p).ok());
  auto back = ReadPlacement(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ops, p.ops);  // names with '/' and ':' survive quoting
  EXPECT_EQ(back->model_digest, p.model_digest);
  EXPECT_EQ(back->method, "single:cpu0");
  EXPECT_DOUBLE_EQ(*back->measured_step_s, 0.0125);
  EXPECT_EQ(back->search, p.search);
  EXPECT_TRUE(ValidatePlacement(*back, g, Devices(), path).ok());
  std::vector<int> dev = DeviceOfNode(*back, g, Devices());
  EXPECT_EQ(dev, (std::vector<int>{0, 0, 1}));
}

TEST(PlacementTest, ModelDigestIgnoresTheFileFormat) {
  graph::Graph g = Model();
  auto again = graph::ParseBinaryGraphDef(graph::SerializeGraphDef(g), "m.pb");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ModelDigest(g), ModelDigest(*again));
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

TEST(PlacementTest, PlacementForAnotherModelIsRejected) {
  Placement p = SingleDevicePlacement(Model(), "cpu0");
  p.model_digest = "0123456789abcdef";
  graph::Status st = ValidatePlacement(p, Model(), Devices(), "p.yaml");
  EXPECT_NE(st.message().find("p.yaml: made for another model (digest 0123456789abcdef"),
            std::string::npos);
}

TEST(PlacementTest, PlacementForAnotherDevicesFileIsRejected) {
  Placement p = SingleDevicePlacement(Model(), "cpu0");
  p.devices_digest = "ffffffffffffffff";
  graph::Status st = ValidatePlacement(p, Model(), Devices(), "p.yaml");
  EXPECT_NE(st.message().find("made for another devices file"), std::string::npos);
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
  EXPECT_EQ(bad.status().message().rfind(::testing::TempDir() + "/bad.yaml:", 0), 0u);
  EXPECT_EQ(bad.status().message().find('\n'), std::string::npos);
  auto unknown = ReadPlacement(Write("unknown.yaml", "placment:\n  a: cpu0\n"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown key 'placment'"), std::string::npos);
  auto empty = ReadPlacement(Write("empty.yaml", "method: x\n"));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no 'placement' map"), std::string::npos);
  auto seconds =
      ReadPlacement(Write("seconds.yaml", "measured_step_s: -1\nplacement: {a: cpu0}\n"));
  ASSERT_FALSE(seconds.ok());
  EXPECT_NE(seconds.status().message().find("positive number of seconds"), std::string::npos);
}

}  // namespace
}  // namespace planner
