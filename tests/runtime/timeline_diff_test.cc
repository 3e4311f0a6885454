#include "sim/timeline_diff.h"

#include <gtest/gtest.h>

#include "graph/graphdef.h"
#include "tests/runtime/test_util.h"

namespace runtime {
namespace {

using testing::TwoCpus;

// a; b and c read a; d reads b and c.
graph::Graph Diamond() {
  auto g = graph::ParseTextGraphDef(
      "node { name: 'a' op: 'Const' }\n"
      "node { name: 'b' op: 'Relu' input: 'a' }\n"
      "node { name: 'c' op: 'Tanh' input: 'a' }\n"
      "node { name: 'd' op: 'AddN' input: 'b' input: 'c' }\n",
      "diamond.pbtxt");
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

// a on cpu0 0-10; b on cpu0 12-20 (queued behind a: 2 us of dispatch); c on
// cpu1 15-c_end after copying a (13-14): it waited 10 us for a, then 4 us of
// hand-off; d on cpu0 from c's end + 1, 4 us long. The step ends 1 us later.
sim::StepStats Step(const graph::Graph& g, double c_end) {
  sim::StepStats s;
  s.ops = {{g.Find("a"), 0, 0, 10},
           {g.Find("b"), 0, 12, 20},
           {g.Find("c"), 1, 15, c_end},
           {g.Find("d"), 0, c_end + 1, c_end + 5}};
  s.transfers = {{g.Find("a"), 0, 1, 64, 13, 14}};
  s.seconds = (c_end + 6) / 1e6;
  return s;
}

TEST(TimelineDiffTest, EachDevicesPartsAddUpToTheStep) {
  const graph::Graph g = Diamond();
  const cluster::Cluster c = TwoCpus();
  const std::vector<sim::DevicePhases> p = sim::SplitIntoPhases(g, c, Step(g, 25));
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].ops, 3);
  EXPECT_DOUBLE_EQ(p[0].kernels_us, 22);
  EXPECT_DOUBLE_EQ(p[0].dispatch_us, 2);  // b, queued behind a
  EXPECT_DOUBLE_EQ(p[0].waiting_us, 5);   // from b's end to c's
  EXPECT_DOUBLE_EQ(p[0].handoff_us, 1);   // from c's end to d's start
  EXPECT_DOUBLE_EQ(p[0].tail_us, 1);
  EXPECT_DOUBLE_EQ(p[1].copies_us, 1);
  EXPECT_DOUBLE_EQ(p[1].waiting_us, 10);  // for a
  EXPECT_DOUBLE_EQ(p[1].handoff_us, 4);
  EXPECT_DOUBLE_EQ(p[1].tail_us, 6);
  for (const sim::DevicePhases& d : p) {
    EXPECT_DOUBLE_EQ(
        d.kernels_us + d.copies_us + d.dispatch_us + d.handoff_us + d.waiting_us + d.tail_us, 31);
  }
}

TEST(TimelineDiffTest, FindsTheFirstOpThatStartsOutOfStepAndTheOpThatCausedIt) {
  const graph::Graph g = Diamond();
  const cluster::Cluster c = TwoCpus();
  sim::TimelineDiffOptions o;
  o.threshold_min_us = 1;
  o.top = 1;
  const sim::TimelineDiff d = sim::DiffTimelines(g, c, Step(g, 25), Step(g, 30), o);
  EXPECT_DOUBLE_EQ(d.measured_us, 31);
  EXPECT_DOUBLE_EQ(d.predicted_us, 36);
  ASSERT_TRUE(d.first_departure.has_value());
  EXPECT_EQ(d.first_departure->node, g.Find("d"));  // c starts in step; d after c's longer run
  EXPECT_DOUBLE_EQ(d.first_departure->predicted_start_us - d.first_departure->measured_start_us, 5);
  ASSERT_EQ(d.largest_kernel.size(), 1u);
  EXPECT_EQ(d.largest_kernel[0].node, g.Find("c"));
  ASSERT_EQ(d.op_types.size(), 1u);
  EXPECT_EQ(d.op_types[0].op, "Tanh");
  EXPECT_DOUBLE_EQ(d.op_types[0].predicted_us - d.op_types[0].measured_us, 5);
  EXPECT_EQ(d.measured_transfers, 1);
  EXPECT_EQ(d.unmatched_ops, 0);
  const std::string text = sim::FormatTimelineDiff(g, c, d);
  EXPECT_NE(text.find("first departure"), std::string::npos) << text;
  EXPECT_NE(text.find("'d' (AddN) on cpu0"), std::string::npos) << text;
}

TEST(TimelineDiffTest, IdenticalTimelinesHaveNoDeparture) {
  const graph::Graph g = Diamond();
  const cluster::Cluster c = TwoCpus();
  sim::TimelineDiffOptions o;
  o.threshold_min_us = 1;
  const sim::TimelineDiff d = sim::DiffTimelines(g, c, Step(g, 25), Step(g, 25), o);
  EXPECT_FALSE(d.first_departure.has_value());
  EXPECT_NE(sim::FormatTimelineDiff(g, c, d).find("no op starts more than"), std::string::npos);
}

}  // namespace
}  // namespace runtime
