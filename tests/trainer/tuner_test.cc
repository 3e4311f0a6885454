#include "trainer/tuner.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trainer {
namespace {

TEST(TunerTest, GroupChoicesArePowersOfTwoAndEveryRank) {
  EXPECT_EQ(GroupChoices(1), std::vector<int>({1}));
  EXPECT_EQ(GroupChoices(2), std::vector<int>({1, 2}));
  EXPECT_EQ(GroupChoices(6), std::vector<int>({1, 2, 4, 6}));
}

TEST(TunerTest, ExplicitMomentumFallsAsAsynchronyRises) {
  TunerOptions o;
  double max_sync = 0, max_async = 0;
  for (const TuneConfig& c : Candidates(8, o)) {
    if (c.groups == 1) max_sync = std::max(max_sync, c.momentum);
    if (c.groups == 8) max_async = std::max(max_async, c.momentum);
  }
  EXPECT_DOUBLE_EQ(max_sync, 0.9);
  EXPECT_DOUBLE_EQ(max_async, 0.0);  // implicit momentum 7/8 already exceeds 0.9 - 0.05
  EXPECT_DOUBLE_EQ(ImplicitMomentum(4), 0.75);
}

TEST(TunerTest, TheLeastTimePerLossDecreaseWins) {
  Probe fast_but_slow_learning{{2, 0.01, 0}, true, 0.005, 2.0, 1.9, 60};  // 0.005 / (0.1/30)
  Probe slower_steps_faster_learning{{1, 0.03, 0.6}, true, 0.008, 2.0, 1.4, 60};
  Probe diverged{{2, 0.1, 0.3}, true, 0.004, 2.0, 2.3, 60};
  Probe failed{{1, 0.1, 0.9}, false};
  EXPECT_NEAR(SecondsPerUnitLoss(fast_but_slow_learning), 1.5, 1e-9);
  EXPECT_NEAR(SecondsPerUnitLoss(slower_steps_faster_learning), 0.4, 1e-9);
  EXPECT_TRUE(std::isinf(SecondsPerUnitLoss(diverged)));
  EXPECT_TRUE(std::isinf(SecondsPerUnitLoss(failed)));
  EXPECT_EQ(ChooseProbe({fast_but_slow_learning, slower_steps_faster_learning, diverged, failed}),
            1);
  EXPECT_EQ(ChooseProbe({diverged, failed}), -1);
}

// Late in training a probe's second half can show a higher loss than its first
// (other batches); measured against the untrained model on the same batches, the
// learning shows.
TEST(TunerTest, TheUntrainedLossOnTheSameBatchesIsTheBase) {
  Probe p{{1, 0.01, 0.9}, true, 0.01, 0.40, 0.45, 60, 0.48};
  EXPECT_NEAR(SecondsPerUnitLoss(p), 0.01 / (0.03 / 45), 1e-9);
  p.base_loss = 0;  // unknown: first half to second half, which rose
  EXPECT_TRUE(std::isinf(SecondsPerUnitLoss(p)));
}

// An odd number of steps: the first half is the first n/2 (rounded down), the
// second the rest, each averaged over its own count.
TEST(TunerTest, AProbesHalvesAverageTheirOwnSteps) {
  Probe p = MakeProbe({2, 0.03, 0.3}, 0.5, {5, 3, 2, 2, 2}, 4.0);
  EXPECT_DOUBLE_EQ(p.first_loss, 4.0);
  EXPECT_DOUBLE_EQ(p.final_loss, 2.0);
  EXPECT_EQ(p.steps, 5);
  EXPECT_EQ(p.config.groups, 2);
  EXPECT_DOUBLE_EQ(p.base_loss, 4.0);
  EXPECT_TRUE(p.ok);
}

}  // namespace
}  // namespace trainer
