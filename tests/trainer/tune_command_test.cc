// `trainer tune` as real processes: it probes, says what it chose and why, trains
// the epoch with its choice, and writes its report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "graph/file_util.h"
#include "tests/scratch_dir.h"

namespace {

TEST(TuneCommandTest, ProbesChoosesTrainsAndReports) {
  std::string dir = planner_test::ScratchDir() + "/tune";
  std::string report = dir + "/report.json", log = dir + ".log";
  int rc = std::system((std::string(TRAINER_BIN) +
                        " tune lenet --nproc 2 --epochs 1 --batch 32 "
                        "--probe-steps 20 --dir " +
                        dir + " --report " + report + " >" + log + " 2>&1")
                           .c_str());
  auto out = graph::ReadFile(log);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(rc, 0) << *out;
  // Every candidate is printed: 12 synchronous ones and 6 with two groups,
  // whose momenta stay low.
  EXPECT_NE(out->find("18 candidates"), std::string::npos) << *out;
  EXPECT_NE(out->find("groups 2 (async), lr 0.03, momentum 0.3"), std::string::npos);
  EXPECT_EQ(out->find("groups 2 (async), lr 0.03, momentum 0.6"), std::string::npos);
  EXPECT_NE(out->find("  chose groups "), std::string::npos) << *out;
  EXPECT_NE(out->find("epoch 1 with groups"), std::string::npos) << *out;
  auto json = graph::ReadFile(report);
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"choices\": [\"groups "), std::string::npos) << *json;
  // No --target-accuracy: no time to it, not a negative one.
  EXPECT_NE(json->find("\"time_to_target_s\": null,"), std::string::npos) << *json;
}

// A path with an apostrophe is one word to the runs tune starts (it broke
// their shell command before), and a failed run is said in one line naming
// its log, not 400 raw bytes of it.
TEST(TuneCommandTest, AnApostropheInAPathReachesTheRunAndAFailureIsOneLine) {
  const std::string dir = planner_test::ScratchDir() + "/tune bob's";
  const std::string model = dir + "/bob's model.onnx";
  const std::string err = planner_test::ScratchDir() + "/tune-apostrophe.err";
  int rc = std::system((std::string(TRAINER_BIN) + " tune \"" + model +
                        "\" --nproc 2 --epochs 1 --batch 32 --probe-steps 5 --dir \"" + dir +
                        "\" >/dev/null 2>\"" + err + "\"")
                           .c_str());
  EXPECT_NE(WEXITSTATUS(rc), 0);
  auto out = graph::ReadFile(err);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(std::count(out->begin(), out->end(), '\n'), 1) << *out;
  EXPECT_NE(out->find("the probes failed: "), std::string::npos) << *out;
  EXPECT_NE(out->find(model), std::string::npos)
      << "the run's own reason names the model: " << *out;
  EXPECT_NE(out->find("(" + dir + "/child.log has the run's output)"), std::string::npos) << *out;
}

TEST(TuneCommandTest, WithoutRanksItSaysWhatIsMissing) {
  std::string log = planner_test::ScratchDir() + "/tune-usage.log";
  int rc = std::system((std::string(TRAINER_BIN) + " tune lenet >" + log + " 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  auto out = graph::ReadFile(log);
  ASSERT_TRUE(out.ok());
  EXPECT_NE(out->find("--nproc N is required"), std::string::npos) << *out;
}

// --switch-margin judges a re-tune against the running choice: with no
// re-tune (--retune at least --epochs) it was accepted and did nothing.
TEST(TuneCommandTest, ASwitchMarginWithNoRetuneIsRefused) {
  const std::string log = planner_test::ScratchDir() + "/tune-margin.log";
  const std::string dir = planner_test::ScratchDir() + "/tune-margin-dir";
  int rc = std::system((std::string(TRAINER_BIN) + " tune lenet --nproc 1 --epochs 2 --retune 2 " +
                        "--switch-margin 3 --dir " + dir + " >" + log + " 2>&1")
                           .c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  auto out = graph::ReadFile(log);
  ASSERT_TRUE(out.ok());
  EXPECT_NE(out->find("trainer tune: --switch-margin applies to re-tunes, and with --retune 2 and "
                      "--epochs 2 there are none"),
            std::string::npos)
      << *out;
  EXPECT_FALSE(std::filesystem::exists(dir)) << "refused before its working directory is made";
}

// --report was written only after the last epoch (a path where no file can
// be made lost the run's figures), and a --dir that is a file leaked a shell
// error after the header.
TEST(TuneCommandTest, AnUnwritableReportOrADirThatIsAFileIsRefusedBeforeAnyProbe) {
  const std::string file = planner_test::ScratchDir() + "/tune-not-a-dir";
  ASSERT_TRUE(graph::WriteFileAtomic(file, "x").ok());
  const std::string err = planner_test::ScratchDir() + "/tune-refused.err",
                    out = planner_test::ScratchDir() + "/tune-refused.out";
  for (const std::string& flags :
       {std::string("--report /proc/tune-report.json"), "--dir " + file}) {
    int rc = std::system((std::string(TRAINER_BIN) + " tune lenet --nproc 1 --epochs 1 " + flags +
                          " >" + out + " 2>" + err)
                             .c_str());
    EXPECT_EQ(WEXITSTATUS(rc), 2) << flags;
    auto said = graph::ReadFile(err);
    ASSERT_TRUE(said.ok());
    EXPECT_EQ(std::count(said->begin(), said->end(), '\n'), 1) << *said;
    EXPECT_NE(said->find(flags.substr(0, flags.find(' '))), std::string::npos) << *said;
    auto printed = graph::ReadFile(out);
    ASSERT_TRUE(printed.ok());
    EXPECT_EQ(*printed, "") << flags;
  }
}

}  // namespace
