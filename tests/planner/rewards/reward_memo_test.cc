// planner/rewards/reward_memo.h: a placement is measured once; asked again, the
// source answers with that first measurement.
#include "planner/rewards/reward_memo.h"

#include <gtest/gtest.h>

#include "tests/planner/fake_reward.h"

namespace planner::rewards {
namespace {

TEST(RewardMemoTest, ARepeatedPlacementGetsItsFirstMeasurement) {
  // Every measurement is faster than the one before: a fresh draw of a
  // repeated placement would look like a gain.
  testing::FakeReward inner([](const std::vector<int>&, int call) { return 0.01 - call * 1e-4; });
  RememberingReward memo(inner);
  const Evaluation a = memo.Evaluate({0, 1});
  const Evaluation b = memo.Evaluate({1, 1});
  const Evaluation again = memo.Evaluate({0, 1});
  EXPECT_EQ(again.step_s, a.step_s);
  EXPECT_NE(b.step_s, a.step_s);
  EXPECT_EQ(inner.calls.size(), 2u);
  EXPECT_EQ(memo.distinct(), 2);
  EXPECT_EQ(memo.repeats(), 1);
  EXPECT_STREQ(memo.name(), "fake");
}

TEST(RewardMemoTest, APlacementMeasuredAgainByItsOwnerAnswersWithWhatItWasGiven) {
  testing::FakeReward inner([](const std::vector<int>&, int call) { return 0.01 - call * 1e-4; });
  RememberingReward memo(inner);
  memo.Evaluate({0, 1});
  Evaluation median;
  median.step_s = 0.02;
  memo.Replace({0, 1}, median);
  EXPECT_EQ(memo.Evaluate({0, 1}).step_s, 0.02);
  EXPECT_EQ(memo.EvaluateBatch({{0, 1}})[0].step_s, 0.02);
  EXPECT_EQ(inner.calls.size(), 1u);
}

TEST(RewardMemoTest, AFailureIsRememberedToo) {
  testing::FakeReward inner(
      [](const std::vector<int>&, int call) { return call == 0 ? -1 : 0.01; });
  RememberingReward memo(inner);
  EXPECT_FALSE(memo.Evaluate({0}).status.ok());
  EXPECT_FALSE(memo.Evaluate({0}).status.ok());
  EXPECT_TRUE(memo.Evaluate({1}).status.ok());
  EXPECT_EQ(inner.calls.size(), 2u);
}

TEST(RewardMemoTest, AnUnavailableSourceIsAskedAgain) {
  // Its first evaluation finds no device to run on.
  class Flaky : public testing::FakeReward {
   public:
    using FakeReward::FakeReward;
    Evaluation Evaluate(const std::vector<int>& p) const override {
      Evaluation e = FakeReward::Evaluate(p);
      if (calls.size() == 1) e.status = graph::Status(graph::StatusCode::kUnavailable, "no worker");
      return e;
    }
  } flaky([](const std::vector<int>&, int) { return 0.01; });
  RememberingReward flaky_memo(flaky);
  EXPECT_FALSE(flaky_memo.Evaluate({0}).status.ok());
  EXPECT_TRUE(flaky_memo.Evaluate({0}).status.ok());
  EXPECT_TRUE(flaky_memo.EvaluateBatch({{0}})[0].status.ok());
  EXPECT_EQ(flaky.calls.size(), 2u);
}

TEST(RewardMemoTest, ABatchSendsEachUnseenPlacementOnceInOrder) {
  testing::FakeReward inner([](const std::vector<int>&, int call) { return 1.0 + call; });
  RememberingReward memo(inner);
  memo.Evaluate({0, 0});  // seen before the batch: 1.0
  const std::vector<Evaluation> got = memo.EvaluateBatch({{1, 0}, {0, 0}, {1, 0}, {0, 1}});
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].step_s, 2.0);
  EXPECT_EQ(got[1].step_s, 1.0);
  EXPECT_EQ(got[2].step_s, 2.0);  // the batch's own repeat: one evaluation
  EXPECT_EQ(got[3].step_s, 3.0);
  EXPECT_EQ(inner.calls.size(), 3u);
  EXPECT_EQ(memo.distinct(), 3);
  EXPECT_EQ(memo.repeats(), 2);
}

}  // namespace
}  // namespace planner::rewards
