#include "planner/baselines/linear_program.h"

#include <glpk.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <thread>

namespace planner::baselines {

namespace {

struct ProblemDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
using Problem = std::unique_ptr<glp_prob, ProblemDeleter>;

// GLPK aborts the process on a column index out of range, a (row, column)
// given twice or a malformed bound: such a program is refused here instead.
graph::Status Check(const LinearProgram& lp) {
  const int n = static_cast<int>(lp.columns.size());
  for (int j = 0; j < n; ++j) {
    const LinearProgram::Column& c = lp.columns[j];
    if (!std::isfinite(c.cost) || std::isnan(c.lower) || std::isnan(c.upper) ||
        c.lower == LinearProgram::kInf || c.upper == -LinearProgram::kInf || c.lower > c.upper) {
      return graph::InvalidArgument("linear program: column " + std::to_string(j) +
                                    " has a bad cost or bounds");
    }
  }
  for (size_t r = 0; r < lp.rows.size(); ++r) {
    std::set<int> seen;
    bool finite = std::isfinite(lp.rows[r].upper);
    for (const auto& [column, coefficient] : lp.rows[r].terms) {
      finite = finite && std::isfinite(coefficient);
      if (column < 0 || column >= n || !seen.insert(column).second) {
        return graph::InvalidArgument("linear program: row " + std::to_string(r) +
                                      " names column " + std::to_string(column) +
                                      " out of range or twice");
      }
    }
    if (!finite) {
      return graph::InvalidArgument("linear program: row " + std::to_string(r) +
                                    " has a value that is not finite");
    }
  }
  return graph::Status::Ok();
}

int BoundKind(double lower, double upper) {
  const bool has_lower = std::isfinite(lower), has_upper = std::isfinite(upper);
  if (has_lower && has_upper) return lower == upper ? GLP_FX : GLP_DB;
  if (has_lower) return GLP_LO;
  return has_upper ? GLP_UP : GLP_FR;
}

// GLPK's arrays are 1-based: element 0 is unused.
void LoadRows(const LinearProgram& lp, glp_prob* p) {
  if (lp.rows.empty()) return;  // GLPK refuses to add none
  glp_add_rows(p, static_cast<int>(lp.rows.size()));
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  for (size_t r = 0; r < lp.rows.size(); ++r) {
    glp_set_row_bnds(p, static_cast<int>(r) + 1, GLP_UP, 0, lp.rows[r].upper);
    for (const auto& [column, coefficient] : lp.rows[r].terms) {
      ia.push_back(static_cast<int>(r) + 1);
      ja.push_back(column + 1);
      ar.push_back(coefficient);
    }
  }
  glp_load_matrix(p, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
}

graph::Result<std::vector<double>> Interior(const LinearProgram& lp, glp_prob* p) {
  glp_scale_prob(p, GLP_SF_AUTO);
  glp_iptcp parm;
  glp_init_iptcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  const int ret = glp_interior(p, &parm);
  const int status = glp_ipt_status(p);
  if (ret == GLP_ENOPFS || ret == GLP_ENODFS || status == GLP_NOFEAS) {
    return graph::InvalidArgument("the linear program is infeasible or unbounded");
  }
  if (ret != 0 || status != GLP_OPT) {
    return graph::Internal("GLPK's interior-point method failed (code " + std::to_string(ret) +
                           ", status " + std::to_string(status) + ")");
  }
  std::vector<double> x(lp.columns.size());
  for (size_t c = 0; c < x.size(); ++c) x[c] = glp_ipt_col_prim(p, static_cast<int>(c) + 1);
  return x;
}

// The solve itself, on the calling thread's GLPK environment.
graph::Result<std::vector<double>> SolveHere(const LinearProgram& lp, const LpOptions& options) {
  glp_term_out(GLP_OFF);  // GLPK's own lines (its scaling's report) stay off stdout
  Problem p(glp_create_prob());
  glp_set_obj_dir(p.get(), GLP_MIN);
  if (lp.columns.empty()) return std::vector<double>();
  glp_add_cols(p.get(), static_cast<int>(lp.columns.size()));
  for (size_t c = 0; c < lp.columns.size(); ++c) {
    const LinearProgram::Column& col = lp.columns[c];
    const int j = static_cast<int>(c) + 1;
    glp_set_col_bnds(p.get(), j, BoundKind(col.lower, col.upper),
                     std::isfinite(col.lower) ? col.lower : 0,
                     std::isfinite(col.upper) ? col.upper : 0);
    glp_set_obj_coef(p.get(), j, col.cost);
  }
  LoadRows(lp, p.get());
  // GLPK's interior-point method refuses a program without rows.
  if (options.method == LpOptions::Method::kInterior && !lp.rows.empty()) {
    return Interior(lp, p.get());
  }
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  if (options.method == LpOptions::Method::kDualSimplex) parm.meth = GLP_DUALP;
  if (options.time_limit_s > 0) {
    parm.tm_lim = static_cast<int>(std::min(options.time_limit_s * 1e3, 2e9));
  }
  const int ret = glp_simplex(p.get(), &parm);
  if (ret == GLP_ETMLIM) {
    return graph::Status(graph::StatusCode::kUnavailable,
                         "the linear program (" + std::to_string(lp.columns.size()) +
                             " columns) was not solved within " +
                             std::to_string(options.time_limit_s) + " s");
  }
  const int status = glp_get_status(p.get());
  if (ret == GLP_ENOPFS || ret == GLP_ENODFS || status == GLP_NOFEAS || status == GLP_UNBND) {
    return graph::InvalidArgument("the linear program is infeasible or unbounded");
  }
  if (ret != 0 || status != GLP_OPT) {
    return graph::Internal("GLPK's simplex failed (code " + std::to_string(ret) + ", status " +
                           std::to_string(status) + ")");
  }
  std::vector<double> x(lp.columns.size());
  for (size_t c = 0; c < x.size(); ++c) x[c] = glp_get_col_prim(p.get(), static_cast<int>(c) + 1);
  return x;
}

// A solve on its own thread, which the caller may stop waiting for. The
// thread owns a copy of the program and shares the answer's slot with the
// caller; an abandoned one finishes, frees its GLPK environment and ends.
struct Background {
  std::mutex mu;
  std::condition_variable done_cv;
  bool done = false;
  graph::Result<std::vector<double>> answer = std::vector<double>();
};

graph::Status Abandoned(const LinearProgram& lp) {
  return graph::Status(graph::StatusCode::kUnavailable,
                       "the linear program (" + std::to_string(lp.columns.size()) +
                           " columns) was abandoned: a stop was requested");
}

// The solve on the thread: GLPK's failure to allocate is an error, not the
// end of the process, which an exception escaping the thread would be.
graph::Result<std::vector<double>> SolveOnWorker(const LinearProgram& lp,
                                                 const LpOptions& options) {
  try {
    return SolveHere(lp, options);
  } catch (const std::exception& e) {
    return graph::Internal(std::string("solving the linear program failed: ") + e.what());
  }
}

// Starts the worker with SIGINT and SIGTERM blocked, so that they reach the
// command's own threads (frontend/stop_signals.h), never GLPK's.
void StartWorker(const std::shared_ptr<Background>& state, const LinearProgram& lp,
                 LpOptions options) {
  options.stop = nullptr;  // the worker reads no caller's memory
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  try {
    std::thread([state, lp, options] {
      auto answer = SolveOnWorker(lp, options);
      glp_free_env();  // this thread's: its problem is gone, and the thread ends
      std::lock_guard<std::mutex> lock(state->mu);
      state->answer = std::move(answer);
      state->done = true;
      state->done_cv.notify_all();
    }).detach();
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

graph::Result<std::vector<double>> SolveStoppably(const LinearProgram& lp,
                                                  const LpOptions& options) {
  if (*options.stop) return Abandoned(lp);
  // Without thread-local environments, two GLPK threads would share one.
  if (glp_config("TLS") == nullptr) return SolveHere(lp, options);
  auto state = std::make_shared<Background>();
  try {
    StartWorker(state, lp, options);
  } catch (const std::system_error&) {
    return SolveHere(lp, options);  // no thread to be had: solve here, unstoppably
  }
  std::unique_lock<std::mutex> lock(state->mu);
  while (
      !state->done_cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return state->done; })) {
    if (*options.stop) return Abandoned(lp);
  }
  return std::move(state->answer);
}

}  // namespace

graph::Result<std::vector<double>> SolveLinearProgram(const LinearProgram& lp,
                                                      const LpOptions& options) {
  GRAPH_RETURN_IF_ERROR(Check(lp));
  return options.stop ? SolveStoppably(lp, options) : SolveHere(lp, options);
}

}  // namespace planner::baselines
