// `trainer tune` as real processes: it probes, says what it chose and why, trains
// the epoch with its choice, and writes its report.
#include <gtest/gtest.h>
#include <unistd.h>

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
}

TEST(TuneCommandTest, WithoutRanksItSaysWhatIsMissing) {
  std::string log = planner_test::ScratchDir() + "/tune-usage.log";
  int rc = std::system((std::string(TRAINER_BIN) + " tune lenet >" + log + " 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  auto out = graph::ReadFile(log);
  ASSERT_TRUE(out.ok());
  EXPECT_NE(out->find("--nproc N is required"), std::string::npos) << *out;
}

}  // namespace
