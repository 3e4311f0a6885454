#include "planner/refine.h"

#include <gtest/gtest.h>

#include "tests/planner/search_test_util.h"

namespace planner {
namespace {

using Fixture = testing::SimProblem;

// The climb alone, within `budget_s`.
RefineOptions ClimbOnly(double budget_s = 60) {
  RefineOptions o;
  o.budget_s = budget_s;
  o.kicks = 0;
  return o;
}

TEST(RefineTest, MovesScopesOffASlowDeviceAndReportsTheTrueTime) {
  Fixture f;
  // Everything on the modelled CPU, 40x slower than a GPU.
  std::vector<int> start(f.p.forward.size(), 0);
  Evaluation e = f.reward->Evaluate(start);
  ASSERT_TRUE(e.status.ok()) << e.status.message();
  RefineResult r = Refine(f.p.forward, 3, *f.reward, start, e.step_s, ClimbOnly(), nullptr);
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
  RefineOptions o = ClimbOnly();
  o.kicks = 5;
  RefineResult r = Refine(f.p.forward, 3, *f.reward, start, e.step_s, o, nullptr);
  EXPECT_LE(r.step_s, e.step_s);
  EXPECT_DOUBLE_EQ(f.reward->Evaluate(r.device_of_node).step_s, r.step_s);
  if (r.kept == 0) {
    EXPECT_EQ(r.device_of_node, start);
  }
}

TEST(RefineTest, StopFlagEndsItBeforeAnyMove) {
  Fixture f;
  std::vector<int> start(f.p.forward.size(), 0);
  Evaluation e = f.reward->Evaluate(start);
  volatile std::sig_atomic_t stop = 1;
  RefineResult r = Refine(f.p.forward, 3, *f.reward, start, e.step_s, RefineOptions{}, &stop);
  EXPECT_EQ(r.evaluated, 0);
  EXPECT_EQ(r.kicks, 0);
  EXPECT_EQ(r.device_of_node, start);
}

TEST(RefineTest, KicksNeverLoseTheClimbsResultAndRepeatWithTheSeed) {
  Fixture f;
  std::vector<int> start(f.p.forward.size(), 1);
  Evaluation e = f.reward->Evaluate(start);
  RefineResult climb = Refine(f.p.forward, 3, *f.reward, start, e.step_s, ClimbOnly(), nullptr);
  RefineOptions o = ClimbOnly();
  o.kicks = 8;
  RefineResult a = Refine(f.p.forward, 3, *f.reward, start, e.step_s, o, nullptr);
  RefineResult b = Refine(f.p.forward, 3, *f.reward, start, e.step_s, o, nullptr);
  EXPECT_EQ(a.kicks, 8);
  EXPECT_LE(a.step_s, climb.step_s);
  EXPECT_EQ(a.device_of_node, b.device_of_node) << "same seed, same kicks";
  EXPECT_GT(a.evaluated, climb.evaluated);
  EXPECT_LE(a.kicks_kept, a.kicks);
}

TEST(RefineTest, KicksStopAtTheBudget) {
  Fixture f;
  std::vector<int> start(f.p.forward.size(), 1);
  Evaluation e = f.reward->Evaluate(start);
  RefineOptions o;
  o.budget_s = 0.5;  // unlimited kicks: the time ends it
  RefineResult r = Refine(f.p.forward, 3, *f.reward, start, e.step_s, o, nullptr);
  EXPECT_GT(r.kicks, 0);
  EXPECT_LT(r.seconds, 5.0);
}

}  // namespace
}  // namespace planner
