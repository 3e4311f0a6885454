// The GLPK adapter: an LP with a known optimum, and the errors for one with no
// solution, by each method.
#include "planner/baselines/linear_program.h"

#include <gtest/gtest.h>

namespace planner::baselines {
namespace {

// min x + 2y  s.t.  x + y >= 2, x <= 1.5, x, y >= 0: optimum x = 1.5, y = 0.5.
LinearProgram Small() {
  LinearProgram lp;
  const int x = lp.AddColumn(1, 0, 1.5);
  const int y = lp.AddColumn(2, 0, LinearProgram::kInf);
  lp.rows.push_back({{{x, -1}, {y, -1}}, -2});
  return lp;
}

TEST(LinearProgram, ThePrimalAndTheDualSimplexFindTheKnownOptimum) {
  for (auto method : {LpOptions::Method::kSimplex, LpOptions::Method::kDualSimplex}) {
    LpOptions o;
    o.method = method;
    auto v = SolveLinearProgram(Small(), o);
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_NEAR((*v)[0], 1.5, 1e-9);
    EXPECT_NEAR((*v)[1], 0.5, 1e-9);
  }
}

TEST(LinearProgram, TheInteriorPointMethodFindsItToo) {
  LpOptions o;
  o.method = LpOptions::Method::kInterior;
  auto v = SolveLinearProgram(Small(), o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_NEAR((*v)[0], 1.5, 1e-6);
  EXPECT_NEAR((*v)[1], 0.5, 1e-6);
}

TEST(LinearProgram, AnInfeasibleProgramIsAnErrorSayingSo) {
  LinearProgram lp;
  const int x = lp.AddColumn(1, 0, 1);
  lp.rows.push_back({{{x, -1}}, -2});  // x >= 2 with x <= 1
  for (auto method : {LpOptions::Method::kSimplex, LpOptions::Method::kDualSimplex,
                      LpOptions::Method::kInterior}) {
    LpOptions o;
    o.method = method;
    auto v = SolveLinearProgram(lp, o);
    ASSERT_FALSE(v.ok());
    EXPECT_NE(v.status().message().find("infeasible"), std::string::npos) << v.status().message();
  }
}

TEST(LinearProgram, AnUnboundedProgramIsAnError) {
  LinearProgram lp;
  lp.AddColumn(-1, 0, LinearProgram::kInf);  // min -x, x >= 0
  for (auto method : {LpOptions::Method::kSimplex, LpOptions::Method::kDualSimplex}) {
    LpOptions o;
    o.method = method;
    EXPECT_FALSE(SolveLinearProgram(lp, o).ok());
  }
}

TEST(LinearProgram, AMalformedProgramIsRefusedNotHandedToGlpk) {
  LinearProgram twice = Small();
  twice.rows[0].terms.push_back({0, -1});  // column 0 twice in a row: GLPK would abort
  EXPECT_NE(SolveLinearProgram(twice).status().message().find("twice"), std::string::npos);
  LinearProgram out_of_range = Small();
  out_of_range.rows[0].terms.push_back({7, 1});
  EXPECT_FALSE(SolveLinearProgram(out_of_range).ok());
  LinearProgram crossed = Small();
  crossed.columns[0].lower = 2;  // above its upper bound, 1.5
  EXPECT_FALSE(SolveLinearProgram(crossed).ok());
}

TEST(LinearProgram, BoundsAloneAreSolvedByEachMethod) {
  LinearProgram lp;
  lp.AddColumn(1, 0.25, 4);  // min x, 0.25 <= x <= 4: no rows
  for (auto method : {LpOptions::Method::kSimplex, LpOptions::Method::kDualSimplex,
                      LpOptions::Method::kInterior}) {
    LpOptions o;
    o.method = method;
    auto v = SolveLinearProgram(lp, o);
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_NEAR((*v)[0], 0.25, 1e-9);
  }
}

}  // namespace
}  // namespace planner::baselines
