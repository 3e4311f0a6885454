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

}  // namespace
}  // namespace planner::job
