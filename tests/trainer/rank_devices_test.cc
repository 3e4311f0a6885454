#include "trainer/rank_devices.h"

#include <gtest/gtest.h>

#include <numeric>

namespace trainer {
namespace {

cluster::Cluster File(const std::string& yaml) {
  auto c = cluster::ParseDevicesYaml(yaml, "rank.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

// Cores 0 .. n-1 and `gpus` GPUs.
HostSize Host(int n, int gpus) {
  HostSize h;
  h.cores.resize(n);
  std::iota(h.cores.begin(), h.cores.end(), 0);
  h.cuda_devices = gpus;
  return h;
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
  const cluster::Cluster second = DevicesOfLocalRank(file, 1, 2, Host(8, 2), &note);
  ASSERT_EQ(second.devices.size(), 3u);
  EXPECT_EQ(second.devices[0].cores, (std::vector<int>{3}));
  EXPECT_EQ(second.devices[1].cores, (std::vector<int>{4, 5}));
  EXPECT_EQ(second.devices[1].threads, 2);
  EXPECT_EQ(second.devices[2].cuda_index, 1);
  EXPECT_EQ(second.devices[0].name, "cpu0") << "the placement names them";
  EXPECT_EQ(note,
            "each of the 2 ranks on this host runs on its own copy of rank.yaml's devices: local "
            "rank r's cores + 3r, cuda indices + 1r");
  const cluster::Cluster first = DevicesOfLocalRank(file, 0, 2, Host(8, 2), &note);
  EXPECT_EQ(first.devices[1].cores, (std::vector<int>{1, 2}));
  EXPECT_EQ(first.devices[2].cuda_index, 0);
}

// Cores and GPUs are spread apart: 8 ranks of 8 cores and a GPU on a 32-core
// 8-GPU host still get a GPU each (as cuda:LOCAL_RANK would), and share cores.
TEST(RankDevicesTest, GpusAreSpreadWhereCoresCannotBeAndTheNoteSaysWhichAreShared) {
  const cluster::Cluster file = File(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0, 1, 2, 3, 4, 5, 6, 7], threads: 8}\n"
      "  - {name: gpu0, kind: cuda, index: 0}\n");
  std::string note;
  const cluster::Cluster sixth = DevicesOfLocalRank(file, 5, 8, Host(32, 8), &note);
  EXPECT_EQ(sixth.devices[1].cuda_index, 5);
  EXPECT_EQ(sixth.devices[0].cores.front(), 0);
  EXPECT_EQ(note,
            "each of the 8 ranks on this host runs on its own copy of rank.yaml's devices: local "
            "rank r's cuda indices + 1r; they share the rest: a copy for each would need cores up "
            "to 63, and this process may run on 0-31");
  // Cores for both copies (6 of 8), one GPU for two.
  const cluster::Cluster second = DevicesOfLocalRank(File(kTwoCpusOneGpu), 1, 2, Host(8, 1), &note);
  EXPECT_EQ(second.devices[1].cores, (std::vector<int>{4, 5}));
  EXPECT_EQ(second.devices[2].cuda_index, 0);
  EXPECT_EQ(note,
            "each of the 2 ranks on this host runs on its own copy of rank.yaml's devices: local "
            "rank r's cores + 3r; they share the rest: a copy for each would need 2 CUDA devices, "
            "and this host has 1");
}

TEST(RankDevicesTest, AHostWithoutRoomForAnyCopyLeavesTheRanksSharingTheFileAndSaysWhy) {
  std::string note;
  const cluster::Cluster third = DevicesOfLocalRank(File(kTwoCpusOneGpu), 2, 3, Host(8, 2), &note);
  EXPECT_EQ(third.devices[0].cores, (std::vector<int>{0}));
  EXPECT_EQ(third.devices[2].cuda_index, 0);
  EXPECT_EQ(note,
            "the 3 ranks on this host share the devices of rank.yaml: a copy for each would need "
            "cores up to 8, and this process may run on 0-7; and 3 CUDA devices, and this host "
            "has 2");
}

// The cores this process may run on (taskset, a container's cpuset), not the
// host's count: a shifted core outside them cannot be pinned.
TEST(RankDevicesTest, OnlyCoresThisProcessMayRunOnTakeACopy) {
  const cluster::Cluster file =
      File("devices:\n  - {name: cpu0, kind: cpu, cores: [0, 1], threads: 2}\n");
  HostSize host;
  host.cores = {0, 1, 4, 5};
  std::string note;
  cluster::Cluster second = DevicesOfLocalRank(file, 1, 2, host, &note);
  EXPECT_EQ(second.devices[0].cores, (std::vector<int>{0, 1}));
  EXPECT_EQ(note,
            "the 2 ranks on this host share the devices of rank.yaml: a copy for each would need "
            "cores up to 3, and this process may run on 0-1,4-5");
  host.cores = {0, 1, 2, 3};
  second = DevicesOfLocalRank(file, 1, 2, host, &note);
  EXPECT_EQ(second.devices[0].cores, (std::vector<int>{2, 3}));
  EXPECT_EQ(note,
            "each of the 2 ranks on this host runs on its own copy of rank.yaml's devices: local "
            "rank r's cores + 2r");
}

TEST(RankDevicesTest, OneRankOnTheHostKeepsTheFileWithoutANote) {
  const cluster::Cluster file = File(kTwoCpusOneGpu);
  std::string note = "stale";
  const cluster::Cluster only = DevicesOfLocalRank(file, 0, 1, Host(1, 0), &note);
  EXPECT_EQ(only.devices[1].cores, (std::vector<int>{1, 2}));
  EXPECT_TRUE(note.empty());
}

}  // namespace
}  // namespace trainer
