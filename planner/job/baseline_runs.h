// Running the baselines, as `planner baseline` and the search both do: each
// asked-for method made (planner/baselines/baselines.h) and evaluated in turn,
// a line each to the log; with measured rewards the fastest measured again
// (rewards/confirm.h) so that the best is a median, not one lucky draw.
//
// Signals: once the stop flag is set, no more baselines are made as soon as
// one has run (a result to write is enough; a line names those not run), a
// baseline being made stops early where its method can, and no more rounds
// of measuring again start.
//
// Thread safety: runs on the caller's thread; the reward sources are used
// one placement at a time.
#pragma once

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "planner/rewards/confirm.h"
#include "planner/rewards/reward.h"
#include "planner/rewards/reward_memo.h"
#include "sim/simulator.h"

namespace planner::job {

struct BaselineRunOptions {
  // Measured again on this, `rounds` times each of the fastest (null: not at
  // all, as with simulated rewards); `memo`, when given, learns the medians.
  const rewards::RewardSource* hardware = nullptr;
  const rewards::RememberingReward* memo = nullptr;
  int rounds = 3;
  const volatile std::sig_atomic_t* stop = nullptr;  // null: never stops early
  std::FILE* log = stdout;                           // null: silent
};

struct BaselineRuns {
  // Every baseline made, in the methods' order, with its evaluation (ok or
  // not; with rounds, the fastest carry their medians).
  std::vector<rewards::Measurement> measured;
  std::vector<std::string> not_run;  // left after a signal
  // The first baseline that could not be made or evaluated, with why.
  graph::Status first_failure = graph::Status::Ok();
};

// Makes and evaluates `methods` on `reward` in turn (`costs`: the planning
// simulator the methods that need costs use), then measures the fastest again.
BaselineRuns RunBaselineMethods(const std::vector<std::string>& methods,
                                const graph::Graph& forward, const cluster::Cluster& c,
                                const sim::Simulator* costs, const rewards::RewardSource& reward,
                                const BaselineRunOptions& options);

}  // namespace planner::job
