// How much two profiles of the same devices, taken minutes apart, disagree: for
// every TF.js model of models/tfjs, `planner profile`'s measurement
// (runtime::ProfileGraph, default options; --op-time picks runtime::OpTime) on
// the local two-CPU machine, once
// for all models and then again for all, each into an empty profile; then the
// step each profile predicts for the same placements (every op on cpu0, and
// the etf split planned on the first profile), and how far the two profiles'
// op times lie apart. Prints each model's figures and the median over models.
//
// The machine's own speed at each profile: a fixed reference (a 128 x 128
// matrix product and a pass over 4 MiB, single-threaded on core 0), timed
// just before and just after each model's profile. How far the two passes'
// references lie apart says how much of the profiles' disagreement is the
// machine's; "after the reference" divides it out (a diagnostic: the target
// is on the raw figures).
//
//   profile_stability [--models DIR] [--only A,B] [--pause SECONDS] [--spin DURATION]
//                     [--op-time steady-mean|mean|step-median]
#include <ATen/ATen.h>
#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "bench/bench_models.h"
#include "placement/placement.h"
#include "planner/baselines/baselines.h"
#include "runtime/profiler.h"
#include "sim/simulator.h"

namespace {

[[noreturn]] void Die(const std::string& what, const graph::Status& st) {
  std::fprintf(stderr, "profile_stability: %s: %s\n", what.c_str(), st.message().c_str());
  std::exit(1);
}

double Predict(const bench::Model& m, const cluster::Cluster& c, const sim::Profile& p,
               const std::vector<int>& forward_device) {
  auto sim = sim::Simulator::Create(m.training.graph, c, &p);
  if (!sim.ok()) Die(m.name, sim.status());
  sim::SimResult r =
      sim->Run(placement::TrainingDeviceOfNode(m.training.graph, m.forward, forward_device),
               m.training.graph.Find(m.training.loss));
  if (!r.status.ok()) Die(m.name, r.status);
  return r.step.seconds;
}

// Seconds of the reference workload (median of 15), on core 0.
double ReferenceSeconds() {
  cpu_set_t one, before;
  pthread_getaffinity_np(pthread_self(), sizeof before, &before);
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  pthread_setaffinity_np(pthread_self(), sizeof one, &one);
  at::Tensor a = at::rand({128, 128}), b = at::rand({128, 128}), v = at::rand({1 << 20});
  std::vector<double> times;
  for (int i = 0; i < 15; ++i) {
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < 20; ++k) a = at::mm(a, b).div_(128);
    v.mul_(0.999).add_(1e-3);
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  pthread_setaffinity_np(pthread_self(), sizeof before, &before);
  return bench::Median(times);
}

// The median over shared signatures of |log(b / a)|, as a ratio minus one.
double OpTimesApart(const sim::Profile& a, const sim::Profile& b) {
  std::vector<double> logs;
  for (const auto& [device, ops] : a.ops) {
    for (const auto& [sig, t] : ops) {
      const sim::OpTiming* u = b.Find(device, sig);
      if (u && t.seconds > 1e-6 && u->seconds > 1e-6) {
        logs.push_back(std::fabs(std::log(u->seconds / t.seconds)));
      }
    }
  }
  return std::exp(bench::Median(logs)) - 1;
}

}  // namespace

const frontend::CommandSpec kSpec{
    "profile_stability",
    "[--models DIR] [--only A,B] [--pause SECONDS] [--spin DURATION]\n"
    "       [--op-time steady-mean|mean|step-median]",
    "Profiles every model twice, minutes apart, and prints how far the two profiles, and the\n"
    "steps they predict, disagree.",
    {},
    bench::ModelFlags({{"--pause", "SECONDS", "whole seconds between the two passes (default 0)"},
                       {"--op-time", "NAME", "steady-mean (default), mean or step-median"}}),
    /*program=*/""};

