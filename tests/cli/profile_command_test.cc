// `planner profile` (and a simulation from its profile), the real binary on real files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <utility>

#include "graph/file_util.h"
#include "tests/cli/cli_util.h"
#include "tests/scratch_dir.h"

namespace {

using namespace planner::testing;

TEST(ProfileCommandTest, SecondProfileOfAModelMeasuresNothingAndSimulateUsesIt) {
  const std::string prof =
      planner_test::ScratchDir() + "/cmd_" + std::to_string(::getpid()) + ".prof";
  std::remove(prof.c_str());
  const std::string args = Model("emotion") + " " + Config("local-2cpu") + " -o " + prof;
  RunResult first = Planner("profile --steps 1 --warmup 0 " + args);
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_NE(first.out.find("measured on: cpu0, cpu1; already profiled on: none"), std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("2 link(s) measured now"), std::string::npos) << first.out;
  RunResult second = Planner("profile --steps 1 --warmup 0 " + args);
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_NE(second.out.find("measured on: none; already profiled on: cpu0, cpu1; 0 new entries"),
            std::string::npos)
      << second.out;
  EXPECT_NE(second.out.find("0 link(s) measured now"), std::string::npos) << second.out;

  // A v2 profile (no cold kernels or dispatch_cross) gets them the next time.
  auto text = graph::ReadFile(prof);
  ASSERT_TRUE(text.ok());
  std::string v2;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("cold\t", 0) == 0 || line.rfind("dispatch_cross\t", 0) == 0) continue;
    v2 += (v2.empty() ? "# planner profile v2" : line) + "\n";
  }
  ASSERT_TRUE(graph::WriteFileAtomic(prof, v2).ok());
  RunResult third = Planner("profile --steps 1 --warmup 0 " + args);
  ASSERT_EQ(third.code, 0) << third.err;
  text = graph::ReadFile(prof);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->rfind("# planner profile v6", 0), 0u);
  EXPECT_NE(text->find("\ncold\tcpu0\t"), std::string::npos) << *text;
  EXPECT_NE(text->find("\ncold\tcpu1\t"), std::string::npos) << *text;

  RunResult sim = Planner("simulate --check --steps 2 --profile " + prof + " " + Model("emotion") +
                          " " + Config("local-2cpu"));
  ASSERT_EQ(sim.code, 0) << sim.err;
  EXPECT_NE(sim.out.find("(0 of "), std::string::npos) << "every op profiled: " << sim.out;
  EXPECT_NE(sim.out.find("simulator error"), std::string::npos) << sim.out;
}

// A profile made on local-2cpu's cpu0 (core 0) gave a simulated Haswell of
// the same name its times, and profiling another cpu0 (two cores) extended the
// old entries without measuring anything.
TEST(ProfileCommandTest, AProfileOfOtherDevicesByTheSameNamesIsRefusedOrMeasuredAnew) {
  const std::string dir = planner_test::ScratchDir();
  const std::string prof = dir + "/named_" + std::to_string(::getpid()) + ".prof",
                    wide = dir + "/named_wide_" + std::to_string(::getpid()) + ".yaml";
  std::remove(prof.c_str());
  ASSERT_EQ(Planner("profile --steps 1 --warmup 0 " + Model("emotion") + " " +
                    Config("local-2cpu") + " -o " + prof)
                .code,
            0);
  RunResult sim = Planner("simulate " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                          " --batch 32 --profile " + prof);
  EXPECT_EQ(sim.code, 1) << sim.out;
  EXPECT_EQ(Lines(sim.err), 1) << sim.err;
  EXPECT_NE(sim.err.find(prof + ": made on other devices than " + Config("k40-paper-2gpu") +
                         "'s: cpu0 (profiled as cpu, cores 0, threads 1; here sim of cpu)"),
            std::string::npos)
      << sim.err;
  RunResult baseline = Planner("baseline " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                               " --batch 32 --method etf --profile " + prof);
  EXPECT_EQ(baseline.code, 1) << baseline.out;
  EXPECT_NE(baseline.err.find(": made on other devices than "), std::string::npos) << baseline.err;

  ASSERT_TRUE(graph::WriteFileAtomic(wide,
                                     "devices:\n  - {name: cpu0, kind: cpu, cores: [0, 1], "
                                     "threads: 2}\n")
                  .ok());
  RunResult again =
      Planner("profile --steps 1 --warmup 0 " + Model("emotion") + " " + wide + " -o " + prof);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(
      again.out.find(prof + ": cpu0 (profiled as cpu, cores 0, threads 1; here cpu, cores 0-1, "
                            "threads 2): another device by that name, measured anew"),
      std::string::npos)
      << again.out;
  EXPECT_NE(again.out.find("measured on: cpu0; already profiled on: none"), std::string::npos)
      << again.out;
  RunResult fits = Planner("simulate " + Model("emotion") + " " + wide + " --profile " + prof);
  EXPECT_EQ(fits.code, 0) << fits.err;
  for (const std::string& f : {prof, wide}) std::remove(f.c_str());
}

