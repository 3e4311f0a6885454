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
#include "planner/rewards/reward.h"

namespace planner::job {

struct BaselineJobOptions {
  std::string model_path, devices_path;
  graph::InferenceOptions inference;
  graph::TrainingOptions training;
  std::string method = "all";     // a baseline's name (single:DEVICE, expert, ...) or all
  std::string reward = "sim";     // sim or real
  int steps = 5;                  // real rewards: timed steps per placement
  std::string profile_path;       // op and link costs; empty: real devices profiled into...
  std::string profile_cache_dir;  // ...this cache (empty: the default place; "off": never)
  // Outputs of the fastest baseline; empty: not written.
  std::string out_path, export_graphdef_path, export_modules_path;
  std::FILE* log = stdout;  // null: silent
};

struct BaselineRun {
  std::string method;
  std::vector<int> device_of_node;  // of the forward graph
  rewards::Evaluation evaluation;
};

struct BaselineJobResult {
  std::vector<BaselineRun> ran;  // in BaselineMethods' order; skipped ones left out
  std::optional<BaselineRun> best;
  // The status names an unknown method (a usage error, not a failed run).
  bool unknown_method = false;
};

graph::Status RunBaselineJob(const BaselineJobOptions& options, BaselineJobResult* result);

}  // namespace planner::job
