// planner/rewards/confirm.h: the fastest placements by one noisy draw are
// measured again, rotated, and each one's median stands for it.
#include "planner/rewards/confirm.h"

#include <gtest/gtest.h>

#include <map>

#include "tests/planner/fake_reward.h"

namespace planner::rewards {
namespace {

Measurement Drawn(const std::string& method, int device, double step_s) {
  Measurement m{method, {device}, {}};
  m.evaluation.step_s = step_s;
  return m;
}

// Later draws of each placement by its first device; -1: a failed measurement.
testing::FakeReward Later(std::map<int, double> step_s) {
  return testing::FakeReward(
      [step_s](const std::vector<int>& p, int) { return step_s.at(p.front()); });
}

TEST(ConfirmTest, ALuckyFirstDrawIsOutvotedByItsMedian) {
  // a's first draw was the fastest, every later one is the slowest of the three.
  std::vector<Measurement> ran = {Drawn("a", 0, 1.0), Drawn("b", 1, 1.5), Drawn("c", 2, 1.6),
                                  Drawn("d", 3, 3.0)};
  testing::FakeReward hardware = Later({{0, 2.0}, {1, 1.5}, {2, 1.7}});
  const auto times = ConfirmFastest(hardware, {}, &ran);
  ASSERT_EQ(times.size(), 3u);
  EXPECT_EQ(times[0].method, "a");
  EXPECT_EQ(times[0].step_s, (std::vector<double>{1.0, 2.0, 2.0, 2.0}));
  EXPECT_EQ(ran[0].evaluation.step_s, 2.0);
  EXPECT_EQ(ran[1].evaluation.step_s, 1.5);
  EXPECT_EQ(ran[2].evaluation.step_s, 1.7);
  EXPECT_EQ(ran[3].evaluation.step_s, 3.0) << "the fourth fastest is not measured again";
  EXPECT_EQ(hardware.calls.size(), 9u);
}

TEST(ConfirmTest, OneDrawThatPassesTheMediansIsMeasuredAgainToo) {
  // a, b and c drew lucky first; d, measured once, then beats their medians,
  // and the best would be the one placement with no median.
  std::vector<Measurement> ran = {Drawn("a", 0, 1.0), Drawn("b", 1, 1.1), Drawn("c", 2, 1.2),
                                  Drawn("d", 3, 1.5), Drawn("e", 4, 3.0)};
  testing::FakeReward hardware = Later({{0, 2.0}, {1, 2.0}, {2, 2.0}, {3, 1.6}});
  const auto times = ConfirmFastest(hardware, {}, &ran);
  ASSERT_EQ(times.size(), 4u);
  EXPECT_EQ(times[3].method, "d");
  EXPECT_EQ(times[3].step_s, (std::vector<double>{1.5, 1.6, 1.6, 1.6}));
  EXPECT_EQ(ran[3].evaluation.step_s, 1.6);
  EXPECT_EQ(ran[4].evaluation.step_s, 3.0) << "e stays slower than every median";
  EXPECT_EQ(hardware.calls.size(), 12u);
}

TEST(ConfirmTest, EachRoundStartsOnePlacementLater) {
  // A machine that drifts within a round should not fall on one placement alone.
  std::vector<Measurement> ran = {Drawn("a", 0, 1.0), Drawn("b", 1, 1.1), Drawn("c", 2, 1.2)};
  testing::FakeReward hardware = Later({{0, 1.0}, {1, 1.1}, {2, 1.2}});
  ConfirmFastest(hardware, {}, &ran);
  std::vector<int> firsts;
  for (const auto& p : hardware.calls) firsts.push_back(p.front());
  EXPECT_EQ(firsts, (std::vector<int>{0, 1, 2, 1, 2, 0, 2, 0, 1}));
}

TEST(ConfirmTest, ARepeatedPlacementIsMeasuredOnceAndEveryCopyGetsItsMedian) {
  // The expert and etf may place alike: one placement, not two lucky chances.
  std::vector<Measurement> ran = {Drawn("expert", 0, 1.0), Drawn("etf", 0, 1.4),
                                  Drawn("b", 1, 1.5)};
  testing::FakeReward hardware = Later({{0, 2.0}, {1, 1.5}});
  const auto times = ConfirmFastest(hardware, {}, &ran);
  ASSERT_EQ(times.size(), 2u);
  EXPECT_EQ(times[0].method, "expert");
  EXPECT_EQ(hardware.calls.size(), 6u);
  EXPECT_EQ(ran[0].evaluation.step_s, 2.0);
  EXPECT_EQ(ran[1].evaluation.step_s, 2.0);
}

TEST(ConfirmTest, FailuresAreNeitherConfirmedNorCounted) {
  std::vector<Measurement> ran = {Drawn("oom", 0, 0.5), Drawn("b", 1, 1.5), Drawn("c", 2, 1.6)};
  ran[0].evaluation.status = graph::Internal("out of memory");
  // c fails on every later draw: its median is its first draw's.
  testing::FakeReward hardware = Later({{1, 1.4}, {2, -1}});
  const auto times = ConfirmFastest(hardware, {}, &ran);
  ASSERT_EQ(times.size(), 2u);
  EXPECT_EQ(times[0].method, "b");
  EXPECT_EQ(times[1].step_s, (std::vector<double>{1.6}));
  EXPECT_EQ(ran[2].evaluation.step_s, 1.6);
  EXPECT_FALSE(ran[0].evaluation.status.ok());
  for (const auto& p : hardware.calls) EXPECT_NE(p.front(), 0);
}

TEST(ConfirmTest, NothingIsMeasuredWithoutRoundsOrARivalOrOnceStopped) {
  testing::FakeReward hardware = Later({{0, 2.0}, {1, 1.5}});
  std::vector<Measurement> ran = {Drawn("a", 0, 1.0), Drawn("b", 1, 1.5)};
  ConfirmOptions none;
  none.rounds = 0;
  EXPECT_TRUE(ConfirmFastest(hardware, none, &ran).empty());
  std::vector<Measurement> alone = {Drawn("a", 0, 1.0), Drawn("a again", 0, 1.2)};
  EXPECT_TRUE(ConfirmFastest(hardware, {}, &alone).empty());
  volatile std::sig_atomic_t stop = 1;
  ConfirmOptions stopped;
  stopped.stop = &stop;
  const auto times = ConfirmFastest(hardware, stopped, &ran);
  EXPECT_TRUE(hardware.calls.empty());
  ASSERT_EQ(times.size(), 2u) << "what was measured still stands";
  EXPECT_EQ(ran[0].evaluation.step_s, 1.0);
}

TEST(ConfirmTest, TheMemoAnswersWithTheMedianFromThenOn) {
  testing::FakeReward hardware = Later({{0, 2.0}, {1, 1.5}});
  RememberingReward memo(hardware);
  std::vector<Measurement> ran = {Drawn("a", 0, 1.0), Drawn("b", 1, 1.5)};
  ConfirmFastest(hardware, {}, &ran, &memo);
  const size_t calls = hardware.calls.size();
  EXPECT_EQ(memo.Evaluate({0}).step_s, 2.0);
  EXPECT_EQ(hardware.calls.size(), calls);
}

}  // namespace
}  // namespace planner::rewards
