// The simulator orders a split and a single-device placement of a real model
// as the hardware does (issue "the simulator ranks unseen placements
// correctly"): age (models/tfjs, SSR-Net) has two streams from its input to
// its heads; one stream per core of configs/local-2cpu.yaml trains about a
// quarter faster than both on one core (2.7 against 3.6 ms a step on the
// 2-vCPU VM). Profiled as planner profile does, then both placements measured
// in interleaved steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "cluster/devices.h"
#include "frontend/model_loading.h"
#include "graph/training.h"
#include "placement/placement.h"
#include "runtime/executor.h"
#include "runtime/measure.h"
#include "runtime/profiler.h"
#include "sim/simulator.h"
#include "sim/statistics.h"

namespace planner::sources {
namespace {

using sim::Median;

// The forward graph with its second stream on device 1: the ops downstream of
// the input's second consumer and not of its first, and the constants only
// they read; the rest on device 0.
std::vector<int> StreamPerCore(const graph::Graph& g) {
  std::vector<std::vector<graph::NodeId>> consumers(g.size());
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    for (const graph::TensorRef& in : g.node(id).inputs) consumers[in.node].push_back(id);
  }
  auto downstream = [&](graph::NodeId root) {
    std::vector<char> seen(g.size(), 0);
    std::vector<graph::NodeId> stack = {root};
    seen[root] = 1;
    while (!stack.empty()) {
      const graph::NodeId n = stack.back();
      stack.pop_back();
      for (graph::NodeId c : consumers[n]) {
        if (!seen[c]) seen[c] = 1, stack.push_back(c);
      }
    }
    return seen;
  };
  const std::vector<graph::NodeId>& roots = consumers[g.Find("input_1")];
  EXPECT_EQ(roots.size(), 2u);
  const std::vector<char> first = downstream(roots[0]), second = downstream(roots[1]);
  std::vector<int> device(g.size(), 0);
  for (graph::NodeId id = 0; id < g.size(); ++id) device[id] = second[id] && !first[id];
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (g.node(id).op == "Const" && !consumers[id].empty()) device[id] = device[consumers[id][0]];
  }
  return device;
}

// How far the simulator's ratio of two placements' steps may be from the
// hardware's: the p90 of its error in the ratio of a split's step to one
// core's over the 13 models of models/tfjs and their etf, metis and scotch
// splits, 0.37 (the median of three runs of bench/profile_flags_ab.sh, 0.24 /
// 0.37 / 0.55; medians 0.05-0.07; docs/simulator.md, item 8 of "What
// diverged"). That bench measures each placement in its own process, minutes
// from the profile, so the bound is loose for this test's interleaved pairs;
// it only binds where the hardware's gain is large. The check that fails when
// the simulator goes wrong on this case is the ranking below. Here it
// underrates the split's gain: bench/split_ranking_runs.sh 20 printed off by
// -0.111 to +0.098 (median +0.032) on 2026-12-03, and two CI runs failed the
// bound of 0.15 (twice the median per-placement error) this test had
// (measured 6.756 / 4.254 ms, simulated 6.529 / 5.346 ms, single / split, in
// the later one).
constexpr double kRatioError = 0.37;
// A split the hardware runs faster than one core by more than this, the
// simulator ranks faster too: about twice its median per-placement |error|
// (4.9-5.7% in the bench's three runs), inside which its error may flip the
// order (on a CI machine, 2026-11-30, the split ran 9% faster and was
// simulated 1.7% slower). The order is what a search acts on.
constexpr double kRankMargin = 0.10;

TEST(SplitRankingTest, TheSimulatorRanksASplitAsTheHardwareDoesWithinItsError) {
  auto model = frontend::LoadModel(std::string(PLANNER_MODELS_DIR) + "/age.json", {});
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto t = graph::BuildTrainingGraph(model->graph, {}, model->options);
  ASSERT_TRUE(t.ok()) << t.status().message();
  auto c = cluster::LoadDevicesFile(std::string(PLANNER_CONFIGS_DIR) + "/local-2cpu.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  sim::Profile profile;
  runtime::ProfileReport report;
  ASSERT_TRUE(runtime::ProfileGraph(t->graph, t->loss, *c, {}, &profile, &report).ok());
  auto sim = sim::Simulator::Create(t->graph, *c, &profile);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  const std::vector<int> single(model->graph.size(), 0);
  const std::vector<int> split = StreamPerCore(model->graph);
  ASSERT_GT(std::count(split.begin(), split.end(), 1), 20) << "no second stream";

  const graph::NodeId loss = t->graph.Find(t->loss);
  std::vector<double> simulated, measured[2];
  auto feeds = runtime::RandomFeeds(t->graph, 1);
  ASSERT_TRUE(feeds.ok());
  std::vector<std::unique_ptr<runtime::Executor>> ex;
  for (const std::vector<int>* p : {&single, &split}) {
    const std::vector<int> d = placement::TrainingDeviceOfNode(t->graph, model->graph, *p);
    sim::SimResult r = sim->Run(d, loss);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    simulated.push_back(r.step.seconds);
    auto e = runtime::Executor::Create(t->graph, *c, d);
    ASSERT_TRUE(e.ok()) << e.status().message();
    ex.push_back(std::move(e).value());
  }
  for (int round = 0; round < 13; ++round) {  // 2 warm-up, then 11 interleaved pairs
    for (int k = 0; k < 2; ++k) {
      sim::StepStats s;
      std::vector<at::Tensor> out;
      ASSERT_TRUE(ex[k]->Run(*feeds, {t->loss}, &out, &s).ok());
      if (round >= 2) measured[k].push_back(s.seconds);
    }
  }
  // The case pinned: the hardware runs the split faster, resolved by a sign
  // test over the paired rounds (at most 1 of 11 pairs the other way:
  // two-sided p = 0.012). When it does not (another process on the cores, a
  // slow minute of the VM), there is nothing to check this time.
  int split_faster = 0;
  for (size_t r = 0; r < measured[0].size(); ++r) split_faster += measured[1][r] < measured[0][r];
  const int n = static_cast<int>(measured[0].size());
  const double measured_ratio = Median(measured[1]) / Median(measured[0]);
  const double simulated_ratio = simulated[1] / simulated[0];
  char figures[200];
  std::snprintf(figures, sizeof figures,
                "measured %.3f / %.3f ms, simulated %.3f / %.3f ms (single / a stream per core); "
                "split / single measured %.3f, simulated %.3f, off by %+.3f",
                Median(measured[0]) * 1e3, Median(measured[1]) * 1e3, simulated[0] * 1e3,
                simulated[1] * 1e3, measured_ratio, simulated_ratio,
                simulated_ratio - measured_ratio);
  std::printf("%s\n", figures);
  if (split_faster < n - 1) {
    GTEST_SKIP() << "the hardware did not run the split faster this time: " << figures;
  }
  // The simulator's ratio of the two is within kRatioError of the hardware's...
  EXPECT_LT(simulated_ratio, measured_ratio + kRatioError) << figures;
  EXPECT_GT(simulated_ratio, measured_ratio - kRatioError) << figures;
  // ...and a split the hardware runs clearly faster is faster in the
  // simulator too (split / single measured 0.726-1.086, simulated 0.779-1.092
  // in the script's run above).
  if (measured_ratio < 1 - kRankMargin) {
    EXPECT_LT(simulated[1], simulated[0]) << figures;
  }
}

}  // namespace
}  // namespace planner::sources
