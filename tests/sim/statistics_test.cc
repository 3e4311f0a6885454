// sim/statistics.h: the sign test's interval and the exact Wilcoxon test,
// against values worked out by hand.
#include "sim/statistics.h"

#include <gtest/gtest.h>

namespace sim {
namespace {

TEST(StatisticsTest, WilcoxonEveryRoundFasterIsOneInTwoToTheN) {
  EXPECT_DOUBLE_EQ(WilcoxonLessP({-1, -2, -3, -4, -5}), 1.0 / 32);
  EXPECT_DOUBLE_EQ(WilcoxonLessP({1, 2, 3, 4, 5}), 1.0);
}

TEST(StatisticsTest, WilcoxonCountsRankSumsAtLeastTheObserved) {
  // Negative ranks 1+2+3+4 = 10 of 15: as many of the 32 sign patterns reach
  // 10 as stay at or below 5, which are 10.
  EXPECT_DOUBLE_EQ(WilcoxonLessP({-1, -2, -3, -4, 5}), 10.0 / 32);
  // The largest difference positive outweighs four small negative ones less
  // than the reverse.
  EXPECT_GT(WilcoxonLessP({-1, -2, -3, -4, 50}), WilcoxonLessP({1, -2, -3, -4, -50}));
}

TEST(StatisticsTest, WilcoxonDropsZerosAndSharesTiedRanks) {
  EXPECT_DOUBLE_EQ(WilcoxonLessP({0, -1, -2}), 1.0 / 4);
  EXPECT_DOUBLE_EQ(WilcoxonLessP({-1, -1}), 1.0 / 4);
  // Ranks 1.5, 1.5, 3: the negative pair sums to 3 of 6; sums >= 3 are
  // {1.5,1.5}, {3}, {1.5,3} twice and all three: 5 of 8.
  EXPECT_DOUBLE_EQ(WilcoxonLessP({-1, -1, 2}), 5.0 / 8);
  EXPECT_DOUBLE_EQ(WilcoxonLessP({0, 0}), 1.0);
  EXPECT_DOUBLE_EQ(WilcoxonLessP({}), 1.0);
}

TEST(StatisticsTest, MedianIntervalWidensToTheExtremesForSmallSamples) {
  double lo = 0, hi = 0;
  EXPECT_FALSE(MedianInterval({1, 2, 3, 4, 5}, 0.95, &lo, &hi)) << "2/32 > 5%: no interval";
  ASSERT_TRUE(MedianInterval({6, 1, 5, 2, 4, 3}, 0.95, &lo, &hi));
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 6);
  // n = 9: P(X <= 1) = 10/512 <= 2.5%, P(X <= 2) = 46/512 is not: k = 2.
  ASSERT_TRUE(MedianInterval({9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.95, &lo, &hi));
  EXPECT_EQ(lo, 2);
  EXPECT_EQ(hi, 8);
  ASSERT_TRUE(MedianInterval({9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.80, &lo, &hi));
  EXPECT_EQ(lo, 3) << "P(X <= 2) = 9% <= 10%";
  EXPECT_EQ(hi, 7);
}

TEST(StatisticsTest, MedianOfEvenAndOddSamples) {
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
}

}  // namespace
}  // namespace sim
