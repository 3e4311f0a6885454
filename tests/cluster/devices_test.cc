#include "cluster/devices.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace cluster {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

Cluster ParseOk(const std::string& yaml) {
  graph::Result<Cluster> result = ParseDevicesYaml(yaml, "test.yaml");
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(result).value() : Cluster{};
}

// Parses `yaml` as "test.yaml" and checks it is rejected with a one-line message
// that begins with `where` (file, and line when known) and contains `problem`.
void ExpectError(const std::string& yaml, const std::string& where, const std::string& problem) {
  const graph::Result<Cluster> result = ParseDevicesYaml(yaml, "test.yaml");
  ASSERT_FALSE(result.ok()) << "accepted:\n" << yaml;
  const std::string& message = result.status().message();
  EXPECT_EQ(result.status().code(), graph::StatusCode::kInvalidArgument) << message;
  EXPECT_EQ(message.rfind(where, 0), 0u) << "expected to start with '" << where << "': " << message;
  EXPECT_NE(message.find(problem), std::string::npos)
      << "expected '" << problem << "' in: " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

const char kFullExample[] = R"(devices:
  - name: cpu0
    kind: cpu
    cores: [0]
    threads: 1
    memory: 8GiB
  - name: gpu0
    kind: cuda
    index: 0
    memory: 80GiB
  - name: k40_0
    kind: sim
    simulates: gpu
    peak_flops: 4.29 TFLOP/s
    memory_bandwidth: 288 GB/s
    memory: 12GiB
default_link: { bandwidth: 12 GB/s, latency: 10us }
links:
  - between: [cpu0, gpu0]
    bandwidth: 12 GiB/s
    latency: 5us
)";

TEST(DevicesTest, ParsesEveryKindWithItsFigures) {
  const Cluster cluster = ParseOk(kFullExample);
  ASSERT_EQ(cluster.devices.size(), 3u);
  EXPECT_EQ(cluster.source, "test.yaml");

  const DeviceSpec& cpu = cluster.devices[0];
  EXPECT_EQ(cpu.name, "cpu0");
  EXPECT_EQ(cpu.kind, DeviceKind::kCpu);
  EXPECT_EQ(cpu.cores, std::vector<int>{0});
  EXPECT_EQ(cpu.threads, 1);
  EXPECT_EQ(cpu.memory_bytes, 8 * kGiB);
  EXPECT_FALSE(cpu.peak_flops.has_value());

  const DeviceSpec& gpu = cluster.devices[1];
  EXPECT_EQ(gpu.kind, DeviceKind::kCuda);
  EXPECT_EQ(gpu.cuda_index, 0);
  EXPECT_EQ(gpu.memory_bytes, 80 * kGiB);

  const DeviceSpec& sim = cluster.devices[2];
  EXPECT_EQ(sim.kind, DeviceKind::kSim);
  EXPECT_EQ(sim.simulates, "gpu");
  EXPECT_DOUBLE_EQ(*sim.peak_flops, 4.29e12);
  EXPECT_DOUBLE_EQ(*sim.memory_bandwidth, 288e9);
  EXPECT_EQ(sim.memory_bytes, 12 * kGiB);

  ASSERT_TRUE(cluster.default_link.has_value());
  EXPECT_DOUBLE_EQ(cluster.default_link->bandwidth_bytes_per_s, 12e9);
  EXPECT_DOUBLE_EQ(cluster.default_link->latency_s, 10e-6);
}

TEST(DevicesTest, LinkIsSymmetricAndFallsBackToDefaultLink) {
  const Cluster cluster = ParseOk(kFullExample);
  const std::optional<LinkSpec> forward = cluster.Link(0, 1);
  const std::optional<LinkSpec> backward = cluster.Link(1, 0);
  ASSERT_TRUE(forward && backward);
  EXPECT_DOUBLE_EQ(forward->bandwidth_bytes_per_s, 12.0 * kGiB);
  EXPECT_DOUBLE_EQ(backward->bandwidth_bytes_per_s, 12.0 * kGiB);
  EXPECT_DOUBLE_EQ(forward->latency_s, 5e-6);
  const std::optional<LinkSpec> fallback = cluster.Link(2, 0);
  ASSERT_TRUE(fallback);
  EXPECT_DOUBLE_EQ(fallback->bandwidth_bytes_per_s, 12e9);
}

TEST(DevicesTest, LinkIsAbsentWithoutExplicitOrDefaultLink) {
  const Cluster cluster = ParseOk(R"(devices:
  - {name: cpu0, kind: cpu, cores: [0]}
  - {name: cpu1, kind: cpu, cores: [1]}
)");
  EXPECT_FALSE(cluster.Link(0, 1).has_value());
}

