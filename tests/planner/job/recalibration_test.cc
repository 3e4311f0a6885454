#include "planner/job/recalibration.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/signature.h"
#include "tests/runtime/chain_steps.h"

namespace planner::job {
namespace {

using runtime::testing::Alone;
using runtime::testing::Chain;
using runtime::testing::TwoCpus;

// A profile made earlier, when the machine ran everything at 1 ms an op, with
// a slowdown of 3 while the other cpu is awake.
sim::Profile Earlier(const graph::Graph& g) {
  sim::Profile p;
  for (const char* device : {"cpu0", "cpu1"}) {
    for (const char* n : {"a", "b", "c"}) {
      p.ops[device][graph::OpSignature(g, g.Find(n))] = {1e-3, 64, 7, 0};
    }
    p.slowdown[device] = 3;
  }
  return p;
}

TEST(RecalibrationTest, AStepOnOneCpuReplacesThatCpusOpTimesAndKeepsTheOthers) {
  const graph::Graph g = Chain();
  const cluster::Cluster c = TwoCpus();
  Recalibration r(c);
  r.Observe(g, Alone(g, 0));
  EXPECT_EQ(r.single_steps(), 1);
  EXPECT_EQ(r.shared_steps(), 0);
  const sim::Profile earlier = Earlier(g);
  const sim::Profile p = r.Refitted(earlier, Refit::kOpTimes);
  const std::string neg = graph::OpSignature(g, g.Find("b"));
  EXPECT_NEAR(p.Find("cpu0", neg)->seconds, 20e-6, 1e-12) << "measured now";
  EXPECT_NEAR(p.Find("cpu1", neg)->seconds, 1e-3, 1e-12) << "no step of cpu1: as profiled";
  EXPECT_EQ(p.slowdown.at("cpu0"), 3) << "no shared step: as profiled";
  EXPECT_NEAR(earlier.Find("cpu0", neg)->seconds, 1e-3, 1e-12) << "the base is not changed";
}

// The shared step of runtime/profiler_test.cc's sharing test
// (chain_steps.h): b on cpu1 and c on cpu0 1.2x slower than alone.
TEST(RecalibrationTest, StepsOnBothCpusRefitWhatSharingTheHostCosts) {
  const graph::Graph g = Chain();
  const cluster::Cluster c = TwoCpus();
  Recalibration r(c);
  for (int d = 0; d < 2; ++d) r.Observe(g, Alone(g, d));
  r.Observe(g, runtime::testing::Shared(g));
  EXPECT_EQ(r.single_steps(), 2);
  EXPECT_EQ(r.shared_steps(), 1);
  const sim::Profile p = r.Refitted(Earlier(g), Refit::kSharing);
  EXPECT_NEAR(p.slowdown.at("cpu0"), 46.0 / 40.0, 1e-9) << "was 3";
  EXPECT_NEAR(p.slowdown.at("cpu1"), 24.0 / 20.0, 1e-9) << "was 3";
  const sim::Profile ops = r.Refitted(Earlier(g), Refit::kOpTimes);
  EXPECT_EQ(ops.slowdown.at("cpu0"), 3) << "op times only: sharing as profiled";
  const std::string neg = graph::OpSignature(g, g.Find("b"));
  EXPECT_NEAR(ops.Find("cpu1", neg)->seconds, 20e-6, 1e-12);
  EXPECT_EQ(r.Refitted(Earlier(g), Refit::kNone).slowdown.at("cpu1"), 3);
}

TEST(RecalibrationTest, StepsWithoutOpRecordsAreNotUsed) {
  const graph::Graph g = Chain();
  const cluster::Cluster c = TwoCpus();
  Recalibration r(c);
  sim::StepStats replayed = Alone(g, 0);
  replayed.replayed = true;  // a CUDA graph's replay: its records are not its kernels'
  r.Observe(g, replayed);
  r.Observe(g, sim::StepStats{});
  EXPECT_EQ(r.single_steps() + r.shared_steps(), 0);
  const std::string neg = graph::OpSignature(g, g.Find("b"));
  EXPECT_NEAR(r.Refitted(Earlier(g), Refit::kSharing).Find("cpu0", neg)->seconds, 1e-3, 1e-12);
}

// A stand-in simulator: every placement takes what its profile says cpu0's
// Neg takes.
class NegTime : public rewards::RewardSource {
 public:
  NegTime(const sim::Profile& p, std::string neg) : p_(p), neg_(std::move(neg)) {}
  const char* name() const override { return "sim"; }
  rewards::Evaluation Evaluate(const std::vector<int>&) const override {
    return {graph::Status::Ok(), p_.Find("cpu0", neg_)->seconds, 0};
  }
  rewards::Evaluation Timeline(const std::vector<int>& d, sim::StepStats*) const override {
    return Evaluate(d);
  }
  const graph::Graph& executed_graph() const override { return g_; }
  double LowerBoundSeconds() const override { return 0; }
  bool concurrent() const override { return false; }

 private:
  const sim::Profile& p_;
  std::string neg_;
  graph::Graph g_;
};

TEST(RecalibrationTest, TheRefitThatPredictsTheMeasurementsBestIsChosen) {
  const graph::Graph g = Chain();
  const cluster::Cluster c = TwoCpus();
  const std::string neg = graph::OpSignature(g, g.Find("b"));
  Recalibration r(c);
  r.Observe(g, Alone(g, 0));  // Neg: 20 us now, 1 ms in the profile
  const MakeSimulator make = [&](const sim::Profile& p) {
    return graph::Result<std::unique_ptr<rewards::RewardSource>>(std::make_unique<NegTime>(p, neg));
  };
  // Two placements measured at 20 us and 25 us: the profile's 1 ms is 49x and
  // 39x off, the refits 0 and 20%, a median of 10%.
  const std::vector<std::pair<std::vector<int>, double>> measured{{{0}, 20e-6}, {{1}, 25e-6}};
  RefitChoice choice = ChooseRefit(r, Earlier(g), measured, make);
  EXPECT_EQ(choice.placements, 2);
  EXPECT_NEAR(choice.median_error[0], (49.0 + 39.0) / 2, 1e-9);
  EXPECT_NEAR(choice.median_error[1], 0.1, 1e-9);
  EXPECT_NEAR(choice.median_error[2], 0.1, 1e-9);
  EXPECT_EQ(choice.chosen, Refit::kOpTimes) << "on a tie, the smaller refit";
  EXPECT_NEAR(choice.profile.Find("cpu0", neg)->seconds, 20e-6, 1e-12);

  // Nothing measured: the profile as made.
  choice = ChooseRefit(r, Earlier(g), {}, make);
  EXPECT_EQ(choice.chosen, Refit::kNone);
  EXPECT_EQ(choice.median_error[0], -1);
  EXPECT_NEAR(choice.profile.Find("cpu0", neg)->seconds, 1e-3, 1e-12);
}

}  // namespace
}  // namespace planner::job
