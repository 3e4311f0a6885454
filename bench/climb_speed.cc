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
//
// --compare repeats instead compares RefineOptions::skip_repeats on and off
// (the cutoff on): a unit tried since the last move kept is not simulated
// again. The two alternate, the first of a round taking turns. The climb
// makes the same moves either way, so the two runs of a round reach the same
// step when both converge within --budget; it prints the
// moves each simulated, those skipped, the seconds to converge, and the median
// ratio of those seconds (with its range over the rounds).
//   climb_speed [--configs DIR] [--budget S] [--rounds N] [--layers 2,4,8]
//               [--cutoff both|on|off] [--compare cutoff|repeats]
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

// --compare repeats on one model: skip_repeats on and off alternated, the
// cutoff on; 1 when a round's two converged climbs reach different steps.
int CompareRepeats(int layers, const graph::Graph& fwd, const cluster::Cluster& c,
                   const planner::rewards::RewardSource& reward, const std::vector<int>& start,
                   double start_s, double budget_s, int rounds) {
  std::vector<double> ratios;  // seconds to converge, skipping / trying again
  std::vector<double> moves;   // moves simulated, skipping / trying again
  int differing = 0;
  for (int round = 0; round < rounds; ++round) {
    planner::refine::RefineResult r[2];  // [skip_repeats]
    const int order[2][2] = {{1, 0}, {0, 1}};  // which goes first alternates by round
    for (int skip : order[round % 2]) {
      planner::refine::RefineOptions o;
      o.budget_s = budget_s;
      o.kicks = 0;
      o.sibling_runs = true;
      o.skip_repeats = skip != 0;
      r[skip] = planner::refine::Refine(fwd, static_cast<int>(c.devices.size()), reward, start,
                                        start_s, o, nullptr);
      const bool converged = r[skip].seconds < budget_s;
      std::printf(
          "NMT-%d round %d, repeats %-5s: %6d moves simulated, %5d units skipped, %d sweeps, "
          "%s in %5.1f s, %.3f -> %.3f ms\n",
          layers, round + 1, skip ? "skip" : "tried", r[skip].evaluated, r[skip].repeats_skipped,
          r[skip].sweeps, converged ? "converged" : "budget spent", r[skip].seconds, start_s * 1e3,
          r[skip].step_s * 1e3);
      std::fflush(stdout);
    }
    if (r[0].seconds >= budget_s || r[1].seconds >= budget_s) continue;
    ratios.push_back(r[1].seconds / r[0].seconds);
    moves.push_back(static_cast<double>(r[1].evaluated) / std::max(1, r[0].evaluated));
    if (r[0].device_of_node != r[1].device_of_node) ++differing;
  }
  if (ratios.empty()) {
    std::printf("NMT-%d: no round converged both ways within %.0f s: give more --budget\n", layers,
                budget_s);
    return 0;
  }
  const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
  std::printf(
      "NMT-%d: skipping / trying again: moves simulated %.3fx, seconds to converge median %.2fx "
      "[%.2f..%.2fx over %zu rounds]; %s\n",
      layers, sim::Median(moves), sim::Median(ratios), *lo, *hi, ratios.size(),
      differing ? "the placements reached DIFFER" : "the same placement reached each round");
  return differing ? 1 : 0;
}

}  // namespace

const frontend::CommandSpec kSpec{
    "climb_speed",
    "[--configs DIR] [--budget S] [--rounds N] [--layers 2,4,8] [--cutoff both|on|off]\n"
    "       [--compare cutoff|repeats]",
    "The hill climb's moves per second on the paper-scale NMT models, with and without the\n"
    "simulator's cutoff, alternated; or (--compare repeats) its seconds to converge with and\n"
    "without skipping units already tried at the same placement.",
    {},
    {{"--configs", "DIR", "where k40-paper-{2,4,8}gpu.yaml are (default configs)"},
     {"--budget", "S", "seconds per climb (default 30)"},
     {"--rounds", "N", "climbs each way per model, alternated (default 3)"},
     {"--layers", "LIST", "the NMT models by layers (default 2,4,8)"},
     {"--cutoff", "WAY", "both (default), or only on or off"},
     {"--compare", "WHAT", "cutoff (default) or repeats (RefineOptions::skip_repeats)"}},
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
  const std::string compare = args.Get("--compare", "cutoff");
  if (compare != "cutoff" && compare != "repeats") {
    return frontend::UsageError(kSpec, "--compare is cutoff or repeats, not '" + compare + "'");
  }
  if (compare == "repeats" && args.Has("--cutoff")) {
    return frontend::UsageError(kSpec, "--cutoff goes with --compare cutoff (repeats: on)");
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
  std::printf("the climb alone from the expert, %.0f s %s, %d rounds alternated\n", budget_s,
              compare == "repeats" ? "at most" : "each", rounds);
  int failed = 0;
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
    if (compare == "repeats") {
      failed |= CompareRepeats(layers, *fwd, *c, **reward, start, e.step_s, budget_s, rounds);
      continue;
    }
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
  return failed;
}
