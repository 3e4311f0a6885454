// `planner simulate`, the real binary on the shared models and shipped configs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "graph/file_util.h"
#include "tests/cli/cli_util.h"
#include "tests/scratch_dir.h"

namespace {

using namespace planner::testing;

// `planner simulate` of emotion on the paper's 2-GPU machine (every op on the
// first device), run once for the tests that read its output.
const RunResult& EmotionOnK40s() {
  static const RunResult r =
      Planner("simulate --batch 32 " + Model("emotion") + " " + Config("k40-paper-2gpu"));
  return r;
}

// The number right after `key` in `out`, or NaN (failing the test) without it.
double NumberAfter(const std::string& out, const std::string& key) {
  const size_t at = out.find(key);
  EXPECT_NE(at, std::string::npos) << key << " in\n" << out;
  return at == std::string::npos ? std::nan("") : std::atof(out.c_str() + at + key.size());
}

TEST(SimulateCommandTest, SimulatedDevicesNeedNoProfileAndTheirOpsAreEstimated) {
  const RunResult& r = EmotionOnK40s();
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("simulated step time"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(0 of "), std::string::npos) << "roofline ops are counted: " << r.out;
  EXPECT_NE(r.out.find(" ops estimated, none profiled)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("simulated step time: "), std::string::npos) << r.out;
}

// A model whose inputs leave the batch open (a TF.js model, a PyTorch export
// with dynamic_axes) is planned at --batch: the output says so and at what.
TEST(SimulateCommandTest, AnOpenBatchDimensionIsSaidWithTheBatchUsed) {
  const RunResult& r = EmotionOnK40s();
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("batch: 32 (the model leaves the batch dimension of 1 input(s) open: "),
            std::string::npos)
      << r.out;
  RunResult plain = Planner("simulate " + Model("emotion") + " " + Config("k40-paper-2gpu"));
  EXPECT_NE(plain.out.find("batch: 1 ("), std::string::npos) << plain.out;
}

// --batch binds only an open batch dimension: a model that fixes its own (here
// a zoo model made at batch 8; a PyTorch export without dynamic_axes) was
// planned at that batch while --batch asked for another, and nothing said so.
TEST(SimulateCommandTest, ABatchTheModelsFixedInputsCannotTakeIsRefused) {
  const std::string model =
      planner_test::ScratchDir() + "/fixed_batch_" + std::to_string(::getpid()) + ".pb";
  ASSERT_EQ(Planner("zoo lenet --batch 8 -o " + model).code, 0);
  RunResult r = Planner("simulate --batch 32 " + model + " " + Config("k40-paper-2gpu"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_EQ(r.err, "planner simulate: " + model +
                       ": --batch 32 binds no input: 'images' is [8,28,28,1], fixed by the model "
                       "(make or export it with an open batch dimension, or leave --batch out)\n");
  for (const char* agreeing : {"--batch 8", ""}) {  // the batch it has, or none asked
    RunResult ok =
        Planner("simulate " + std::string(agreeing) + " " + model + " " + Config("k40-paper-2gpu"));
    EXPECT_EQ(ok.code, 0) << agreeing << ": " << ok.err;
  }
  std::remove(model.c_str());
}

// A time-major input ([T, B]) that holds the batch asked for was refused as
// if the batch were wrong; --batch does nothing there, and the refusal says
// the batch may be set already. Only dimension 1 is read so.
TEST(SimulateCommandTest, ABatchATimeMajorInputHoldsIsNamedAsPerhapsSetAlready) {
  const std::string placeholder =
      "node { name: '%s' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'shape' value { shape { dim { size: %d } dim { size: %d } } } } }\n";
  auto input = [&](const char* name, int d0, int d1) {
    char b[512];
    std::snprintf(b, sizeof b, placeholder.c_str(), name, d0, d1);
    return std::string(b);
  };
  const std::string add =
      "node { name: 'y' op: 'Add' input: 'steps' input: 'steps' attr { key: 'T' value { type: "
      "DT_FLOAT } } }\n";
  const std::string time_major = planner_test::ScratchDir() + "/time_major.pbtxt",
                    batch_first = planner_test::ScratchDir() + "/time_major_and_x.pbtxt";
  ASSERT_TRUE(graph::WriteFileAtomic(time_major, input("steps", 10, 4) + add).ok());
  ASSERT_TRUE(
      graph::WriteFileAtomic(batch_first, input("x", 4, 3) + input("steps", 10, 4) + add).ok());
  const std::string said =
      ": --batch 4 binds no input: 'steps' is [10,4], fixed by the model (make or export it "
      "with an open batch dimension, or leave --batch out; if its dimension 1 (4) is the batch, "
      "it is set already)\n";
  RunResult r = Planner("inspect --batch 4 " + time_major);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "planner inspect: " + time_major + said);
  // Another input holding the batch first does not make --batch bind anything.
  RunResult both = Planner("inspect --batch 4 " + batch_first);
  EXPECT_EQ(both.code, 1);
  EXPECT_EQ(both.err, "planner inspect: " + batch_first + said);
  RunResult other = Planner("inspect --batch 5 " + batch_first);
  EXPECT_EQ(other.err, "planner inspect: " + batch_first +
                           ": --batch 5 binds no input: 'x' is [4,3], fixed by the model (make or "
                           "export it with an open batch dimension, or leave --batch out)\n");
  EXPECT_EQ(Planner("inspect " + batch_first).code, 0);
  std::remove(time_major.c_str());
  std::remove(batch_first.c_str());
}

// A placement made at batch 1 used at batch 32 is valid (every op is placed)
// but was found for another step: the output says so.
TEST(SimulateCommandTest, APlacementMadeAtOtherInputShapesIsNoted) {
  const std::string placement = planner_test::ScratchDir() + "/emotion-batch1.yaml";
  RunResult made = Planner("baseline " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                           " --method etf -o " + placement);
  ASSERT_EQ(made.code, 0) << made.err;
  RunResult same = Planner("simulate " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                           " --placement " + placement);
  EXPECT_EQ(same.out.find("note: "), std::string::npos) << same.out;
  RunResult other = Planner("simulate --batch 32 " + Model("emotion") + " " +
                            Config("k40-paper-2gpu") + " --placement " + placement);
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_NE(other.out.find("note: " + placement + " was made at other input shapes (input_1 "
                           "[1,64,64,1] there, [32,64,64,1] here)"),
            std::string::npos)
      << other.out;
}

// The file records the optimizer of the step it was found for; simulated with
// the other one, the step differs from the file's figure, and the output says why.
TEST(SimulateCommandTest, APlacementMadeForAnotherOptimizerIsNoted) {
  const std::string placement = planner_test::ScratchDir() + "/emotion-momentum.yaml";
  RunResult made = Planner("baseline --optimizer momentum " + Model("emotion") + " " +
                           Config("k40-paper-2gpu") + " --method etf -o " + placement);
  ASSERT_EQ(made.code, 0) << made.err;
  EXPECT_NE(Slurp(placement).find("\noptimizer: momentum\n"), std::string::npos)
      << Slurp(placement);
  RunResult same = Planner("simulate --optimizer momentum " + Model("emotion") + " " +
                           Config("k40-paper-2gpu") + " --placement " + placement);
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(same.out.find("note: "), std::string::npos) << same.out;
  RunResult other = Planner("simulate " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                            " --placement " + placement);
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_NE(other.out.find("note: " + placement + " was made for --optimizer momentum (sgd here)"),
            std::string::npos)
      << other.out;
}

// --steps counts --check's measured steps; alone it would do nothing, silently.
TEST(SimulateCommandTest, StepsWithoutCheckIsAUsageError) {
  RunResult r = Planner("simulate --steps 5 " + Model("emotion") + " " + Config("k40-paper-2gpu"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--steps counts --check's measured steps: give --check"), std::string::npos)
      << r.err;
}

TEST(SimulateCommandTest, LowerBoundIsPrintedAndNotAboveTheStepTime) {
  const RunResult& r = EmotionOnK40s();
  ASSERT_EQ(r.code, 0) << r.err;
  const double step_ms = NumberAfter(r.out, "simulated step time: ");
  const double bound_ms = NumberAfter(r.out, "lower bound: ");
  EXPECT_GT(bound_ms, 0.0) << r.out;
  EXPECT_LE(bound_ms, step_ms) << r.out;
  EXPECT_NE(r.out.find("dependency chain "), std::string::npos) << r.out;
}

TEST(SimulateCommandTest, CriticalPathPartsAddUpToTheStepTime) {
  const RunResult& r = EmotionOnK40s();
  ASSERT_EQ(r.code, 0) << r.err;
  const double step_ms = NumberAfter(r.out, "simulated step time: ");
  const size_t path = r.out.find("critical path: ");
  ASSERT_NE(path, std::string::npos) << r.out;
  // "critical path: N ops (...): gpu0 X ms, between them Y ms": every part in ms.
  const std::string line = r.out.substr(path, r.out.find('\n', path) - path);
  double sum_ms = 0;
  for (size_t at = line.find(" ms"); at != std::string::npos; at = line.find(" ms", at + 1)) {
    const size_t number = line.rfind(' ', at - 1) + 1;
    sum_ms += std::atof(line.c_str() + number);
  }
  EXPECT_NEAR(sum_ms, step_ms, 0.01 + 1e-4 * step_ms) << line;
  EXPECT_NE(line.find("cpu0 "), std::string::npos) << "every op is on the first device: " << line;
}

TEST(SimulateCommandTest, RealDevicesWithoutAProfileAreAOneLineError) {
  RunResult r = Planner("simulate " + Model("emotion") + " " + Config("local-2cpu"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("run planner profile"), std::string::npos) << r.err;
}

TEST(SimulateCommandTest, OutOfMemoryIsAPredictionNotAFailure) {
  const std::string d =
      planner_test::ScratchDir() + "/simsmall_" + std::to_string(::getpid()) + ".yaml";
  ASSERT_TRUE(
      graph::WriteFileAtomic(d,
                             "devices:\n  - {name: g0, kind: sim, simulates: gpu, peak_flops: 1T, "
                             "memory_bandwidth: 100GB/s, memory: 1MB}\n")
          .ok());
  RunResult r = Planner("simulate " + Model("emotion") + " " + d);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("simulated: out of memory: device 'g0' is out of memory at node '"),
            std::string::npos)
      << r.out;
}

}  // namespace
