// Simulator::Run's cutoff, against the same runs without one. (The simulator's
// tests against the executor are in tests/runtime/simulator_test.cc.)
#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "graph/shape_inference.h"
#include "graph/signature.h"
#include "graph/training.h"
#include "graph/zoo.h"

namespace sim {
namespace {

// A small RNNLM's training graph (2 layers, 3 steps).
graph::Graph Training() {
  auto g = graph::BuildZooModel("rnnlm", {4, 2, 32, 100, 3});
  EXPECT_TRUE(g.ok()) << g.status().message();
  graph::InferShapes(*g);
  auto t = graph::BuildTrainingGraph(*g, {});
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(t->graph);
}

cluster::Cluster Devices(const std::string& yaml) {
  auto c = cluster::ParseDevicesYaml(yaml, "cutoff.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

// Every op of `g` on each of `devices` at a random time in [1, 100] us.
Profile RandomTimes(const graph::Graph& g, const std::vector<std::string>& devices,
                    std::mt19937_64& rng) {
  Profile p;
  std::uniform_real_distribution<double> us(1, 100);
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    for (const std::string& d : devices)
      p.ops[d][graph::OpSignature(g, id)] = {us(rng) * 1e-6, 64, 1};
  }
  return p;
}

// For random placements on `sim`, and cutoffs below, at and above each one's
// step: the run is cut off exactly when its step does not end before the
// cutoff, its bound is at least the cutoff and at most the step, and a run
// that is not cut off is the run without a cutoff.
void CheckCutoffs(const Simulator& sim, int devices, std::mt19937_64& rng) {
  const int n = sim.graph().size();
  std::uniform_int_distribution<int> device(0, devices - 1);
  int cut = 0, whole = 0, early = 0;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<int> placed(n);
    const int on_one = trial % 4 == 0 ? device(rng) : -1;  // some on one device
    for (int& d : placed) d = on_one >= 0 ? on_one : device(rng);
    const SimResult full = sim.Run(placed);
    ASSERT_TRUE(full.status.ok()) << full.status.message();
    ASSERT_FALSE(full.cut_off);
    const double t = full.step.seconds;
    for (double f : {0.1, 0.5, 0.9, 0.999, 1.0, 1.001, 1.5}) {
      const SimResult r = sim.Run(placed, -1, t * f);
      ASSERT_TRUE(r.status.ok()) << r.status.message();
      if (t < t * f) {
        ++whole;
        EXPECT_FALSE(r.cut_off) << "trial " << trial << " x" << f;
        EXPECT_EQ(r.step.seconds, t);
        EXPECT_EQ(r.step.ops.size(), full.step.ops.size());
        EXPECT_EQ(r.step.peak_bytes, full.step.peak_bytes);
      } else {
        ++cut;
        early += r.step.ops.size() < full.step.ops.size();
        EXPECT_TRUE(r.cut_off) << "trial " << trial << " x" << f;
        EXPECT_GE(r.step.seconds, t * f);
        EXPECT_LE(r.step.seconds, t) << "a bound above the step it bounds";
      }
    }
  }
  EXPECT_GT(early, cut / 2) << "most runs cut off stop before their last op";
  EXPECT_GT(whole, 0);
}

TEST(SimulatorCutoffTest, ModelledDevicesStopExactlyWhenTheStepCannotEndBeforeTheCutoff) {
  const graph::Graph g = Training();
  const cluster::Cluster c = Devices(
      "devices:\n"
      "  - {name: cpu0, kind: sim, simulates: cpu, peak_flops: 100G, memory_bandwidth: 20GB/s}\n"
      "  - {name: gpu0, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s}\n"
      "  - {name: gpu1, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s}\n"
      "default_link: {bandwidth: 1GB/s, latency: 10us}\n");
  auto sim = Simulator::Create(g, c, nullptr);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  std::mt19937_64 rng(1);
  CheckCutoffs(*sim, 3, rng);
}

// Two cpu devices of one host, one with two workers: kernels sped up while
// the other is awake (a slowdown below 1) and a negative cold extra, so the
// cutoff's least kernel times must allow for both.
TEST(SimulatorCutoffTest, CpusWithSharingAndColdKernelsStopOnlyWhenTheStepCannotEndBefore) {
  const graph::Graph g = Training();
  const cluster::Cluster c = Devices(
      "devices:\n"
      "  - {name: cpu0, kind: cpu, cores: [0]}\n"
      "  - {name: cpu1, kind: cpu, cores: [1, 2], threads: 2}\n");
  std::mt19937_64 rng(2);
  Profile p = RandomTimes(g, {"cpu0", "cpu1"}, rng);
  p.slowdown["cpu0"] = 0.8;
  p.slowdown["cpu1"] = 1.3;
  p.cold_s["cpu0"] = {{5e-6, -2e-6}, {1e9, 3e-6}};
  p.cold_s["cpu1"] = {{1e9, 1e-6}};
  p.dispatch_s = {{"cpu0", 2e-6}, {"cpu1", 3e-6}};
  p.links[{"cpu0", "cpu1"}] = {5e-6, 1e9, 0};
  p.links[{"cpu1", "cpu0"}] = {5e-6, 1e9, 0};
  auto sim = Simulator::Create(g, c, &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  CheckCutoffs(*sim, 2, rng);
}

// The same with the parallel step's figures too, whose cold extra is the
// smaller and slowdown the lower: the least kernel times allow for them.
TEST(SimulatorCutoffTest, CpusWithParallelStepFiguresStopOnlyWhenTheStepCannotEndBefore) {
  const graph::Graph g = Training();
  const cluster::Cluster c = Devices(
      "devices:\n"
      "  - {name: cpu0, kind: cpu, cores: [0]}\n"
      "  - {name: cpu1, kind: cpu, cores: [1]}\n");
  std::mt19937_64 rng(3);
  Profile p = RandomTimes(g, {"cpu0", "cpu1"}, rng);
  for (const char* d : {"cpu0", "cpu1"}) {
    p.slowdown[d] = 1.3;
    p.cold_s[d] = {{5e-6, 1e-6}, {1e9, 3e-6}};
    p.parallel_slowdown[d] = 0.7;
    p.parallel_cold_s[d] = {{5e-6, -3e-6}, {1e9, 0}};
    p.shared_cross[d] = 1.5;
    p.dispatch_s[d] = 2e-6;
  }
  p.links[{"cpu0", "cpu1"}] = {5e-6, 1e9, 0};
  p.links[{"cpu1", "cpu0"}] = {5e-6, 1e9, 0};
  auto sim = Simulator::Create(g, c, &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  CheckCutoffs(*sim, 2, rng);
}

// A cpu and a `sync: step` GPU, whose kernels queue behind their launches:
// the GPU's bound counts from the end of the kernels queued there.
TEST(SimulatorCutoffTest, AnAsyncGpuStopsOnlyWhenItsQueuedKernelsCannotEndBefore) {
  const graph::Graph g = Training();
  const cluster::Cluster c = Devices(
      "devices:\n"
      "  - {name: cpu0, kind: cpu, cores: [0]}\n"
      "  - {name: gpu0, kind: cuda, index: 0, sync: step}\n");
  std::mt19937_64 rng(3);
  Profile p = RandomTimes(g, {"cpu0", "gpu0"}, rng);
  p.launch_s["gpu0"] = 4e-6;
  p.links[{"cpu0", "gpu0"}] = {10e-6, 1e9, 0};
  p.links[{"gpu0", "cpu0"}] = {10e-6, 1e9, 0};
  auto sim = Simulator::Create(g, c, &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  CheckCutoffs(*sim, 2, rng);
}

}  // namespace
}  // namespace sim
