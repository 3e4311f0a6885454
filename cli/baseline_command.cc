// `planner baseline`: the simple placements a search is judged against, each
// through the same reward source as the search, and written as placement files.
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "planner/job/baseline_job.h"
#include "planner/sources/registry.h"

namespace planner::cli {

namespace {

const frontend::CommandSpec kSpec{
    "baseline",
    "MODEL DEVICES [--method NAME] [-o PLACEMENT] [--reward sim|real] [--profile PROFILE]\n"
    "       [--profile-cache DIR] [--export-graphdef PLACED.pb] [--export-modules MODULES.yaml]\n"
    "       [--steps N] [--baseline-rounds N] [--batch N] "
    "[--input-shape NAME=D0,...]\n"
    "       [--optimizer sgd|momentum]",
    "Places MODEL on DEVICES by a simple rule and prints its training step time from the\n"
    "simulator (--reward sim, the default) or measured on the real devices (--reward real).\n"
    "Methods: single:DEVICE (every op on DEVICE), expert (a layer per GPU for recurrent\n"
    "models, one GPU otherwise), etf (earliest-task-first list scheduling on the simulator's\n"
    "op and transfer costs, memory-aware), msct (Baechi's m-SCT: etf with favourite children\n"
    "from a linear program, solved by GLPK's primal simplex), metis (METIS's min-cut\n"
    "partition over the GPUs), scotch (Scotch's static mapping onto every device, weighted\n"
    "by speed) and all (each of them; the default). msct:dual solves m-SCT's program by the\n"
    "dual simplex: faster on large models, and another of its optima, so another placement\n"
    "(not in all). -o writes the method's placement, with all the fastest one's. With\n"
    "--reward real the three fastest are measured again and the fastest median decides.\n"
    "SIGINT or SIGTERM ends it early: once a baseline has run, the fastest of those run is\n"
    "written, and the ones not run are named.",
    {"MODEL", "DEVICES"},
    frontend::WithTrainingFlags(
        {{"--method", "NAME",
          "single:DEVICE, expert, etf, msct, msct:dual, metis, scotch or all (default all)"},
         {"-o", "PLACEMENT", "write the placement (YAML)"},
         {"--reward", "NAME", "sim (default) or real"},
         PlanningProfileFlag(),
         ProfileCacheFlag(),
         {"--export-graphdef", "FILE", "write MODEL with TensorFlow device strings of it"},
         {"--export-modules", "FILE",
          "write the device of each PyTorch module (a model exported by torch.onnx.export)"},
         {"--steps", "N", "timed steps per placement with --reward real (default 5)"},
         {"--baseline-rounds", "N",
          "--reward real: rounds measuring the three fastest again, each keeping the median of "
          "its measurements (default 3; 0: one measurement each)"}})};

int Run(const frontend::Args& args) {
  job::BaselineJobOptions o;
  if (graph::Status st = frontend::ParseTrainingFlags(args, &o.inference, &o.training); !st.ok())
    return frontend::UsageError(kSpec, st);
  o.reward = args.Get("--reward", "sim");
  // A fleet evaluates a search's placements (planner search --reward fleet), not these.
  if (o.reward != "sim" && o.reward != "real") {
    return frontend::UsageError(kSpec, "--reward must be sim or real, not '" + o.reward + "'");
  }
  if (args.Has("--steps")) {
    auto v = frontend::ParseIntInRange("--steps", args.Get("--steps"), 1, 10000);
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    o.steps = static_cast<int>(*v);
  }
  if (args.Has("--baseline-rounds")) {
    auto v = frontend::ParseIntInRange("--baseline-rounds", args.Get("--baseline-rounds"), 0, 100);
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    o.rounds = static_cast<int>(*v);
  }
  // Flags the run would not use are refused, not silently ignored.
  for (const char* flag : {"--steps", "--baseline-rounds"}) {
    if (args.Has(flag) && o.reward == "sim") {
      return frontend::UsageError(kSpec, std::string(flag) +
                                             " goes with --reward real: with --reward sim every "
                                             "placement is simulated");
    }
  }
  if (args.Has("--baseline-rounds") && args.Get("--method", "all") != "all") {
    return frontend::UsageError(kSpec,
                                "--baseline-rounds goes with --method all: the rounds measure "
                                "the fastest methods' placements again against each other");
  }
  if (graph::Status st = CheckProfileFlags(args); !st.ok()) {
    return frontend::UsageError(kSpec, st);
  }
  o.model_path = args.positional()[0];
  o.devices_path = args.positional()[1];
  if (graph::Status st = frontend::CheckOutputsBeforeWork(
          {{"-o", args.Get("-o")},
           {"--export-graphdef", args.Get("--export-graphdef")},
           {"--export-modules", args.Get("--export-modules")}},
          o.model_path, o.devices_path, {{"--profile's file", args.Get("--profile")}});
      !st.ok())
    return frontend::CommandError(kSpec, st);
  o.method = args.Get("--method", "all");
  o.profile_path = args.Get("--profile");
  o.profile_cache_dir = args.Get("--profile-cache");
  o.out_path = args.Get("-o");
  o.export_graphdef_path = args.Get("--export-graphdef");
  o.export_modules_path = args.Get("--export-modules");
  job::BaselineJobResult result;
  if (graph::Status st = job::RunBaselineJob(o, &result); !st.ok()) {
    return result.unknown_method ? frontend::UsageError(kSpec, st)
                                 : frontend::CommandError(kSpec, st);
  }
  return 0;
}

}  // namespace

int BaselineCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

}  // namespace planner::cli
