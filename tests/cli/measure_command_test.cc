// `planner measure` as a user runs it: the real binary on the repository's models and
// the shipped configs.
#include <gtest/gtest.h>

#include "graph/file_util.h"
#include "graph/importer.h"
#include "graph/test_util.h"  // tests/graph
#include "tests/cli/cli_util.h"
#include "tests/scratch_dir.h"

namespace {

using namespace planner::testing;

std::string Temp(const std::string& name) {
  return planner_test::ScratchDir() + "/measure_" + std::to_string(::getpid()) + "_" + name;
}

// The model's ops in file order, the first half on cpu0 and the rest on cpu1.
std::string HalfAndHalfPlacement(const std::string& model) {
  auto g = graph::ImportModel(Model(model));
  EXPECT_TRUE(g.ok()) << g.status().message();
  std::string yaml = "method: half-and-half\nplacement:\n";
  for (graph::NodeId id = 0; id < g->size(); ++id) {
    yaml += "  \"" + g->node(id).name + "\": " + (id < g->size() / 2 ? "cpu0" : "cpu1") + "\n";
  }
  std::string path = Temp(model + "_half.yaml");
  EXPECT_TRUE(graph::WriteFileAtomic(path, yaml).ok());
  return path;
}

// Every model of the repository's model folder (models/tfjs).
class ModelFolderTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelFolderTest, RunsAFullTrainingStepOnOneDeviceAndOnTwo) {
  const std::string m = GetParam();
  RunResult one =
      Planner("measure --steps 1 --warmup 0 --json " + Model(m) + " " + Config("local-2cpu"));
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("\"name\":\"cpu1\",\"ops\":0,"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("\"transfers\":0,"), std::string::npos) << one.out;

  RunResult two = Planner("measure --steps 1 --warmup 0 --json --placement " +
                          HalfAndHalfPlacement(m) + " " + Model(m) + " " + Config("local-2cpu"));
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_NE(two.out.find("\"placement\":\"half-and-half"), std::string::npos) << two.out;
  EXPECT_EQ(two.out.find("\"ops\":0,"), std::string::npos) << "a device was left idle: " << two.out;
  EXPECT_EQ(two.out.find("\"transfers\":0,"), std::string::npos) << two.out;
}

INSTANTIATE_TEST_SUITE_P(Models, ModelFolderTest, ::testing::ValuesIn(graph::testing::ModelNames()),
                         graph::testing::ParamName);

TEST(MeasureCommandTest, AModelWithALoopIsRefusedInOneLineNamingItsFirstControlFlowNode) {
  const std::string model = std::string(PLANNER_CONTROL_FLOW_DIR) + "/faceboxes.json";
  RunResult r = Planner("measure " + model + " " + Config("local-2cpu"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "planner measure: " + model +
                       ": node 'nms/map/while/Enter_1' is TensorFlow control flow (Enter): graphs "
                       "with loops or conditionals are not supported for training\n");
}

TEST(MeasureCommandTest, PrintsStepTimesPerDeviceFiguresAndWritesATrace) {
  std::string trace = Temp("trace.json");
  RunResult r = Planner("measure --steps 3 --warmup 1 --trace " + trace + " " + Model("emotion") +
                        " " + Config("local-2cpu"));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* key :
       {"training graph of", "placement single:cpu0", "robust mean", "over 3 steps", "min",
        "median", "max", "1 warm-up step", "busy ms", "peak memory", "transfers per step: 0",
        "median step's critical path: ", " cpu0 "}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key << "\n" << r.out;
  }
  std::string json = Slurp(trace);
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", 0), 0u);
  EXPECT_NE(json.find("\"cat\":\"op\""), std::string::npos);
}