TEST(DevicesTest, IdenticalSimsWithTheSameLinksAreInterchangeable) {
  const Cluster cluster = ParseOk(R"(devices:
  - {name: cpu0, kind: sim, simulates: cpu, peak_flops: 1T, memory_bandwidth: 50GB/s}
  - {name: gpu0, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s, memory: 12GiB}
  - {name: gpu1, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s, memory: 12GiB}
  - {name: gpu2, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s, memory: 12GiB}
  - {name: gpu3, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s, memory: 6GiB}
  - {name: gpu4, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s, memory: 12GiB}
default_link: {bandwidth: 12GB/s, latency: 10us}
links:
  - {between: [cpu0, gpu4], bandwidth: 6GB/s, latency: 10us}
)");
  EXPECT_TRUE(cluster.Interchangeable(1, 2));
  EXPECT_TRUE(cluster.Interchangeable(2, 1));
  EXPECT_TRUE(cluster.Interchangeable(1, 1));
  EXPECT_FALSE(cluster.Interchangeable(0, 1)) << "a cpu and a gpu";
  EXPECT_TRUE(cluster.Interchangeable(1, 3));
  EXPECT_FALSE(cluster.Interchangeable(1, 4)) << "less memory";
  EXPECT_FALSE(cluster.Interchangeable(1, 5)) << "a slower link to the cpu";
}

TEST(DevicesTest, RealDevicesAreNeverInterchangeable) {
  const Cluster cluster = ParseOk(R"(devices:
  - {name: cpu0, kind: cpu, cores: [0]}
  - {name: cpu1, kind: cpu, cores: [1]}
)");
  EXPECT_FALSE(cluster.Interchangeable(0, 1));
}

TEST(DevicesTest, FindAndIndexOfLocateByName) {
  const Cluster cluster = ParseOk(kFullExample);
  EXPECT_EQ(cluster.IndexOf("gpu0"), 1);
  EXPECT_EQ(cluster.IndexOf("nope"), -1);
  ASSERT_NE(cluster.Find("k40_0"), nullptr);
  EXPECT_EQ(cluster.Find("k40_0")->simulates, "gpu");
  EXPECT_EQ(cluster.Find("nope"), nullptr);
}

