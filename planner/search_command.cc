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

#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "planner/args.h"
#include "planner/baselines.h"
#include "planner/commands.h"
#include "planner/model_loading.h"
#include "planner/placement.h"
#include "planner/profile_cache.h"
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

namespace planner {

namespace {

const CommandSpec kSpec{
    "search",
    "MODEL DEVICES [-o PLACEMENT] [--reward sim|real|fleet] [--fleet FLEET] [--profile PROFILE]\n"
    "       [--profile-cache DIR]\n"
    "       [--config CONFIG] [--iterations N] [--budget DURATION] [--seed S] [--checkpoint CKPT]\n"
    "       [--resume CKPT] [--csv CURVE.csv] [--svg REPORT.svg] [--export-graphdef PLACED.pb]\n"
    "       [--steps N] [--rounds N] [--significance ALPHA] [--batch N] [--input-shape "
    "NAME=D0,...]\n"
    "       [--optimizer sgd|momentum] [--ps ENDPOINT] [--ps-timeout DURATION]",
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
      "and give the hill climb the budget left (default: off)"},
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

int Fail(const graph::Status& st) { return ReportError(kName, st); }

// The command's own flags, validated (usage errors name the flag).
struct SearchFlags {
  std::string reward = "sim";
  std::optional<int64_t> iterations;  // policy updates in all (default 200 without a budget)
  std::optional<double> budget_s;     // search seconds in all
  double refine_s = 60;               // the hill climb's seconds (0: off)
  double patience_s = 0;              // the policy's search ends after this long without a gain
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
                         const SearchFlags& flags) {
  std::string eta;
  if (flags.budget_s) {
    eta = ", ETA " +
          std::to_string(static_cast<int>(std::max(0.0, *flags.budget_s - search.elapsed_s()))) +
          " s";
  } else if (flags.iterations && iteration > 0) {
    eta = ", ETA " +
          std::to_string(
              static_cast<int>(search.elapsed_s() / iteration * (*flags.iterations - iteration))) +
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
  const std::optional<int64_t>& iterations = flags.iterations;
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
  if (reward_name == "sim") {
    std::set<std::string> no_kernel;
    for (const graph::Node& n : setup->training.graph.nodes()) {
      if (runtime::RunsKernel(n.op) && !runtime::FindKernel(n.op)) no_kernel.insert(n.op);
    }
    if (!no_kernel.empty()) {
      std::string list;
      for (const std::string& op : no_kernel) list += (list.empty() ? "" : ", ") + op;
      std::printf(
          "note: %zu op types have no kernel here (%s): the simulator places them by its "
          "roofline estimate, and the result cannot be measured on this machine\n",
          no_kernel.size(), list.c_str());
    }
  }

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

  // Through the search and the hill climb.
  std::optional<StopOnSignals> stop_on_signals(std::in_place);
  using Clock = std::chrono::steady_clock;
  auto last_print = Clock::now() - std::chrono::seconds(10);
  auto last_checkpoint = Clock::now();
  std::vector<CurvePoint> curve;
  graph::Status failure = graph::Status::Ok();
  // --patience counts from the policy's first update (after any warm start),
  // or across a resume from the best's own time.
  const double policy_start_s = resumed ? 0 : search.elapsed_s();
  double handed_to_climb_s = 0;  // --patience: the budget the policy left
  while (!StopOnSignals::requested()) {
    if (iterations && search.iterations() >= *iterations) break;
    if (budget_s && search.elapsed_s() >= *budget_s) break;
    if (flags.patience_s > 0 && climb_on && search.best()) {
      const double since = std::max(policy_start_s, search.best()->found_at_s);
      if (search.elapsed_s() - since >= flags.patience_s) {
        handed_to_climb_s = *budget_s - search.elapsed_s();
        std::printf(
            "policy search: no better placement in the last %.0f s; its %.0f s left go to "
            "the hill climb\n",
            search.elapsed_s() - since, handed_to_climb_s);
        break;
      }
    }
    SearchIteration it = search.Step(*reward);
    if (failure = it.status; !failure.ok()) break;
    const UpdateSummary u = Summarize(it);
    const double mean = u.mean_s, min = u.min_s;
    const int failed = u.failed;
    const double best = search.best() ? search.best()->step_s : 0;
    curve.push_back({it.iteration, mean, best});
    if (csv.is_open()) {
      char row[256];
      std::snprintf(row, sizeof row, "%d,%.3f,%.9g,%.9g,%d,%.9g,%.6g,%.6g,%.6g\n", it.iteration,
                    search.elapsed_s(), mean, min, failed, best, it.baseline, it.learning_rate,
                    it.grad_norm);
      csv << row << std::flush;
    }
    if (it.improved) {
      if (failure = write_best(); !failure.ok()) break;
    }
    const auto now = Clock::now();
    if (it.improved || now - last_print >= std::chrono::seconds(1)) {
      std::printf("%s\n", ProgressLine(it.iteration, search, u, flags).c_str());
      std::fflush(stdout);
      last_print = now;
    }
    if (!checkpoint_path.empty() && now - last_checkpoint >= std::chrono::seconds(30)) {
      if (failure = search.Save(checkpoint_path, identity); !failure.ok()) break;
      last_checkpoint = now;
    }
  }
  if (StopOnSignals::requested())
    std::printf("stopped by a signal after %d updates; files are complete\n", search.iterations());
  if (!failure.ok()) return Fail(failure);
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
  if (climb_on && refine_s > 0 && !StopOnSignals::requested()) {
    RefineOptions refine;
    refine.budget_s = refine_s + handed_to_climb_s;
    refine.seed = seed;
    const ClimbResult climb = ClimbFromStarts(forward, c, *climb_on, best, baselines_ran, refine);
    const RefineResult& r = climb.result.refine;
    const RefineStart& from = climb.starts[climb.result.chosen];
    double step_s = r.step_s;
    if (climb_on != reward && r.step_s < from.step_s) {
      const Evaluation measured = reward->Evaluate(r.device_of_node);
      std::printf("refine: its placement (%s simulated) measured %s\n", FormatMs(r.step_s).c_str(),
                  DescribeEvaluation(measured).c_str());
      step_s = measured.status.ok() ? measured.step_s : best.step_s;
    }
    if (step_s < best.step_s) {
      best = BestPlacement{from.method + "+refine", step_s, r.device_of_node, search.iterations(),
                           search.elapsed_s() + r.seconds};
      if (!out_path.empty()) {
        graph::Status st = WritePlacement(
            out_path, make_placement(best, search.elapsed_s() + r.seconds, search.iterations()));
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

}  // namespace planner
