// Helpers shared by the runtime tests: the local two-CPU-device cluster
// (chain_steps.h) and small training graphs.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/models.h"
#include "graph/training.h"
#include "tests/runtime/chain_steps.h"

namespace runtime::testing {

// The training graph (SGD) of a forward model built in code.
inline graph::TrainingGraph Training(graph::Result<graph::Graph> forward) {
  EXPECT_TRUE(forward.ok()) << forward.status().message();
  auto t = graph::BuildTrainingGraph(*forward, {});
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(t).value();
}

inline graph::TrainingGraph LeNet() { return Training(graph::BuildLeNet({8, 1})); }

// One cpu device (core 0) and the GPU of CUDA index 0; `gpu_extra` goes into
// the GPU's entry (", sync: op"). For the CUDA tests, which skip without a GPU.
inline cluster::Cluster CpuAndGpu(const std::string& gpu_extra = "") {
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n"
      "  - {name: gpu0, kind: cuda, index: 0" +
          gpu_extra + "}\n",
      "cpu_gpu.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

// Random feeds for LeNet(): 8 images in [0, 1) and labels in [0, 10), drawn from `seed`.
inline std::map<std::string, at::Tensor> LeNetFeeds(uint64_t seed = 3) {
  auto gen = at::detail::createCPUGenerator(seed);
  return {{"images", at::rand({8, 28, 28, 1}, gen)},
          {"labels", at::randint(0, 10, {8}, gen).to(at::kInt)}};
}

// Convolutions and their gradients (ops of a "conv" scope or colocated with
// one) on device `convs`, every other op on device `rest`.
inline std::vector<int> ConvsOn(const graph::Graph& g, int convs, int rest) {
  std::vector<int> d(g.size());
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const graph::Node& n = g.node(id);
    const std::string& key = n.colocation.empty() ? n.name : n.colocation[0];
    d[id] = key.find("conv") != std::string::npos ? convs : rest;
  }
  return d;
}

}  // namespace runtime::testing