TEST(DevicesTest, ThreadsDefaultToCoreCountAndRangesExpand) {
  const Cluster cluster = ParseOk(R"(devices:
  - {name: a, kind: cpu, cores: "0-3"}
  - {name: b, kind: cpu, cores: "6,4-5", threads: 2}
)");
  EXPECT_EQ(cluster.devices[0].cores, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(cluster.devices[0].threads, 4);
  EXPECT_EQ(cluster.devices[1].cores, (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(cluster.devices[1].threads, 2);
}

TEST(DevicesTest, SpinIsADurationAndDefaultsTo200Microseconds) {
  const Cluster cluster = ParseOk(R"(devices:
  - {name: a, kind: cpu, cores: [0]}
  - {name: b, kind: cpu, cores: [1], spin: 50us}
  - {name: c, kind: cpu, cores: [2], spin: 0s}
)");
  EXPECT_DOUBLE_EQ(cluster.devices[0].spin_s, 200e-6);
  EXPECT_DOUBLE_EQ(cluster.devices[1].spin_s, 50e-6);
  EXPECT_DOUBLE_EQ(cluster.devices[2].spin_s, 0);
}

TEST(DevicesTest, CudaSyncIsPerStepUnlessSetToOp) {
  auto c = ParseDevicesYaml(
      "devices:\n  - {name: g0, kind: cuda, index: 0}\n"
      "  - {name: g1, kind: cuda, index: 1, sync: op}\n  - {name: g2, kind: cuda, index: 2, "
      "sync: step}\n",
      "test.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c->devices[0].sync_each_op);
  EXPECT_TRUE(c->devices[1].sync_each_op);
  EXPECT_FALSE(c->devices[2].sync_each_op);
}

TEST(DevicesTest, CudaGraphsAreOffUnlessSetToOn) {
  auto c = ParseDevicesYaml(
      "devices:\n  - {name: g0, kind: cuda, index: 0}\n"
      "  - {name: g1, kind: cuda, index: 1, graphs: on}\n"
      "  - {name: g2, kind: cuda, index: 2, graphs: off, sync: op}\n",
      "test.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c->devices[0].cuda_graphs);
  EXPECT_TRUE(c->devices[1].cuda_graphs);
  EXPECT_FALSE(c->devices[2].cuda_graphs);
}

TEST(DevicesTest, HostCopiesArePageableUnlessSetToPinned) {
  auto c = ParseDevicesYaml(
      "devices:\n  - {name: g0, kind: cuda, index: 0}\n"
      "  - {name: g1, kind: cuda, index: 1, host_copies: pinned}\n"
      "  - {name: g2, kind: cuda, index: 2, host_copies: pageable}\n",
      "test.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c->devices[0].pinned_host_copies);
  EXPECT_TRUE(c->devices[1].pinned_host_copies);
  EXPECT_FALSE(c->devices[2].pinned_host_copies);
}

TEST(DevicesErrorTest, RejectsHostCopiesOtherThanPinnedOrPageableOrOnACpu) {
  ExpectError("devices:\n  - {name: g0, kind: cuda, index: 0, host_copies: locked}\n",
              "test.yaml:2: ", "device 'g0': host_copies must be pinned or pageable, got 'locked'");
  ExpectError("devices:\n  - {name: c0, kind: cpu, cores: [0], host_copies: pinned}\n",
              "test.yaml:2: ", "device 'c0': key 'host_copies' is not valid for a cpu device");
}

TEST(DevicesErrorTest, RejectsGraphsOtherThanOnOrOffWithSyncOpOrOnACpu) {
  ExpectError("devices:\n  - {name: g0, kind: cuda, index: 0, graphs: yes}\n",
              "test.yaml:2: ", "device 'g0': graphs must be on or off, got 'yes'");
  ExpectError("devices:\n  - {name: g0, kind: cuda, index: 0, sync: op, graphs: on}\n",
              "test.yaml:2: ", "device 'g0': graphs: on needs sync: step");
  ExpectError("devices:\n  - {name: c0, kind: cpu, cores: [0], graphs: on}\n",
              "test.yaml:2: ", "device 'c0': key 'graphs' is not valid for a cpu device");
}

TEST(DevicesErrorTest, RejectsASyncOtherThanStepOrOpAndOnACpu) {
  ExpectError("devices:\n  - {name: g0, kind: cuda, index: 0, sync: always}\n",
              "test.yaml:2: ", "device 'g0': sync must be step or op, got 'always'");
  ExpectError("devices:\n  - {name: c0, kind: cpu, cores: [0], sync: op}\n",
              "test.yaml:2: ", "device 'c0': key 'sync' is not valid for a cpu device");
}

TEST(DevicesErrorTest, RejectsASpinThatIsNotADurationOrOutOfRange) {
  ExpectError("devices:\n  - {name: a, kind: cpu, cores: [0], spin: fast}\n",
              "test.yaml:2: ", "device 'a': spin: ");
  ExpectError("devices:\n  - {name: a, kind: cpu, cores: [0], spin: 2s}\n",
              "test.yaml:2: ", "device 'a': spin must be between 0 and 1 s, got '2s'");
}

TEST(DevicesTest, TfDeviceStringsFollowKindAndPosition) {
  const Cluster cluster = ParseOk(R"(devices:
  - {name: host, kind: cpu, cores: [0]}
  - {name: real1, kind: cuda, index: 1}
  - {name: fake_gpu, kind: sim, simulates: gpu, peak_flops: 1T, memory_bandwidth: 1GB/s}
  - {name: fake_cpu, kind: sim, simulates: cpu, peak_flops: 1T, memory_bandwidth: 1GB/s}
default_link: {bandwidth: 1GB/s, latency: 1us}
)");
  ASSERT_EQ(cluster.devices.size(), 4u);
  EXPECT_EQ(cluster.devices[0].TfDeviceString(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(cluster.devices[1].TfDeviceString(), "/job:localhost/replica:0/task:0/device:GPU:1");
  // Numbered after the highest cuda index so it cannot collide with a real GPU.
  EXPECT_EQ(cluster.devices[2].TfDeviceString(), "/job:localhost/replica:0/task:0/device:GPU:2");
  EXPECT_EQ(cluster.devices[3].TfDeviceString(3), "/job:localhost/replica:0/task:3/device:CPU:1");
}

TEST(DevicesTest, DigestIsFnv1a64OfTheFileBytes) {
  const Cluster cluster = ParseOk("devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n");
  EXPECT_EQ(cluster.digest, "cd942dcbdf045ba6");
  const Cluster commented = ParseOk("# x\ndevices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n");
  EXPECT_NE(commented.digest, cluster.digest);
}

TEST(DevicesTest, ThePlacementDigestLeavesOutHowDevicesRunAndCommentsButNotWhatTheyAre) {
  const std::string gpu = "  - {name: gpu0, kind: cuda, index: 0}\n";
  const Cluster base = ParseOk("devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n" + gpu);
  ASSERT_EQ(base.placement_digest.size(), 16u);
  for (const std::string& same : std::vector<std::string>{
           "# x\ndevices:\n  - {name: cpu0, kind: cpu, cores: [0], spin: 0s}\n" + gpu,
           std::string("devices:\n  - name: cpu0\n    kind: cpu\n    cores: [0]\n") +
               "  - {name: gpu0, kind: cuda, index: 0, sync: op, host_copies: pinned}\n",
           "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n"
           "  - {name: gpu0, kind: cuda, index: 0, graphs: on}\n"}) {
    EXPECT_EQ(ParseOk(same).placement_digest, base.placement_digest) << same;
  }
  for (const std::string& other : std::vector<std::string>{
           "devices:\n  - {name: cpu0, kind: cpu, cores: [1]}\n" + gpu,
           "devices:\n  - {name: cpu1, kind: cpu, cores: [0]}\n" + gpu,
           "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n"
           "  - {name: gpu0, kind: cuda, index: 1}\n",
           "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n" + gpu +
               "links:\n  - {between: [cpu0, gpu0], bandwidth: 10GB/s, latency: 10us}\n"}) {
    EXPECT_NE(ParseOk(other).placement_digest, base.placement_digest) << other;
  }
}

TEST(DevicesTest, KindNamesAreTheYamlSpellings) {
  EXPECT_STREQ(DeviceKindName(DeviceKind::kCpu), "cpu");
  EXPECT_STREQ(DeviceKindName(DeviceKind::kCuda), "cuda");
  EXPECT_STREQ(DeviceKindName(DeviceKind::kSim), "sim");
}

// ---- Files --------------------------------------------------------------------

TEST(DevicesFileTest, MissingFileIsNotFoundNamingThePath) {
  const graph::Result<Cluster> result = LoadDevicesFile("/nonexistent/devices.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), graph::StatusCode::kNotFound);
  EXPECT_EQ(result.status().message(), "/nonexistent/devices.yaml: no such file");
}

TEST(DevicesFileTest, DirectoryIsAnIoErrorNamingThePath) {
  const graph::Result<Cluster> result = LoadDevicesFile(CLUSTER_TEST_DATA_DIR);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), graph::StatusCode::kIoError);
  EXPECT_EQ(result.status().message(),
            std::string(CLUSTER_TEST_DATA_DIR) + ": is a directory, not a devices file");
}

TEST(DevicesFileTest, SyntaxErrorNamesThePathAndLine) {
  const std::string path = std::string(CLUSTER_TEST_DATA_DIR) + "/bad_syntax.yaml";
  const graph::Result<Cluster> result = LoadDevicesFile(path);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message().rfind(path + ":4: invalid YAML: ", 0), 0u)
      << result.status().message();
}

TEST(DevicesFileTest, LoadedClusterRecordsItsPath) {
  const std::string path = std::string(CLUSTER_TEST_DATA_DIR) + "/two_cpus.yaml";
  const graph::Result<Cluster> result = LoadDevicesFile(path);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->source, path);
  EXPECT_EQ(result->devices.size(), 2u);
}

// ---- Document shape ---------------------------------------------------------------

TEST(DevicesErrorTest, RejectsYamlSyntaxErrorWithLine) {
  ExpectError("devices:\n  - {name: x, kind: cpu\n",
              "test.yaml:3: ", "invalid YAML: end of map flow");
}

TEST(DevicesErrorTest, RejectsEmptyDocument) {
  ExpectError("", "test.yaml: ", "top level must be a map with a 'devices' list, found nothing");
}

TEST(DevicesErrorTest, RejectsTopLevelThatIsNotAMap) {
  ExpectError("- cpu0\n- cpu1\n", "test.yaml:1: ", "top level must be a map");
}

TEST(DevicesErrorTest, RejectsSeveralYamlDocuments) {
  ExpectError("devices: []\n---\ndevices: []\n", "test.yaml: ", "holds 2 YAML documents");
}

TEST(DevicesErrorTest, RejectsUnknownTopLevelKey) {
  ExpectError("devices:\n  - {name: c, kind: cpu, cores: [0]}\nlinkz: []\n", "test.yaml:3: ",
              "unknown top-level key 'linkz' (expected devices, default_link or links)");
}

TEST(DevicesErrorTest, RejectsMissingDevices) {
  ExpectError("default_link: {bandwidth: 1GB/s, latency: 1us}\n",
              "test.yaml:1: ", "missing 'devices' list");
}

TEST(DevicesErrorTest, RejectsEmptyDevices) {
  ExpectError("devices: []\n", "test.yaml:1: ", "'devices' is empty");
}

// `planner devices` accepted 10,000 devices that every other command refused.
TEST(DevicesErrorTest, RejectsMoreDevicesThanAPlacementCanName) {
  std::string yaml = "default_link: {bandwidth: 1GB/s, latency: 1us}\ndevices:\n";
  for (int i = 0; i < 256; ++i) {
    yaml += "  - {name: g" + std::to_string(i) +
            ", kind: sim, simulates: gpu, peak_flops: 1e12, memory_bandwidth: 1e11}\n";
  }
  ExpectError(yaml, "test.yaml:2: ", "'devices' lists 256 devices; at most 255 are placed on");
  yaml.resize(yaml.rfind("  - "));  // 255
  EXPECT_TRUE(ParseDevicesYaml(yaml, "test.yaml").ok());
}

TEST(DevicesErrorTest, RejectsDevicesThatIsNotAList) {
  ExpectError("devices:\n  cpu0: {kind: cpu}\n",
              "test.yaml:1: ", "'devices' must be a list, found a map");
}

TEST(DevicesErrorTest, RejectsDeviceThatIsNotAMap) {
  ExpectError("devices:\n  - cpu0\n",
              "test.yaml:2: ", "device #1 must be a map with a name and a kind");
}

TEST(DevicesErrorTest, RejectsDuplicateKeyInAMap) {
  ExpectError("devices:\n  - name: a\n    kind: cpu\n    cores: [0]\n    cores: [1]\n",
              "test.yaml:5: ", "device #1: duplicate key 'cores'");
}

// ---- Devices ------------------------------------------------------------------------

TEST(DevicesErrorTest, RejectsDeviceWithoutName) {
  ExpectError("devices:\n  - {name: a, kind: cpu, cores: [0]}\n  - {kind: cpu, cores: [1]}\n",
              "test.yaml:3: ", "device #2: missing 'name'");
}

TEST(DevicesErrorTest, RejectsNameWithOddCharacters) {
  ExpectError("devices:\n  - {name: 'gpu 0', kind: cuda, index: 0}\n",
              "test.yaml:2: ", "name 'gpu 0' must be non-empty letters, digits");
}

TEST(DevicesErrorTest, RejectsDeviceWithoutKind) {
  ExpectError("devices:\n  - name: gpu0\n    index: 0\n",
              "test.yaml:2: ", "device 'gpu0': missing 'kind'");
}

TEST(DevicesErrorTest, RejectsUnknownKind) {
  ExpectError("devices:\n  - name: gpu0\n    kind: gpu\n",
              "test.yaml:3: ", "device 'gpu0': unknown kind 'gpu' (expected cpu, cuda or sim)");
}

TEST(DevicesErrorTest, RejectsDuplicateDeviceNamesNamingTheFirst) {
  ExpectError(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n  - {name: cpu0, kind: cpu, cores: "
      "[1]}\n",
      "test.yaml:3: ", "devices: duplicate device name 'cpu0' (first at line 2)");
}

TEST(DevicesErrorTest, RejectsUnknownDeviceKeyNamingIt) {
  ExpectError("devices:\n  - name: gpu0\n    kind: cuda\n    index: 0\n    bandwith: 1GB/s\n",
              "test.yaml:5: ", "device 'gpu0': unknown key 'bandwith'");
}

TEST(DevicesErrorTest, RejectsKeyThatBelongsToAnotherKind) {
  ExpectError("devices:\n  - {name: c, kind: cpu, cores: [0], index: 0}\n",
              "test.yaml:2: ", "device 'c': key 'index' is not valid for a cpu device");
  ExpectError("devices:\n  - {name: g, kind: cuda, index: 0, cores: [0]}\n",
              "test.yaml:2: ", "device 'g': key 'cores' is not valid for a cuda device");
  ExpectError("devices:\n  - {name: c, kind: cpu, cores: [0], simulates: cpu}\n",
              "test.yaml:2: ", "device 'c': key 'simulates' is not valid for a cpu device");
}

TEST(DevicesErrorTest, RejectsNonPositiveOrUnparsableDeviceQuantities) {
  struct Case {
    std::string field;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"memory: 0", "device 'g': memory must be positive, got '0'"},
      {"memory: -1GiB", "device 'g': memory: '-1GiB' is negative"},
      {"memory: 12 GX", "device 'g': memory: '12 GX': unknown unit 'GX'"},
      {"memory: [1]", "device 'g': memory must be a single value, found a list"},
      {"memory:", "device 'g': memory must be a single value, found nothing"},
      {"peak_flops: 0", "device 'g': peak_flops must be positive, got '0'"},
      {"peak_flops: fast", "device 'g': peak_flops: 'fast' is not a number"},
      {"memory_bandwidth: -5GB/s", "device 'g': memory_bandwidth: '-5GB/s' is negative"},
      {"memory_bandwidth: 0 GB/s", "device 'g': memory_bandwidth must be positive"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.field);
    ExpectError("devices:\n  - name: g\n    kind: cuda\n    index: 0\n    " + c.field + "\n",
                "test.yaml:5: ", c.problem);
  }
}

// A figure no machine has (1e-300 FLOP/s) made every op on the device take forever: the
// simulator printed "inf ms" and the baselines compared infinities.
TEST(DevicesErrorTest, RejectsDeviceFiguresNoMachineHasNamingTheRange) {
  struct Case {
    std::string field;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"peak_flops: 1e-300 FLOP/s",
       "device 'g': peak_flops must be between 1 MFLOP/s and 1000 PFLOP/s, got '1e-300 FLOP/s'"},
      {"peak_flops: 1e300", "device 'g': peak_flops must be between"},
      {"memory_bandwidth: 1e-9 GB/s", "device 'g': memory_bandwidth must be between 1 MB/s"},
      {"memory_bandwidth: 2000 TB/s", "device 'g': memory_bandwidth must be between"},
      {"memory: 2048 TiB", "device 'g': memory must be between 1 B and 1024 TiB"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.field);
    ExpectError("devices:\n  - name: g\n    kind: cuda\n    index: 0\n    " + c.field + "\n",
                "test.yaml:5: ", c.problem);
  }
}

TEST(DevicesErrorTest, AcceptsFiguresAtTheEdgesOfTheirRanges) {
  const std::string yaml =
      "devices:\n  - {name: a, kind: sim, simulates: gpu, peak_flops: 1 MFLOP/s, "
      "memory_bandwidth: 1000 TB/s, memory: 1024 TiB}\n  - {name: b, kind: sim, simulates: "
      "gpu, peak_flops: 1000 PFLOP/s, memory_bandwidth: 1 MB/s, memory: 1B}\n"
      "default_link: {bandwidth: 1 kB/s, latency: 60s}\n";
  const graph::Result<Cluster> cluster = ParseDevicesYaml(yaml, "test.yaml");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  EXPECT_EQ(cluster->devices[1].peak_flops, 1e18);
}

TEST(DevicesErrorTest, RejectsCpuWithoutCores) {
  ExpectError("devices:\n  - {name: c, kind: cpu, threads: 1}\n",
              "test.yaml:2: ", "device 'c': cpu device needs 'cores'");
}

TEST(DevicesErrorTest, RejectsOverlappingCoresNamingBothDevices) {
  ExpectError(
      "devices:\n  - {name: a, kind: cpu, cores: \"0-2\"}\n  - {name: b, kind: cpu, cores: [2, "
      "3]}\n",
      "test.yaml:3: ", "devices 'a' and 'b' both own core 2");
}

TEST(DevicesErrorTest, RejectsNegativeCoreIds) {
  ExpectError("devices:\n  - {name: a, kind: cpu, cores: [-1]}\n",
              "test.yaml:2: ", "device 'a': cores: core id -1 is outside 0..65535");
  ExpectError("devices:\n  - {name: a, kind: cpu, cores: \"-1\"}\n",
              "test.yaml:2: ", "device 'a': cores: '-1' is not a core list");
}

TEST(DevicesErrorTest, RejectsMalformedCoreLists) {
  ExpectError("devices:\n  - {name: a, kind: cpu, cores: [0, 0]}\n",
              "test.yaml:2: ", "device 'a': cores: core 0 is listed twice");
  ExpectError("devices:\n  - {name: a, kind: cpu, cores: []}\n",
              "test.yaml:2: ", "device 'a': cores is empty");
  ExpectError("devices:\n  - {name: a, kind: cpu, cores: \"3-1\"}\n",
              "test.yaml:2: ", "'3-1' is not a core list");
  ExpectError("devices:\n  - {name: a, kind: cpu, cores: [x]}\n",
              "test.yaml:2: ", "device 'a': cores: 'x' is not an integer");
}

TEST(DevicesErrorTest, RejectsThreadsOutsideOneToCoreCount) {
  for (const char* threads : {"0", "3", "-1"}) {
    SCOPED_TRACE(threads);
    ExpectError(
        std::string("devices:\n  - name: a\n    kind: cpu\n    cores: [0, 1]\n    threads: ") +
            threads + "\n",
        "test.yaml:5: ",
        std::string("device 'a': threads must be between 1 and the number of cores (2), got ") +
            threads);
  }
  ExpectError("devices:\n  - {name: a, kind: cpu, cores: [0], threads: two}\n",
              "test.yaml:2: ", "device 'a': threads: 'two' is not an integer");
}

TEST(DevicesErrorTest, RejectsCudaWithoutIndex) {
  ExpectError("devices:\n  - {name: g, kind: cuda}\n",
              "test.yaml:2: ", "device 'g': cuda device needs an 'index'");
}

TEST(DevicesErrorTest, RejectsNegativeCudaIndex) {
  ExpectError("devices:\n  - {name: g, kind: cuda, index: -1}\n",
              "test.yaml:2: ", "device 'g': index must be >= 0, got -1");
}

TEST(DevicesErrorTest, RejectsDuplicateCudaIndexNamingBothDevices) {
  ExpectError(
      "devices:\n  - {name: g0, kind: cuda, index: 0}\n  - {name: g1, kind: cuda, index: 0}\n",
      "test.yaml:3: ", "devices 'g0' and 'g1' both use cuda index 0");
}

TEST(DevicesErrorTest, RejectsSimWithoutItsFigures) {
  ExpectError("devices:\n  - {name: s, kind: sim, peak_flops: 1T, memory_bandwidth: 1GB/s}\n",
              "test.yaml:2: ", "device 's': sim device needs 'simulates' (cpu or gpu)");
  ExpectError(
      "devices:\n  - {name: s, kind: sim, simulates: tpu, peak_flops: 1T, memory_bandwidth: "
      "1GB/s}\n",
      "test.yaml:2: ", "device 's': simulates must be cpu or gpu, got 'tpu'");
  ExpectError("devices:\n  - {name: s, kind: sim, simulates: gpu, memory_bandwidth: 1GB/s}\n",
              "test.yaml:2: ", "device 's': sim device needs 'peak_flops'");
  ExpectError("devices:\n  - {name: s, kind: sim, simulates: gpu, peak_flops: 1T}\n",
              "test.yaml:2: ", "device 's': sim device needs 'memory_bandwidth'");
}

// ---- Links ----------------------------------------------------------------------------

const char kTwoCpus[] =
    "devices:\n  - {name: a, kind: cpu, cores: [0]}\n  - {name: b, kind: cpu, cores: [1]}\n";

TEST(DevicesErrorTest, RejectsLinkToUnknownDevice) {
  ExpectError(
      std::string(kTwoCpus) + "links:\n  - {between: [a, zz], bandwidth: 1GB/s, latency: 1us}\n",
      "test.yaml:5: ", "link between 'a' and 'zz': unknown device 'zz'");
}

TEST(DevicesErrorTest, RejectsDeviceLinkedToItself) {
  ExpectError(
      std::string(kTwoCpus) + "links:\n  - {between: [a, a], bandwidth: 1GB/s, latency: 1us}\n",
      "test.yaml:5: ", "link between 'a' and 'a': a device cannot link to itself");
}

TEST(DevicesErrorTest, RejectsDuplicateLinkInEitherOrder) {
  ExpectError(std::string(kTwoCpus) +
                  "links:\n  - {between: [a, b], bandwidth: 1GB/s, latency: 1us}\n"
                  "  - {between: [b, a], bandwidth: 2GB/s, latency: 1us}\n",
              "test.yaml:6: ", "duplicate link between 'b' and 'a' (first at line 5)");
}

TEST(DevicesErrorTest, RejectsMalformedLinks) {
  ExpectError(
      std::string(kTwoCpus) + "links:\n  - {between: [a], bandwidth: 1GB/s, latency: 1us}\n",
      "test.yaml:5: ", "link #1: needs 'between: [device, device]'");
  ExpectError(std::string(kTwoCpus) + "links:\n  - {bandwidth: 1GB/s, latency: 1us}\n",
              "test.yaml:5: ", "link #1: needs 'between: [device, device]'");
  ExpectError(std::string(kTwoCpus) + "links:\n  - {between: [a, b], bandwidth: 1GB/s, lat: 1us}\n",
              "test.yaml:5: ", "link #1: unknown key 'lat'");
  ExpectError(std::string(kTwoCpus) + "links:\n  - {between: [a, b], bandwidth: 1GB/s}\n",
              "test.yaml:5: ", "link between 'a' and 'b': missing 'latency'");
  ExpectError(std::string(kTwoCpus) + "links: {a: b}\n",
              "test.yaml:4: ", "'links' must be a list, found a map");
}

TEST(DevicesErrorTest, RejectsNonPositiveOrUnparsableLinkFigures) {
  ExpectError(std::string(kTwoCpus) + "links:\n  - {between: [a, b], bandwidth: 0, latency: 1us}\n",
              "test.yaml:5: ", "link between 'a' and 'b': bandwidth must be positive, got '0'");
  ExpectError(
      std::string(kTwoCpus) + "links:\n  - {between: [a, b], bandwidth: 1GB/s, latency: -1us}\n",
      "test.yaml:5: ", "link between 'a' and 'b': latency: '-1us' is negative");
  ExpectError(std::string(kTwoCpus) + "default_link: {bandwidth: 1GB/s, latency: 0}\n",
              "test.yaml:4: ", "default_link: latency must be positive, got '0'");
  ExpectError(std::string(kTwoCpus) + "default_link: {bandwidth: 1 GB, latency: 1us}\n",
              "test.yaml:4: ", "default_link: bandwidth: '1 GB': unknown unit 'GB'");
  ExpectError(std::string(kTwoCpus) + "default_link: {bandwidth: 1GB/s, latency: 61s}\n",
              "test.yaml:4: ", "default_link: latency must be between 0 and 60 s, got '61s'");
  ExpectError(std::string(kTwoCpus) + "default_link: {bandwidth: 999 B/s, latency: 1us}\n",
              "test.yaml:4: ", "default_link: bandwidth must be between 1 kB/s and 1000 TB/s");
}

TEST(DevicesErrorTest, RejectsMalformedDefaultLink) {
  ExpectError(std::string(kTwoCpus) + "default_link: 5\n", "test.yaml:4: ",
              "default_link must be a map with bandwidth and latency, found a value");
  ExpectError(
      std::string(kTwoCpus) + "default_link: {between: [a, b], bandwidth: 1GB/s, latency: 1us}\n",
      "test.yaml:4: ", "default_link: unknown key 'between'");
  ExpectError(std::string(kTwoCpus) + "default_link: {latency: 1us}\n",
              "test.yaml:4: ", "default_link: missing 'bandwidth'");
}

const char kSimAndCpus[] = R"(devices:
  - {name: c0, kind: cpu, cores: [0]}
  - {name: c1, kind: cpu, cores: [1]}
  - {name: s, kind: sim, simulates: gpu, peak_flops: 1T, memory_bandwidth: 1GB/s}
)";

TEST(DevicesErrorTest, RejectsSimDeviceWithoutLinkNamingThePair) {
  ExpectError(
      std::string(kSimAndCpus) + "links:\n  - {between: [s, c0], bandwidth: 1GB/s, latency: 1us}\n",
      "test.yaml:4: ", "sim device 's' has no link to 'c1' and there is no default_link");
}

TEST(DevicesTest, SimDeviceNeedsNoDefaultLinkWhenLinkedToEveryDevice) {
  const Cluster cluster = ParseOk(std::string(kSimAndCpus) +
                                  "links:\n  - {between: [s, c0], bandwidth: 1GB/s, latency: 1us}\n"
                                  "  - {between: [c1, s], bandwidth: 2GB/s, latency: 1us}\n");
  EXPECT_DOUBLE_EQ(cluster.Link(2, 1)->bandwidth_bytes_per_s, 2e9);
  EXPECT_FALSE(cluster.Link(0, 1).has_value());
}

// ---- Shipped configs ------------------------------------------------------------------

TEST(ConfigsTest, EveryShippedConfigLoads) {
  std::set<std::string> loaded;
  for (const auto& entry : std::filesystem::directory_iterator(PLANNER_CONFIGS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    // configs/ also holds fleet, search and trainer configs: a devices file is one
    // with a top-level 'devices' key.
    std::ifstream in(entry.path());
    std::string line;
    bool is_devices_file = false;
    while (!is_devices_file && std::getline(in, line)) {
      is_devices_file = line.rfind("devices:", 0) == 0;
    }
    if (!is_devices_file) continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    const graph::Result<Cluster> result = LoadDevicesFile(entry.path().string());
    EXPECT_TRUE(result.ok()) << result.status().message();
    loaded.insert(name);
  }
  for (const char* expected : {"local-2cpu.yaml", "k40-paper-2gpu.yaml", "k40-paper-4gpu.yaml",
                               "k40-paper-8gpu.yaml", "h100-1gpu.yaml", "h200-1gpu.yaml"}) {
    EXPECT_EQ(loaded.count(expected), 1u) << expected;
  }
}

Cluster LoadConfig(const std::string& name) {
  const graph::Result<Cluster> result =
      LoadDevicesFile(std::string(PLANNER_CONFIGS_DIR) + "/" + name);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? result.value() : Cluster{};
}

TEST(ConfigsTest, LocalConfigIsTwoSingleCoreCpus) {
  const Cluster cluster = LoadConfig("local-2cpu.yaml");
  ASSERT_EQ(cluster.devices.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(cluster.devices[i].kind, DeviceKind::kCpu);
    EXPECT_EQ(cluster.devices[i].cores, std::vector<int>{i});
    EXPECT_EQ(cluster.devices[i].threads, 1);
  }
  EXPECT_FALSE(cluster.Link(0, 1).has_value());
}

TEST(ConfigsTest, K40ConfigsCarryThePublishedFigures) {
  for (const int gpus : {2, 4, 8}) {
    SCOPED_TRACE(gpus);
    const Cluster cluster = LoadConfig("k40-paper-" + std::to_string(gpus) + "gpu.yaml");
    ASSERT_EQ(cluster.devices.size(), static_cast<size_t>(gpus + 1));

    const DeviceSpec& cpu = cluster.devices[0];
    EXPECT_EQ(cpu.kind, DeviceKind::kSim);
    EXPECT_EQ(cpu.simulates, "cpu");
    EXPECT_DOUBLE_EQ(*cpu.peak_flops, 18 * 2.3e9 * 32);  // Xeon E5-2699 v3, AVX2 FMA fp32
    EXPECT_DOUBLE_EQ(*cpu.memory_bandwidth, 68e9);       // Intel ARK
    EXPECT_EQ(cpu.TfDeviceString(), "/job:localhost/replica:0/task:0/device:CPU:0");

    for (int g = 0; g < gpus; ++g) {
      const DeviceSpec& gpu = cluster.devices[g + 1];
      EXPECT_EQ(gpu.name, "gpu" + std::to_string(g));
      EXPECT_EQ(gpu.kind, DeviceKind::kSim);
      EXPECT_EQ(gpu.simulates, "gpu");
      EXPECT_DOUBLE_EQ(*gpu.peak_flops, 4.29e12);      // Tesla K40, base clock
      EXPECT_DOUBLE_EQ(*gpu.memory_bandwidth, 288e9);  // Tesla K40
      EXPECT_EQ(gpu.memory_bytes, 12 * kGiB);          // Tesla K40
      EXPECT_EQ(gpu.TfDeviceString(),
                "/job:localhost/replica:0/task:0/device:GPU:" + std::to_string(g));
    }
    ASSERT_TRUE(cluster.default_link.has_value());
    EXPECT_DOUBLE_EQ(cluster.default_link->bandwidth_bytes_per_s, 15.75e9);  // PCIe 3.0 x16
    EXPECT_DOUBLE_EQ(cluster.default_link->latency_s, 10e-6);
  }
}

// The GPU hosts' files: the datasheet's compute and memory figures on gpu0, and
// a link to cpu0 (its measured figures: ctest's configs_gpu_measured).
TEST(ConfigsTest, GpuHostConfigsCarryTheDatasheetFiguresAndALink) {
  struct Datasheet {
    const char* file;
    int64_t memory_bytes;
    double peak_flops, memory_bandwidth;
  };
  for (const Datasheet& d : {Datasheet{"h100-1gpu.yaml", 80 * kGiB, 67e12, 3.35e12},  // H100 SXM
                             Datasheet{"h200-1gpu.yaml", 141'000'000'000, 67e12, 4.8e12}}) {
    SCOPED_TRACE(d.file);
    const Cluster cluster = LoadConfig(d.file);
    ASSERT_EQ(cluster.devices.size(), 2u);
    EXPECT_EQ(cluster.devices[0].kind, DeviceKind::kCpu);
    const DeviceSpec& gpu = cluster.devices[1];
    EXPECT_EQ(gpu.kind, DeviceKind::kCuda);
    EXPECT_EQ(gpu.cuda_index, 0);
    EXPECT_EQ(gpu.memory_bytes, d.memory_bytes);
    EXPECT_DOUBLE_EQ(*gpu.peak_flops, d.peak_flops);  // FP32, non-tensor
    EXPECT_DOUBLE_EQ(*gpu.memory_bandwidth, d.memory_bandwidth);
    const std::optional<LinkSpec> pcie = cluster.Link(0, 1);
    ASSERT_TRUE(pcie.has_value());
    EXPECT_GT(pcie->bandwidth_bytes_per_s, 0);
    EXPECT_LT(pcie->bandwidth_bytes_per_s, 63e9);  // at most PCIe Gen5 x16, one direction
  }
}

}  // namespace
}  // namespace cluster
