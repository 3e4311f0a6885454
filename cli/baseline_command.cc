// `planner baseline`: the simple placements a search is judged against, each
// through the same reward source as the search, and written as placement files.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "planner/args.h"
#include "planner/baselines.h"
#include "planner/model_loading.h"
#include "planner/module_placement.h"
#include "planner/placement.h"
#include "planner/reward.h"
#include "runtime/profile.h"
#include "runtime/simulator.h"

namespace planner::cli {

namespace {

const CommandSpec kSpec{
    "baseline",
    "MODEL DEVICES [--method NAME] [-o PLACEMENT] [--reward sim|real] [--profile PROFILE]\n"
    "       [--profile-cache DIR] [--export-graphdef PLACED.pb] [--export-modules MODULES.yaml]\n"
    "       [--steps N] [--batch N] "
    "[--input-shape NAME=D0,...]\n"
    "       [--optimizer sgd|momentum]",
    "Places MODEL on DEVICES by a simple rule and prints its training step time from the\n"
    "simulator (--reward sim, the default) or measured on the real devices (--reward real).\n"
    "Methods: single:DEVICE (every op on DEVICE), expert (a layer per GPU for recurrent\n"
    "models, one GPU otherwise), etf (earliest-task-first list scheduling on the simulator's\n"
    "op and transfer costs, memory-aware), metis (METIS's min-cut partition over the GPUs),\n"
    "scotch (Scotch's static mapping onto every device, weighted by speed) and all (each of\n"
    "them; the default). -o writes the method's placement, with all the\n"
    "fastest one's.",
    {"MODEL", "DEVICES"},
    {{"--method", "NAME", "single:DEVICE, expert, etf, metis, scotch or all (default all)"},
     {"-o", "PLACEMENT", "write the placement (YAML)"},
     {"--reward", "NAME", "sim (default) or real"},
     {"--profile", "PROFILE",
      "op and link costs for the simulator, etf, metis and scotch (default: real devices are "
      "profiled into the cache)"},
     ProfileCacheFlag(),
     {"--export-graphdef", "FILE", "write MODEL with TensorFlow device strings of it"},
     {"--export-modules", "FILE",
      "write the device of each PyTorch module (a model exported by torch.onnx.export)"},
     {"--steps", "N", "timed steps per placement with --reward real (default 5)"},
     BatchFlag(),
     InputShapeFlag(),
     {"--optimizer", "NAME", "sgd (default) or momentum"}}};

constexpr char kName[] = "planner baseline: ";

int Fail(const graph::Status& st) { return ReportError(kName, st); }

}  // namespace

int BaselineCommand(int argc, char** argv) {
  int exit_code = 0;
  std::optional<Args> args = ParseCommandLine(kSpec, argc, argv, &exit_code);
  if (!args) return exit_code;
  auto usage = [](const graph::Status& st) {
    return std::cerr << kName << st.message() << "\n", 2;
  };
  graph::InferenceOptions inference;
  graph::TrainingOptions training;
  if (!ParseTrainingFlags(*args, kName, &inference, &training)) return 2;
  const std::string reward_name = args->Get("--reward", "sim");
  if (graph::Status st = CheckRewardName(reward_name); !st.ok()) return usage(st);
  int steps = 5;
  if (args->Has("--steps")) {
    auto v = ParseIntInRange("--steps", args->Get("--steps"), 1, 10000);
    if (!v.ok()) return usage(v.status());
    steps = static_cast<int>(*v);
  }
  for (const char* flag : {"-o", "--export-graphdef", "--export-modules"}) {
    if (args->Has(flag)) {
      if (graph::Status st = CheckOutputWritable(flag, args->Get(flag)); !st.ok()) return Fail(st);
    }
  }
  const std::string model_path = args->positional()[0];
  const std::string devices_path = args->positional()[1];
  auto setup = LoadPlacedTraining(model_path, devices_path, "", inference, training);
  if (!setup.ok()) return Fail(setup.status());
  const graph::Graph& forward = setup->model.graph;
  const cluster::Cluster& c = setup->cluster;

  const std::string method = args->Get("--method", "all");
  std::vector<std::string> methods = BaselineMethods(c);
  if (method != "all") {
    // An unknown name fails here, before the reward source's work.
    if (std::find(methods.begin(), methods.end(), method) == methods.end()) {
      return usage(MakeBaseline(method, forward, c, nullptr).status());
    }
    methods = {method};
  }

  auto profile = ProfileForDevices(*args, *setup);
  if (!profile.ok()) return Fail(profile.status());
  const runtime::Profile* profile_ptr = *profile ? &**profile : nullptr;
  RewardContext context{&forward, &setup->training, &c, profile_ptr, 2, steps};
  auto reward = MakeRewardSource(reward_name, context);
  if (!reward.ok()) return Fail(reward.status());
  std::optional<runtime::Simulator> own_costs;
  auto costs = PlanningCosts(**reward, context, &own_costs);
  if (!costs.ok()) return Fail(costs.status());

  std::printf("%s on %s: %d ops to place (training graph of %d nodes), reward %s\n",
              model_path.c_str(), devices_path.c_str(), forward.size(),
              setup->training.graph.size(), reward_name.c_str());
  std::optional<BaselinePlacement> best;
  double best_s = 0;
  graph::Status first_failure = graph::Status::Ok();
  for (const std::string& m : methods) {
    auto b = MakeBaseline(m, forward, c, *costs);
    if (!b.ok()) {
      std::printf("  %-16s skipped: %s\n", m.c_str(), b.status().message().c_str());
      if (first_failure.ok()) first_failure = b.status();
      continue;
    }
    Evaluation e = (*reward)->Evaluate(b->device_of_node);
    std::printf("%s\n", DescribeBaseline(*b, e).c_str());
    std::fflush(stdout);
    if (!e.status.ok()) {
      if (first_failure.ok()) first_failure = e.status;
      continue;
    }
    if (!best || e.step_s < best_s) {
      best = std::move(b).value();
      best_s = e.step_s;
    }
  }
  if (!best) {
    return Fail(graph::Status(first_failure.code(), model_path + " on " + devices_path +
                                                        ": no baseline ran (" +
                                                        first_failure.message() + ")"));
  }
  if (methods.size() > 1) {
    std::printf("best: %s, %s\n", best->method.c_str(), FormatMs(best_s).c_str());
  }
  if (args->Has("-o")) {
    Placement p = MakePlacement(model_path, forward, ModelDigest(forward), devices_path, c,
                                "baseline " + best->method, best->device_of_node);
    (reward_name == "sim" ? p.simulated_step_s : p.measured_step_s) = best_s;
    if (graph::Status st = WritePlacement(args->Get("-o"), p); !st.ok()) return Fail(st);
    std::printf("placement: %s\n", args->Get("-o").c_str());
  }
  if (args->Has("--export-graphdef")) {
    graph::Status st =
        WritePlacedGraphDef(args->Get("--export-graphdef"), forward, c, best->device_of_node);
    if (!st.ok()) return Fail(st);
    std::printf("graphdef: %s\n", args->Get("--export-graphdef").c_str());
  }
  if (args->Has("--export-modules")) {
    const std::string& path = args->Get("--export-modules");
    auto modules = ExportModules(path, forward, c, best->device_of_node, model_path, devices_path,
                                 "baseline " + best->method);
    if (!modules.ok()) return Fail(modules.status());
    std::printf("modules: %s (%zu modules)\n", path.c_str(), *modules);
  }
  return 0;
}

}  // namespace planner::cli
