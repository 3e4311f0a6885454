#include "sim/profile.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "cluster/devices.h"
#include "graph/file_util.h"
#include "tests/scratch_dir.h"

namespace sim {
namespace {

std::string Temp(const std::string& name) {
  return planner_test::ScratchDir() + "/profile_" + std::to_string(::getpid()) + "_" + name;
}

TEST(ProfileTest, WrittenFileReadsBackTheSame) {
  Profile p;
  p.ops["cpu0"]["Relu|float32[2,3]|T=float32"] = {1.5e-6, 24, 10, 0.04};
  p.ops["cpu1"]["MatMul|float32[2,3],float32[3,4]|T=float32"] = {3e-5, 0, 4};
  p.dispatch_s["cpu0"] = 2.5e-6;
  p.wakeup_s["cpu1"] = 2e-5;
  p.poll_s["cpu1"] = 4e-7;
  p.notify_s["cpu1"] = 3e-6;
  p.links[{"cpu0", "cpu1"}] = {1e-6, 3e10, 5};
  p.cold_s["cpu0"] = {{5e-6, 1e-6}, {1e9, 8.5e-6}};
  p.parallel_slowdown["cpu0"] = 1.04;
  p.parallel_cold_s["cpu0"] = {{5e-6, 0.0}, {1e9, 2.5e-6}};
  p.shared_cross["cpu0"] = 1.8;
  std::string path = Temp("roundtrip.prof");
  ASSERT_TRUE(WriteProfile(path, p).ok());
  auto back = ReadProfile(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  const OpTiming* t = back->Find("cpu0", "Relu|float32[2,3]|T=float32");
  ASSERT_NE(t, nullptr);
  EXPECT_DOUBLE_EQ(t->seconds, 1.5e-6);
  EXPECT_EQ(t->output_bytes, 24);
  EXPECT_EQ(t->samples, 10);
  EXPECT_DOUBLE_EQ(t->spread, 0.04);
  EXPECT_DOUBLE_EQ(back->wakeup_s.at("cpu1"), 2e-5);
  EXPECT_DOUBLE_EQ(back->poll_s.at("cpu1"), 4e-7);
  EXPECT_DOUBLE_EQ(back->notify_s.at("cpu1"), 3e-6);
  EXPECT_EQ(back->Find("cpu1", "Relu|float32[2,3]|T=float32"), nullptr);
  EXPECT_DOUBLE_EQ(back->dispatch_s.at("cpu0"), 2.5e-6);
  EXPECT_EQ(back->cold_s.at("cpu0"), p.cold_s.at("cpu0"));
  EXPECT_DOUBLE_EQ(back->parallel_slowdown.at("cpu0"), 1.04);
  EXPECT_EQ(back->parallel_cold_s.at("cpu0"), p.parallel_cold_s.at("cpu0"));
  EXPECT_DOUBLE_EQ(back->shared_cross.at("cpu0"), 1.8);
  const LinkFit* l = back->Link("cpu0", "cpu1");
  ASSERT_NE(l, nullptr);
  EXPECT_DOUBLE_EQ(l->bandwidth_bytes_per_s, 3e10);
  EXPECT_EQ(back->Link("cpu1", "cpu0"), nullptr);
}

// A profile is keyed by device name: one made on a devices file whose cpu0
// is core 0 was applied to any other file's cpu0 (a simulated Haswell, two
// cores), silently giving that device this one's times.
TEST(ProfileTest, ADeviceProfiledUnderAnotherDefinitionIsNamedAndRefused) {
  auto made_on = cluster::ParseDevicesYaml(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n  - {name: cpu1, kind: cpu, cores: "
      "[1]}\n",
      "two.yaml");
  auto other = cluster::ParseDevicesYaml(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0, 1, 2], threads: 3}\n  - {name: cpu1, "
      "kind: cpu, cores: [3]}\n",
      "wide.yaml");
  ASSERT_TRUE(made_on.ok() && other.ok());
  Profile p;
  for (const cluster::DeviceSpec& d : made_on->devices) {
    p.definitions[d.name] = cluster::TimingDefinition(d);
    p.ops[d.name]["Relu|float32[2,3]|T=float32"] = {1.5e-6, 24, 10, 0.04};
  }
  p.links[{"cpu0", "cpu1"}] = {1e-6, 3e10, 5};
  const std::string path = Temp("defined.prof");
  ASSERT_TRUE(WriteProfile(path, p).ok());
  auto back = ReadProfile(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->definitions, p.definitions);
  EXPECT_EQ(back->definitions.at("cpu0"), "cpu, cores 0, threads 1");

  EXPECT_TRUE(CheckProfileFits(*back, path, *made_on).ok());
  EXPECT_EQ(RedefinedDevices(*back, *other),
            (std::vector<std::string>{
                "cpu0 (profiled as cpu, cores 0, threads 1; here cpu, cores 0-2, threads 3)",
                "cpu1 (profiled as cpu, cores 1, threads 1; here cpu, cores 3, threads 1)"}));
  graph::Status st = CheckProfileFits(*back, path, *other);
  EXPECT_EQ(st.message(), path +
                              ": made on other devices than wide.yaml's: cpu0 (profiled as cpu, "
                              "cores 0, threads 1; here cpu, cores 0-2, threads 3); profile these "
                              "devices: planner profile MODEL wide.yaml -o NEW.profile");
  // Profiles from before definitions were recorded are taken as they are.
  back->definitions.clear();
  EXPECT_TRUE(CheckProfileFits(*back, path, *other).ok());
  // What Erase forgets: the device's entries and its links, nothing of the other's.
  Profile q = p;
  q.Erase("cpu0");
  EXPECT_EQ(q.definitions.count("cpu0"), 0u);
  EXPECT_EQ(q.ops.count("cpu0"), 0u);
  EXPECT_EQ(q.ops.count("cpu1"), 1u);
  EXPECT_TRUE(q.links.empty());
}

TEST(ProfileTest, VersionOneFilesWithoutSpreadsAreRead) {
  std::string path = Temp("v1.prof");
  ASSERT_TRUE(graph::WriteFileAtomic(path,
                                     "# planner profile v1\nop\tcpu0\t2e-06\t8\t5\tRelu|x\n"
                                     "wakeup\tcpu0\t1.5e-05\n")
                  .ok());
  auto p = ReadProfile(path);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const OpTiming* t = p->Find("cpu0", "Relu|x");
  ASSERT_NE(t, nullptr);
  EXPECT_DOUBLE_EQ(t->seconds, 2e-6);
  EXPECT_EQ(t->spread, 0);
  EXPECT_TRUE(p->poll_s.empty());
}

TEST(ProfileTest, VersionTwoFilesWithoutColdKernelsAreRead) {
  std::string path = Temp("v2.prof");
  ASSERT_TRUE(graph::WriteFileAtomic(path,
                                     "# planner profile v2\nop\tcpu0\t2e-06\t8\t5\t0.1\tRelu|x\n"
                                     "slowdown\tcpu0\t1.1\n")
                  .ok());
  auto p = ReadProfile(path);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_DOUBLE_EQ(p->slowdown.at("cpu0"), 1.1);
  EXPECT_TRUE(p->cold_s.empty());
}

TEST(ProfileTest, MissingFileIsNotFound) {
  auto p = ReadProfile("/nonexistent/x.prof");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), graph::StatusCode::kNotFound);
  EXPECT_EQ(p.status().message(), "/nonexistent/x.prof: no such file");
}

TEST(ProfileTest, MalformedRecordsNameTheFileAndLine) {
  std::string path = Temp("bad.prof");
  ASSERT_TRUE(
      graph::WriteFileAtomic(path, "# planner profile v1\nop\tcpu0\tfast\t0\t1\tRelu\n").ok());
  auto p = ReadProfile(path);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message().rfind(path + ":2: malformed record", 0), 0u)
      << p.status().message();
  ASSERT_TRUE(graph::WriteFileAtomic(path, "devices:\n  - cpu0\n").ok());
  p = ReadProfile(path);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message().rfind(path + ":1: not a planner profile", 0), 0u)
      << p.status().message();
  ASSERT_TRUE(graph::WriteFileAtomic(path, "# planner profile v1\nlink\ta\tb\t0\t0\t1\n").ok());
  EXPECT_FALSE(ReadProfile(path).ok()) << "a zero bandwidth is malformed";
  for (const char* bad : {"parallel_slowdown\tcpu0\t0\n", "parallel_cold\tcpu0\t5e-06\t-1\n",
                          "shared_cross\tcpu0\t-2\n", "parallel_cold\tcpu0\t5e-06\n"}) {
    ASSERT_TRUE(graph::WriteFileAtomic(path, std::string("# planner profile v1\n") + bad).ok());
    p = ReadProfile(path);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.status().message().rfind(path + ":2: malformed record", 0), 0u)
        << p.status().message();
  }
}

// A copy cut off mid-record ("125" samples cut to "12") parsed as a whole record.
TEST(ProfileTest, ALastRecordCutOffIsRefusedNamingItsLine) {
  std::string path = Temp("cut.prof");
  const std::string whole = "# planner profile v1\nlink\ta\tb\t1e-05\t1e+10\t125\n";
  ASSERT_TRUE(graph::WriteFileAtomic(path, whole).ok());
  ASSERT_TRUE(ReadProfile(path).ok());
  ASSERT_TRUE(graph::WriteFileAtomic(path, whole.substr(0, whole.size() - 2)).ok());
  auto p = ReadProfile(path);
  ASSERT_FALSE(p.ok()) << "samples " << p->links.begin()->second.samples;
  EXPECT_EQ(p.status().message(),
            path + ":2: the last record has no line end: the file was cut off");
}

}  // namespace
}  // namespace sim
