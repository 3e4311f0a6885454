// planner/rewards/verdict.h: a gain is claimed only when the paired, interleaved
// rounds show it at the stated level.
#include "planner/rewards/verdict.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/planner/fake_reward.h"

namespace planner::rewards {
namespace {

using testing::FakeReward;

const std::vector<int> kCandidate{1, 1}, kIncumbent{0, 0};

// The machine's speed drifts by 30% over the run, far more than the 5% that
// separates the two placements; each round's pair sees the same speed.
double Drifting(const std::vector<int>& p, int call, double candidate_factor) {
  const double machine = 1.0 + 0.3 * std::sin(call / 4.0);
  return (p == kCandidate ? candidate_factor : 1.0) * machine * 0.01;
}

TEST(VerdictTest, AConsistentGainUnderDriftIsSignificant) {
  FakeReward r([](const std::vector<int>& p, int call) { return Drifting(p, call / 2, 0.95); });
  Verdict v = CompareOnHardware(r, kCandidate, kIncumbent, VerdictOptions{}, nullptr);
  ASSERT_TRUE(v.status.ok());
  EXPECT_EQ(v.rounds, 9);
  EXPECT_TRUE(v.significant);
  EXPECT_NEAR(v.median_ratio, 0.95, 1e-9);
  EXPECT_NEAR(v.p_value, 1.0 / 512, 1e-12);
  EXPECT_NE(DescribeVerdict(v, "expert", VerdictOptions{}).find("5.0% faster than expert"),
            std::string::npos);
}

TEST(VerdictTest, TheSamePlacementIsNeverSignificantlyFaster) {
  // Identical placements whose measurements differ only by noise that favours
  // either side at random.
  uint32_t state = 7;
  FakeReward r([&](const std::vector<int>&, int) {
    state = state * 1664525u + 1013904223u;
    return 0.01 * (1 + 0.05 * (state >> 8) / double(1 << 24));
  });
  int claimed = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Verdict v = CompareOnHardware(r, kIncumbent, kIncumbent, VerdictOptions{}, nullptr);
    claimed += v.significant;
  }
  // At alpha = 0.05 about 10 of 200 false claims are expected; far more would
  // mean the test is not at its level.
  EXPECT_LE(claimed, 20);
  Verdict v = CompareOnHardware(r, kIncumbent, kIncumbent, VerdictOptions{}, nullptr);
  if (!v.significant) {
    EXPECT_NE(DescribeVerdict(v, "single:cpu1", VerdictOptions{})
                  .find("no significant improvement over single:cpu1 (at p < 0.05)"),
              std::string::npos);
  }
}

TEST(VerdictTest, RoundsAlternateWhichPlacementRunsFirst) {
  FakeReward r([](const std::vector<int>& p, int) { return p == kCandidate ? 0.009 : 0.01; });
  VerdictOptions o;
  o.rounds = 4;
  CompareOnHardware(r, kCandidate, kIncumbent, o, nullptr);
  const std::vector<std::vector<int>> expected{kCandidate, kIncumbent, kIncumbent, kCandidate,
                                               kCandidate, kIncumbent, kIncumbent, kCandidate};
  EXPECT_EQ(r.calls, expected);
}

TEST(VerdictTest, TooFewRoundsCannotBeSignificant) {
  FakeReward r([](const std::vector<int>& p, int) { return p == kCandidate ? 0.005 : 0.01; });
  VerdictOptions o;
  o.rounds = 4;  // 2^-4 > 0.05
  Verdict v = CompareOnHardware(r, kCandidate, kIncumbent, o, nullptr);
  EXPECT_FALSE(v.significant);
  EXPECT_FALSE(v.have_interval);
  o.rounds = 5;
  EXPECT_TRUE(CompareOnHardware(r, kCandidate, kIncumbent, o, nullptr).significant);
}

TEST(VerdictTest, AFailedMeasurementIsReported) {
  FakeReward r([](const std::vector<int>&, int call) { return call == 3 ? -1 : 0.01; });
  Verdict v = CompareOnHardware(r, kCandidate, kIncumbent, VerdictOptions{}, nullptr);
  EXPECT_FALSE(v.status.ok());
  EXPECT_FALSE(v.significant);
}

TEST(VerdictTest, AStopEndsTheRounds) {
  volatile std::sig_atomic_t stop = 0;
  FakeReward r([&](const std::vector<int>&, int call) {
    if (call == 5) stop = 1;
    return 0.01;
  });
  Verdict v = CompareOnHardware(r, kCandidate, kIncumbent, VerdictOptions{}, &stop);
  ASSERT_TRUE(v.status.ok());
  EXPECT_EQ(v.rounds, 3);
  EXPECT_FALSE(v.significant);
}

}  // namespace
}  // namespace planner::rewards
