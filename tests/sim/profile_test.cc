#include "sim/profile.h"

#include <gtest/gtest.h>
#include <unistd.h>

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
  const LinkFit* l = back->Link("cpu0", "cpu1");
  ASSERT_NE(l, nullptr);
  EXPECT_DOUBLE_EQ(l->bandwidth_bytes_per_s, 3e10);
  EXPECT_EQ(back->Link("cpu1", "cpu0"), nullptr);
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
