// `planner search`: the main job. Baselines first, then the Hierarchical
// Planner's REINFORCE search, with every output written atomically as it goes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <set>

#include "cli/commands.h"
#include "cli/profile_cache.h"
#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "planner/args.h"
#include "planner/baselines.h"
#include "planner/model_loading.h"
#include "planner/placement.h"
#include "planner/refine.h"
#include "planner/report_svg.h"
#include "planner/reward.h"
#include "planner/reward_memo.h"
#include "planner/search.h"
#include "planner/stop_signals.h"
#include "planner/verdict.h"
#include "runtime/kernel.h"
#include "runtime/profile.h"
#include "runtime/simulator.h"
#include "runtime/statistics.h"
#include "runtime/timeline.h"

namespace planner::cli {

namespace {

const CommandSpec kSpec{
    "search",
    "MODEL DEVICES [-o PLACEMENT] [--reward sim|real|fleet] [--fleet FLEET] [--profile PROFILE]\n"
    "       [--profile-cache DIR]\n"
    "       [--config CONFIG] [--iterations N] [--budget DURATION] [--seed S] [--checkpoint CKPT]\n"
    "       [--resume CKPT] [--csv CURVE.csv] [--svg REPORT.svg] [--export-graphdef PLACED.pb]\n"
    "       [--steps N] [--rounds N] [--significance ALPHA] [--batch N] [--input-shape "
    "NAME=D0,...]\n"
    "       [--optimizer sgd|momentum] [--ps ENDPOINT] [--ps-timeout DURATION]\n"
    "       [--refine DURATION] [--patience DURATION] [--order policy-first|climb-first]",
    "Learns a placement of MODEL's training step on DEVICES with the Hierarchical Planner\n"
    "(a Grouper and a Placer trained by REINFORCE). The baselines (every op on each device, the\n"
    "expert's layer-per-device rule, etf list scheduling, metis min-cut and scotch mapping:\n"
    "planner baseline) run first through the same reward source; the best\n"
    "placement so far is written to PLACEMENT at every improvement. Rewards come from the\n"
    "simulator (--reward sim, with PROFILE's costs where it has them) or from running each\n"
    "placement on the real devices (--reward real; each distinct placement is measured once),\n"
    "or from the workers of a fleet (--reward fleet, with FLEET's settings: docs/fleet.md).\n"
    "On real devices the hardware decides: the found placement and the best baseline are\n"
    "measured again in interleaved rounds, and a gain is reported only when it is significant\n"
    "(one-sided Wilcoxon signed-rank test), else the baseline is written. Stops after --iterations "
    "policy updates,\n"
    "after --budget, or on SIGINT/SIGTERM, leaving every file valid; --resume continues from a\n"
    "checkpoint. Without --iterations and --budget: 200 updates. With --reward sim a hill\n"
    "climb over the model's name scopes then refines the best (--refine; docs/search.md).",
    {"MODEL", "DEVICES"},
    {{"-o", "PLACEMENT", "write the best placement here (YAML), at every improvement"},
     {"--reward", "NAME", "sim (default), real or fleet"},
     {"--fleet", "FLEET", "with --reward fleet: the fleet file (endpoint, mode, timeouts)"},
     {"--profile", "PROFILE",
      "op and link costs for the simulator, etf, metis and scotch (default: real devices are "
      "profiled into the cache)"},
     ProfileCacheFlag(),
     {"--config", "CONFIG", "search hyper-parameters (YAML; default configs/search.yaml's)"},
     {"--iterations", "N", "stop after N policy updates in all (resumed ones count)"},
     {"--budget", "DURATION", "stop after this much search time in all (90s, 15m, 2h)"},
     {"--seed", "S", "random seed (default 1): a sim search with --iterations repeats exactly"},
     {"--checkpoint", "CKPT", "checkpoint file (default PLACEMENT.ckpt with -o)"},
     {"--resume", "CKPT", "continue the search saved in CKPT"},
     {"--csv", "FILE", "write the reward curve (one row per policy update)"},
     {"--svg", "FILE", "write a picture of the curve and the best placement's timeline"},
     {"--export-graphdef", "FILE", "write MODEL with TensorFlow device strings of the best"},
     {"--refine", "DURATION",
      "sim: hill-climb name scopes from the best after the search "
      "(default 60s; 0: off)"},
     {"--patience", "DURATION",
      "with --budget: end the policy's search once its best has not improved for this long, "
      "and give the hill climb the budget left (default: off; 60s with --order climb-first)"},
     {"--order", "NAME",
      "policy-first (default: the policy, then the climb from its best) or climb-first (the "
      "climb from the baselines until it converges and its kicks find nothing for --patience, "
      "the policy from its result, then the climb again; --budget + --refine in all; sim only)"},
     {"--steps", "N", "timed steps per placement with --reward real (default 5)"},
     {"--rounds", "N",
      "real devices: interleaved rounds comparing the result with the best baseline (default 9)"},
     {"--significance", "ALPHA", "real devices: level of that test (default 0.05)"},
     BatchFlag(),
     InputShapeFlag(),
     {"--optimizer", "NAME", "sgd (default) or momentum"},
     {"--ps", "ENDPOINT",
      "train the policy through this parameter server (planner ps), shared with other searches"},
     {"--ps-timeout", "DURATION", "give up on a parameter server silent this long (default 60s)"}}};

constexpr char kName[] = "planner search: ";
// --order climb-first without --patience: how long the climb, then the
// policy, may go without a better placement before handing the time on.
constexpr double kClimbFirstPatienceS = 60;

int Fail(const graph::Status& st) { return ReportError(kName, st); }

// The command's own flags, validated (usage errors name the flag).
struct SearchFlags {
  std::string reward = "sim";
  std::optional<int64_t> iterations;  // policy updates in all (default 200 without a budget)
  std::optional<double> budget_s;     // search seconds in all
  double refine_s = 60;               // the hill climb's seconds (0: off)
  double patience_s = 0;              // the policy's search ends after this long without a gain
  bool climb_first = false;           // --order climb-first: the climb, the policy, the climb
  uint64_t seed = 1;
  int steps = 5;  // real rewards: timed steps per placement
  VerdictOptions verdict;
  std::string ps;            // parameter server endpoint, or empty
  double ps_timeout_s = 60;  // its requests' limit
};

graph::Status ParseSearchFlags(const Args& args, SearchFlags* f) {
  f->reward = args.Get("--reward", "sim");
  GRAPH_RETURN_IF_ERROR(CheckRewardName(f->reward));
  if (args.Has("--fleet") != (f->reward == "fleet")) {
    return graph::InvalidArgument("--fleet FLEET goes with --reward fleet, and only with it");
  }
  if (args.Has("--iterations")) {
    GRAPH_ASSIGN_OR_RETURN(f->iterations.emplace(),
                           ParseIntInRange("--iterations", args.Get("--iterations"), 0, 100000000));
  }
  if (args.Has("--budget")) {
    GRAPH_ASSIGN_OR_RETURN(f->budget_s.emplace(),
                           ParseDurationSeconds("--budget", args.Get("--budget")));
  }
  if (!f->iterations && !f->budget_s) f->iterations = 200;
  if (args.Has("--refine") && args.Get("--refine") == "0") {
    f->refine_s = 0;
  } else if (args.Has("--refine")) {
    GRAPH_ASSIGN_OR_RETURN(f->refine_s, ParseDurationSeconds("--refine", args.Get("--refine")));
  }
  if (args.Has("--patience")) {
    if (!f->budget_s || f->refine_s == 0) {
      return graph::InvalidArgument(
          "--patience goes with --budget and a hill climb to hand it to (not --refine 0)");
    }
    GRAPH_ASSIGN_OR_RETURN(f->patience_s,
                           ParseDurationSeconds("--patience", args.Get("--patience")));
  }
  const std::string order = args.Get("--order", "policy-first");
  if (order != "policy-first" && order != "climb-first") {
    return graph::InvalidArgument("--order: '" + order +
                                  "' is not an order (policy-first or climb-first)");
  }
  f->climb_first = order == "climb-first";
  if (f->climb_first) {
    if (!f->budget_s || f->refine_s == 0 || f->reward != "sim") {
      return graph::InvalidArgument(
          "--order climb-first goes with --budget, --reward sim and a hill climb (not --refine "
          "0)");
    }
    if (f->patience_s == 0) f->patience_s = kClimbFirstPatienceS;
  }
  if (args.Has("--seed")) {
    GRAPH_ASSIGN_OR_RETURN(int64_t seed,
                           ParseIntInRange("--seed", args.Get("--seed"), 0, INT64_MAX));
    f->seed = static_cast<uint64_t>(seed);
  }
  if (args.Has("--steps")) {
    GRAPH_ASSIGN_OR_RETURN(int64_t steps,
                           ParseIntInRange("--steps", args.Get("--steps"), 1, 10000));
    f->steps = static_cast<int>(steps);
  }
  if (args.Has("--rounds")) {
    GRAPH_ASSIGN_OR_RETURN(int64_t rounds,
                           ParseIntInRange("--rounds", args.Get("--rounds"), 1, 1000));
    f->verdict.rounds = static_cast<int>(rounds);
  }
  f->ps = args.Get("--ps");
  if (args.Has("--ps-timeout")) {
    if (f->ps.empty()) return graph::InvalidArgument("--ps-timeout goes with --ps");
    GRAPH_ASSIGN_OR_RETURN(f->ps_timeout_s,
                           ParseDurationSeconds("--ps-timeout", args.Get("--ps-timeout")));
  }
  if (args.Has("--significance")) {
    GRAPH_ASSIGN_OR_RETURN(
        f->verdict.alpha, ParseNumberInRange("--significance", args.Get("--significance"), 0, 0.5));
  }
  return graph::Status::Ok();
}

// The hardware's verdict on the found placement `*best` against the best
// baseline (planner/verdict.h), printed: unless the gain is significant,
// `*best` becomes the baseline; with real rewards both times become the
// rounds' medians. Returns the sentence for the result.
std::string DecideOnHardware(const RewardSource& hardware, bool real_rewards,
                             const VerdictOptions& options, const std::string& baseline,
                             const std::vector<int>& baseline_devices, double* baseline_s,
                             BestPlacement* best) {
  if (best->device_of_node == baseline_devices) {
    // The baseline's own placement, whatever found it again (a climb that made
    // no move is labelled METHOD+refine): written as the baseline.
    *best = BestPlacement{baseline, *baseline_s, baseline_devices, 0, 0};
    return "no improvement over " + baseline + ": the search measured no other placement faster";
  }
  Verdict v = CompareOnHardware(hardware, best->device_of_node, baseline_devices, options, nullptr);
  const std::string text = v.status.ok()
                               ? DescribeVerdict(v, baseline, options)
                               : "could not be measured against " + baseline + " (" +
                                     v.status.message() + "), so " + baseline + " is the result";
  std::printf("on the hardware, %s (%s) against %s: %s\n", best->method.c_str(),
              FormatMs(best->step_s).c_str(), baseline.c_str(), text.c_str());
  if (v.status.ok() && real_rewards) {
    *baseline_s = runtime::Median(v.incumbent_s);
    if (v.significant) best->step_s = runtime::Median(v.candidate_s);
  }
  if (!v.status.ok() || !v.significant) {
    *best = BestPlacement{baseline, *baseline_s, baseline_devices, 0, 0};
  }
  return text;
}

struct BaselinesRun {
  std::vector<RefineStart> ran;     // the baselines that ran, with their step times
  std::optional<RefineStart> best;  // the fastest of them
  graph::Status first_failure = graph::Status::Ok();
};

// Every baseline for the devices (planner/baselines.h), evaluated on `reward`,
// printed and offered to `search`.
BaselinesRun RunBaselines(const graph::Graph& forward, const cluster::Cluster& c,
                          const RewardSource& reward, const runtime::Simulator* costs,
                          Search* search) {
  BaselinesRun out;
  for (const std::string& method : BaselineMethods(c)) {
    auto made = MakeBaseline(method, forward, c, costs);
    if (!made.ok()) {
      std::printf("  %-16s skipped: %s\n", method.c_str(), made.status().message().c_str());
      continue;
    }
    const BaselinePlacement& b = *made;
    Evaluation e = reward.Evaluate(b.device_of_node);
    std::printf("%s\n", DescribeBaseline(b, e).c_str());
    if (e.status.ok()) {
      out.ran.push_back({b.method, b.device_of_node, e.step_s});
      if (!out.best || e.step_s < out.best->step_s) out.best = out.ran.back();
    } else if (out.first_failure.ok()) {
      out.first_failure = e.status;
    }
    search->Offer(b.method, b.device_of_node, e, 0);
  }
  return out;
}

// The result's lines: the best baseline, the best found and its gain (or the
// hardware's verdict), and the simulator's lower bound.
void PrintResult(const std::string& reward_name, const Search& search, const std::string& baseline,
                 std::optional<double> baseline_s, const BestPlacement& best,
                 const std::string& verdict_text, double bound, int estimated_ops) {
  std::printf("\nresult (%s rewards, %d updates, %.1f s of search):\n", reward_name.c_str(),
              search.iterations(), search.elapsed_s());
  if (baseline_s) {
    std::printf("  best baseline  %-16s %s\n", baseline.c_str(), FormatMs(*baseline_s).c_str());
  } else {
    std::printf("  best baseline  none ran\n");
  }
  std::printf("  best found     %-16s %s", best.method.c_str(), FormatMs(best.step_s).c_str());
  if (best.iteration > 0) std::printf(" (update %d, at %.1f s)", best.iteration, best.found_at_s);
  if (!verdict_text.empty()) {
    std::printf("\n  on hardware    %s", verdict_text.c_str());
  } else if (baseline_s) {
    std::printf(", %.1f%% faster than the best baseline", 100 * (1 - best.step_s / *baseline_s));
  }
  std::printf("\n");
  if (bound > 0) {
    std::printf("  lower bound    %s: no placement on these devices is faster",
                FormatMs(bound).c_str());
    if (baseline_s) {
      std::printf(" (at most %.1f%% faster than the best baseline)",
                  100 * (1 - bound / *baseline_s));
    }
    std::printf("\n");
  }
  if (estimated_ops > 0) {
    std::printf("  %d of its ops' times are roofline estimates (no profile entry)\n",
                estimated_ops);
  }
}

// With sim rewards: names the op types the simulator can only estimate.
void PrintOpsWithoutKernels(const graph::Graph& training) {
  std::set<std::string> no_kernel;
  for (const graph::Node& n : training.nodes()) {
    if (runtime::RunsKernel(n.op) && !runtime::FindKernel(n.op)) no_kernel.insert(n.op);
  }
  if (no_kernel.empty()) return;
  std::string list;
  for (const std::string& op : no_kernel) list += (list.empty() ? "" : ", ") + op;
  std::printf(
      "note: %zu op types have no kernel here (%s): the simulator places them by its "
      "roofline estimate, and the result cannot be measured on this machine\n",
      no_kernel.size(), list.c_str());
}

// What one update's placements cost: the mean and min of those that ran.
struct UpdateSummary {
  double mean_s = 0, min_s = 0;  // 0 when none ran
  int ran = 0, failed = 0;
};

UpdateSummary Summarize(const SearchIteration& it) {
  UpdateSummary u;
  double sum = 0;
  for (const Evaluation& e : it.evaluations) {
    if (!e.status.ok()) continue;
    sum += e.step_s;
    u.min_s = u.ran ? std::min(u.min_s, e.step_s) : e.step_s;
    ++u.ran;
  }
  u.failed = static_cast<int>(it.evaluations.size()) - u.ran;
  u.mean_s = u.ran ? sum / u.ran : 0;
  return u;
}

// "update 12: best 1.234 ms (etf), mean 2.345 ms, 0 failed, elapsed 3 s, ETA 57 s".
std::string ProgressLine(int iteration, const Search& search, const UpdateSummary& u,
                         std::optional<double> budget_s, std::optional<int64_t> iterations) {
  std::string eta;
  if (budget_s) {
    eta = ", ETA " +
          std::to_string(static_cast<int>(std::max(0.0, *budget_s - search.elapsed_s()))) + " s";
  } else if (iterations && iteration > 0) {
    eta = ", ETA " +
          std::to_string(
              static_cast<int>(search.elapsed_s() / iteration * (*iterations - iteration))) +
          " s";
  }
  const std::string best_text =
      search.best() ? FormatMs(search.best()->step_s) + " (" + search.best()->method + ")"
                    : "none yet";
  char line[512];
  std::snprintf(line, sizeof line, "update %d: best %s, mean %s, %d failed, elapsed %.0f s%s",
                iteration, best_text.c_str(), u.ran ? FormatMs(u.mean_s).c_str() : "-", u.failed,
                search.elapsed_s(), eta.c_str());
  return line;
}

struct ClimbResult {
  std::vector<RefineStart> starts;  // step times on the climb's reward source
  MultiStartResult result;
};

// The hill climb (planner/refine.h) on `climb_on` from the best so far and the
// next fastest baselines that differ from it (refine.h says why the fastest
// start is not always the best one), counting a placement that only swaps
// identical GPUs as the same start. Each start is evaluated on `climb_on`,
// whose times may differ from the search's (a simulator behind real rewards).
// Prints what it did.
ClimbResult ClimbFromStarts(const graph::Graph& forward, const cluster::Cluster& c,
                            const RewardSource& climb_on, const BestPlacement& best,
                            std::vector<RefineStart> baselines, const RefineOptions& options) {
  constexpr size_t kRefineStarts = 3;
  ClimbResult out;
  out.starts.push_back({best.method, best.device_of_node, best.step_s});
  std::vector<std::vector<int>> canonical{CanonicalDevices(best.device_of_node, c)};
  std::stable_sort(baselines.begin(), baselines.end(),
                   [](const RefineStart& a, const RefineStart& b) { return a.step_s < b.step_s; });
  for (const RefineStart& b : baselines) {
    if (out.starts.size() >= kRefineStarts) break;
    std::vector<int> form = CanonicalDevices(b.device_of_node, c);
    if (std::find(canonical.begin(), canonical.end(), form) != canonical.end()) continue;
    canonical.push_back(std::move(form));
    out.starts.push_back(b);
  }
  for (RefineStart& s : out.starts) {
    const Evaluation e = climb_on.Evaluate(s.device_of_node);
    if (e.status.ok()) s.step_s = e.step_s;
  }
  out.result = RefineFromStarts(forward, static_cast<int>(c.devices.size()), climb_on, out.starts,
                                options, StopOnSignals::flag());
  const RefineResult& r = out.result.refine;
  std::string from;
  for (size_t i = 0; i < out.starts.size(); ++i) {
    from += (i ? ", " : "") + out.starts[i].method + " " + FormatMs(out.starts[i].step_s);
  }
  std::printf("refine: from %zu start(s) (%s), continued from %s\n", out.starts.size(),
              from.c_str(), out.starts[out.result.chosen].method.c_str());
  std::printf(
      "refine: %d name scopes, %d moves tried, %d kept in %d sweeps (%d of %d critical-path "
      "ops moved), %d kicks (%d kept), %.1f s: %s -> %s\n",
      r.units, r.evaluated, r.kept, r.sweeps, r.critical_kept, r.critical_tried, r.kicks,
      r.kicks_kept, r.seconds, FormatMs(out.starts[0].step_s).c_str(), FormatMs(r.step_s).c_str());
  return out;
}

// What the policy's updates write as they go.
struct PolicyOutputs {
  std::ofstream* csv;                         // a row per update; null: none
  std::vector<CurvePoint>* curve;             // for the SVG
  std::function<graph::Status()> write_best;  // the placement file, at every improvement
  std::string checkpoint_path;                // saved every 30 s; empty: none
  SearchIdentity identity;
};

struct PolicyPhase {
  graph::Status status = graph::Status::Ok();  // a failed update or output
  double left_s = 0;                           // of the budget, when the patience ended the phase
};

// Policy updates until --iterations, `budget_s` of search time in all, a
// signal, or, with `patience_s` > 0, once the best has not improved for that
// long since `patience_from_s` (search time) or the best's own time.
PolicyPhase RunPolicy(Search& search, const RewardSource& reward, const SearchFlags& flags,
                      std::optional<double> budget_s, double patience_s, double patience_from_s,
                      const PolicyOutputs& out) {
  using Clock = std::chrono::steady_clock;
  auto last_print = Clock::now() - std::chrono::seconds(10);
  auto last_checkpoint = Clock::now();
  PolicyPhase phase;
  while (!StopOnSignals::requested()) {
    if (flags.iterations && search.iterations() >= *flags.iterations) break;
    if (budget_s && search.elapsed_s() >= *budget_s) break;
    if (patience_s > 0 && budget_s && search.best()) {
      const double since = std::max(patience_from_s, search.best()->found_at_s);
      if (search.elapsed_s() - since >= patience_s) {
        phase.left_s = *budget_s - search.elapsed_s();
        std::printf(
            "policy search: no better placement in the last %.0f s; its %.0f s left go to "
            "the hill climb\n",
            search.elapsed_s() - since, phase.left_s);
        break;
      }
    }
    SearchIteration it = search.Step(reward);
    if (phase.status = it.status; !phase.status.ok()) break;
    const UpdateSummary u = Summarize(it);
    const double best = search.best() ? search.best()->step_s : 0;
    out.curve->push_back({it.iteration, u.mean_s, best});
    if (out.csv) {
      char row[256];
      std::snprintf(row, sizeof row, "%d,%.3f,%.9g,%.9g,%d,%.9g,%.6g,%.6g,%.6g\n", it.iteration,
                    search.elapsed_s(), u.mean_s, u.min_s, u.failed, best, it.baseline,
                    it.learning_rate, it.grad_norm);
      *out.csv << row << std::flush;
    }
    if (it.improved) {
      if (phase.status = out.write_best(); !phase.status.ok()) break;
    }
    const auto now = Clock::now();
    if (it.improved || now - last_print >= std::chrono::seconds(1)) {
      std::printf("%s\n",
                  ProgressLine(it.iteration, search, u, budget_s, flags.iterations).c_str());
      std::fflush(stdout);
      last_print = now;
    }
    if (!out.checkpoint_path.empty() && now - last_checkpoint >= std::chrono::seconds(30)) {
      if (phase.status = search.Save(out.checkpoint_path, out.identity); !phase.status.ok()) break;
      last_checkpoint = now;
    }
  }
  return phase;
}

struct ClimbPhase {
  std::optional<BestPlacement> found;  // faster than its start; step time on the search's reward
  std::vector<int> ended_at;           // the climb's placement, found or not
  int kicks = 0;                       // made after its sweeps converged
  double seconds = 0;
  bool stalled = false;  // ended by RefineOptions::stall_s
};

// ClimbFromStarts from `best` and `baselines` on `climb_on`; a placement it
// improved on the simulator behind measured rewards is measured on `reward`
// (the simulator proposes, the hardware decides).
ClimbPhase ClimbAndMeasure(const graph::Graph& forward, const cluster::Cluster& c,
                           const RewardSource& climb_on, const RewardSource& reward,
                           const BestPlacement& best, std::vector<RefineStart> baselines,
                           const RefineOptions& options) {
  const ClimbResult climb =
      ClimbFromStarts(forward, c, climb_on, best, std::move(baselines), options);
  const RefineResult& r = climb.result.refine;
  const RefineStart& from = climb.starts[climb.result.chosen];
  ClimbPhase out{std::nullopt, r.device_of_node, r.kicks, r.seconds, r.stalled};
  if (r.step_s >= from.step_s) return out;
  double step_s = r.step_s;
  if (&climb_on != &reward) {
    const Evaluation measured = reward.Evaluate(r.device_of_node);
    std::printf("refine: its placement (%s simulated) measured %s\n", FormatMs(r.step_s).c_str(),
                DescribeEvaluation(measured).c_str());
    if (!measured.status.ok()) return out;
    step_s = measured.step_s;
  }
  // A climb from a climbed placement keeps its name ("expert+refine").
  const bool climbed = from.method.find("+refine") != std::string::npos;
  out.found = BestPlacement{climbed ? from.method : from.method + "+refine", step_s,
                            r.device_of_node, 0, 0};
  return out;
}

}  // namespace

int SearchCommand(int argc, char** argv) {
  int exit_code = 0;
  std::optional<Args> args = ParseCommandLine(kSpec, argc, argv, &exit_code);
  if (!args) return exit_code;
  SearchFlags flags;
  graph::InferenceOptions inference;
  graph::TrainingOptions training;
  if (!ParseTrainingFlags(*args, kName, &inference, &training)) return 2;
  if (graph::Status st = ParseSearchFlags(*args, &flags); !st.ok()) {
    return std::cerr << kName << st.message() << "\n", 2;
  }
  const std::string& reward_name = flags.reward;
  const std::optional<double>& budget_s = flags.budget_s;
  const double refine_s = flags.refine_s;
  const uint64_t seed = flags.seed;
  const int steps = flags.steps;
  const VerdictOptions& verdict_options = flags.verdict;
  const std::string out_path = args->Get("-o");
  std::string checkpoint_path = args->Get("--checkpoint");
  if (checkpoint_path.empty()) checkpoint_path = args->Get("--resume");
  if (checkpoint_path.empty() && !out_path.empty()) checkpoint_path = out_path + ".ckpt";
  for (const char* flag : {"-o", "--csv", "--svg", "--export-graphdef", "--checkpoint"}) {
    if (args->Has(flag)) {
      if (graph::Status st = CheckOutputWritable(flag, args->Get(flag)); !st.ok()) return Fail(st);
    }
  }

  SearchOptions options;
  if (args->Has("--config")) {
    auto o = ReadSearchConfig(args->Get("--config"));
    if (!o.ok()) return Fail(o.status());
    options = *o;
  }
  const std::string model_path = args->positional()[0];
  const std::string devices_path = args->positional()[1];
  auto setup = LoadPlacedTraining(model_path, devices_path, "", inference, training);
  if (!setup.ok()) return Fail(setup.status());
  const graph::Graph& forward = setup->model.graph;
  const cluster::Cluster& c = setup->cluster;
  const int num_devices = static_cast<int>(c.devices.size());
  auto profile = ProfileForDevices(*args, *setup);
  if (!profile.ok()) return Fail(profile.status());
  const runtime::Profile* profile_ptr = *profile ? &**profile : nullptr;
  RewardContext context{&forward, &setup->training,      &c,        profile_ptr,         2,
                        steps,    &setup->model.options, &training, args->Get("--fleet")};
  auto made_reward = MakeRewardSource(reward_name, context);
  if (!made_reward.ok()) return Fail(made_reward.status());
  // Measured rewards: a placement measured once keeps its measurement
  // (planner/reward_memo.h); the verdict below measures afresh on `hardware`.
  const RewardSource& hardware = **made_reward;
  const bool real_rewards = hardware.measured();
  std::optional<RememberingReward> memo;
  if (real_rewards) memo.emplace(hardware);
  const RewardSource* reward = memo ? &*memo : &hardware;
  std::printf("%s on %s: %d ops to place (training graph of %d nodes), %d devices, reward %s\n",
              model_path.c_str(), devices_path.c_str(), forward.size(),
              setup->training.graph.size(), num_devices, reward_name.c_str());
  if (reward_name == "sim") PrintOpsWithoutKernels(setup->training.graph);

  const SearchIdentity identity{ModelDigest(forward), c.digest, reward_name};
  auto make_placement = [&](const BestPlacement& b, double seconds, int iters) {
    const bool searched =
        b.method.rfind("search", 0) == 0 || b.method.find("+refine") != std::string::npos;
    Placement p = MakePlacement(model_path, forward, identity.model_digest, devices_path, c,
                                searched ? b.method : "baseline " + b.method, b.device_of_node);
    (real_rewards ? p.measured_step_s : p.simulated_step_s) = b.step_s;
    p.search = {{"iterations", iters},
                {"seconds", std::round(seconds * 10) / 10},
                {"found_at_iteration", b.iteration},
                {"found_at_seconds", std::round(b.found_at_s * 10) / 10}};
    return p;
  };

  auto export_graphdef = [&](const std::vector<int>& device_of_node) -> graph::Status {
    if (!args->Has("--export-graphdef")) return graph::Status::Ok();
    GRAPH_RETURN_IF_ERROR(
        WritePlacedGraphDef(args->Get("--export-graphdef"), forward, c, device_of_node));
    std::printf("graphdef: %s\n", args->Get("--export-graphdef").c_str());
    return graph::Status::Ok();
  };

  // One device: nothing to choose.
  if (num_devices == 1) {
    std::vector<int> all(forward.size(), 0);
    Evaluation e = reward->Evaluate(all);
    std::printf(
        "%s has one device, '%s': every op runs on it and there is nothing to search "
        "(step %s)\n",
        devices_path.c_str(), c.devices[0].name.c_str(), DescribeEvaluation(e).c_str());
    if (!out_path.empty()) {
      BestPlacement b{"single:" + c.devices[0].name, e.status.ok() ? e.step_s : 0, all, 0};
      Placement p = make_placement(b, 0, 0);
      if (!e.status.ok()) p.simulated_step_s = p.measured_step_s = std::nullopt;
      if (graph::Status st = WritePlacement(out_path, p); !st.ok()) return Fail(st);
      std::printf("placement: %s\n", out_path.c_str());
    }
    if (graph::Status st = export_graphdef(all); !st.ok()) return Fail(st);
    return 0;
  }

  auto created = Search::Create(forward, num_devices, options, seed);
  if (!created.ok()) return Fail(created.status());
  Search& search = **created;
  const bool resumed = args->Has("--resume");
  if (resumed) {
    if (graph::Status st = search.Load(args->Get("--resume"), identity); !st.ok()) return Fail(st);
    std::printf("resumed %s: %d updates done, %.1f s searched\n", args->Get("--resume").c_str(),
                search.iterations(), search.elapsed_s());
  }

  // The hill climb runs on the simulator: with sim rewards the reward source
  // itself; with real ones a simulator on the devices' profile, whose proposal
  // is then measured (the simulator proposes, the hardware decides). The
  // cost-based baselines plan on the same simulator.
  std::unique_ptr<RewardSource> profile_sim;
  const RewardSource* climb_on = real_rewards ? nullptr : reward;
  if (real_rewards && profile_ptr) {
    auto made = MakeRewardSource("sim", context);
    if (made.ok()) climb_on = (profile_sim = std::move(*made)).get();
  }
  // Baselines, through the same reward source.
  std::printf("baselines:\n");
  std::optional<runtime::Simulator> own_costs;
  auto costs = PlanningCosts(climb_on ? *climb_on : *reward, context, &own_costs);
  if (!costs.ok()) return Fail(costs.status());
  BaselinesRun baselines = RunBaselines(forward, c, *reward, *costs, &search);
  std::vector<RefineStart>& baselines_ran = baselines.ran;
  std::optional<double> best_baseline_s;
  std::string best_baseline;
  std::vector<int> best_baseline_devices;
  if (baselines.best) {
    best_baseline_s = baselines.best->step_s;
    best_baseline = baselines.best->method;
    best_baseline_devices = baselines.best->device_of_node;
  }
  const graph::Status& first_failure = baselines.first_failure;
  auto write_best = [&]() -> graph::Status {
    if (out_path.empty() || !search.best()) return graph::Status::Ok();
    return WritePlacement(out_path,
                          make_placement(*search.best(), search.elapsed_s(), search.iterations()));
  };
  if (graph::Status st = write_best(); !st.ok()) return Fail(st);

  if (!resumed && options.warm_start_steps > 0 && best_baseline_s) {
    WarmStartResult w = search.WarmStart(best_baseline_devices);
    if (!w.status.ok()) return Fail(w.status);
    std::printf(
        "warm start from %s: cross-entropy %.3f (Grouper, %d steps, %.1f s), %.3f (Placer, %d "
        "steps, %.1f s)\n",
        best_baseline.c_str(), w.grouper_loss, w.grouper_steps, w.grouper_s, w.placer_loss,
        w.placer_steps, w.placer_s);
  }

  std::unique_ptr<ParameterServer> ps;
  if (!flags.ps.empty()) {
    auto connected = ConnectParameterServer(flags.ps, flags.ps_timeout_s);
    if (!connected.ok()) return Fail(connected.status());
    ps = std::move(*connected);
    const std::string policy_of = identity.model_digest + " on devices " + identity.devices_digest;
    if (graph::Status st = search.UseParameterServer(ps.get(), policy_of); !st.ok())
      return Fail(st);
    std::printf("ps: joined %s at parameter version %lld\n", flags.ps.c_str(),
                static_cast<long long>(search.parameter_version()));
  }

  std::ofstream csv;
  if (args->Has("--csv")) {
    const std::string path = args->Get("--csv");
    const bool append = resumed && std::ifstream(path).good();
    csv.open(path, append ? std::ios::app : std::ios::trunc);
    if (!csv) return Fail(graph::IoError(path + ": cannot write --csv output"));
    if (!append)
      csv << "iteration,elapsed_s,mean_step_s,min_step_s,failed,best_step_s,baseline_cost,learning_"
             "rate,grad_norm\n";
  }

  // Through the search and the hill climb: with --order climb-first the climb
  // goes first, from the baselines, until it stalls; the policy then starts
  // from its result (the best, which the policy imitates), and the climb gets
  // whatever time the policy leaves. The policy costs the climb nothing while
  // the climb still improves.
  std::optional<StopOnSignals> stop_on_signals(std::in_place);
  std::vector<CurvePoint> curve;
  const PolicyOutputs outputs{csv.is_open() ? &csv : nullptr, &curve, write_best, checkpoint_path,
                              identity};
  const double total_s = budget_s ? *budget_s + refine_s : 0;  // climb-first: every phase's
  std::optional<ClimbPhase> first_climb;
  if (flags.climb_first && !resumed && search.best() && !StopOnSignals::requested()) {
    RefineOptions first;
    first.budget_s = total_s;
    first.stall_s = flags.patience_s;
    first.seed = seed;
    const ClimbPhase& climb = first_climb.emplace(
        ClimbAndMeasure(forward, c, *climb_on, *reward, *search.best(), baselines_ran, first));
    if (climb.found) {
      search.Offer(climb.found->method, climb.found->device_of_node,
                   Evaluation{graph::Status::Ok(), climb.found->step_s}, 0);
      if (graph::Status st = write_best(); !st.ok()) return Fail(st);
    }
    const char* why = climb.stalled                   ? "its kicks found nothing for --patience"
                      : climb.seconds < total_s - 0.5 ? "its kicks exhausted"
                                                      : "out of time";
    std::printf("climb first: %s after %.0f s (%s); the policy starts from it with %.0f s\n",
                FormatMs(search.best()->step_s).c_str(), climb.seconds, why,
                std::max(0.0, *budget_s - climb.seconds));
  }
  const double climbed_s = first_climb ? first_climb->seconds : 0;
  const double policy_from_s = search.elapsed_s();
  std::optional<double> policy_budget_s = budget_s;
  if (flags.climb_first) policy_budget_s = std::max(0.0, *budget_s - climbed_s);
  const PolicyPhase policy =
      RunPolicy(search, *reward, flags, policy_budget_s, climb_on ? flags.patience_s : 0,
                resumed ? 0 : policy_from_s, outputs);
  if (StopOnSignals::requested())
    std::printf("stopped by a signal after %d updates; files are complete\n", search.iterations());
  if (!policy.status.ok()) return Fail(policy.status);
  if (!checkpoint_path.empty()) {
    if (graph::Status st = search.Save(checkpoint_path, identity); !st.ok()) return Fail(st);
  }
  if (graph::Status st = write_best(); !st.ok()) return Fail(st);
  if (!search.best()) {
    return Fail(graph::Status(first_failure.code(),
                              model_path + " on " + devices_path +
                                  ": no placement ran (every baseline and sample failed; " +
                                  first_failure.message() + ")"));
  }

  BestPlacement best = *search.best();
  std::printf("policy search: best %s (%s) after %d updates, %.1f s\n",
              FormatMs(best.step_s).c_str(), best.method.c_str(), search.iterations(),
              search.elapsed_s());
  const double last_climb_s = flags.climb_first
                                  ? std::max(0.0, total_s - climbed_s - search.elapsed_s())
                                  : refine_s + policy.left_s;
  if (climb_on && refine_s > 0 && last_climb_s > 0 && !StopOnSignals::requested()) {
    RefineOptions refine;
    refine.budget_s = last_climb_s;
    refine.seed = seed;
    // Climb-first: the baselines were climbed already; the first climb's kicks
    // go on where they stopped, from its result when the policy found nothing
    // better, so the policy costs the climb its time and nothing else.
    if (first_climb) {
      refine.first_kick = first_climb->kicks;
      refine.start_converged =
          first_climb->kicks > 0 && best.device_of_node == first_climb->ended_at;
    }
    const ClimbPhase climb =
        ClimbAndMeasure(forward, c, *climb_on, *reward, best,
                        flags.climb_first ? std::vector<RefineStart>{} : baselines_ran, refine);
    if (climb.found && climb.found->step_s < best.step_s) {
      best = *climb.found;
      best.iteration = search.iterations();
      best.found_at_s = search.elapsed_s() + climb.seconds;
      if (!out_path.empty()) {
        graph::Status st = WritePlacement(
            out_path,
            make_placement(best, search.elapsed_s() + climb.seconds, search.iterations()));
        if (!st.ok()) return Fail(st);
      }
    }
  }
  stop_on_signals.reset();
  // On real devices the hardware decides (planner/verdict.h): the best of many
  // noisy measurements is the luckiest, and a simulated gain is a prediction,
  // so the found placement must beat the best baseline in fresh interleaved
  // rounds at the stated level, or the baseline is the result.
  bool all_real = true;
  for (const cluster::DeviceSpec& d : c.devices) all_real &= d.kind != cluster::DeviceKind::kSim;
  std::unique_ptr<RewardSource> sim_checked_on;  // sim rewards: a real source to check with
  const RewardSource* on_hardware = real_rewards ? &hardware : nullptr;
  if (reward_name == "sim" && all_real) {
    auto real =
        MakeRewardSource("real", RewardContext{&forward, &setup->training, &c, nullptr, 2, 10});
    if (real.ok()) on_hardware = (sim_checked_on = std::move(*real)).get();
  }
  std::string verdict_text;
  if (on_hardware && best_baseline_s && !StopOnSignals::requested()) {
    const bool was_baseline = best.device_of_node == best_baseline_devices;
    verdict_text = DecideOnHardware(*on_hardware, real_rewards, verdict_options, best_baseline,
                                    best_baseline_devices, &*best_baseline_s, &best);
    if (!was_baseline && !out_path.empty()) {
      graph::Status st =
          WritePlacement(out_path, make_placement(best, search.elapsed_s(), search.iterations()));
      if (!st.ok()) return Fail(st);
    }
  }
  runtime::StepStats timeline;
  Evaluation final_eval = reward->Timeline(best.device_of_node, &timeline);
  PrintResult(reward_name, search, best_baseline, best_baseline_s, best, verdict_text,
              reward->LowerBoundSeconds(), final_eval.estimated_ops);
  if (const std::string line = hardware.Summary(); !line.empty()) std::printf("%s\n", line.c_str());
  if (ps) std::printf("%s\n", ps->Summary().c_str());
  if (!out_path.empty()) std::printf("placement: %s\n", out_path.c_str());
  if (!checkpoint_path.empty()) std::printf("checkpoint: %s\n", checkpoint_path.c_str());

  // With simulated rewards on real devices, the result is measured for real.
  if (sim_checked_on && !StopOnSignals::requested()) {
    Evaluation m = sim_checked_on->Evaluate(best.device_of_node);
    if (m.status.ok()) {
      std::printf("  measured       %s on the real devices; simulator error %+.1f%%\n",
                  FormatMs(m.step_s).c_str(), 100 * (best.step_s - m.step_s) / m.step_s);
    } else {
      std::printf("  measured       %s\n", DescribeEvaluation(m).c_str());
    }
  }
  if (graph::Status st = export_graphdef(best.device_of_node); !st.ok()) return Fail(st);
  if (args->Has("--svg")) {
    const std::string title = model_path + " on " + devices_path + ": " + best.method + " " +
                              FormatMs(best.step_s) + " (" + reward_name + ")";
    graph::Status st = graph::WriteFileAtomic(
        args->Get("--svg"), SearchReportSvg(title, curve, best_baseline_s.value_or(best.step_s),
                                            reward->executed_graph(), c, timeline));
    if (!st.ok()) return Fail(st);
    std::printf("picture: %s\n", args->Get("--svg").c_str());
  }
  return 0;
}

}  // namespace planner::cli
