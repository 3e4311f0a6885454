#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <tuple>

#include "cli/commands.h"
#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "graph/file_util.h"
#include "runtime/executor.h"
#include "runtime/measure.h"
#include "sim/simulator.h"
#include "sim/timeline.h"
#include "sim/timeline_diff.h"

namespace planner::cli {

namespace {
const frontend::CommandSpec kSpec{
    "simulate",
    "MODEL DEVICES [--placement P] [--profile PROFILE] [--check] [--diff] [--trace OUT.json]\n"
    "       [--batch N] [--input-shape NAME=D0,...] [--optimizer sgd|momentum] [--steps N]",
    "Predicts the training step of MODEL placed on DEVICES: step time, each device's busy\n"
    "time and peak memory, transfers, and out-of-memory. Op times come from PROFILE (planner\n"
    "profile) where it has them, else from a roofline estimate on the device's figures (the\n"
    "count of estimated ops is printed). --check also measures the placement on the real\n"
    "devices (planner measure) and prints the simulator's error; --diff also sets the\n"
    "median measured step's timeline against the simulated one, op by op, and prints where\n"
    "they part: each device's kernels, copies, dispatch, hand-offs and waiting, the op types\n"
    "and ops that differ most, and the first op that starts out of step. Without\n"
    "--placement every op is on the first device.",
    {"MODEL", "DEVICES"},
    frontend::WithTrainingFlags(
        {{"--placement", "P", "placement file (default: every op on the first device)"},
         {"--profile", "PROFILE", "profiled op and link costs (planner profile)"},
         {"--check", "", "also measure on the real devices and print the error"},
         {"--diff", "",
          "--check, and print where the simulated timeline departs from the measured one"},
         {"--trace", "OUT", "write the predicted timeline as Chrome trace JSON"},
         {"--steps", "N", "timed steps of --check (default 10)"}})};

int Run(const frontend::Args& args) {
  graph::InferenceOptions inference;
  graph::TrainingOptions training;
  if (graph::Status st = frontend::ParseTrainingFlags(args, &inference, &training); !st.ok())
    return frontend::UsageError(kSpec, st);
  runtime::MeasureOptions measure;
  auto steps = args.GetInt("--steps", measure.steps, 1, 1000000);
  if (!steps.ok()) return frontend::UsageError(kSpec, steps.status());
  measure.steps = static_cast<int>(*steps);
  if (args.Has("--steps") && !args.Has("--check") && !args.Has("--diff")) {
    return frontend::UsageError(kSpec, "--steps counts --check's measured steps: give --check");
  }
  const std::string& model_path = args.positional()[0];
  if (graph::Status st = frontend::CheckOutputsBeforeWork(
          {{"--trace", args.Get("--trace")}}, model_path, args.positional()[1],
          {{"--placement's file", args.Get("--placement")},
           {"--profile's file", args.Get("--profile")}});
      !st.ok())
    return frontend::CommandError(kSpec, st);
  auto setup = frontend::LoadPlacedTraining(model_path, args.positional()[1],
                                            args.Get("--placement"), inference, training);
  if (!setup.ok()) return frontend::CommandError(kSpec, setup.status());
  auto profile = ProfileFlag(args, setup->cluster);
  if (!profile.ok()) return frontend::CommandError(kSpec, profile.status());
  const graph::Graph& g = setup->training.graph;
  const cluster::Cluster& c = setup->cluster;
  // --check measures before simulating: the measurement then runs in the same
  // state as planner measure's, untouched by the simulator's work.
  std::optional<double> real;
  int real_steps = 0;
  sim::StepStats real_step;  // the median measured step, for --diff
  const bool diff = args.Has("--diff");
  if (args.Has("--check") || diff) {
    auto ex = runtime::Executor::Create(g, c, setup->device_of_node);
    if (!ex.ok()) {
      return frontend::CommandError(kSpec, ex.status().WithContext(model_path));
    }
    auto m = runtime::Measure(**ex, g, setup->training.loss, measure);
    if (!m.ok()) {
      return frontend::CommandError(kSpec, m.status().WithContext(model_path));
    }
    real = m->time.robust_mean_s;
    real_steps = m->time.n;
    real_step = std::move(m->median_step);
  }
  auto sim = sim::Simulator::Create(g, c, *profile ? &**profile : nullptr);
  if (!sim.ok()) return frontend::CommandError(kSpec, sim.status().WithContext(model_path));
  sim::SimResult r = sim->Run(setup->device_of_node, g.Find(setup->training.loss));
  std::printf("%s on %s: training graph of %d nodes, placement %s\n", model_path.c_str(),
              c.source.c_str(), g.size(), setup->method.c_str());
  for (const std::string& note : {frontend::BatchNote(setup->model), setup->placement_note}) {
    if (!note.empty()) std::printf("%s\n", note.c_str());
  }
  if (r.status.code() == graph::StatusCode::kOutOfMemory) {
    std::printf("simulated: out of memory: %s\n", r.status.message().c_str());
    return 0;  // a prediction, not a failure of the command
  }
  if (!r.status.ok()) return frontend::CommandError(kSpec, r.status);
  int scheduled = static_cast<int>(r.step.ops.size());
  if (r.estimated_ops >= scheduled) {
    std::printf("simulated step time: %.3f ms (all %d ops estimated, none profiled)\n",
                r.step.seconds * 1e3, scheduled);
  } else {
    std::printf("simulated step time: %.3f ms (%d of %d ops estimated, the rest profiled)\n",
                r.step.seconds * 1e3, r.estimated_ops, scheduled);
  }
  const double chain_s = sim->DependencyBoundSeconds(), work_s = sim->WorkBoundSeconds();
  std::printf(
      "lower bound: %.3f ms, no placement on these devices is faster (dependency chain %.3f ms: "
      "the longest chain of ops, each at its fastest device's time; work %.3f ms: the busiest "
      "device in the best split of divisible work)\n",
      std::max(chain_s, work_s) * 1e3, chain_s * 1e3, work_s * 1e3);
  std::vector<int> ops_on(c.devices.size(), 0);
  for (int d : setup->device_of_node) ++ops_on[d];
  std::printf("  %-12s %-5s %7s %10s %14s %14s\n", "device", "kind", "ops", "busy ms",
              "peak memory", "capacity");
  for (size_t d = 0; d < c.devices.size(); ++d) {
    const cluster::DeviceSpec& spec = c.devices[d];
    std::printf("  %-12s %-5s %7d %10.3f %14s %14s\n", spec.name.c_str(),
                cluster::DeviceKindName(spec.kind), ops_on[d], r.step.busy_us[d] / 1e3,
                frontend::FormatMib(r.step.peak_bytes[d]).c_str(),
                spec.memory_bytes ? frontend::FormatMib(*spec.memory_bytes).c_str() : "-");
  }
  int64_t transfer_bytes = 0;
  for (const sim::TransferRecord& t : r.step.transfers) transfer_bytes += t.bytes;
  std::printf("transfers per step: %zu, %s\n", r.step.transfers.size(),
              frontend::FormatMib(transfer_bytes).c_str());
  std::printf("%s\n", sim::CriticalPathSummary(c, sim::CriticalPath(sim->graph(), r.step)).c_str());
  if (args.Has("--trace")) {
    graph::Status st =
        graph::WriteFileAtomic(args.Get("--trace"), sim::ChromeTrace(sim->graph(), c, r.step));
    if (!st.ok()) return frontend::CommandError(kSpec, st);
    std::printf("trace: %s\n", args.Get("--trace").c_str());
  }
  if (real) {
    std::printf("measured step time: %.3f ms (robust mean of %d steps); simulator error %+.1f%%\n",
                *real * 1e3, real_steps, 100 * (r.step.seconds - *real) / *real);
  }
  if (diff) {
    std::printf("%s", sim::FormatTimelineDiff(
                          sim->graph(), c, sim::DiffTimelines(sim->graph(), c, real_step, r.step))
                          .c_str());
  }
  return 0;
}

}  // namespace

int SimulateCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

}  // namespace planner::cli
