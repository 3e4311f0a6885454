// The baseline job: `planner baseline` as a library call. Loads the model and
// devices, profiles real devices on demand, makes each asked-for baseline
// (planner/baselines/baselines.h), evaluates it on the reward source the search would
// use, and writes the fastest one's placement and exports.
//
// Output: a line per baseline and the result's lines go to `log` (stdout by
// default), as `planner baseline` prints them.
//
// Thread safety: one job per process at a time (stdout is the process's).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "graph/shape_inference.h"
#include "graph/status.h"
#include "graph/training.h"
#include "planner/rewards/confirm.h"
#include "planner/rewards/reward.h"

namespace planner::job {

struct BaselineJobOptions {
  std::string model_path, devices_path;
  graph::InferenceOptions inference;
  graph::TrainingOptions training;
  std::string method = "all";     // a baseline's name (single:DEVICE, expert, ...) or all
  std::string reward = "sim";     // sim or real
  int steps = 5;                  // real rewards: timed steps per placement
  // Real rewards: the three fastest distinct baselines are measured this many
  // times more, rotated, and each one's median decides (rewards/confirm.h; 0: one draw).
  int rounds = 3;
  std::string profile_path;       // op and link costs; empty: real devices profiled into...
  std::string profile_cache_dir;  // ...this cache (empty: the default place; "off": never)
  // Outputs of the fastest baseline; empty: not written.
  std::string out_path, export_graphdef_path, export_modules_path;
  std::FILE* log = stdout;  // null: silent
  // SIGINT and SIGTERM end the job early with complete files: no more
  // baselines once one ran, no more rounds of measuring again, and the
  // fastest of those run is written (frontend/stop_signals.h).
  bool stop_on_signals = true;
};

// A baseline's method, placement and evaluation (with real rewards, the
// median of its measurements when it was among the fastest).
using BaselineRun = rewards::Measurement;

struct BaselineJobResult {
  std::vector<BaselineRun> ran;  // in BaselineMethods' order; skipped ones left out
  std::optional<BaselineRun> best;
  // The status names an unknown method (a usage error, not a failed run).
  bool unknown_method = false;
};

graph::Status RunBaselineJob(const BaselineJobOptions& options, BaselineJobResult* result);

}  // namespace planner::job
