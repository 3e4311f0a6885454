// The GLPK adapter: an LP with a known optimum, and the errors for one with no
// solution, by each method; a solve that a stop flag abandons.
#include "planner/baselines/linear_program.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

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

TEST(LinearProgram, WithAStopFlagNotSetTheAnswerIsTheSame) {
  volatile std::sig_atomic_t stop = 0;
  for (auto method : {LpOptions::Method::kSimplex, LpOptions::Method::kDualSimplex}) {
    LpOptions o;
    o.method = method;
    o.stop = &stop;
    auto v = SolveLinearProgram(Small(), o);
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_NEAR((*v)[0], 1.5, 1e-9);
    EXPECT_NEAR((*v)[1], 0.5, 1e-9);
  }
}

TEST(LinearProgram, AStopRequestedBeforeTheSolveIsAnErrorSayingSo) {
  volatile std::sig_atomic_t stop = 1;
  LpOptions o;
  o.stop = &stop;
  auto v = SolveLinearProgram(Small(), o);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), graph::StatusCode::kUnavailable);
  EXPECT_NE(v.status().message().find("abandoned: a stop was requested"), std::string::npos)
      << v.status().message();
}

// m-SCT's shape at scale: a long chain of start times, s_i + 1 + x_i <= s_(i+1),
// with a gain on each x: the primal simplex pivots through most of it (n = 6000:
// about a second on a 2-core VM; an abandoned solve finishes in the background).
LinearProgram LongChain(int n) {
  LinearProgram lp;
  std::vector<int> s, x;
  for (int i = 0; i < n; ++i) s.push_back(lp.AddColumn(0, 0, 10.0 * n));
  for (int i = 0; i + 1 < n; ++i) x.push_back(lp.AddColumn(-1.0 / (1 + i % 7), 0, 1));
  const int w = lp.AddColumn(1, 0, 10.0 * n);
  for (int i = 0; i + 1 < n; ++i) lp.rows.push_back({{{s[i], 1}, {x[i], 1}, {s[i + 1], -1}}, -1});
  lp.rows.push_back({{{s[n - 1], 1}, {w, -1}}, -1});
  lp.rows.push_back({{{w, 1}}, 1.5 * n});
  return lp;
}

TEST(LinearProgram, AStopDuringASolveReturnsWithoutWaitingForIt) {
  volatile std::sig_atomic_t stop = 0;
  LpOptions o;
  o.method = LpOptions::Method::kSimplex;  // m-SCT's
  o.stop = &stop;
  const LinearProgram chain = LongChain(6000);  // before the stopper's clock starts
  std::thread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop = 1;
  });
  auto v = SolveLinearProgram(chain, o);  // about 10 times longer than the 100 ms
  stopper.join();
  ASSERT_FALSE(v.ok()) << "the solve's answer came back: the stop was not read while it ran";
  EXPECT_NE(v.status().message().find("abandoned: a stop was requested"), std::string::npos)
      << v.status().message();
}

}  // namespace
}  // namespace planner::baselines
