// The search job through its API alone (no command line): real model and
// devices files in, the result returned and the files it names written.
#include "planner/job/search_job.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "graph/zoo.h"
#include "placement/placement.h"
#include "tests/planner/job/job_test_util.h"
#include "tests/scratch_dir.h"

namespace planner::job {
namespace {

using testing::kSimDevices;
using testing::SmallRnnlmFile;
using testing::WriteFile;

int Lines(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) ++n;
  return n;
}

SearchJobOptions SmallSearch(const std::string& out_name) {
  SearchJobOptions o;
  o.model_path = SmallRnnlmFile();
  o.devices_path = WriteFile("sim3.yaml", kSimDevices);
  o.iterations = 3;
  o.refine_s = 1;
  o.out_path = planner_test::ScratchDir() + "/" + out_name;
  o.csv_path = o.out_path + ".csv";
  o.log = nullptr;
  o.stop_on_signals = false;
  return o;
}

TEST(SearchJob, AWholeSearchReturnsItsResultAndWritesThatPlacement) {
  const SearchJobOptions o = SmallSearch("best.yaml");
  SearchJobResult r;
  graph::Status st = RunSearchJob(o, &r);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(r.iterations, 3);
  ASSERT_TRUE(r.best_baseline.has_value());
  EXPECT_GT(r.best.step_s, 0);
  EXPECT_LE(r.best.step_s, r.best_baseline->step_s);
  EXPECT_TRUE(r.verdict.empty()) << "modelled devices: no hardware to judge, got " << r.verdict;
  EXPECT_GT(r.lower_bound_s, 0);
  EXPECT_LE(r.lower_bound_s, r.best.step_s);
  EXPECT_FALSE(r.stopped);

  auto written = placement::ReadPlacement(o.out_path);
  ASSERT_TRUE(written.ok()) << written.status().message();
  auto g = graph::BuildZooModel("rnnlm", {4, 2, 32, 100, 3});
  ASSERT_TRUE(g.ok());
  auto c = cluster::ParseDevicesYaml(kSimDevices, o.devices_path);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(placement::ValidatePlacement(*written, *g, *c, o.out_path).ok());
  EXPECT_EQ(placement::DeviceOfNode(*written, *g, *c), r.best.device_of_node);
  ASSERT_TRUE(written->simulated_step_s.has_value());
  EXPECT_NEAR(*written->simulated_step_s, r.best.step_s, 1e-6 * r.best.step_s);
  EXPECT_EQ(Lines(o.csv_path), 1 + 3) << "a header and one row per update";
}

TEST(SearchJob, TheSameSeedRepeatsTheSameSearch) {
  SearchJobOptions a = SmallSearch("a.yaml");
  a.refine_s = 0;  // the climb ends on a wall-clock budget
  SearchJobOptions b = a;
  b.out_path = planner_test::ScratchDir() + "/b.yaml";
  b.csv_path.clear();
  SearchJobResult ra, rb;
  ASSERT_TRUE(RunSearchJob(a, &ra).ok());
  ASSERT_TRUE(RunSearchJob(b, &rb).ok());
  EXPECT_EQ(ra.best.device_of_node, rb.best.device_of_node);
  EXPECT_EQ(ra.best.step_s, rb.best.step_s);
  EXPECT_EQ(ra.best.method, rb.best.method);
}

TEST(SearchJob, AModelThatCannotBeReadIsAnErrorNamingItAndNothingIsWritten) {
  SearchJobOptions o = SmallSearch("never.yaml");
  o.model_path = WriteFile("corrupt.pb", "this is not a GraphDef");
  SearchJobResult r;
  graph::Status st = RunSearchJob(o, &r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("corrupt.pb"), std::string::npos) << st.message();
  EXPECT_FALSE(std::ifstream(o.out_path).good());
}

// What `planner search` stops by when not told: with --budget and a climb the
// stall rule is on (60 s, 0.5%, 30 s until the first gain), --patience-gain
// alone keeps the 60 s, --patience 0 turns it off, and without a budget or a
// climb there is no patience at all.
TEST(SearchJob, TheStallRuleIsOnWithABudgetAndAClimbUnlessTurnedOff) {
  SearchJobOptions o;
  o.budget_s = 240;
  SearchJobOptions d = WithStopDefaults(o);
  EXPECT_EQ(d.patience_s, 60.0);
  EXPECT_EQ(d.patience_gain, 0.005);
  EXPECT_EQ(d.patience_first_s, 30.0);
  EXPECT_FALSE(d.iterations);

  o.patience_gain = 0.5;  // --patience-gain 50% alone
  d = WithStopDefaults(o);
  EXPECT_EQ(d.patience_s, 60.0);
  EXPECT_EQ(d.patience_gain, 0.5);

  o.patience_gain.reset();
  o.patience_s = 0;  // --patience 0
  d = WithStopDefaults(o);
  EXPECT_EQ(d.patience_s, 0.0);
  EXPECT_EQ(d.patience_first_s, 0.0);

  SearchJobOptions no_climb;
  no_climb.budget_s = 240;
  no_climb.refine_s = 0;
  d = WithStopDefaults(no_climb);
  EXPECT_EQ(d.patience_s, 0.0);
  EXPECT_EQ(d.patience_gain, 0.0);

  d = WithStopDefaults(SearchJobOptions{});  // neither --budget nor --iterations
  EXPECT_EQ(d.iterations, 200);
  EXPECT_EQ(d.patience_s, 0.0);

  SearchJobOptions climb_first;
  climb_first.budget_s = 240;
  climb_first.climb_first = true;
  d = WithStopDefaults(climb_first);
  EXPECT_EQ(d.patience_s, 60.0);
  EXPECT_EQ(d.patience_first_s, 0.0);
}

TEST(SearchJob, ContradictoryOptionsAreRefusedBeforeAnythingLoads) {
  SearchJobOptions o = SmallSearch("never2.yaml");
  o.model_path = planner_test::ScratchDir() + "/missing.pb";
  o.climb_first = true;  // without a budget
  SearchJobResult r;
  graph::Status st = RunSearchJob(o, &r);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), graph::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("climb-first"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find("missing.pb"), std::string::npos) << st.message();
}

TEST(SearchJob, OneDeviceHasEveryOpOnItAndNoSearch) {
  SearchJobOptions o = SmallSearch("one.yaml");
  o.devices_path =
      WriteFile("one.yaml",
                "devices:\n  - {name: gpu0, kind: sim, simulates: gpu, peak_flops: 4T, "
                "memory_bandwidth: 288GB/s, memory: 12GiB}\n");
  SearchJobResult r;
  graph::Status st = RunSearchJob(o, &r);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(r.best.method, "single:gpu0");
  EXPECT_EQ(r.iterations, 0);
  for (int d : r.best.device_of_node) EXPECT_EQ(d, 0);
  auto written = placement::ReadPlacement(o.out_path);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(written->method, "baseline single:gpu0");
}

}  // namespace
}  // namespace planner::job