TEST(ProfileCommandTest, ACorruptProfileIsAOneLineErrorNamingIt) {
  const std::string prof =
      planner_test::ScratchDir() + "/bad_" + std::to_string(::getpid()) + ".prof";
  ASSERT_TRUE(graph::WriteFileAtomic(prof, "not a profile\n").ok());
  RunResult r =
      Planner("simulate --profile " + prof + " " + Model("emotion") + " " + Config("local-2cpu"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(prof + ":1: not a planner profile"), std::string::npos) << r.err;
}

TEST(ProfileCommandTest, AnUnknownOpTimeGpuLinksWarmStepsOrParallelStepIsAOneLineErrorNamingIt) {
  for (const auto& [flag, message] :
       {std::pair<std::string, std::string>{
            "--op-time median", "--op-time must be steady-mean, mean or step-median, not 'median'"},
        {"--gpu-links split", "--gpu-links must be step or copies, not 'split'"},
        {"--warm-steps -1", "--warm-steps must be an integer from 0 to 100"},
        {"--warm-steps two", "--warm-steps must be an integer from 0 to 100"},
        {"--parallel-step yes", "--parallel-step must be on or off, not 'yes'"}}) {
    RunResult r = Planner("profile " + flag + " " + Model("emotion") + " " + Config("local-2cpu") +
                          " -o " + planner_test::ScratchDir() + "/x.prof");
    EXPECT_EQ(r.code, 2) << flag;
    EXPECT_EQ(Lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

// -o's directory was checked after the measurements, which were then lost.
TEST(ProfileCommandTest, AnUnwritableOutputOrOneOverTheModelIsRefusedBeforeMeasuring) {
  RunResult missing = Planner("profile " + Model("emotion") + " " + Config("local-2cpu") +
                              " -o /nonexistent/dir/p.profile");
  EXPECT_EQ(missing.code, 1);
  EXPECT_EQ(missing.err,
            "planner profile: /nonexistent/dir/p.profile: cannot write -o output (directory "
            "'/nonexistent/dir' is missing or not writable)\n");
  EXPECT_EQ(missing.out, "");
  RunResult model = Planner("profile " + Model("emotion") + " " + Config("local-2cpu") + " -o " +
                            Model("emotion"));
  EXPECT_EQ(model.code, 1);
  EXPECT_EQ(model.err, "planner profile: " + Model("emotion") + ": -o would overwrite the model\n");
}

// A model that fits no single cpu device (what model parallelism is for) was
// refused: profiling runs every op on each device, and the executor held it to
// the memory the devices file declares.
TEST(ProfileCommandTest, AModelThatFitsNoSingleCpuDeviceIsProfiled) {
  const std::string dir = planner_test::ScratchDir();
  const std::string model = dir + "/small_mem_mlp.pb", devices = dir + "/small_mem.yaml",
                    prof = dir + "/small_mem.prof";
  ASSERT_EQ(Planner("zoo mlp -o " + model).code, 0);
  ASSERT_TRUE(graph::WriteFileAtomic(devices,
                                     "devices:\n"
                                     "  - {name: cpu0, kind: cpu, cores: [0], threads: 1, "
                                     "memory: 1.7MiB}\n"
                                     "  - {name: cpu1, kind: cpu, cores: [1], threads: 1, "
                                     "memory: 1.7MiB}\n")
                  .ok());
  RunResult profiled =
      Planner("profile --steps 1 --warmup 0 " + model + " " + devices + " -o " + prof);
  ASSERT_EQ(profiled.code, 0) << profiled.err;
  // The capacity still holds for placements: one device is out of memory.
  RunResult one = Planner("simulate " + model + " " + devices + " --profile " + prof);
  EXPECT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("device 'cpu0' is out of memory"), std::string::npos) << one.out;
}

}  // namespace
