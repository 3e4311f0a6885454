#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "runtime/profiler.h"

namespace planner::cli {

namespace {
const frontend::CommandSpec kSpec{
    "profile",
    "MODEL DEVICES -o PROFILE [--steps N] [--warmup W] [--warm-steps N] [--parallel-step on|off]\n"
    "       [--op-time steady-mean|mean|step-median] [--gpu-links step|copies] [--batch N]\n"
    "       [--optimizer sgd|momentum]\n"
    "       [--input-shape NAME=D0,...]",
    "Measures, on each real device of DEVICES, the time of every distinct op signature (type,\n"
    "input shapes, attributes) of MODEL's training step, forward and gradient, in rounds that\n"
    "interleave the devices; by default a step during which a device ran slow is left out and\n"
    "measured again (--op-time). Also fits each link between real devices as latency +\n"
    "bytes/bandwidth, and times the hand-off of an op between devices; the links between a\n"
    "cpu device and a GPU are refitted to the copies of a step split between them\n"
    "(--gpu-links). PROFILE is read first\n"
    "when it exists: signatures and links already in it are reused, not measured again\n"
    "(profiling a model twice costs nothing the second time), and it is written back\n"
    "atomically.\n"
    "Format: docs/file-formats.md.",
    {"MODEL", "DEVICES"},
    frontend::WithTrainingFlags(
        {{"-o", "PROFILE", "profile file to extend (required)"},
         {"--steps", "N", "timed steps kept per device (default 7)"},
         {"--warmup", "W", "untimed steps first (default 2)"},
         {"--warm-steps", "N",
          "untimed steps a cpu device runs just before each timed one, so that it finds its data "
          "in the core's caches as consecutive training steps do (default 0: each timed step "
          "follows the other devices' steps, cold; docs/simulator.md)"},
         {"--parallel-step", "on|off",
          "also time, each round, a step with a whole copy of the graph on each of the first two "
          "cpu devices at once, so that coarse splits get the sharing figures of independent "
          "streams; holds two copies of the model at once (default off; docs/simulator.md)"},
         {"--op-time", "NAME",
          "steady-mean (default: the mean over the steps in which the device ran under 10% slow; "
          "slow ones are measured again), mean (over every step) or step-median (each step's mean, "
          "the median over every step)"},
         {"--gpu-links", "HOW",
          "step (default: the links between the first cpu device and the first GPU refitted to "
          "the copies of a step with ops alternating between them) or copies (fitted to copies "
          "of one tensor alone)"}})};

int Run(const frontend::Args& args) {
  if (args.Get("-o").empty()) return frontend::UsageError(kSpec, "-o PROFILE is required");
  runtime::ProfileOptions options;
  graph::InferenceOptions inference;
  graph::TrainingOptions training;
  if (graph::Status st = frontend::ParseTrainingFlags(args, &inference, &training); !st.ok())
    return frontend::UsageError(kSpec, st);
  if (graph::Status st = ParseStepFlags(args, 100000, &options.steps, &options.warmup); !st.ok()) {
    return frontend::UsageError(kSpec, st);
  }
  auto warm = args.GetInt("--warm-steps", options.warm_steps, 0, 100);
  if (!warm.ok()) return frontend::UsageError(kSpec, warm.status());
  options.warm_steps = static_cast<int>(*warm);
  if (args.Has("--parallel-step")) {
    const std::string v = args.Get("--parallel-step");
    if (v != "on" && v != "off") {
      return frontend::UsageError(kSpec, "--parallel-step must be on or off, not '" + v + "'");
    }
    options.parallel_step = v == "on";
  }
  if (args.Has("--op-time") && !runtime::ParseOpTime(args.Get("--op-time"), &options.op_time)) {
    return frontend::UsageError(kSpec, "--op-time must be steady-mean, mean or step-median, not '" +
                                           args.Get("--op-time") + "'");
  }
  if (args.Has("--gpu-links") &&
      !runtime::ParseGpuLinks(args.Get("--gpu-links"), &options.gpu_links)) {
    return frontend::UsageError(
        kSpec, "--gpu-links must be step or copies, not '" + args.Get("--gpu-links") + "'");
  }
  const std::string out = args.Get("-o");
  // Checked before the measurements, not after them (the profile given is
  // extended: an input of its own, but not the model or the devices file).
  if (graph::Status st = frontend::CheckOutputsBeforeWork({{"-o", out}}, args.positional()[0],
                                                          args.positional()[1]);
      !st.ok())
    return frontend::CommandError(kSpec, st);
  auto setup = frontend::LoadPlacedTraining(args.positional()[0], args.positional()[1], "",
                                            inference, training);
  if (!setup.ok()) return frontend::CommandError(kSpec, setup.status());
  sim::Profile profile;
  auto existing = sim::ReadProfile(out);
  if (existing.ok()) {
    profile = std::move(existing).value();
  } else if (existing.status().code() != graph::StatusCode::kNotFound) {
    return frontend::CommandError(kSpec, existing.status());
  }
  runtime::ProfileReport report;
  graph::Status st = runtime::ProfileGraph(setup->training.graph, setup->training.loss,
                                           setup->cluster, options, &profile, &report);
  if (!st.ok()) return frontend::CommandError(kSpec, st);
  st = sim::WriteProfile(out, profile);
  if (!st.ok()) return frontend::CommandError(kSpec, st);
  std::string measured, reused;
  for (const std::string& d : report.measured) measured += (measured.empty() ? "" : ", ") + d;
  for (const std::string& d : report.reused) reused += (reused.empty() ? "" : ", ") + d;
  for (const std::string& d : report.redefined) {
    std::printf("%s: %s: another device by that name, measured anew\n", out.c_str(), d.c_str());
  }
  std::printf("%s: %d op signatures; measured on: %s; already profiled on: %s; %d new entries\n",
              args.positional()[0].c_str(), report.signatures,
              measured.empty() ? "none" : measured.c_str(),
              reused.empty() ? "none" : reused.c_str(), report.new_signatures);
  for (const auto& [pair, link] : profile.links) {
    std::printf("  link %s -> %s: latency %.2f us, bandwidth %.3g GB/s", pair.first.c_str(),
                pair.second.c_str(), link.latency_s * 1e6, link.bandwidth_bytes_per_s / 1e9);
    auto first = report.first_gpu_links.find(pair);
    if (first != report.first_gpu_links.end()) {
      std::printf(" (a split step's %d copies; copies of one tensor alone: %.2f us, %.3g GB/s)",
                  link.samples, first->second.latency_s * 1e6,
                  first->second.bandwidth_bytes_per_s / 1e9);
    }
    std::printf("\n");
  }
  for (const auto& [device, s] : profile.dispatch_s) {
    std::printf("  %s: executor time per op outside kernels %.2f us", device.c_str(), s * 1e6);
    for (auto [what, figures] :
         {std::pair{"slowdown while the other cpus run", &profile.slowdown}}) {
      auto it = figures->find(device);
      if (it != figures->end()) std::printf("; %s x%.3f", what, it->second);
    }
    for (auto [what, figures] : {std::pair{"in a split step, more per cross-device edge per op",
                                           &profile.dispatch_cross_s},
                                 std::pair{"handed an op: polling", &profile.poll_s},
                                 std::pair{"asleep", &profile.wakeup_s},
                                 std::pair{"waking it costs the hander", &profile.notify_s}}) {
      auto it = figures->find(device);
      if (it != figures->end()) std::printf("; %s %.1f us", what, it->second * 1e6);
    }
    std::printf("\n");
    auto cold = profile.cold_s.find(device);
    if (cold != profile.cold_s.end()) {
      std::printf("  %s: a kernel in a split step takes more after its device idled:%s\n",
                  device.c_str(), sim::DescribeColdBins(cold->second).c_str());
    }
    auto par = profile.parallel_slowdown.find(device);
    auto par_cold = profile.parallel_cold_s.find(device);
    auto at = profile.shared_cross.find(device);
    if (par != profile.parallel_slowdown.end() && at != profile.shared_cross.end()) {
      std::printf(
          "  %s: the above at %.2f cross-device edges per op; with a copy of the graph on each cpu "
          "(none): slowdown x%.3f, after idling:%s\n",
          device.c_str(), at->second, par->second,
          par_cold == profile.parallel_cold_s.end()
              ? " none"
              : sim::DescribeColdBins(par_cold->second).c_str());
    }
  }
  for (const runtime::DeviceProfileReport& d : report.devices) {
    std::printf(options.op_time == runtime::OpTime::kSteadyMean
                    ? "  %s: %d steps kept, %d left out because the device ran over %.0f%% slow; "
                    : "  %s: %d steps, %d of them with the device over %.0f%% slow; ",
                d.device.c_str(), d.kept_steps, d.slow_steps, options.slow_tolerance * 100);
    std::printf("op times spread %.1f%% (median absolute deviation); %.3fx the op times of %s\n",
                d.median_spread * 100, d.relative_speed, report.devices.front().device.c_str());
  }
  std::string unmeasured;
  for (const std::string& d : report.parallel_unmeasured) {
    unmeasured += (unmeasured.empty() ? "" : ", ") + d;
  }
  if (!unmeasured.empty()) {
    std::printf(
        "  %s: the copies of the graph seldom ran at once (a busy host?): no figures of the "
        "parallel step; the simulator takes the alternating step's\n",
        unmeasured.c_str());
  }
  std::printf("wrote %s (%d link(s) measured now)\n", out.c_str(), report.links_measured);
  return 0;
}

}  // namespace

int ProfileCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

}  // namespace planner::cli
