// The search job: `planner search` as a library call. From options (a model
// file, a devices file, the reward source, the budget and the outputs) it
// loads the model, profiles real devices on demand, runs the baselines, the
// policy's and the hill climb's phases in the order asked, asks the hardware's
// verdict on real devices, and writes every output; the command (cli/) only
// parses flags into SearchJobOptions, calls RunSearchJob and reports its
// status.
//
// The phases (docs/search.md): the baselines, each evaluated on the reward
// source and offered to the search; with --order policy-first the policy
// (warm-started from the best baseline) and then the climb from its best; with
// climb-first the climb from the baselines until it stalls, the policy from its
// result, then the climb again. On real devices (or sim rewards on real
// devices) the found placement must beat the best baseline in fresh
// interleaved rounds (planner/rewards/verdict.h), or the baseline is the result.
//
// Output: progress and result lines go to SearchJobOptions::log (stdout by
// default), as `planner search` prints them; files are written atomically as
// the search improves, so an interrupted job leaves each one valid.
//
// Signals: with stop_on_signals, SIGINT and SIGTERM end the search phases
// early (frontend/stop_signals.h) and the job still concludes: the verdict is
// skipped ("not decided"), -o gets the best baseline and the unjudged best
// goes to OUT.unverified. Outside those phases signals act as usual.
//
// Thread safety: one job per process at a time (signals and stdout are the
// process's).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "graph/shape_inference.h"
#include "graph/status.h"
#include "graph/training.h"
#include "planner/refine/refine.h"
#include "planner/rewards/verdict.h"
#include "planner/search/parameter_server.h"
#include "planner/search/search.h"
#include "planner/search/search_options.h"

namespace planner::job {

// --gradients heavy: a gradient op whose kernel takes at least 1% of the
// simulator's dependency bound may run apart from its op. On the paper's
// models that is the softmax's gradient MatMuls and the larger convolutions'
// gradients (docs/search.md, "Gradients apart").
inline constexpr double kHeavyGradientFraction = 0.01;

struct SearchJobOptions {
  std::string model_path;    // a model file (GraphDef, TensorFlow.js, ONNX)
  std::string devices_path;  // a devices file (docs/file-formats.md)
  graph::InferenceOptions inference;
  graph::TrainingOptions training;

  std::string reward = "sim";  // sim, real or a registered source (fleet)
  std::string fleet_path;      // with reward fleet: the fleet file
  // Op and link costs: a profile file; empty: real devices are profiled into
  // the cache (planner/job/profile_cache.h, profile_cache_dir).
  std::string profile_path;
  std::string profile_cache_dir;          // empty: the default place; "off": never
  planner::search::SearchOptions search;  // hyper-parameters (configs/search.yaml)

