// Small problems for the search's unit tests: zoo models with their training
// graphs, and modelled (sim) clusters that need no profile.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "cluster/devices.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "graph/zoo.h"
#include "placement/placement.h"
#include "planner/rewards/reward.h"
#include "sim/simulator.h"

namespace planner::testing {

struct Problem {
  graph::Graph forward;
  graph::TrainingGraph training;
};

inline Problem Zoo(const std::string& name, graph::ZooOptions o = {}) {
  auto g = graph::BuildZooModel(name, o);
  EXPECT_TRUE(g.ok()) << g.status().message();
  graph::InferShapes(*g);
  auto t = graph::BuildTrainingGraph(*g, {});
  EXPECT_TRUE(t.ok()) << t.status().message();
  return {std::move(g).value(), std::move(t).value()};
}

// A small RNNLM: 2 layers, so the expert has layers to place.
inline Problem SmallRnnlm() { return Zoo("rnnlm", {4, 2, 32, 100, 3}); }

// One modelled CPU (40x slower than a GPU) and `gpus` modelled GPUs of `gpu_memory`.
inline cluster::Cluster SimCluster(int gpus, const std::string& gpu_memory = "12GiB") {
  std::string y =
      "devices:\n  - {name: cpu0, kind: sim, simulates: cpu, peak_flops: 100G, "
      "memory_bandwidth: 20GB/s}\n";
  for (int i = 0; i < gpus; ++i) {
    y += "  - {name: gpu" + std::to_string(i) +
         ", kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s, memory: " +
         gpu_memory + "}\n";
  }
  y += "default_link: {bandwidth: 16GB/s, latency: 10us}\n";
  auto c = cluster::ParseDevicesYaml(y, "test-sim.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

// SimCluster(2) but gpu0 holds 1 KiB: a list scheduler may give it only what fits.
inline cluster::Cluster TinyGpu0Cluster() {
  const std::string y =
      "devices:\n"
      "  - {name: cpu0, kind: sim, simulates: cpu, peak_flops: 100G, memory_bandwidth: 20GB/s}\n"
      "  - {name: gpu0, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s, "
      "memory: 1KiB}\n"
      "  - {name: gpu1, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s, "
      "memory: 12GiB}\n"
      "default_link: {bandwidth: 16GB/s, latency: 10us}\n";
  auto c = cluster::ParseDevicesYaml(y, "tiny-gpu0.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

// The simulated step of a forward placement, or a negative number when it fails.
inline double SimulatedStep(const Problem& p, const sim::Simulator& sim,
                            const std::vector<int>& forward_device) {
  sim::SimResult r =
      sim.Run(placement::TrainingDeviceOfNode(p.training.graph, p.forward, forward_device),
              sim.graph().Find(p.training.loss));
  return r.status.ok() ? r.step.seconds : -1;
}

// The bytes the training nodes of a forward placement keep on device d.
inline int64_t BytesKeptOn(const Problem& p, const sim::Simulator& sim,
                           const std::vector<int>& forward_device, int d) {
  const std::vector<int> training =
      placement::TrainingDeviceOfNode(sim.graph(), p.forward, forward_device);
  int64_t kept = 0;
  for (graph::NodeId id = 0; id < sim.graph().size(); ++id) {
    if (training[id] == d) kept += sim.NodeBytes(id);
  }
  return kept;
}

// The simulator of a problem's training step on `c`: op and transfer costs.
inline sim::Simulator SimCosts(const Problem& p, const cluster::Cluster& c) {
  auto sim = sim::Simulator::Create(p.training.graph, c, nullptr);
  EXPECT_TRUE(sim.ok()) << sim.status().message();
  return std::move(sim).value();
}

// Kernel seconds of the training step on each of `devices` under a forward
// placement, each node timed on the device it is placed on.
inline std::vector<double> KernelSecondsPerDevice(const Problem& p, const sim::Simulator& sim,
                                                  const std::vector<int>& forward_device,
                                                  int devices) {
  std::vector<double> work(devices, 0);
  const std::vector<int> d =
      placement::TrainingDeviceOfNode(sim.graph(), p.forward, forward_device);
  for (graph::NodeId id = 0; id < sim.graph().size(); ++id) {
    if (sim.Scheduled(id)) work[d[id]] += sim.OpSeconds(id, d[id]);
  }
  return work;
}

// Two real single-core CPU devices without links or a profile: nothing can time an op.
inline cluster::Cluster UnprofiledCpus() {
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n  - {name: cpu1, kind: cpu, cores: "
      "[1]}\n",
      "two-cpus.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

// The small RNNLM on a CPU and two GPUs, with the simulator as its reward source.
struct SimProblem {
  Problem p = SmallRnnlm();
  cluster::Cluster c = SimCluster(2);
  std::unique_ptr<rewards::RewardSource> reward;
  SimProblem() {
    auto r = rewards::MakeSimReward({&p.forward, &p.training, &c, nullptr});
    EXPECT_TRUE(r.ok()) << r.status().message();
    reward = std::move(r).value();
  }
};

}  // namespace planner::testing
