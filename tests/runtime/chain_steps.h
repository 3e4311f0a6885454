// Hand-made step timelines for tests of what is fitted from steps
// (runtime::ProfileBuilder, planner::job::Recalibration): a four-op chain, the
// local two-CPU-device cluster, and a step of the chain on one device. Torch-free.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/graphdef.h"
#include "graph/shape_inference.h"
#include "sim/timeline.h"

namespace runtime::testing {

// Two 1-core cpu devices, cpu0 on core 0 (with `memory` capacity if given) and
// cpu1 on core 1.
inline cluster::Cluster TwoCpus(const std::string& memory = "") {
  std::string mem = memory.empty() ? "" : ", memory: " + memory;
  auto c = cluster::ParseDevicesYaml("devices:\n  - {name: cpu0, kind: cpu, cores: [0]" + mem +
                                         "}\n  - {name: cpu1, kind: cpu, cores: [1]}\n",
                                     "two.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

// x [4,4]; a = Relu(x), b = Neg(a), c = Tanh(b), d = Relu(c).
inline graph::Graph Chain() {
  auto g = graph::ParseTextGraphDef(
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } attr { "
      "key: 'shape' value { shape { dim { size: 4 } dim { size: 4 } } } } }"
      "node { name: 'a' op: 'Relu' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } }"
      "node { name: 'b' op: 'Neg' input: 'a' attr { key: 'T' value { type: DT_FLOAT } } }"
      "node { name: 'c' op: 'Tanh' input: 'b' attr { key: 'T' value { type: DT_FLOAT } } }"
      "node { name: 'd' op: 'Relu' input: 'c' attr { key: 'T' value { type: DT_FLOAT } } }",
      "chain.pbtxt");
  EXPECT_TRUE(g.ok()) << g.status().message();
  graph::InferShapes(*g);
  return std::move(g).value();
}

// One step with every op of the chain on `device`: a and d 10 us, b 20, c 30,
// each times `factor`, 1 us apart.
inline sim::StepStats Alone(const graph::Graph& g, int device, double factor = 1) {
  sim::StepStats s;
  double t = 0;
  for (const char* n : {"a", "b", "c", "d"}) {
    const double us = (n[0] == 'b' ? 20 : n[0] == 'c' ? 30 : 10) * factor;
    s.ops.push_back({g.Find(n), device, t, t + us});
    t += us + 1;
  }
  s.seconds = t / 1e6;
  s.busy_us.assign(2, 0);
  for (const sim::OpRecord& r : s.ops) s.busy_us[device] += r.end_us - r.start_us;
  return s;
}

// A step of the chain on both cpus: a on cpu0 2-14 while cpu1 still sleeps
// (not shared); b on cpu1 after a 1 us copy, polled 2 us after a's end, 1.2x
// slower than alone; c back on cpu0 3 us after b's end, 1.2x; d queued behind
// c, 2 us later, as fast as alone.
inline sim::StepStats Shared(const graph::Graph& g) {
  sim::StepStats s;
  s.ops = {{g.Find("a"), 0, 2, 14},
           {g.Find("b"), 1, 17, 41},
           {g.Find("c"), 0, 44, 80},
           {g.Find("d"), 0, 82, 92}};
  s.transfers = {{g.Find("a"), 0, 1, 64, 15, 16}, {g.Find("b"), 1, 0, 64, 43, 44}};
  s.seconds = 93e-6;
  return s;
}

}  // namespace runtime::testing
