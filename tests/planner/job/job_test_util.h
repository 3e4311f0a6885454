// What the search job's tests share: modelled devices, a small model, and
// files in the test's scratch directory.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "graph/zoo.h"
#include "tests/scratch_dir.h"

namespace planner::job::testing {

// Two modelled GPUs and a modelled CPU: sim rewards, no profile, no hardware.
constexpr char kSimDevices[] =
    "devices:\n"
    "  - {name: cpu0, kind: sim, simulates: cpu, peak_flops: 100G, memory_bandwidth: 20GB/s}\n"
    "  - {name: gpu0, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s, "
    "memory: 12GiB}\n"
    "  - {name: gpu1, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s, "
    "memory: 12GiB}\n"
    "default_link: {bandwidth: 16GB/s, latency: 10us}\n";

// Writes `text` to NAME in the scratch directory; returns its path.
inline std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = planner_test::ScratchDir() + "/" + name;
  EXPECT_TRUE(graph::WriteFileAtomic(path, text).ok());
  return path;
}

// A small RNNLM (2 layers) as a GraphDef file.
inline std::string SmallRnnlmFile(const std::string& name = "rnnlm.pb") {
  auto g = graph::BuildZooModel("rnnlm", {4, 2, 32, 100, 3});
  EXPECT_TRUE(g.ok()) << g.status().message();
  return WriteFile(name, g.ok() ? graph::SerializeGraphDef(*g) : "");
}

}  // namespace planner::job::testing
