// `planner search`: the main job. Baselines first, then the Hierarchical
// Planner's REINFORCE search, with every output written atomically as it goes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
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
    "       [--export-modules MODULES.yaml]\n"
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
     {"--export-modules", "FILE",
      "write the best placement's device for each PyTorch module (torch.onnx.export models)"},
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
// printed and offered to `search`; after a signal, no more once one ran.
BaselinesRun RunBaselines(const graph::Graph& forward, const cluster::Cluster& c,
                          const RewardSource& reward, const runtime::Simulator* costs,
                          Search* search) {
  BaselinesRun out;
  for (const std::string& method : BaselineMethods(c)) {
    if (StopOnSignals::requested() && out.best) break;  // a result to write is enough
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

// A search's inputs, loaded once from its flags and files: the model, the
// devices, the profile and the reward source. Its reward context points into
// it, so it stays where it was made.
struct Session {
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  std::optional<Args> args;
  SearchFlags flags;
  graph::TrainingOptions training;
  std::string model_path, devices_path;
  std::string out_path;         // -o; empty: none
  std::string checkpoint_path;  // --checkpoint, --resume or PLACEMENT.ckpt; empty: none
  SearchOptions options;
  std::optional<PlacedTraining> setup;
  std::optional<runtime::Profile> profile;
  RewardContext context;
  std::unique_ptr<RewardSource> hardware;  // as made: the verdict measures on it afresh
  std::optional<RememberingReward> memo;   // measured rewards: each placement measured once
  const RewardSource* reward = nullptr;    // the search's: memo, else hardware
  SearchIdentity identity;

  const graph::Graph& forward() const { return setup->model.graph; }
  const cluster::Cluster& cluster() const { return setup->cluster; }
  int num_devices() const { return static_cast<int>(cluster().devices.size()); }
  bool real_rewards() const { return hardware->measured(); }

  // The placement file for `b`, found after `seconds` and `iterations` updates.
  Placement PlacementOf(const BestPlacement& b, double seconds, int iterations) const {
    const bool searched =
        b.method.rfind("search", 0) == 0 || b.method.find("+refine") != std::string::npos;
    Placement p =
        MakePlacement(model_path, forward(), identity.model_digest, devices_path, cluster(),
                      searched ? b.method : "baseline " + b.method, b.device_of_node);
    (real_rewards() ? p.measured_step_s : p.simulated_step_s) = b.step_s;
    p.search = {{"iterations", iterations},
                {"seconds", std::round(seconds * 10) / 10},
                {"found_at_iteration", b.iteration},
                {"found_at_seconds", std::round(b.found_at_s * 10) / 10}};
    return p;
  }
  // Writes it to -o, if given.
  graph::Status WritePlacementOf(const BestPlacement& b, double seconds, int iterations) const {
    if (out_path.empty()) return graph::Status::Ok();
    return WritePlacement(out_path, PlacementOf(b, seconds, iterations));
  }
  // A found placement the hardware never judged (a signal came first), to
  // OUT.unverified beside -o, if -o is given; its method says so.
  graph::Status WriteUnverified(const BestPlacement& b, const Search& search) const {
    if (out_path.empty()) return graph::Status::Ok();
    Placement p = PlacementOf(b, search.elapsed_s(), search.iterations());
    p.method += " (unverified: stopped before the hardware's verdict)";
    const std::string path = out_path + ".unverified";
    GRAPH_RETURN_IF_ERROR(WritePlacement(path, p));
    std::printf("unverified: %s (the search's best, which the hardware did not judge)\n",
                path.c_str());
    return graph::Status::Ok();
  }
  // The model with `device_of_node` as TensorFlow device strings, to
  // --export-graphdef, if given.
  graph::Status ExportGraphdef(const std::vector<int>& device_of_node) const {
    if (!args->Has("--export-graphdef")) return graph::Status::Ok();
    const std::string& path = args->Get("--export-graphdef");
    GRAPH_RETURN_IF_ERROR(WritePlacedGraphDef(path, forward(), cluster(), device_of_node));
    std::printf("graphdef: %s\n", path.c_str());
    return graph::Status::Ok();
  }
  // The device of each PyTorch module, to --export-modules, if given.
  graph::Status ExportModulesOf(const std::vector<int>& device_of_node,
                                const std::string& method) const {
    if (!args->Has("--export-modules")) return graph::Status::Ok();
    return ExportModules(args->Get("--export-modules"), forward(), cluster(), device_of_node,
                         model_path, devices_path, method);
  }
};

// Parses the flags and loads `s`'s inputs, printing what it will search. The
// exit status when the command ends here (after its message), else nullopt.
std::optional<int> OpenSession(int argc, char** argv, Session* s) {
  int exit_code = 0;
  s->args = ParseCommandLine(kSpec, argc, argv, &exit_code);
  if (!s->args) return exit_code;
  const Args& args = *s->args;
  graph::InferenceOptions inference;
  if (!ParseTrainingFlags(args, kName, &inference, &s->training)) return 2;
  if (graph::Status st = ParseSearchFlags(args, &s->flags); !st.ok()) {
    return std::cerr << kName << st.message() << "\n", 2;
  }
  s->out_path = args.Get("-o");
  s->checkpoint_path = args.Get("--checkpoint");
  if (s->checkpoint_path.empty()) s->checkpoint_path = args.Get("--resume");
  if (s->checkpoint_path.empty() && !s->out_path.empty())
    s->checkpoint_path = s->out_path + ".ckpt";
  for (const char* flag :
       {"-o", "--csv", "--svg", "--export-graphdef", "--export-modules", "--checkpoint"}) {
    if (args.Has(flag)) {
      if (graph::Status st = CheckOutputWritable(flag, args.Get(flag)); !st.ok()) return Fail(st);
    }
  }
  if (args.Has("--config")) {
    auto o = ReadSearchConfig(args.Get("--config"));
    if (!o.ok()) return Fail(o.status());
    s->options = *o;
  }
  s->model_path = args.positional()[0];
  s->devices_path = args.positional()[1];
  auto setup = LoadPlacedTraining(s->model_path, s->devices_path, "", inference, s->training);
  if (!setup.ok()) return Fail(setup.status());
  s->setup = std::move(*setup);
  auto profile = ProfileForDevices(args, *s->setup);
  if (!profile.ok()) return Fail(profile.status());
  s->profile = std::move(*profile);
  s->context = RewardContext{&s->forward(),
                             &s->setup->training,
                             &s->cluster(),
                             s->profile ? &*s->profile : nullptr,
                             2,
                             s->flags.steps,
                             &s->setup->model.options,
                             &s->training,
                             args.Get("--fleet")};
  auto made = MakeRewardSource(s->flags.reward, s->context);
  if (!made.ok()) return Fail(made.status());
  s->hardware = std::move(*made);
  if (s->real_rewards()) s->memo.emplace(*s->hardware);
  s->reward = s->memo ? &*s->memo : s->hardware.get();
  s->identity = {ModelDigest(s->forward()), s->cluster().digest, s->flags.reward};
  std::printf("%s on %s: %d ops to place (training graph of %d nodes), %d devices, reward %s\n",
              s->model_path.c_str(), s->devices_path.c_str(), s->forward().size(),
              s->setup->training.graph.size(), s->num_devices(), s->flags.reward.c_str());
  if (s->flags.reward == "sim") PrintOpsWithoutKernels(s->setup->training.graph);
  return std::nullopt;
}

// One device: nothing to choose. Writes every op on it.
int SearchOneDevice(const Session& s) {
  std::vector<int> all(s.forward().size(), 0);
  const Evaluation e = s.reward->Evaluate(all);
  const std::string& device = s.cluster().devices[0].name;
  std::printf(
      "%s has one device, '%s': every op runs on it and there is nothing to search (step %s)\n",
      s.devices_path.c_str(), device.c_str(), DescribeEvaluation(e).c_str());
  if (!s.out_path.empty()) {
    Placement p = s.PlacementOf({"single:" + device, e.status.ok() ? e.step_s : 0, all, 0}, 0, 0);
    if (!e.status.ok()) p.simulated_step_s = p.measured_step_s = std::nullopt;
    if (graph::Status st = WritePlacement(s.out_path, p); !st.ok()) return Fail(st);
    std::printf("placement: %s\n", s.out_path.c_str());
  }
  if (graph::Status st = s.ExportGraphdef(all); !st.ok()) return Fail(st);
  if (graph::Status st = s.ExportModulesOf(all, "single:" + device); !st.ok()) return Fail(st);
  return 0;
}

// A search's state past its inputs: the policy and its search, the baselines'
// results, the source the hill climb runs on, and what the updates write.
struct Run {
  std::unique_ptr<Search> search;
  bool resumed = false;
  // The hill climb runs on the simulator: with sim rewards the reward source
  // itself; with real ones a simulator on the devices' profile (null without
  // one: no climb), whose proposal is then measured (the simulator proposes,
  // the hardware decides).
  std::unique_ptr<RewardSource> profile_sim;
  const RewardSource* climb_on = nullptr;
  BaselinesRun baselines;
  std::unique_ptr<ParameterServer> ps;
  std::ofstream csv;
  std::vector<CurvePoint> curve;

  // The search's best so far to -o.
  graph::Status WriteBest(const Session& s) const {
    if (!search->best()) return graph::Status::Ok();
    return s.WritePlacementOf(*search->best(), search->elapsed_s(), search->iterations());
  }
};

// Creates (or resumes) the search, runs the baselines, warm-starts the policy,
// joins the parameter server and opens the curve's file.
graph::Status StartRun(Session& s, Run* run) {
  const Args& args = *s.args;
  GRAPH_ASSIGN_OR_RETURN(run->search,
                         Search::Create(s.forward(), s.num_devices(), s.options, s.flags.seed));
  Search& search = *run->search;
  run->resumed = args.Has("--resume");
  if (run->resumed) {
    GRAPH_RETURN_IF_ERROR(search.Load(args.Get("--resume"), s.identity));
    std::printf("resumed %s: %d updates done, %.1f s searched\n", args.Get("--resume").c_str(),
                search.iterations(), search.elapsed_s());
  }
  run->climb_on = s.real_rewards() ? nullptr : s.reward;
  if (s.real_rewards() && s.profile) {
    auto made = MakeRewardSource("sim", s.context);
    if (made.ok()) run->climb_on = (run->profile_sim = std::move(*made)).get();
  }
  // The cost-based baselines plan on the climb's simulator.
  std::printf("baselines:\n");
  std::optional<runtime::Simulator> own_costs;
  GRAPH_ASSIGN_OR_RETURN(
      const runtime::Simulator* costs,
      PlanningCosts(run->climb_on ? *run->climb_on : *s.reward, s.context, &own_costs));
  run->baselines = RunBaselines(s.forward(), s.cluster(), *s.reward, costs, &search);
  GRAPH_RETURN_IF_ERROR(run->WriteBest(s));

  const std::optional<RefineStart>& best_baseline = run->baselines.best;
  if (!run->resumed && s.options.warm_start_steps > 0 && best_baseline &&
      !StopOnSignals::requested()) {
    WarmStartResult w = search.WarmStart(best_baseline->device_of_node);
    GRAPH_RETURN_IF_ERROR(w.status);
    std::printf(
        "warm start from %s: cross-entropy %.3f (Grouper, %d steps, %.1f s), %.3f (Placer, %d "
        "steps, %.1f s)\n",
        best_baseline->method.c_str(), w.grouper_loss, w.grouper_steps, w.grouper_s, w.placer_loss,
        w.placer_steps, w.placer_s);
  }
  if (!s.flags.ps.empty()) {
    GRAPH_ASSIGN_OR_RETURN(run->ps, ConnectParameterServer(s.flags.ps, s.flags.ps_timeout_s));
    const std::string policy_of =
        s.identity.model_digest + " on devices " + s.identity.devices_digest;
    GRAPH_RETURN_IF_ERROR(search.UseParameterServer(run->ps.get(), policy_of));
    std::printf("ps: joined %s at parameter version %lld\n", s.flags.ps.c_str(),
                static_cast<long long>(search.parameter_version()));
  }
  if (args.Has("--csv")) {
    const std::string& path = args.Get("--csv");
    const bool append = run->resumed && std::ifstream(path).good();
    run->csv.open(path, append ? std::ios::app : std::ios::trunc);
    if (!run->csv) return graph::IoError(path + ": cannot write --csv output");
    if (!append) {
      run->csv << "iteration,elapsed_s,mean_step_s,min_step_s,failed,best_step_s,baseline_cost,"
                  "learning_rate,grad_norm\n";
    }
  }
  return graph::Status::Ok();
}

struct PolicyPhase {
  graph::Status status = graph::Status::Ok();  // a failed update or output
  double left_s = 0;                           // of the budget, when the patience ended the phase
};

// Policy updates until --iterations, `budget_s` of search time in all, a
// signal, or, with `patience_s` > 0, once the best has not improved for that
// long since `patience_from_s` (search time) or the best's own time. Each
// update adds to the curve (and --csv), writes an improvement to -o, and the
// checkpoint is saved every 30 s.
PolicyPhase RunPolicy(const Session& s, Run& run, std::optional<double> budget_s, double patience_s,
                      double patience_from_s) {
  Search& search = *run.search;
  const SearchFlags& flags = s.flags;
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
    SearchIteration it = search.Step(*s.reward);
    if (phase.status = it.status; !phase.status.ok()) break;
    const UpdateSummary u = Summarize(it);
    const double best = search.best() ? search.best()->step_s : 0;
    run.curve.push_back({it.iteration, u.mean_s, best});
    if (run.csv.is_open()) {
      char row[256];
      std::snprintf(row, sizeof row, "%d,%.3f,%.9g,%.9g,%d,%.9g,%.6g,%.6g,%.6g\n", it.iteration,
                    search.elapsed_s(), u.mean_s, u.min_s, u.failed, best, it.baseline,
                    it.learning_rate, it.grad_norm);
      run.csv << row << std::flush;
    }
    if (it.improved) {
      if (phase.status = run.WriteBest(s); !phase.status.ok()) break;
    }
    const auto now = Clock::now();
    if (it.improved || now - last_print >= std::chrono::seconds(1)) {
      std::printf("%s\n",
                  ProgressLine(it.iteration, search, u, budget_s, flags.iterations).c_str());
      std::fflush(stdout);
      last_print = now;
    }
    if (!s.checkpoint_path.empty() && now - last_checkpoint >= std::chrono::seconds(30)) {
      if (phase.status = search.Save(s.checkpoint_path, s.identity); !phase.status.ok()) break;
      last_checkpoint = now;
    }
  }
  return phase;
}

// --order climb-first's first phase: the climb from the baselines until its
// kicks stall (--patience) or `total_s` ends; its result is offered to the
// search as its best, which the policy then imitates.
graph::Result<ClimbPhase> ClimbFirst(const Session& s, Run& run, double total_s) {
  Search& search = *run.search;
  RefineOptions first;
  first.budget_s = total_s;
  first.stall_s = s.flags.patience_s;
  first.seed = s.flags.seed;
  ClimbPhase climb = ClimbAndMeasure(s.forward(), s.cluster(), *run.climb_on, *s.reward,
                                     *search.best(), run.baselines.ran, first);
  if (climb.found) {
    search.Offer(climb.found->method, climb.found->device_of_node,
                 Evaluation{graph::Status::Ok(), climb.found->step_s}, 0);
    GRAPH_RETURN_IF_ERROR(run.WriteBest(s));
  }
  const char* why = climb.stalled                   ? "its kicks found nothing for --patience"
                    : climb.seconds < total_s - 0.5 ? "its kicks exhausted"
                                                    : "out of time";
  std::printf("climb first: %s after %.0f s (%s); the policy starts from it with %.0f s\n",
              FormatMs(search.best()->step_s).c_str(), climb.seconds, why,
              std::max(0.0, *s.flags.budget_s - climb.seconds));
  return climb;
}

// The last phase: the climb from `*best` for `budget_s`, and with policy-first
// from the baselines too (climb-first climbed them already); after a first
// climb its kicks go on where they stopped, from its result when the policy
// found nothing better, so that the policy costs the climb its time and
// nothing else. A faster placement replaces `*best` and is written.
graph::Status ClimbLast(const Session& s, const Run& run, const std::optional<ClimbPhase>& first,
                        double budget_s, BestPlacement* best) {
  const Search& search = *run.search;
  RefineOptions refine;
  refine.budget_s = budget_s;
  refine.seed = s.flags.seed;
  if (first) {
    refine.first_kick = first->kicks;
    refine.start_converged = first->kicks > 0 && best->device_of_node == first->ended_at;
  }
  const ClimbPhase climb =
      ClimbAndMeasure(s.forward(), s.cluster(), *run.climb_on, *s.reward, *best,
                      s.flags.climb_first ? std::vector<RefineStart>{} : run.baselines.ran, refine);
  if (!climb.found || climb.found->step_s >= best->step_s) return graph::Status::Ok();
  *best = *climb.found;
  best->iteration = search.iterations();
  best->found_at_s = search.elapsed_s() + climb.seconds;
  return s.WritePlacementOf(*best, search.elapsed_s() + climb.seconds, search.iterations());
}

// Through the search and the hill climb: with --order climb-first the climb
// goes first, from the baselines, until it stalls; the policy then starts from
// its result (the best, which the policy imitates), and the climb gets
// whatever time the policy leaves. The policy costs the climb nothing while
// the climb still improves. Returns the best placement found; a signal
// (StopOnSignals, the caller's) ends each phase early.
graph::Result<BestPlacement> SearchPhases(const Session& s, Run& run) {
  Search& search = *run.search;
  const SearchFlags& flags = s.flags;
  const double total_s = flags.budget_s ? *flags.budget_s + flags.refine_s : 0;  // climb-first's
  std::optional<ClimbPhase> first_climb;
  if (flags.climb_first && !run.resumed && search.best() && !StopOnSignals::requested()) {
    GRAPH_ASSIGN_OR_RETURN(first_climb.emplace(), ClimbFirst(s, run, total_s));
  }
  const double climbed_s = first_climb ? first_climb->seconds : 0;
  std::optional<double> policy_budget_s = flags.budget_s;
  if (flags.climb_first) policy_budget_s = std::max(0.0, *flags.budget_s - climbed_s);
  const PolicyPhase policy = RunPolicy(s, run, policy_budget_s, run.climb_on ? flags.patience_s : 0,
                                       run.resumed ? 0 : search.elapsed_s());
  if (StopOnSignals::requested())
    std::printf("stopped by a signal after %d updates; files are complete\n", search.iterations());
  GRAPH_RETURN_IF_ERROR(policy.status);
  if (!s.checkpoint_path.empty()) GRAPH_RETURN_IF_ERROR(search.Save(s.checkpoint_path, s.identity));
  GRAPH_RETURN_IF_ERROR(run.WriteBest(s));
  if (!search.best()) {
    const graph::Status& failure = run.baselines.first_failure;
    return graph::Status(failure.code(), s.model_path + " on " + s.devices_path +
                                             ": no placement ran (every baseline and sample "
                                             "failed; " +
                                             failure.message() + ")");
  }
  BestPlacement best = *search.best();
  std::printf("policy search: best %s (%s) after %d updates, %.1f s\n",
              FormatMs(best.step_s).c_str(), best.method.c_str(), search.iterations(),
              search.elapsed_s());
  const double last_climb_s = flags.climb_first
                                  ? std::max(0.0, total_s - climbed_s - search.elapsed_s())
                                  : flags.refine_s + policy.left_s;
  if (run.climb_on && flags.refine_s > 0 && last_climb_s > 0 && !StopOnSignals::requested()) {
    GRAPH_RETURN_IF_ERROR(ClimbLast(s, run, first_climb, last_climb_s, &best));
  }
  return best;
}

// The result: on real devices the hardware's verdict against the best
// baseline (which becomes the result unless the gain is significant), the
// result's lines, and the files that show it (graphdef, picture).
int Conclude(const Session& s, const Run& run, BestPlacement best) {
  const Search& search = *run.search;
  const std::optional<RefineStart>& baseline = run.baselines.best;
  std::optional<double> baseline_s;
  if (baseline) baseline_s = baseline->step_s;
  // On real devices the hardware decides (planner/verdict.h): the best of many
  // noisy measurements is the luckiest, and a simulated gain is a prediction,
  // so the found placement must beat the best baseline in fresh interleaved
  // rounds at the stated level, or the baseline is the result. Sim rewards on
  // real devices: the result is measured for real too.
  bool all_real = true;
  for (const cluster::DeviceSpec& d : s.cluster().devices) {
    all_real &= d.kind != cluster::DeviceKind::kSim;
  }
  std::unique_ptr<RewardSource> sim_checked_on;  // sim rewards: a real source to check with
  const RewardSource* on_hardware = s.real_rewards() ? s.hardware.get() : nullptr;
  if (s.flags.reward == "sim" && all_real) {
    auto real = MakeRewardSource(
        "real", RewardContext{&s.forward(), &s.setup->training, &s.cluster(), nullptr, 2, 10});
    if (real.ok()) on_hardware = (sim_checked_on = std::move(*real)).get();
  }
  std::string verdict_text;
  // Stopped by a signal before the verdict: what the search found is untested
  // (sim rewards: a prediction; real ones: the best of many noisy samples),
  // and the placement to use is what an undecided verdict keeps.
  std::optional<BestPlacement> unverified;
  const bool stopped = StopOnSignals::requested();
  const bool found_baseline = baseline && best.device_of_node == baseline->device_of_node;
  if (on_hardware && baseline && stopped && !found_baseline) {
    verdict_text = "not decided: stopped before the hardware's verdict, so " +
                   FormatMs(best.step_s) + " is the search's own " +
                   (s.real_rewards() ? "measurement (the best of many noisy ones: biased low)"
                                     : "prediction") +
                   " and " + baseline->method + " is the result";
    unverified = best;
  } else if (on_hardware && baseline) {  // after a signal: the baseline found again
    verdict_text =
        DecideOnHardware(*on_hardware, s.real_rewards(), s.flags.verdict, baseline->method,
                         baseline->device_of_node, &*baseline_s, &best);
    if (!found_baseline) {
      graph::Status st = s.WritePlacementOf(best, search.elapsed_s(), search.iterations());
      if (!st.ok()) return Fail(st);
    }
  }
  runtime::StepStats timeline;
  const Evaluation final_eval = s.reward->Timeline(best.device_of_node, &timeline);
  PrintResult(s.flags.reward, search, baseline ? baseline->method : "", baseline_s, best,
              verdict_text, s.reward->LowerBoundSeconds(), final_eval.estimated_ops);
  if (unverified) {
    // -o gets the baseline; the found placement is kept beside it, labelled.
    best = BestPlacement{baseline->method, *baseline_s, baseline->device_of_node, 0, 0};
    if (graph::Status st = s.WriteUnverified(*unverified, search); !st.ok()) return Fail(st);
    if (graph::Status st = s.WritePlacementOf(best, search.elapsed_s(), search.iterations());
        !st.ok()) {
      return Fail(st);
    }
  }
  if (const std::string line = s.hardware->Summary(); !line.empty()) {
    std::printf("%s\n", line.c_str());
  }
  if (run.ps) std::printf("%s\n", run.ps->Summary().c_str());
  if (!s.out_path.empty()) std::printf("placement: %s\n", s.out_path.c_str());
  if (!s.checkpoint_path.empty()) std::printf("checkpoint: %s\n", s.checkpoint_path.c_str());
  if (sim_checked_on && !StopOnSignals::requested()) {
    const Evaluation m = sim_checked_on->Evaluate(best.device_of_node);
    if (m.status.ok()) {
      std::printf("  measured       %s on the real devices; simulator error %+.1f%%\n",
                  FormatMs(m.step_s).c_str(), 100 * (best.step_s - m.step_s) / m.step_s);
    } else {
      std::printf("  measured       %s\n", DescribeEvaluation(m).c_str());
    }
  }
  if (graph::Status st = s.ExportGraphdef(best.device_of_node); !st.ok()) return Fail(st);
  if (graph::Status st = s.ExportModulesOf(best.device_of_node, best.method); !st.ok()) {
    return Fail(st);
  }
  if (s.args->Has("--svg")) {
    const std::string title = s.model_path + " on " + s.devices_path + ": " + best.method + " " +
                              FormatMs(best.step_s) + " (" + s.flags.reward + ")";
    graph::Status st = graph::WriteFileAtomic(
        s.args->Get("--svg"), SearchReportSvg(title, run.curve, baseline_s.value_or(best.step_s),
                                              s.reward->executed_graph(), s.cluster(), timeline));
    if (!st.ok()) return Fail(st);
    std::printf("picture: %s\n", s.args->Get("--svg").c_str());
  }
  return 0;
}

}  // namespace

int SearchCommand(int argc, char** argv) {
  Session s;
  if (const std::optional<int> exit_code = OpenSession(argc, argv, &s)) return *exit_code;
  if (s.num_devices() == 1) return SearchOneDevice(s);
  Run run;
  // From the baselines to the last climb, SIGINT or SIGTERM ends the search
  // early with every file complete (a fleet stops its controllers so, whatever
  // phase each is in); the verdict, which a signal skips, is past it.
  std::optional<StopOnSignals> stop_on_signals(std::in_place);
  if (graph::Status st = StartRun(s, &run); !st.ok()) return Fail(st);
  graph::Result<BestPlacement> best = SearchPhases(s, run);
  stop_on_signals.reset();
  if (!best.ok()) return Fail(best.status());
  return Conclude(s, run, *best);
}

}  // namespace planner::cli