  std::optional<int64_t> iterations;  // policy updates in all (resumed ones count)
  std::optional<double> budget_s;     // search seconds in all; neither: 200 updates
  double refine_s = 60;               // the hill climb's seconds (0: off)
  // With budget_s and a hill climb, policy first: the policy's search ends
  // once its best has not improved by patience_gain (a fraction) for
  // patience_s, and the climb gets the budget left (planner/job/patience.h).
  // Unset: 60 s and 0.5% (docs/search.md, "Where the search stands");
  // patience_s 0: off, patience_gain 0: any improvement counts. With
  // climb_first: how long the climb, then the policy, may stall (unset: 60 s;
  // 0 is refused, CheckSearchJobOptions).
  std::optional<double> patience_s;
  std::optional<double> patience_gain;
  // Policy first: how long the policy may go without its first gain on the
  // best it started from (a baseline) before the climb gets the budget left;
  // at most patience_s. Unset: 30 s with the stall rule on (docs/search.md,
  // "A policy that beats no baseline"); 0: patience_s.
  std::optional<double> patience_first_s;
  bool climb_first = false;  // the climb, the policy, the climb (needs budget_s and sim)
  // The last climb's kicks move units onto placements sampled from the policy
  // (refine::RefineOptions::kick_placement) once its own sample is the best
  // and beats the best baseline by patience_gain; false, or a policy that has
  // not: random units onto random devices.
  bool kicks_from_policy = true;
  // How many starts a climb from baselines tries: the best so far and the
  // fastest baselines that place differently, each climbed for a short trial,
  // the best trial going on (refine::RefineFromStarts); 1: the best so far
  // alone, for the whole climb.
  int climb_starts = 3;
  // The climbs' sweeps: focused (refine::RefineOptions::focused_sweeps) or
  // every unit every sweep.
  bool focused_sweeps = true;
  // The climbs' units: also runs of sibling scopes
  // (refine::RefineOptions::sibling_runs), or the name scopes alone.
  bool sibling_runs = true;
  // The climbs' moves simulated with the incumbent's time as the simulator's
  // cutoff (refine::RefineOptions::cutoff), or each to its end.
  bool cutoff = true;
  // Gradient ops the climbs may place apart from the op they differentiate:
  // those whose kernel on its fastest device takes at least this fraction of
  // the simulator's dependency bound (refine::HeavyGradientOps; --gradients
  // heavy: kHeavyGradientFraction). 0 (--gradients colocated, the default):
  // every gradient runs with its op, as PyTorch's autograd and TensorFlow's
  // colocate_gradients_with_ops run them, so every export can carry the result.
  double gradients_apart_fraction = 0;
  uint64_t seed = 1;
  int steps = 5;  // real rewards: timed steps per placement
  // Real rewards: before the climb, refit its simulator to the steps the
  // search measured and keep whichever of the profile and its refits predicts
  // the measured placements best (planner/job/recalibration.h); false: the
  // profile as made.
  bool recalibrate = true;
  // Real rewards: the fastest distinct baselines (kConfirmedBaselines) are
  // measured this many times more, in rotated order, and each keeps the median
  // of its measurements, so that the best baseline (what the verdict compares
  // with, and the result without a gain) is not one lucky draw; 0: each keeps
  // its one measurement.
  int baseline_rounds = 3;
  rewards::VerdictOptions verdict;
  search::ParameterServerAddress ps;  // the parameter server (its endpoint empty: none)

  // Outputs; empty: not written.
  std::string out_path;         // the best placement, at every improvement
  std::string checkpoint_path;  // the checkpoint: once the policy is set up, every 30 s, at the end
  std::string resume_path;      // a checkpoint to continue from
  std::string csv_path;         // the reward curve, one row per update
  std::string svg_path;         // a picture of the curve and the result's timeline
  std::string export_graphdef_path;  // the model with TensorFlow device strings
  std::string export_modules_path;   // the device of each PyTorch module

  std::FILE* log = stdout;      // progress and result lines; null: none
  bool stop_on_signals = true;  // SIGINT/SIGTERM end the search phases early
};

struct SearchJobResult {
  // The result, as written to out_path: the found placement, or the best
  // baseline when the hardware found no significant gain (or was not asked).
  search::BestPlacement best;
  std::optional<search::BestPlacement> best_baseline;  // none when no baseline ran
  // The hardware's verdict as printed; empty when nothing was measured again.
  std::string verdict;
  // The search's best, when a signal came before the hardware judged it.
  std::optional<search::BestPlacement> unverified;
  int iterations = 0;        // policy updates, resumed ones included
  double seconds = 0;        // search time, resumed time included
  double lower_bound_s = 0;  // the simulator's bound on any placement (0: none)
  bool stopped = false;      // a signal ended the search phases
};

// Checks the options that do not need files (the reward's name, the fleet
// file with reward fleet, patience and climb-first's requirements); the
// errors name the option as the command's flag.
graph::Status CheckSearchJobOptions(const SearchJobOptions& options);

// `options` with the unset ways to stop given what the search will use:
// --iterations 200 without a budget; with --budget, a climb and the policy
// first, the stall rule (patience 60 s, gain 0.5%, 30 s until the first gain
// on the best baseline); with climb-first, 60 s of patience; else off (0).
SearchJobOptions WithStopDefaults(SearchJobOptions options);

// Runs the whole job. An error (a model or devices file that cannot be read, a
// search that could not go on, an output that could not be written) is
// returned after whatever was written so far; `*result` holds what was found.
graph::Status RunSearchJob(const SearchJobOptions& options, SearchJobResult* result);

}  // namespace planner::job
