#include "planner/refine.h"

#include <gtest/gtest.h>

#include "tests/planner/search_test_util.h"

namespace planner {
namespace {

using Fixture = testing::SimProblem;

TEST(RefineTest, MovesScopesOffASlowDeviceAndReportsTheTrueTime) {
  Fixture f;
  // Everything on the modelled CPU, 40x slower than a GPU.
  std::vector<int> start(f.p.forward.size(), 0);
  Evaluation e = f.reward->Evaluate(start);
  ASSERT_TRUE(e.status.ok()) << e.status.message();
  RefineResult r = Refine(f.p.forward, 3, *f.reward, start, e.step_s, {60}, nullptr);
  EXPECT_GT(r.kept, 0);
  EXPECT_LT(r.step_s, 0.5 * e.step_s);
  Evaluation again = f.reward->Evaluate(r.device_of_node);
  EXPECT_DOUBLE_EQ(again.step_s, r.step_s) << "the reported time is the placement's";
  EXPECT_GT(r.units, 10);
}

TEST(RefineTest, NeverReturnsASlowerPlacement) {
  Fixture f;
  std::vector<int> start(f.p.forward.size(), 1);
  Evaluation e = f.reward->Evaluate(start);
  RefineResult r = Refine(f.p.forward, 3, *f.reward, start, e.step_s, {60}, nullptr);
  EXPECT_LE(r.step_s, e.step_s);
  if (r.kept == 0) {
    EXPECT_EQ(r.device_of_node, start);
  }
}

TEST(RefineTest, StopFlagEndsItBeforeAnyMove) {
  Fixture f;
  std::vector<int> start(f.p.forward.size(), 0);
  Evaluation e = f.reward->Evaluate(start);
  volatile std::sig_atomic_t stop = 1;
  RefineResult r = Refine(f.p.forward, 3, *f.reward, start, e.step_s, {60}, &stop);
  EXPECT_EQ(r.evaluated, 0);
  EXPECT_EQ(r.device_of_node, start);
}

}  // namespace
}  // namespace planner
