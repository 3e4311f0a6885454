// planner/rewards/reward.h: how an evaluation is described to a user.
#include "planner/rewards/reward.h"

#include <gtest/gtest.h>

namespace planner::rewards {
namespace {

// A step of 1e300 s was printed as 31 digits with no unit: %.3f ran past the buffer.
TEST(DescribeEvaluationTest, AnyFiniteStepKeepsItsUnit) {
  Evaluation e;
  e.step_s = 0.0123456;
  EXPECT_EQ(DescribeEvaluation(e), "12.346 ms");
  e.step_s = 1e300;
  EXPECT_EQ(DescribeEvaluation(e), "1e+303 ms");
  e.step_s = 2e6;
  EXPECT_EQ(DescribeEvaluation(e), "2e+09 ms");
}

}  // namespace
}  // namespace planner::rewards
