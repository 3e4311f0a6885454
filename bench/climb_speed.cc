// The hill climb's pace with and without the simulator's cutoff
// (RefineOptions::cutoff: a unit's moves are simulated with the incumbent's
// time as Simulator::Run's cutoff, so a move that cannot be faster stops
// early). For NMT-2, -4 and -8 (the zoo's paper-scale sizes) on
// configs/k40-paper-{2,4,8}gpu.yaml: the climb alone (no kicks, runs of sibling
// scopes, as `planner search` climbs) from the expert's placement for
// --budget seconds, with and without the cutoff, alternated --rounds times.
// Prints each run's moves simulated, sweeps and the step reached, then the
// median moves per second each way and their ratio. The climb keeps the same
// moves either way (tests/sim/simulator_test.cc, tests/planner/refine), so a
// faster pace is more sweeps in the same time. With --cutoff on (or off), only
// that way: bench/climb_before_after.sh compares two builds' paces with it.
//   climb_speed [--configs DIR] [--budget S] [--rounds N] [--layers 2,4,8] [--cutoff both|on|off]
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "bench/paper_nmt.h"
#include "frontend/args.h"
#include "planner/baselines/baselines.h"
#include "planner/refine/refine.h"
#include "planner/sources/registry.h"
#include "runtime/host_memory.h"
#include "sim/statistics.h"

namespace {
int Die(const graph::Status& st) { return std::fprintf(stderr, "%s\n", st.message().c_str()), 1; }
}  // namespace

const frontend::CommandSpec kSpec{
    "climb_speed",
    "[--configs DIR] [--budget S] [--rounds N] [--layers 2,4,8] [--cutoff both|on|off]",
    "The hill climb's moves per second on the paper-scale NMT models, with and without the\n"
    "simulator's cutoff, alternated.",
    {},
    {{"--configs", "DIR", "where k40-paper-{2,4,8}gpu.yaml are (default configs)"},
     {"--budget", "S", "seconds per climb (default 30)"},
     {"--rounds", "N", "climbs each way per model, alternated (default 3)"},
     {"--layers", "LIST", "the NMT models by layers (default 2,4,8)"},
     {"--cutoff", "WAY", "both (default), or only on or off"}},
    /*program=*/""};

int main(int argc, char** argv) {
  const frontend::Args args = frontend::ParseProgramArgs(kSpec, argc, argv);
  const std::string configs = args.Get("--configs", "configs");
  frontend::TypedFlags flags(args);
  const double budget_s = flags.Number("--budget", 30, 0, 86400);
  const int rounds = flags.Int("--rounds", 3, 1, 1000);
  if (!flags.status().ok()) return frontend::UsageError(kSpec, flags.status());
  const std::string way = args.Get("--cutoff", "both");
  std::vector<int> ways;  // 1: with the cutoff
  if (way != "off") ways.push_back(1);
  if (way != "on") ways.push_back(0);
  if (way != "both" && way != "on" && way != "off") {
    return frontend::UsageError(kSpec, "--cutoff is both, on or off, not '" + way + "'");
  }
  std::vector<int> models;
  std::stringstream list(args.Get("--layers", "2,4,8"));
  for (std::string item; std::getline(list, item, ',');) {
    auto layers = frontend::ParseIntInRange("--layers", item, 1, 64);
    if (!layers.ok()) return frontend::UsageError(kSpec, layers.status());
    models.push_back(static_cast<int>(*layers));
  }
  // As `planner search` does (planner/search/search.cc): a run's buffers reuse
  // freed pages instead of faulting fresh ones in.
  runtime::KeepFreedMemory();
  std::printf("the climb alone from the expert, %.0f s each, %d rounds alternated\n", budget_s,
              rounds);
  for (int layers : models) {
    auto nmt = bench::LoadPaperNmt(configs, layers);
    if (!nmt.ok()) return Die(nmt.status());
    const graph::Graph* fwd = &nmt->forward;
    const cluster::Cluster* c = &nmt->cluster;
    auto reward = planner::sources::MakeRewardSource("sim", {fwd, &nmt->training, c, nullptr});
    if (!reward.ok()) return Die(reward.status());
    const std::vector<int> start = planner::baselines::ExpertPlacement(*fwd, *c).device_of_node;
    const planner::rewards::Evaluation e = (*reward)->Evaluate(start);
    if (!e.status.ok()) return Die(e.status);
    std::vector<double> pace[2];  // [cutoff] moves per second
    for (int round = 0; round < rounds; ++round) {
      for (int cutoff : ways) {
        planner::refine::RefineOptions o;
        o.budget_s = budget_s;
        o.kicks = 0;
        o.sibling_runs = true;
        o.cutoff = cutoff != 0;
        const planner::refine::RefineResult r = planner::refine::Refine(
            *fwd, static_cast<int>(c->devices.size()), **reward, start, e.step_s, o, nullptr);
        pace[cutoff].push_back(r.evaluated / r.seconds);
        std::printf(
            "NMT-%d round %d, cutoff %-3s: %6d moves in %5.1f s (%6.1f/s), %d sweeps, "
            "%.3f -> %.3f ms\n",
            layers, round + 1, cutoff ? "on" : "off", r.evaluated, r.seconds,
            r.evaluated / r.seconds, r.sweeps, e.step_s * 1e3, r.step_s * 1e3);
        std::fflush(stdout);
      }
    }
    if (ways.size() == 1) {
      std::printf("NMT-%d: median %.1f moves/s with the cutoff %s\n", layers,
                  sim::Median(pace[ways[0]]), ways[0] ? "on" : "off");
      continue;
    }
    double lo = 1e300, hi = 0;  // the ratio round by round
    for (int i = 0; i < rounds; ++i) {
      lo = std::min(lo, pace[1][i] / pace[0][i]);
      hi = std::max(hi, pace[1][i] / pace[0][i]);
    }
    const double on = sim::Median(pace[1]), off = sim::Median(pace[0]);
    std::printf(
        "NMT-%d: median %.1f moves/s with the cutoff, %.1f without: %.2fx "
        "[%.2f..%.2fx round by round]\n",
        layers, on, off, on / off, lo, hi);
  }
  return 0;
}
