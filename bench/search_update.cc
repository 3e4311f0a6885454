// The cost of one policy update of the Hierarchical Planner on the paper's
// largest problem: NMT-8 (zoo defaults, or --sizes small) on
// configs/k40-paper-8gpu.yaml with simulated rewards, the compiled search
// settings or --config's. One update samples m groupings and k placements of
// each (16 with the defaults, 4 with configs/search-paper.yaml), simulates them,
// and takes the configured step (target with the defaults: at most 1 s). Prints
// the median of 10 updates after 3 warm-up ones, and the share the simulations
// take. `grouper: auto` chooses from the expert's placement, as `planner search`
// does on NMT-8, whose best baseline it is.
//   search_update [--configs DIR] [--sizes paper-scale|small] [--config SEARCH.yaml]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "bench/paper_nmt.h"
#include "frontend/args.h"
#include "planner/baselines/baselines.h"
#include "planner/search/search.h"
#include "planner/sources/registry.h"
#include "sim/statistics.h"

namespace {
using sim::Median;
int Die(const graph::Status& st) { return std::fprintf(stderr, "%s\n", st.message().c_str()), 1; }
}  // namespace

const frontend::CommandSpec kSpec{
    "search_update",
    "[--configs DIR] [--sizes paper-scale|small] [--config SEARCH.yaml]",
    "Times the policy's update and the simulator's share of it on NMT-8 and 8 simulated K40s.",
    {},
    {{"--configs", "DIR", "where k40-paper-8gpu.yaml is (default configs)"},
     {"--sizes", "NAME", "the zoo's NMT sizes: paper-scale (default) or small"},
     {"--config", "FILE", "search options (default: the built-in defaults)"}},
    /*program=*/""};

int main(int argc, char** argv) {
  const frontend::Args args = frontend::ParseProgramArgs(kSpec, argc, argv);
  const std::string configs = args.Get("--configs", "configs");
  const std::string sizes = args.Get("--sizes", "paper-scale");
  const std::string config = args.Get("--config");
  auto nmt = bench::LoadPaperNmt(configs, 8, sizes);
  if (!nmt.ok()) return Die(nmt.status());
  const graph::Graph* fwd = &nmt->forward;
  const graph::TrainingGraph* t = &nmt->training;
  const cluster::Cluster* c = &nmt->cluster;
  auto reward = planner::sources::MakeRewardSource("sim", {fwd, t, c, nullptr});
  if (!reward.ok()) return Die(reward.status());
  planner::search::SearchOptions o;
  if (!config.empty()) {
    auto read = planner::search::ReadSearchConfig(config);
    if (!read.ok()) return Die(read.status());
    o = *read;
  }
  auto search = planner::search::Search::Create(*fwd, static_cast<int>(c->devices.size()), o, 1);
  if (!search.ok()) return Die(search.status());
  // `grouper: auto` chooses as `planner search` does on NMT-8, from its best
  // baseline's placement (the expert's, bench/baselines_paper.sh).
  std::string grouper = o.grouper;
  if (o.grouper == "auto") {
    const planner::search::GrouperChoice choice =
        (*search)->ChooseGrouper(planner::baselines::ExpertPlacement(*fwd, *c).device_of_node);
    grouper = choice.scopes ? "auto: name scopes" : "auto: learned";
  }
  std::printf(
      "NMT-8 (%s): %d ops to place, training graph of %d nodes, %zu devices, %d groups (%s)\n",
      sizes.c_str(), fwd->size(), t->graph.size(), c->devices.size(),
      planner::search::NumGroups(o, static_cast<int>(c->devices.size())), grouper.c_str());
  using Clock = std::chrono::steady_clock;
  std::vector<double> update_s, sim_s;
  for (int i = 0; i < 13; ++i) {
    auto t0 = Clock::now();
    planner::search::SearchIteration it = (*search)->Step(**reward);
    const double u = std::chrono::duration<double>(Clock::now() - t0).count();
    // The same placements simulated again, one after another: the reward's share.
    auto t1 = Clock::now();
    for (const auto& p : it.placements) (*reward)->Evaluate(p);
    const double s = std::chrono::duration<double>(Clock::now() - t1).count();
    if (i >= 3) update_s.push_back(u), sim_s.push_back(s);
  }
  std::printf(
      "one policy update (sample %d placements, simulate them, %s step): "
      "%.3f s median of %zu (target <= 1 s)\n",
      o.grouper_samples * o.placer_samples, o.update.c_str(), Median(update_s), update_s.size());
  std::printf("  of which simulating the placements takes %.3f s when run one by one\n",
              Median(sim_s));
  return 0;
}
