#include "planner/job/patience.h"

#include <gtest/gtest.h>

namespace planner::job {
namespace {

// --patience alone: any improvement restarts the count.
TEST(PolicyPatienceTest, WithoutAGainEveryImprovementCounts) {
  PolicyPatience p(/*patience_s=*/10, /*gain=*/0, /*from_s=*/0, /*best_s=*/1.0, /*found_at_s=*/0);
  p.Observe(0.9999, 8);
  EXPECT_EQ(p.Stalled(17), 0);
  EXPECT_DOUBLE_EQ(p.Stalled(18), 10);
}

// --patience-gain: improvements smaller than the gain leave the count running,
// however many there are; one larger than it restarts the count.
TEST(PolicyPatienceTest, ImprovementsBelowTheGainDoNotCount) {
  PolicyPatience p(10, /*gain=*/0.005, 0, 1.0, 0);
  p.Observe(0.998, 3);  // 0.2%
  p.Observe(0.996, 6);  // 0.4% below the last gain that counted, in small steps
  EXPECT_EQ(p.Stalled(9.9), 0);
  EXPECT_DOUBLE_EQ(p.Stalled(10), 10);
  p.Observe(0.99, 11);  // 1%: counts
  EXPECT_EQ(p.Stalled(20.9), 0);
  EXPECT_DOUBLE_EQ(p.Stalled(21), 10);
}

// The count starts at the phase's start or the best's own time, whichever is
// later: a resumed search's best keeps its time, a baseline found before the
// phase does not shorten it.
TEST(PolicyPatienceTest, CountsFromThePhasesStartOrTheBestsTime) {
  PolicyPatience late_best(10, 0.005, /*from_s=*/5, 1.0, /*found_at_s=*/7);
  EXPECT_EQ(late_best.Stalled(16.9), 0);
  EXPECT_DOUBLE_EQ(late_best.Stalled(17), 10);
  PolicyPatience early_best(10, 0.005, /*from_s=*/5, 1.0, /*found_at_s=*/0);
  EXPECT_EQ(early_best.Stalled(14.9), 0);
  EXPECT_DOUBLE_EQ(early_best.Stalled(15), 10);
}

// --patience-first: before its first gain that counts, the policy has the
// shorter patience; after it, the full one, from the gain's time; a first
// patience longer than the patience is cut to it.
TEST(PolicyPatienceTest, TheFirstPatienceHoldsUntilTheFirstGain) {
  PolicyPatience none(60, 0.005, 0, 1.0, 0, /*first_s=*/30);
  none.Observe(0.999, 10);  // 0.1%: does not count
  EXPECT_FALSE(none.gained());
  EXPECT_EQ(none.Stalled(29.9), 0);
  EXPECT_DOUBLE_EQ(none.Stalled(30), 30);

  PolicyPatience gained(60, 0.005, 0, 1.0, 0, /*first_s=*/30);
  gained.Observe(0.9, 20);
  EXPECT_TRUE(gained.gained());
  EXPECT_EQ(gained.Stalled(79.9), 0);  // 30 s after the start is no longer the limit
  EXPECT_DOUBLE_EQ(gained.Stalled(80), 60);

  PolicyPatience longer(10, 0, 0, 1.0, 0, /*first_s=*/30);
  EXPECT_DOUBLE_EQ(longer.Stalled(10), 10);
}

}  // namespace
}  // namespace planner::job
