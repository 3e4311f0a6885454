// A linear program and its solution by GLPK (Debian's libglpk-dev), the one
// file that calls GLPK (linear_program.cc): minimise c'x subject to rows
// sum_k a_k x_k <= b and bounds on every column. For the m-SCT baseline's
// relaxation (msct.h); small enough for any LP a baseline needs.
//
// Thread safety: SolveLinearProgram uses GLPK's environment of the thread that
// solves (the calling thread, or with LpOptions::stop a thread of its own).
#pragma once

#include <csignal>
#include <limits>
#include <utility>
#include <vector>

#include "graph/status.h"

namespace planner::baselines {

struct LinearProgram {
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  struct Column {
    double cost = 0;  // in the objective, minimised
    double lower = 0, upper = kInf;
  };
  struct Row {
    std::vector<std::pair<int, double>> terms;  // (column, coefficient)
    double upper = 0;                           // sum of the terms <= upper
  };
  std::vector<Column> columns;
  std::vector<Row> rows;

  int AddColumn(double cost, double lower, double upper) {
    columns.push_back({cost, lower, upper});
    return static_cast<int>(columns.size()) - 1;
  }
};

struct LpOptions {
  // GLPK's interior-point method (as MOSEK's default, which Baechi used: an
  // optimum inside the optimal face), its presolved primal simplex (a vertex),
  // or its presolved dual simplex (a vertex, perhaps another: where every cost
  // is at least 0 and every column starts at its lower bound, as in m-SCT's
  // relaxation, the first basis is dual feasible, and on the NMT relaxations it
  // is about 3 times faster than the primal).
  enum class Method { kInterior, kSimplex, kDualSimplex };
  Method method = Method::kInterior;
  double time_limit_s = 0;  // > 0: either simplex stops here, an error saying so; 0: none
  // Not null: the program is solved on a thread of its own while the caller
  // reads this flag every 50 ms; once it is set (before the call too), the
  // call returns an error saying so at once. GLPK cannot be interrupted: its
  // thread finishes the solve in the background, keeping a core and a copy of
  // the program until then (or the process's exit), and its answer is
  // dropped. For a command that a signal stops (frontend/stop_signals.h):
  // m-SCT's program takes a minute on NMT-8. Where no thread can be started,
  // or GLPK was built without thread-local environments, the solve runs on
  // the calling thread and the flag is read only before it.
  const volatile std::sig_atomic_t* stop = nullptr;
};

// The optimal value of every column. An infeasible or unbounded program, one
// the simplex does not solve within the time limit or before the stop flag is
// set, or a malformed one (a column out of range or twice in a row, a value
// not finite, bounds crossed) is an error saying which.
graph::Result<std::vector<double>> SolveLinearProgram(const LinearProgram& lp,
                                                      const LpOptions& options = {});

}  // namespace planner::baselines
