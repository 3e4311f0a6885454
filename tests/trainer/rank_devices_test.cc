#include "trainer/rank_devices.h"

#include <gtest/gtest.h>

namespace trainer {
namespace {

cluster::Cluster File(const std::string& yaml) {
  auto c = cluster::ParseDevicesYaml(yaml, "rank.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

const char kTwoCpusOneGpu[] =
    "devices:\n"
    "  - {name: cpu0, kind: cpu, cores: [0], threads: 1}\n"
    "  - {name: cpu1, kind: cpu, cores: [1, 2], threads: 2}\n"
    "  - {name: gpu0, kind: cuda, index: 0}\n";

TEST(RankDevicesTest, EachLocalRankGetsTheFilesDevicesShiftedPastTheRanksBeforeIt) {
  const cluster::Cluster file = File(kTwoCpusOneGpu);
  std::string note;
  // Two ranks of 3 cores and 1 GPU each on an 8-core, 2-GPU host.
  const cluster::Cluster second = DevicesOfLocalRank(file, 1, 2, {8, 2}, &note);
  ASSERT_EQ(second.devices.size(), 3u);
  EXPECT_EQ(second.devices[0].cores, (std::vector<int>{3}));
  EXPECT_EQ(second.devices[1].cores, (std::vector<int>{4, 5}));
  EXPECT_EQ(second.devices[1].threads, 2);
  EXPECT_EQ(second.devices[2].cuda_index, 1);
  EXPECT_EQ(second.devices[0].name, "cpu0") << "the placement names them";
  EXPECT_EQ(note,
            "each of the 2 ranks runs on its own copy of rank.yaml's devices: local rank r's cores "
            "+ 3r, cuda indices + 1r");
  const cluster::Cluster first = DevicesOfLocalRank(file, 0, 2, {8, 2}, &note);
  EXPECT_EQ(first.devices[1].cores, (std::vector<int>{1, 2}));
  EXPECT_EQ(first.devices[2].cuda_index, 0);
}

TEST(RankDevicesTest, AHostWithoutRoomForEveryCopyLeavesTheRanksSharingTheFileAndSaysWhy) {
  const cluster::Cluster file = File(kTwoCpusOneGpu);
  std::string note;
  // Cores for both copies (6 of 8), one GPU for two.
  cluster::Cluster second = DevicesOfLocalRank(file, 1, 2, {8, 1}, &note);
  EXPECT_EQ(second.devices[1].cores, (std::vector<int>{1, 2}));
  EXPECT_EQ(second.devices[2].cuda_index, 0);
  EXPECT_EQ(note,
            "the 2 ranks share the devices of rank.yaml: a copy for each would need 2 CUDA "
            "devices, this host has 1");
  // Three copies of three cores on eight.
  second = DevicesOfLocalRank(file, 2, 3, {8, 3}, &note);
  EXPECT_EQ(second.devices[0].cores, (std::vector<int>{0}));
  EXPECT_EQ(note,
            "the 3 ranks share the devices of rank.yaml: a copy for each would need 9 cores, this "
            "host has 8");
}

TEST(RankDevicesTest, OneRankOnTheHostKeepsTheFileWithoutANote) {
  const cluster::Cluster file = File(kTwoCpusOneGpu);
  std::string note = "stale";
  const cluster::Cluster only = DevicesOfLocalRank(file, 0, 1, {1, 0}, &note);
  EXPECT_EQ(only.devices[1].cores, (std::vector<int>{1, 2}));
  EXPECT_TRUE(note.empty());
}

TEST(RankDevicesTest, ACpuOnlyFileSpreadsItsCoresAndNeedsNoGpu) {
  const cluster::Cluster file =
      File("devices:\n  - {name: cpu0, kind: cpu, cores: [0, 1], threads: 2}\n");
  std::string note;
  const cluster::Cluster second = DevicesOfLocalRank(file, 1, 2, {4, 0}, &note);
  EXPECT_EQ(second.devices[0].cores, (std::vector<int>{2, 3}));
  EXPECT_EQ(note,
            "each of the 2 ranks runs on its own copy of rank.yaml's devices: local rank r's cores "
            "+ 2r");
}

}  // namespace
}  // namespace trainer