int main(int argc, char** argv) {
  const frontend::Args args = frontend::ParseProgramArgs(kSpec, argc, argv);
  const std::string dir = args.Get("--models", "models/tfjs"), spin = args.Get("--spin");
  const std::vector<std::string> only = bench::SplitCommas(args.Get("--only"));
  frontend::TypedFlags flags(args);
  const double pause_s = flags.Int("--pause", 0, 0, 86400);
  if (!flags.status().ok()) return frontend::UsageError(kSpec, flags.status());
  runtime::ProfileOptions options;
  if (args.Has("--op-time") && !runtime::ParseOpTime(args.Get("--op-time"), &options.op_time)) {
    return frontend::UsageError(
        kSpec, graph::InvalidArgument("--op-time: steady-mean, mean or step-median"));
  }
  auto c = bench::TwoCpus(spin);
  if (!c.ok()) Die("devices", c.status());
  auto loaded = bench::LoadModels(dir, only);
  if (!loaded.ok()) Die("models", loaded.status());
  std::vector<bench::Model> models;
  for (bench::Model& m : *loaded) {
    if (m.source == "tfjs") models.push_back(std::move(m));
  }

  std::vector<sim::Profile> profiles[2];
  std::vector<runtime::ProfileReport> reports[2];
  std::vector<double> reference[2];  // per model: the reference around its profile
  double started[2] = {0, 0};
  ReferenceSeconds();  // warm-up: thread pools and first-touch pages
  const auto t0 = std::chrono::steady_clock::now();
  for (int round = 0; round < 2; ++round) {
    if (round == 1 && pause_s > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(pause_s));
    started[round] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const bench::Model& m : models) {
      sim::Profile p;
      runtime::ProfileReport report;
      const double ref_before = ReferenceSeconds();
      graph::Status st =
          runtime::ProfileGraph(m.training.graph, m.training.loss, *c, options, &p, &report);
      if (!st.ok()) Die(m.name, st);
      reference[round].push_back((ref_before + ReferenceSeconds()) / 2);
      profiles[round].push_back(std::move(p));
      reports[round].push_back(std::move(report));
    }
  }
  std::printf("profiles of %zu models at %.0f s, then again at %.0f s\n", models.size(), started[0],
              started[1]);
  std::printf("%-26s %26s %26s %14s %12s %10s %14s\n", "model", "all on cpu0: ms, ms, apart",
              "etf split: ms, ms, apart", "op times apart", "slow steps", "reference",
              "cpu0 after it");
  std::vector<double> single_apart, split_apart, ops_apart, reference_apart, single_after;
  for (size_t k = 0; k < models.size(); ++k) {
    const bench::Model& m = models[k];
    const sim::Profile &a = profiles[0][k], &b = profiles[1][k];
    const std::vector<int> single(m.forward.size(), 0);
    auto sim = sim::Simulator::Create(m.training.graph, *c, &a);
    if (!sim.ok()) Die(m.name, sim.status());
    auto etf = planner::baselines::MakeBaseline("etf", m.forward, *c, &*sim);
    if (!etf.ok()) Die(m.name, etf.status());
    const double s0 = Predict(m, *c, a, single), s1 = Predict(m, *c, b, single);
    const double e0 = Predict(m, *c, a, etf->device_of_node),
                 e1 = Predict(m, *c, b, etf->device_of_node);
    single_apart.push_back(std::fabs(s1 - s0) / s0);
    split_apart.push_back(std::fabs(e1 - e0) / e0);
    ops_apart.push_back(OpTimesApart(a, b));
    int slow[2] = {0, 0};
    for (int round = 0; round < 2; ++round) {
      for (const runtime::DeviceProfileReport& d : reports[round][k].devices)
        slow[round] += d.slow_steps;
    }
    const double machine = reference[1][k] / reference[0][k];
    reference_apart.push_back(std::fabs(machine - 1));
    single_after.push_back(std::fabs(s1 / (s0 * machine) - 1));
    std::printf(
        "%-26s %8.3f %8.3f %+7.1f%% %8.3f %8.3f %+7.1f%% %13.1f%% %6d, %d %+9.1f%% %+13.1f%%\n",
        m.name.c_str(), s0 * 1e3, s1 * 1e3, 100 * (s1 - s0) / s0, e0 * 1e3, e1 * 1e3,
        100 * (e1 - e0) / e0, 100 * ops_apart.back(), slow[0], slow[1], 100 * (machine - 1),
        100 * (s1 / (s0 * machine) - 1));
  }
  std::printf(
      "median over %zu models: all on cpu0 %.1f%% apart, etf split %.1f%% apart (target "
      "<= 5%%); op times %.1f%% apart; largest: %.1f%% and %.1f%%\n",
      models.size(), 100 * bench::Median(single_apart), 100 * bench::Median(split_apart),
      100 * bench::Median(ops_apart),
      100 * *std::max_element(single_apart.begin(), single_apart.end()),
      100 * *std::max_element(split_apart.begin(), split_apart.end()));
  std::printf(
      "the machine's reference %.1f%% apart (median); all on cpu0 %.1f%% apart after the "
      "reference's change is divided out\n",
      100 * bench::Median(reference_apart), 100 * bench::Median(single_after));
  return 0;
}
