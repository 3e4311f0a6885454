#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "graph/file_util.h"
#include "graph/summary.h"
#include "graph/training.h"
#include "placement/placement.h"
#include "runtime/executor.h"
#include "runtime/measure.h"
#include "sim/timeline.h"

namespace planner::cli {

namespace {
const frontend::CommandSpec kSpec{
    "measure",
    "MODEL DEVICES [--placement P] [--steps N] [--warmup W] [--trace OUT.json] [--batch N]\n"
    "       [--input-shape NAME=D0,...] [--optimizer sgd|momentum] [--json]",
    "Runs training steps (forward, backward, update) of MODEL placed on the devices of\n"
    "DEVICES with the dataflow executor, and prints the step time (robust mean and\n"
    "min/median/max of the timed steps), each device's busy time and peak memory, and\n"
    "the transfers. The placement covers the model's ops; gradient and update ops follow\n"
    "the op or parameter they belong to. Feeds are random (floats in [0, 1), integers 0).",
    {"MODEL", "DEVICES"},
    frontend::WithTrainingFlags(
        {{"--placement", "P", "placement file (default: every op on the first device)"},
         {"--steps", "N", "timed steps (default 10)"},
         {"--warmup", "W", "untimed steps before them (default 2)"},
         {"--trace", "OUT", "write the median step's timeline as Chrome trace JSON"},
         {"--json", "", "print the figures as one JSON object"}})};

int Run(const frontend::Args& args) {
  const std::string& model_path = args.positional()[0];
  const std::string& devices_path = args.positional()[1];
  if (graph::Status st = frontend::CheckOutputsBeforeWork(
          {{"--trace", args.Get("--trace")}}, model_path, devices_path,
          {{"--placement's file", args.Get("--placement")}});
      !st.ok())
    return frontend::CommandError(kSpec, st);
  runtime::MeasureOptions options;
  graph::InferenceOptions inference;
  graph::TrainingOptions training_options;
  if (graph::Status st = frontend::ParseTrainingFlags(args, &inference, &training_options);
      !st.ok())
    return frontend::UsageError(kSpec, st);
  if (graph::Status st = ParseStepFlags(args, 1000000, &options.steps, &options.warmup); !st.ok()) {
    return frontend::UsageError(kSpec, st);
  }
  auto setup = frontend::LoadPlacedTraining(model_path, devices_path, args.Get("--placement"),
                                            inference, training_options);
  if (!setup.ok()) return frontend::CommandError(kSpec, setup.status());
  const cluster::Cluster* cluster = &setup->cluster;
  const graph::Graph& forward = setup->model.graph;
  const graph::TrainingGraph* training = &setup->training;
  const graph::Graph& g = training->graph;
  const std::vector<int>& device_of_node = setup->device_of_node;
  const std::string& method = setup->method;
  auto ex = runtime::Executor::Create(g, *cluster, device_of_node);
  if (!ex.ok()) return frontend::CommandError(kSpec, ex.status().WithContext(model_path));
  auto m = runtime::Measure(**ex, g, training->loss, options);
  if (!m.ok()) return frontend::CommandError(kSpec, m.status().WithContext(model_path));

  if (args.Has("--trace")) {
    const std::string path = args.Get("--trace");
    graph::Status st =
        graph::WriteFileAtomic(path, sim::ChromeTrace((*ex)->graph(), *cluster, m->median_step));
    if (!st.ok()) return frontend::CommandError(kSpec, st);
  }
  std::vector<int> ops_on(cluster->devices.size(), 0);
  for (int d : device_of_node) ++ops_on[d];
  const runtime::StepTimeStats& t = m->time;
  if (args.Has("--json")) {
    std::printf(
        "{\"model\":%s,\"devices\":%s,\"placement\":%s,\"training_nodes\":%d,\"forward_nodes\":%d,"
        "\"steps\":%d,\"warmup\":%d,\"outliers\":%d,\"robust_mean_s\":%.9g,\"min_s\":%.9g,"
        "\"median_s\":%.9g,\"max_s\":%.9g,\"transfers\":%d,\"transfer_bytes\":%lld,"
        "\"cuda_graph_replays\":%s,\"per_device\":[",
        graph::JsonQuote(model_path).c_str(), graph::JsonQuote(devices_path).c_str(),
        graph::JsonQuote(method).c_str(), g.size(), forward.size(), t.n, options.warmup, t.outliers,
        t.robust_mean_s, t.min_s, t.median_s, t.max_s, m->transfers,
        static_cast<long long>(m->transfer_bytes), m->median_step.replayed ? "true" : "false");
    for (size_t d = 0; d < cluster->devices.size(); ++d) {
      std::printf(
          "%s{\"name\":%s,\"ops\":%d,\"busy_s\":%.9g,\"peak_bytes\":%lld,"
          "\"allocator_peak_bytes\":%lld}",
          d ? "," : "", graph::JsonQuote(cluster->devices[d].name).c_str(), ops_on[d], m->busy_s[d],
          static_cast<long long>(m->peak_bytes[d]),
          static_cast<long long>(m->allocator_peak_bytes[d]));
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("%s on %s: training graph of %d nodes (%d forward), placement %s\n",
              model_path.c_str(), devices_path.c_str(), g.size(), forward.size(), method.c_str());
  for (const std::string& note : {frontend::BatchNote(setup->model), setup->placement_note}) {
    if (!note.empty()) std::printf("%s\n", note.c_str());
  }
  std::printf(
      "step time: robust mean %.3f ms over %d steps (%d outlier%s left out), min %.3f, median "
      "%.3f, max %.3f ms; %d warm-up step%s\n",
      t.robust_mean_s * 1e3, t.n, t.outliers, t.outliers == 1 ? "" : "s", t.min_s * 1e3,
      t.median_s * 1e3, t.max_s * 1e3, options.warmup, options.warmup == 1 ? "" : "s");
  std::printf("  %-12s %-5s %7s %10s %7s %14s %14s\n", "device", "kind", "ops", "busy ms", "busy %",
              "peak memory", "capacity");
  for (size_t d = 0; d < cluster->devices.size(); ++d) {
    const cluster::DeviceSpec& spec = cluster->devices[d];
    std::printf("  %-12s %-5s %7d %10.3f %6.1f%% %14s %14s\n", spec.name.c_str(),
                cluster::DeviceKindName(spec.kind), ops_on[d], m->busy_s[d] * 1e3,
                100 * m->busy_s[d] / t.robust_mean_s, frontend::FormatMib(m->peak_bytes[d]).c_str(),
                spec.memory_bytes ? frontend::FormatMib(*spec.memory_bytes).c_str() : "-");
  }
  for (size_t d = 0; d < cluster->devices.size(); ++d) {
    if (m->allocator_peak_bytes[d] < 0) continue;
    std::printf("  %s's allocator held at most %s (tensors, its cache and workspaces)\n",
                cluster->devices[d].name.c_str(),
                frontend::FormatMib(m->allocator_peak_bytes[d]).c_str());
  }
  if (!(*ex)->graph_note().empty()) std::printf("%s\n", (*ex)->graph_note().c_str());
  if (m->median_step.replayed) {
    std::printf(
        "the timed steps replayed a CUDA graph captured in a warm-up step: no per-op timeline "
        "(set graphs: off in DEVICES for one)\n");
  } else {
    std::printf("transfers per step: %d, %s\n", m->transfers,
                frontend::FormatMib(m->transfer_bytes).c_str());
    std::printf(
        "median step's %s\n",
        sim::CriticalPathSummary(*cluster, sim::CriticalPath((*ex)->graph(), m->median_step))
            .c_str());
  }
  if (args.Has("--trace")) std::printf("trace: %s\n", args.Get("--trace").c_str());
  return 0;
}

}  // namespace

int MeasureCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

}  // namespace planner::cli
