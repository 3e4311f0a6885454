// `planner search`: the main job's command. Parses the flags into
// planner/job/search_job.h's options, runs the job and reports its status;
// the search itself (baselines, policy, climb, verdict, outputs) is the
// library's.
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "cluster/devices.h"
#include "controllers/fleet_config.h"
#include "controllers/ps_client.h"
#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "planner/job/search_job.h"
#include "planner/search/search_options.h"
#include "planner/sources/registry.h"

namespace planner::cli {

namespace {

const frontend::CommandSpec kSpec{
    "search",
    "MODEL DEVICES [-o PLACEMENT] [--reward sim|real|fleet] [--fleet FLEET] [--profile PROFILE]\n"
    "       [--profile-cache DIR]\n"
    "       [--config CONFIG] [--iterations N] [--budget DURATION] [--seed S] [--checkpoint CKPT]\n"
    "       [--resume CKPT] [--csv CURVE.csv] [--svg REPORT.svg] [--export-graphdef PLACED.pb]\n"
    "       [--export-modules MODULES.yaml]\n"
    "       [--steps N] [--recalibrate on|off] [--baseline-rounds N] [--rounds N]\n"
    "       [--significance ALPHA]\n"
    "       [--batch N] [--input-shape NAME=D0,...]\n"
    "       [--optimizer sgd|momentum] [--ps ENDPOINT] [--ps-timeout DURATION]\n"
    "       [--ps-key FILE --ps-server-key FILE]\n"
    "       [--refine DURATION] [--patience DURATION [--patience-gain PCT] [--patience-first "
    "DURATION]]\n"
    "       [--order policy-first|climb-first] [--kicks policy|random] [--climb-starts N]\n"
    "       [--sweeps focused|full] [--units runs|scopes] [--cutoff on|off]\n"
    "       [--gradients colocated|heavy]",
    "Learns a placement of MODEL's training step on DEVICES with the Hierarchical Planner\n"
    "(a Grouper and a Placer trained by policy gradient: PPO's clipped surrogate by default,\n"
    "the paper's REINFORCE with --config configs/search-paper.yaml). The baselines (every op on "
    "each device, the\n"
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
    "checkpoint. Without --iterations and --budget: 200 updates. A hill climb over the model's\n"
    "name scopes then refines the best on the simulator (--refine; with --reward real on the\n"
    "profile's simulator, and its pick measured; docs/search.md).",
    {"MODEL", "DEVICES"},
    frontend::WithTrainingFlags(
        {{"-o", "PLACEMENT", "write the best placement here (YAML), at every improvement"},
         {"--reward", "NAME", "sim (default), real or fleet"},
         {"--fleet", "FLEET", "with --reward fleet: the fleet file (endpoint, mode, timeouts)"},
         PlanningProfileFlag(),
         ProfileCacheFlag(),
         {"--config", "CONFIG", "search hyper-parameters (YAML; default configs/search.yaml's)"},
         {"--iterations", "N", "stop after N policy updates in all (resumed ones count)"},
         {"--budget", "DURATION",
          "stop the search after this much time in all (90s, 15m, 2h); the hill climb "
          "(--refine, 60 s by default) runs after it, and the baselines' planning before it "
          "is not counted (m-SCT's linear program: a minute on NMT-8)"},
         {"--seed", "S", "random seed (default 1): a sim search with --iterations repeats exactly"},
         {"--checkpoint", "CKPT", "checkpoint file (default PLACEMENT.ckpt with -o)"},
         {"--resume", "CKPT", "continue the search saved in CKPT"},
         {"--csv", "FILE", "write the reward curve (one row per policy update)"},
         {"--svg", "FILE", "write a picture of the curve and the best placement's timeline"},
         {"--export-graphdef", "FILE", "write MODEL with TensorFlow device strings of the best"},
         {"--export-modules", "FILE",
          "write the best placement's device for each PyTorch module (torch.onnx.export models)"},
         {"--refine", "DURATION",
          "hill-climb name scopes from the best after the search, on the simulator "
          "(default 60s; 0: off)"},
         {"--patience", "DURATION",
          "with --budget: end the policy's search once its best has not improved for this long, "
          "and give the hill climb the budget left (default 60s; 0: off)"},
         {"--patience-gain", "PCT",
          "an improvement of the policy's best by less than PCT percent does not count against "
          "--patience (default 0.5; 0: any improvement counts)"},
         {"--patience-first", "DURATION",
          "until the policy's first gain on the best baseline, its patience is this (default "
          "30s; 0: --patience's)"},
         {"--order", "NAME",
          "policy-first (default: the policy, then the climb from its best) or climb-first (the "
          "climb from the baselines until it converges and its kicks find nothing for --patience, "
          "the policy from its result, then the climb again; --budget + --refine in all; sim "
          "only)"},
         {"--kicks", "NAME",
          "where the last climb's kicks move a few name scopes once it has converged: policy "
          "(default: onto a placement sampled from the trained policy, once its samples beat the "
          "best baseline by --patience-gain; random devices until then) or random (random "
          "devices)"},
         {"--climb-starts", "N",
          "how many placements the climb from the baselines starts from: the best so far and "
          "the fastest baselines that place differently, each climbed for a short trial, the best "
          "trial going on (default 3; 1: the best so far alone, for the whole climb)"},
         {"--sweeps", "NAME",
          "the climb's sweeps: focused (default: after the first, only the name scopes and ops "
          "next to a move kept since, and every one again before it ends) or full (every name "
          "scope every sweep)"},
         {"--units", "NAME",
          "what the climb moves as one: runs (default: every name-scope prefix, and the halves, "
          "quarters, ... of each scope's sub-scopes in order, down to runs of two: "
          "decoder/cell_1/t_0 to t_15 as one) or scopes (the name-scope prefixes alone)"},
         {"--cutoff", "NAME",
          "on (default: the simulator stops a climb's move once it cannot be faster than the "
          "placement it would replace; the climb keeps the same moves, sooner) or off (every move "
          "simulated to its end)"},
         {"--gradients", "NAME",
          "colocated (default: every gradient op runs on its op's device, as PyTorch and "
          "TensorFlow run them) or heavy (the policy and the hill climb also place each gradient "
          "op that takes at least 1% of the simulator's dependency bound, on a device of its "
          "own; the "
          "placement file lists them under gradients_apart, and --export-graphdef and "
          "--export-modules, which carry the model's own ops, are refused)"},
         {"--steps", "N", "timed steps per placement with --reward real (default 5)"},
         {"--recalibrate", "on|off",
          "real devices: before the hill climb, refit its simulator to the steps the search "
          "measured and keep the profile or the refit that predicts them best (default on)"},
         {"--baseline-rounds", "N",
          "real devices: rounds measuring the three fastest baselines again before the search, "
          "each keeping the median of its measurements (default 3; 0: one measurement each)"},
         {"--rounds", "N",
          "real devices: interleaved rounds comparing the result with the best baseline (default "
          "9)"},
         {"--significance", "ALPHA", "real devices: level of that test (default 0.05)"},
         {"--ps", "ENDPOINT",
          "train the policy through this parameter server (planner ps), shared with other "
          "searches"},
         {"--ps-timeout", "DURATION",
          "give up on a parameter server silent this long (default 60s)"},
         {"--ps-key", "FILE",
          "CURVE: this search's key pair (planner fleet keygen), for a parameter server with keys"},
         {"--ps-server-key", "FILE", "CURVE: the parameter server's public key file"}})};

// A flag that takes one of two names: true for `first` (also when the flag is
// absent), false for `second`; anything else is a usage error saying it is
// not `what`.
graph::Result<bool> IsFirstOfTwo(const frontend::Args& args, const std::string& flag,
                                 const std::string& first, const std::string& second,
                                 const std::string& what) {
  const std::string value = args.Get(flag, first);
  if (value != first && value != second) {
    return graph::InvalidArgument(flag + ": '" + value + "' is not " + what + " (" + first +
                                  " or " + second + ")");
  }
  return value == first;
}

// The flags' values into `o` (usage errors name the flag).
graph::Status ParseSearchFlags(const frontend::Args& args, job::SearchJobOptions* o) {
  o->reward = args.Get("--reward", "sim");
  GRAPH_RETURN_IF_ERROR(sources::CheckRewardName(o->reward));
  GRAPH_RETURN_IF_ERROR(CheckProfileFlags(args));
  o->fleet_path = args.Get("--fleet");
  if (args.Has("--iterations")) {
    GRAPH_ASSIGN_OR_RETURN(
        o->iterations.emplace(),
        frontend::ParseIntInRange("--iterations", args.Get("--iterations"), 0, 100000000));
  }
  if (args.Has("--budget")) {
    GRAPH_ASSIGN_OR_RETURN(o->budget_s.emplace(),
                           frontend::ParseDurationSeconds("--budget", args.Get("--budget")));
  }
  if (args.Has("--refine")) {
    GRAPH_ASSIGN_OR_RETURN(o->refine_s,
                           frontend::ParseDurationOrOff("--refine", args.Get("--refine")));
  }
  if (args.Has("--patience")) {
    GRAPH_ASSIGN_OR_RETURN(o->patience_s.emplace(),
                           frontend::ParseDurationOrOff("--patience", args.Get("--patience")));
  }
  if (args.Has("--patience-first")) {
    GRAPH_ASSIGN_OR_RETURN(
        o->patience_first_s.emplace(),
        frontend::ParseDurationOrOff("--patience-first", args.Get("--patience-first")));
  }
  if (args.Has("--patience-gain")) {
    std::string pct = args.Get("--patience-gain");
    if (!pct.empty() && pct.back() == '%') pct.pop_back();
    GRAPH_ASSIGN_OR_RETURN(double gain, frontend::ParseNumberFromTo("--patience-gain", pct, 0, 50));
    o->patience_gain = gain / 100;
  }
  GRAPH_ASSIGN_OR_RETURN(const bool policy_first,
                         IsFirstOfTwo(args, "--order", "policy-first", "climb-first", "an order"));
  o->climb_first = !policy_first;
  GRAPH_ASSIGN_OR_RETURN(o->kicks_from_policy,
                         IsFirstOfTwo(args, "--kicks", "policy", "random", "a kind of kick"));
  GRAPH_ASSIGN_OR_RETURN(const int64_t starts,
                         args.GetInt("--climb-starts", o->climb_starts, 1, 8));
  o->climb_starts = static_cast<int>(starts);
  GRAPH_ASSIGN_OR_RETURN(o->focused_sweeps,
                         IsFirstOfTwo(args, "--sweeps", "focused", "full", "a kind of sweep"));
  GRAPH_ASSIGN_OR_RETURN(o->sibling_runs,
                         IsFirstOfTwo(args, "--units", "runs", "scopes", "a kind of unit"));
  GRAPH_ASSIGN_OR_RETURN(o->cutoff,
                         IsFirstOfTwo(args, "--cutoff", "on", "off", "a cutoff setting"));
  GRAPH_ASSIGN_OR_RETURN(const bool colocated, IsFirstOfTwo(args, "--gradients", "colocated",
                                                            "heavy", "a gradient placement"));
  o->gradients_apart_fraction = colocated ? 0 : planner::job::kHeavyGradientFraction;
  if (args.Has("--seed")) {
    GRAPH_ASSIGN_OR_RETURN(int64_t seed,
                           frontend::ParseIntInRange("--seed", args.Get("--seed"), 0, INT64_MAX));
    o->seed = static_cast<uint64_t>(seed);
  }
  if (args.Has("--steps")) {
    GRAPH_ASSIGN_OR_RETURN(int64_t steps,
                           frontend::ParseIntInRange("--steps", args.Get("--steps"), 1, 10000));
    o->steps = static_cast<int>(steps);
  }
  const std::string recalibrate = args.Get("--recalibrate", "on");
  if (recalibrate != "on" && recalibrate != "off") {
    return graph::InvalidArgument("--recalibrate: '" + recalibrate + "' is not on or off");
  }
  o->recalibrate = recalibrate == "on";
  if (args.Has("--baseline-rounds")) {
    GRAPH_ASSIGN_OR_RETURN(
        int64_t rounds,
        frontend::ParseIntInRange("--baseline-rounds", args.Get("--baseline-rounds"), 0, 100));
    o->baseline_rounds = static_cast<int>(rounds);
  }
  // Flags a simulated search would not use are refused, not silently ignored
  // (the verdict's --rounds do apply: on real devices it measures, at its own
  // 10 steps per placement).
  if (args.Has("--baseline-rounds") && o->reward == "sim") {
    return graph::InvalidArgument(
        "--baseline-rounds goes with measured rewards (--reward real, or a fleet's): with "
        "--reward sim nothing is measured before the climb");
  }
  if (args.Has("--steps") && o->reward == "sim") {
    return graph::InvalidArgument(
        "--steps goes with measured rewards (--reward real, or a fleet's): with --reward sim "
        "every placement is simulated");
  }
  if (args.Has("--recalibrate") && o->reward != "real") {
    return graph::InvalidArgument(
        "--recalibrate goes with --reward real: " +
        std::string(o->reward == "sim" ? "with --reward sim nothing is measured before the climb"
                                       : "a fleet's steps run on its workers, whose timelines do "
                                         "not come back to refit the climb's simulator"));
  }
  // The hill climb's own flags, with no climb to use them.
  if (o->refine_s == 0) {
    for (const char* flag :
         {"--kicks", "--climb-starts", "--sweeps", "--units", "--cutoff", "--recalibrate"}) {
      if (args.Has(flag)) {
        return graph::InvalidArgument(std::string(flag) +
                                      " goes with the hill climb, which --refine 0 turns off");
      }
    }
  }
  if (args.Has("--rounds")) {
    GRAPH_ASSIGN_OR_RETURN(int64_t rounds,
                           frontend::ParseIntInRange("--rounds", args.Get("--rounds"), 1, 1000));
    o->verdict.rounds = static_cast<int>(rounds);
  }
  o->ps.endpoint = args.Get("--ps");
  for (const char* flag : {"--ps-timeout", "--ps-key", "--ps-server-key"}) {
    if (args.Has(flag) && o->ps.endpoint.empty()) {
      return graph::InvalidArgument(std::string(flag) + " goes with --ps");
    }
  }
  if (args.Has("--ps-timeout")) {
    GRAPH_ASSIGN_OR_RETURN(
        o->ps.timeout_s, frontend::ParseDurationSeconds("--ps-timeout", args.Get("--ps-timeout")));
  }
  o->ps.key_file = args.Get("--ps-key");
  o->ps.server_key_file = args.Get("--ps-server-key");
  if (!o->ps.endpoint.empty())
    GRAPH_RETURN_IF_ERROR(controllers::CheckParameterServerAddress(o->ps));
  if (args.Has("--significance")) {
    GRAPH_ASSIGN_OR_RETURN(
        o->verdict.alpha,
        frontend::ParseNumberInRange("--significance", args.Get("--significance"), 0, 0.5));
  }
  return graph::Status::Ok();
}

// The paths: outputs checked writable before anything is loaded (the errors
// name the flag), the checkpoint defaulting to PLACEMENT.ckpt.
graph::Status ParsePaths(const frontend::Args& args, job::SearchJobOptions* o) {
  for (const char* flag :
       {"-o", "--csv", "--svg", "--export-graphdef", "--export-modules", "--checkpoint"}) {
    if (args.Has(flag)) GRAPH_RETURN_IF_ERROR(frontend::CheckOutputWritable(flag, args.Get(flag)));
  }
  o->model_path = args.positional()[0];
  o->devices_path = args.positional()[1];
  o->out_path = args.Get("-o");
  o->resume_path = args.Get("--resume");
  o->checkpoint_path = args.Get("--checkpoint");
  if (o->checkpoint_path.empty()) o->checkpoint_path = o->resume_path;
  if (o->checkpoint_path.empty() && !o->out_path.empty()) {
    o->checkpoint_path = o->out_path + ".ckpt";
  }
  // --checkpoint may be --resume's file (the default): it is written after it is read.
  const std::string checkpoint_flag = args.Has("--checkpoint") ? "--checkpoint"
                                      : o->resume_path.empty() ? "--checkpoint (-o's .ckpt)"
                                                               : "--checkpoint (--resume's file)";
  std::vector<std::pair<std::string, std::string>> inputs =
      frontend::ModelInputFiles(o->model_path);
  inputs.insert(inputs.end(), {{"the devices file", o->devices_path},
                               {"--profile's file", args.Get("--profile")},
                               {"--config's file", args.Get("--config")},
                               {"--fleet's file", args.Get("--fleet")}});
  GRAPH_RETURN_IF_ERROR(
      frontend::CheckDistinctFiles({{"-o", o->out_path},
                                    {checkpoint_flag, o->checkpoint_path},
                                    {"--csv", args.Get("--csv")},
                                    {"--svg", args.Get("--svg")},
                                    {"--export-graphdef", args.Get("--export-graphdef")},
                                    {"--export-modules", args.Get("--export-modules")}},
                                   inputs));
  o->csv_path = args.Get("--csv");
  o->svg_path = args.Get("--svg");
  o->export_graphdef_path = args.Get("--export-graphdef");
  o->export_modules_path = args.Get("--export-modules");
  o->profile_path = args.Get("--profile");
  o->profile_cache_dir = args.Get("--profile-cache");
  if (args.Has("--config")) {
    GRAPH_ASSIGN_OR_RETURN(o->search, search::ReadSearchConfig(args.Get("--config")));
  }
  return graph::Status::Ok();
}

// Flags only a measured run uses, refused where nothing is measured: a fleet
// whose workers simulate, and the verdict's flags with sim rewards on a sim
// device (the hardware's verdict runs where every device is real). A file
// that cannot be read is left to the job, which names it.
graph::Status CheckFlagsOfMeasurement(const frontend::Args& args, const job::SearchJobOptions& o) {
  if (o.reward == "fleet") {
    auto fleet = controllers::ReadFleetFile(o.fleet_path);
    if (!fleet.ok() || fleet->mode != "sim") return graph::Status::Ok();
    for (const char* flag : controllers::kMeasuredRunFlags) {
      if (args.Has(flag)) {
        return graph::InvalidArgument(std::string(flag) + " goes with measured rewards, and " +
                                      o.fleet_path + "'s workers simulate (mode: sim)");
      }
    }
  }
  if (o.reward != "sim" || !(args.Has("--rounds") || args.Has("--significance"))) {
    return graph::Status::Ok();
  }
  auto devices = cluster::LoadDevicesFile(o.devices_path);
  if (!devices.ok()) return graph::Status::Ok();
  for (const cluster::DeviceSpec& d : devices->devices) {
    if (d.kind != cluster::DeviceKind::kSim) continue;
    return graph::InvalidArgument(
        std::string(args.Has("--rounds") ? "--rounds" : "--significance") +
        " goes with the hardware's verdict, which runs where every device is real, and " +
        o.devices_path + "'s '" + d.name + "' is a sim device");
  }
  return graph::Status::Ok();
}

int Run(const frontend::Args& args) {
  job::SearchJobOptions options;
  if (graph::Status st = frontend::ParseTrainingFlags(args, &options.inference, &options.training);
      !st.ok())
    return frontend::UsageError(kSpec, st);
  if (graph::Status st = ParseSearchFlags(args, &options); !st.ok()) {
    return frontend::UsageError(kSpec, st);
  }
  if (graph::Status st = ParsePaths(args, &options); !st.ok())
    return frontend::CommandError(kSpec, st);
  // The rules between flags (climb-first's needs, the exports' with --gradients) are the job's.
  if (graph::Status st = job::CheckSearchJobOptions(options); !st.ok()) {
    return frontend::UsageError(kSpec, st);
  }
  if (graph::Status st = CheckFlagsOfMeasurement(args, options); !st.ok()) {
    return frontend::UsageError(kSpec, st);
  }
  job::SearchJobResult result;
  if (graph::Status st = job::RunSearchJob(options, &result); !st.ok())
    return frontend::CommandError(kSpec, st);
  return 0;
}

}  // namespace

int SearchCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

}  // namespace planner::cli