TEST(MeasureCommandTest, PlacementNamingAnUnknownDeviceIsAOneLineError) {
  std::string p = Temp("bad_device.yaml");
  ASSERT_TRUE(graph::WriteFileAtomic(p, "placement:\n  input_1: gpu7\n").ok());
  RunResult r =
      Planner("measure --placement " + p + " " + Model("emotion") + " " + Config("local-2cpu"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("gpu7"), std::string::npos) << r.err;
}

TEST(MeasureCommandTest, SimulatedDevicesCannotBeMeasured) {
  RunResult r = Planner("measure " + Model("emotion") + " " + Config("k40-paper-2gpu"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("simulated devices, which have no kernels"), std::string::npos) << r.err;
}

// A batch whose activations the host cannot hold grew into swap (18 GB in
// 20 s of a 23 GB machine, nothing printed) until killed.
TEST(MeasureCommandTest, AStepThatCannotFitTheHostsMemoryIsRefusedBeforeItRuns) {
  // Where the kernel does not say what is available there is no check, and
  // this batch would be run.
  if (Slurp("/proc/meminfo").find("MemAvailable:") == std::string::npos) {
    GTEST_SKIP() << "no MemAvailable in /proc/meminfo";
  }
  RunResult r = Planner("measure " + Model("emotion") + " " + Config("local-2cpu") +
                        " --steps 1 --warmup 0 --batch 1000000");  // some 3 TiB of activations
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("GiB at their peak (live at once in topological order), more than twice "
                       "the "),
            std::string::npos)
      << r.err;
}

TEST(MeasureCommandTest, OutOfMemoryNamesTheDeviceAndTheBytes) {
  std::string d = Temp("small.yaml");
  ASSERT_TRUE(
      graph::WriteFileAtomic(d, "devices:\n  - {name: tiny, kind: cpu, cores: [0], memory: 1MB}\n")
          .ok());
  RunResult r = Planner("measure " + Model("emotion") + " " + d);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("device 'tiny' is out of memory at node '"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("capacity 1000000"), std::string::npos) << r.err;
}

TEST(MeasureCommandTest, BadFlagValuesAreUsageErrors) {
  const std::string args = " " + Model("emotion") + " " + Config("local-2cpu");
  RunResult steps = Planner("measure --steps 0" + args);
  EXPECT_EQ(steps.code, 2);
  EXPECT_EQ(steps.err, "planner measure: --steps must be an integer from 1 to 1000000, got '0'\n");
  RunResult opt = Planner("measure --optimizer adam" + args);
  EXPECT_EQ(opt.code, 2);
  EXPECT_EQ(opt.err, "planner measure: --optimizer must be sgd or momentum, not 'adam'\n");
}

TEST(MeasureCommandTest, UnwritableTraceIsAnErrorNamingThePath) {
  RunResult r = Planner("measure --steps 1 --warmup 0 --trace /nonexistent/dir/t.json " +
                        Model("emotion") + " " + Config("local-2cpu"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/dir/t.json"), std::string::npos) << r.err;
}

// --trace named an input (the model, the devices file) and overwrote it.
TEST(MeasureCommandTest, ATraceOverAnInputOrUnderAFileIsRefusedBeforeAnyWork) {
  const std::string devices = Config("local-2cpu"), before = Slurp(devices);
  RunResult over =
      Planner("measure --steps 1 --trace " + devices + " " + Model("emotion") + " " + devices);
  EXPECT_EQ(over.code, 1);
  EXPECT_EQ(over.err,
            "planner measure: " + devices + ": --trace would overwrite the devices file\n");
  EXPECT_EQ(Slurp(devices), before);
  RunResult under = Planner("measure --steps 1 --trace " + devices + "/t.json " + Model("emotion") +
                            " " + devices);
  EXPECT_EQ(under.code, 1);
  EXPECT_NE(
      under.err.find("cannot write --trace output ('" + devices + "' is a file, not a directory)"),
      std::string::npos)
      << under.err;
  EXPECT_EQ(under.out, "") << "refused before measuring";
}

}  // namespace
