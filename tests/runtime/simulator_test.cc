#include "sim/simulator.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "graph/cost.h"
#include "graph/graphdef.h"
#include "graph/models.h"
#include "graph/shape_inference.h"
#include "graph/signature.h"
#include "graph/training.h"
#include "runtime/executor.h"
#include "runtime/kernel.h"
#include "runtime/measure.h"
#include "tests/runtime/test_util.h"

namespace runtime {
namespace {

using testing::LeNet;
using testing::TwoCpus;

// Two simulated GPUs; g1 holds `g1_memory` at most (empty: unbounded).
cluster::Cluster Sims(const std::string& bandwidth = "16MB/s", const std::string& g1_memory = "") {
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: g0, kind: sim, simulates: gpu, peak_flops: 1T, memory_bandwidth: "
      "100GB/s}\n  - {name: g1, kind: sim, simulates: gpu, peak_flops: 1T, memory_bandwidth: "
      "100GB/s" +
          (g1_memory.empty() ? "" : ", memory: " + g1_memory) +
          "}\ndefault_link: {bandwidth: " + bandwidth + ", latency: 1us}\n",
      "sims.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

// x [4,4] float; then `body` (nodes reading x).
graph::Graph Graph(const std::string& body) {
  auto g = graph::ParseTextGraphDef(
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } attr { "
      "key: 'shape' value { shape { dim { size: 4 } dim { size: 4 } } } } }" +
          body,
      "g.pbtxt");
  EXPECT_TRUE(g.ok()) << g.status().message();
  graph::InferShapes(*g);
  return std::move(g).value();
}

std::string Unary(const std::string& name, const std::string& op, const std::string& in) {
  return "node { name: '" + name + "' op: '" + op + "' input: '" + in +
         "' attr { key: 'T' value { type: DT_FLOAT } } }";
}

// Every scheduled op of `g` takes `seconds` on each named device.
sim::Profile Uniform(const graph::Graph& g, const std::vector<std::string>& devices,
                     double seconds) {
  sim::Profile p;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (!RunsKernel(g.node(id).op)) continue;
    for (const std::string& d : devices) {
      p.ops[d][graph::OpSignature(g, id)] = {seconds, 64, 1};
    }
  }
  return p;
}

TEST(SimulatorTest, AChainOnOneDeviceTakesTheSumOfItsOpsAndDispatch) {
  graph::Graph g =
      Graph(Unary("a", "Relu", "x") + Unary("b", "Relu", "a") + Unary("c", "Relu", "b"));
  sim::Profile p = Uniform(g, {"cpu0"}, 10e-6);
  p.dispatch_s["cpu0"] = 1e-6;
  auto sim = sim::Simulator::Create(g, TwoCpus(), &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  sim::SimResult r = sim->Run(std::vector<int>(g.size(), 0));
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_NEAR(r.step.seconds, 33e-6, 1e-12);
  EXPECT_EQ(r.estimated_ops, 0);
  EXPECT_EQ(r.step.ops.size(), 3u);
}

TEST(SimulatorTest, AStepReplayedAsACudaGraphCostsItsKernelsAloneNotTheirLaunches) {
  graph::Graph g =
      Graph(Unary("a", "Relu", "x") + Unary("b", "Relu", "a") + Unary("c", "Relu", "b"));
  sim::Profile p = Uniform(g, {"gpu0"}, 10e-6);
  p.launch_s["gpu0"] = 30e-6;  // launch-bound op by op
  p.dispatch_s["gpu0"] = 2e-6;
  for (const char* graphs : {"off", "on"}) {
    SCOPED_TRACE(graphs);
    auto c = cluster::ParseDevicesYaml(
        std::string("devices:\n  - {name: gpu0, kind: cuda, index: 0, graphs: ") + graphs + "}\n",
        "g.yaml");
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto sim = sim::Simulator::Create(g, *c, &p);
    ASSERT_TRUE(sim.ok()) << sim.status().message();
    sim::SimResult r = sim->Run(std::vector<int>(g.size(), 0));
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    // Op by op, each op's launch (and dispatch) is on the path; replayed, the kernels alone.
    EXPECT_NEAR(r.step.seconds, std::string(graphs) == "on" ? 30e-6 : 3 * 32e-6, 1e-9);
  }
}

// Every placement of the graph's nodes on two devices simulates in `bound` or more.
void ExpectNoPlacementBelow(const sim::Simulator& sim, double bound) {
  const int n = sim.graph().size();
  for (int mask = 0; mask < (1 << n); ++mask) {
    std::vector<int> d(n);
    for (int i = 0; i < n; ++i) d[i] = (mask >> i) & 1;
    sim::SimResult r = sim.Run(d);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_GE(r.step.seconds, bound) << "placement " << mask;
  }
}

TEST(SimulatorTest, DependencyBoundIsTheLongestChainAtEachOpsFastestDevice) {
  // x -> a -> b -> c and x -> d -> c; every op 5 us on g1, 10 us on g0.
  graph::Graph g =
      Graph(Unary("a", "Relu", "x") + Unary("b", "Neg", "a") + Unary("d", "Relu", "x") +
            "node { name: 'c' op: 'AddV2' input: 'b' input: 'd' attr { key: 'T' "
            "value { type: DT_FLOAT } } }");
  sim::Profile p = Uniform(g, {"g0"}, 10e-6);
  sim::Profile fast = Uniform(g, {"g1"}, 5e-6);
  p.ops["g1"] = fast.ops["g1"];
  auto sim = sim::Simulator::Create(g, Sims(), &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  EXPECT_NEAR(sim->DependencyBoundSeconds(), 15e-6, 1e-12);  // a, b, c at 5 us
  // No placement beats it (the best takes 20 us: one device runs one op at a time).
  ExpectNoPlacementBelow(*sim, sim->DependencyBoundSeconds() - 1e-12);
}

TEST(SimulatorTest, WorkBoundIsTheBestFractionalSplitOfTheOpsOverDevices) {
  // Four independent ops, 10 us each on g0 and 30 us on g1: the best split of
  // divisible work puts 3 ops' worth on g0 and 1 on g1, 30 us each.
  graph::Graph g = Graph(Unary("a", "Relu", "x") + Unary("b", "Neg", "x") +
                         Unary("c", "Relu", "x") + Unary("d", "Neg", "x"));
  sim::Profile p = Uniform(g, {"g0"}, 10e-6);
  sim::Profile slow = Uniform(g, {"g1"}, 30e-6);
  p.ops["g1"] = slow.ops["g1"];
  auto sim = sim::Simulator::Create(g, Sims(), &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  const double bound = sim->WorkBoundSeconds();
  EXPECT_LE(bound, 30e-6 + 1e-12);
  EXPECT_GT(bound, 0.97 * 30e-6) << "the ascent stops short of the optimum";
  EXPECT_NEAR(sim->DependencyBoundSeconds(), 10e-6, 1e-12);
  ExpectNoPlacementBelow(*sim, bound);
}

// x; a = Relu(x), b = Neg(x), c = a + b.
graph::Graph Branches() {
  return Graph(Unary("a", "Relu", "x") + Unary("b", "Neg", "x") +
               "node { name: 'c' op: 'AddV2' input: 'a' input: 'b' attr { key: 'T' "
               "value { type: DT_FLOAT } } }");
}

// Every op 10 us on either cpu; a copy of their 64 bytes 1 + 4 us.
sim::Profile BranchesProfile(const graph::Graph& g) {
  sim::Profile p = Uniform(g, {"cpu0", "cpu1"}, 10e-6);
  p.links[{"cpu0", "cpu1"}] = {1e-6, 16e6, 1};
  p.links[{"cpu1", "cpu0"}] = {1e-6, 16e6, 1};
  return p;
}

TEST(SimulatorTest, BranchesOnTwoCpusOverlapAndTheConsumerCopiesWhatItReads) {
  graph::Graph g = Branches();
  sim::Profile p = BranchesProfile(g);
  auto sim = sim::Simulator::Create(g, TwoCpus(), &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  std::vector<int> d = {0, 0, 1, 0};  // x, a, c on cpu0; b on cpu1
  sim::SimResult r = sim->Run(d);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  // b: copy x (5 us) then 10 us, ends at 15; c: copy b (5 us) then 10 us: 30 us.
  EXPECT_NEAR(r.step.seconds, 30e-6, 1e-12);
  ASSERT_EQ(r.step.transfers.size(), 2u);
  EXPECT_EQ(r.step.transfers[0].bytes, 64);
}

// In a step on both cpus, a kernel takes the cold extra for its device's idle
// spell before it: 1 us under 4 us idle, 7 us after more. One device's step
// has none (its kernels were profiled that way).
TEST(SimulatorTest, KernelsOfASplitStepTakeTheColdExtraForTheirIdleSpell) {
  graph::Graph g = Branches();
  sim::Profile p = BranchesProfile(g);
  for (const char* d : {"cpu0", "cpu1"}) p.cold_s[d] = {{4e-6, 1e-6}, {1e9, 7e-6}};
  auto sim = sim::Simulator::Create(g, TwoCpus(), &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  // a on cpu0 0-11 (idle 0: +1); b on cpu1 copies x 0-5, 5-16 (+1); c on cpu0
  // idle 11-16 (5 us: +7), copies b 16-21, 21-38.
  sim::SimResult r = sim->Run({0, 0, 1, 0});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_NEAR(r.step.seconds, 38e-6, 1e-12);
  sim::SimResult one = sim->Run({0, 0, 0, 0});
  ASSERT_TRUE(one.status.ok()) << one.status.message();
  EXPECT_NEAR(one.step.seconds, 30e-6, 1e-12);
}

// With the parallel step's figures too, a device's kernels take the point
// between them and the alternating step's that its cross-device edges per op
// set: here the alternating step's were taken at 1 edge per op; cpu0 (a, c)
// has 1 edge (b -> c) over 2 ops, halfway; cpu1 (b) has 2 (x -> b, b -> c),
// past it, all alternating.
TEST(SimulatorTest, ASplitsKernelsTakeTheSharingFiguresItsCrossEdgesPerOpSet) {
  graph::Graph g = Branches();
  sim::Profile p = BranchesProfile(g);
  for (const char* d : {"cpu0", "cpu1"}) {
    p.slowdown[d] = 1;
    p.cold_s[d] = {{4e-6, 1e-6}, {1e9, 7e-6}};
    p.parallel_slowdown[d] = 1;
    p.parallel_cold_s[d] = {{4e-6, 0}, {1e9, 3e-6}};
    p.shared_cross[d] = 1;
  }
  auto sim = sim::Simulator::Create(g, TwoCpus(), &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  // a on cpu0 0-10.5 (idle 0: halfway between +1 and +0); b on cpu1 copies x
  // 0-5, 5-16 (+1, alternating); c on cpu0 idle 10.5-16 (halfway between +7
  // and +3: +5), copies b 16-21, 21-36.
  sim::SimResult r = sim->Run({0, 0, 1, 0});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_NEAR(r.step.seconds, 36e-6, 1e-12);

  // Without cold extras, the slowdowns likewise (2 alternating, 1 parallel),
  // with cpu1's alternating figures taken at 4 edges per op: its 2 are
  // halfway. a on cpu0 0-10 (cpu1 asleep: alone); b on cpu1 5-20 (cpu0 runs
  // a: x1.5); c on cpu0 after b's copy, 25-35 (cpu1 just went idle: alone).
  for (const char* d : {"cpu0", "cpu1"}) {
    p.slowdown[d] = 2;
    p.cold_s[d] = {{1e9, 0}};
    p.parallel_cold_s[d] = {{1e9, 0}};
  }
  p.shared_cross["cpu1"] = 4;
  sim = sim::Simulator::Create(g, TwoCpus(), &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  r = sim->Run({0, 0, 1, 0});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_NEAR(r.step.seconds, 35e-6, 1e-12);

  // A profile without the figures' edges per op takes the alternating ones:
  // b x2, 5-25; c 30-40.
  p.shared_cross.clear();
  sim = sim::Simulator::Create(g, TwoCpus(), &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  r = sim->Run({0, 0, 1, 0});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_NEAR(r.step.seconds, 40e-6, 1e-12);
}

// x -> a on cpu0; a feeds b on cpu1 and d on cpu0; c = b + d on cpu0. Every op
// 10 us, copies free; handing an op to a polling worker costs 1 us, to a
// sleeping one 20 us, and the hander 3 us more.
sim::SimResult HandOffs(const std::string& spin) {
  graph::Graph g =
      Graph(Unary("a", "Relu", "x") + Unary("b", "Neg", "a") + Unary("d", "Relu", "a") +
            "node { name: 'c' op: 'AddV2' input: 'b' input: 'd' attr { key: 'T' "
            "value { type: DT_FLOAT } } }");
  sim::Profile p = Uniform(g, {"cpu0", "cpu1"}, 10e-6);
  for (const char* d : {"cpu0", "cpu1"}) {
    p.poll_s[d] = 1e-6;
    p.wakeup_s[d] = 20e-6;
    p.notify_s[d] = 3e-6;
  }
  p.links[{"cpu0", "cpu1"}] = {0, 1e18, 1};
  p.links[{"cpu1", "cpu0"}] = {0, 1e18, 1};
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0], spin: " + spin +
          "}\n  - {name: cpu1, kind: cpu, cores: [1], spin: " + spin + "}\n",
      "spin.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  auto sim = sim::Simulator::Create(g, *c, &p);
  EXPECT_TRUE(sim.ok()) << sim.status().message();
  std::vector<int> d(g.size(), 0);
  d[g.Find("b")] = 1;
  return sim->Run(d);
}

// The step starts with every worker asleep: the caller wakes cpu0 for a
// (20-30); cpu0 wakes cpu1 for b (50-60), paying 3 us before d (33-43).
double StartOf(const sim::SimResult& r, graph::NodeId node) {
  for (const sim::OpRecord& op : r.step.ops) {
    if (op.node == node) return op.start_us;
  }
  return -1;
}

TEST(SimulatorTest, AWorkerStillPollingTakesAHandedOpAtOnce) {
  sim::SimResult r = HandOffs("200us");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_NEAR(StartOf(r, 3), 33, 1e-6) << "d";
  // c: cpu0 idle since 43, for 17 us of its 200: it polls, 61-71.
  EXPECT_NEAR(r.step.seconds, 71e-6, 1e-12);
}

TEST(SimulatorTest, WakingASleepingWorkerCostsItsWakeUpAndTheHanderItsNotify) {
  sim::SimResult r = HandOffs("5us");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_NEAR(StartOf(r, 3), 33, 1e-6) << "d";
  // c: cpu0 asleep since 48 (43 + its 5 us of polling): 80-90.
  EXPECT_NEAR(r.step.seconds, 90e-6, 1e-12);
}

TEST(SimulatorTest, EagerSendsShareTheLinkOneAtATime) {
  // a and b on g0 both feed c on g1. 64 bytes at 1.6 MB/s plus 1 us: 41 us a send.
  graph::Graph g = Graph(Unary("a", "Relu", "x") + Unary("b", "Neg", "x") +
                         "node { name: 'c' op: 'AddV2' input: 'a' input: 'b' attr { key: 'T' "
                         "value { type: DT_FLOAT } } }");
  sim::Profile p = Uniform(g, {"g0", "g1"}, 10e-6);
  auto sim = sim::Simulator::Create(g, Sims("1.6MB/s"), &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  sim::SimResult r = sim->Run({0, 0, 0, 1});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  // a ends at 10 and is sent 10..51; b ends at 20 but waits for the link: 51..92;
  // c runs 92..102. Without contention it would end at 71.
  ASSERT_EQ(r.step.transfers.size(), 2u);
  EXPECT_NEAR(r.step.transfers[1].start_us, 51, 1e-6);
  EXPECT_NEAR(r.step.seconds, 102e-6, 1e-12);
}

// cpu0 and a `sync: step` gpu0: every op 10 us, Neg 1 ms on the GPU, launches
// 1 us, and a 100 us link each way.
sim::Profile CpuAndGpuProfile(const graph::Graph& g) {
  sim::Profile p = Uniform(g, {"cpu0", "gpu0"}, 10e-6);
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (g.node(id).op == "Neg") p.ops["gpu0"][graph::OpSignature(g, id)] = {1e-3, 64, 1};
  }
  p.launch_s["gpu0"] = 1e-6;
  p.links[{"cpu0", "gpu0"}] = {100e-6, 1e15, 0};
  p.links[{"gpu0", "cpu0"}] = {100e-6, 1e15, 0};
  return p;
}

TEST(SimulatorTest, ACopyOntoAGpuWaitsForTheKernelsQueuedThereBeforeIt) {
  // p on cpu0 feeds q on gpu0, while r's 1 ms kernel is queued on gpu0 from 0.
  // LibTorch's blocking copy waits for gpu0's stream: the copy runs 1000..1100
  // and q's kernel 1100..1110. An eager send (110) would have q end at 1010.
  graph::Graph g = Graph(
      "node { name: 'y' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } attr { "
      "key: 'shape' value { shape { dim { size: 4 } dim { size: 4 } } } } }" +
      Unary("p", "Relu", "x") + Unary("r", "Neg", "y") + Unary("q", "Relu", "p"));
  sim::Profile prof = CpuAndGpuProfile(g);
  auto sim = sim::Simulator::Create(g, testing::CpuAndGpu(), &prof);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  sim::SimResult r = sim->Run({0, 1, 0, 1, 1});  // x, y, p, r, q
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.step.transfers.size(), 1u);
  EXPECT_NEAR(r.step.transfers[0].start_us, 1000, 1e-6);
  EXPECT_NEAR(r.step.seconds, 1110e-6, 1e-12);
}

TEST(SimulatorTest, ACopyOffAGpuHoldsItsStreamSoLaterKernelsWaitForIt) {
  // a (10 us) on gpu0 feeds b on cpu0, whose worker copies a at 10..110 on
  // gpu0's stream, and c on gpu0, whose 1 ms kernel, launched after the copy
  // is queued, runs 110..1110. An eager send beside the kernels would end the
  // step at 1010.
  graph::Graph g = Graph(Unary("a", "Relu", "x") + Unary("b", "Relu", "a") + Unary("c", "Neg", "a"));
  sim::Profile prof = CpuAndGpuProfile(g);
  auto sim = sim::Simulator::Create(g, testing::CpuAndGpu(), &prof);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  sim::SimResult r = sim->Run({1, 1, 0, 1});  // x, a, b, c
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.step.transfers.size(), 1u);
  EXPECT_NEAR(r.step.transfers[0].start_us, 10, 1e-6);
  EXPECT_NEAR(r.step.seconds, 1110e-6, 1e-12);
}

TEST(SimulatorTest, ACopyOffAGpuHoldsTheGpusWorkerFromItsRequestToItsEnd) {
  // gpu0's worker launches a (0..1; kernel 0..10). b on cpu0 reads a: its
  // worker asks for the copy at 1, and the copy waits for a's kernel, running
  // 10..110. A launch cannot begin while a copy off the GPU is between its
  // request and its end (LibTorch's copy into pageable host memory holds the
  // driver), so r's launch, due at 1, begins at 110 and ends at 111, and the
  // chain c0..c19 after it, 1 us a launch, ends at 131. Without the hold r
  // would be launched at 2 and c19 at 22 (their kernels still wait for the copy).
  std::string chain = Unary("c0", "Relu", "r");
  for (int i = 1; i < 20; ++i) {
    chain += Unary("c" + std::to_string(i), "Relu", "c" + std::to_string(i - 1));
  }
  graph::Graph g = Graph(
      "node { name: 'y' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } attr { "
      "key: 'shape' value { shape { dim { size: 4 } dim { size: 4 } } } } }" +
      Unary("a", "Relu", "x") + Unary("b", "Relu", "a") + Unary("r", "Neg", "y") + chain);
  sim::Profile prof = CpuAndGpuProfile(g);
  auto sim = sim::Simulator::Create(g, testing::CpuAndGpu(), &prof);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  std::vector<int> place(g.size(), 1);
  place[g.Find("b")] = 0;
  sim::SimResult r = sim->Run(place);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.step.transfers.size(), 1u);
  EXPECT_NEAR(r.step.transfers[0].start_us, 10, 1e-6);
  std::map<std::string, std::pair<double, double>> span;
  for (const sim::OpRecord& op : r.step.ops) span[g.node(op.node).name] = {op.start_us, op.end_us};
  EXPECT_NEAR(span["r"].first, 1, 1e-6);  // on the worker from 1: held there
  EXPECT_NEAR(span["r"].second, 111, 1e-6);
  EXPECT_NEAR(span["c19"].second, 131, 1e-6);
  EXPECT_NEAR(r.step.seconds, 1310e-6, 1e-12);
}

TEST(SimulatorTest, UnprofiledOpsOnASimDeviceAreRooflineEstimates) {
  graph::Graph g = Graph(
      "node { name: 'w' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: "
      "'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 4 } } "
      "float_val: 1 } } } }"
      "node { name: 'm' op: 'MatMul' input: 'x' input: 'w' attr { key: 'T' value { type: "
      "DT_FLOAT } } }");
  auto sim = sim::Simulator::Create(g, Sims(), nullptr);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  const graph::OpCost c = graph::ComputeCosts(g)[g.Find("m")];
  const double expected =
      std::max(c.flops / 1e12, static_cast<double>(c.bytes_read + c.bytes_written) / 100e9);
  EXPECT_NEAR(sim->OpSeconds(g.Find("m"), 0), expected, 1e-15);
  EXPECT_TRUE(sim->Estimated(g.Find("m"), 0));
  sim::SimResult r = sim->Run(std::vector<int>(g.size(), 0));
  EXPECT_EQ(r.estimated_ops, 1);
}

TEST(SimulatorTest, OpOnARealDeviceWithoutProfileOrFiguresIsAnErrorNamingIt) {
  graph::Graph g = Graph(Unary("a", "Relu", "x") + Unary("b", "Relu", "a"));
  auto sim = sim::Simulator::Create(g, TwoCpus(), nullptr);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  sim::SimResult r = sim->Run({0, 1, 1});
  EXPECT_EQ(r.status.message(),
            "device 'cpu1' has no profiled time for node 'a' (Relu) and no "
            "peak_flops/memory_bandwidth to estimate it (2 op(s) so placed): run planner "
            "profile on these devices");
}

TEST(SimulatorTest, PeakMemoryOnOneDeviceIsTheExecutorsExactly) {
  graph::TrainingGraph t = LeNet();
  cluster::Cluster c = TwoCpus();
  auto ex = Executor::Create(t.graph, c, std::vector<int>(t.graph.size(), 0));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  auto m = Measure(**ex, t.graph, t.loss, {0, 1, 1});
  ASSERT_TRUE(m.ok()) << m.status().message();
  // As planner profile records them: which ops' outputs are views.
  sim::Profile p;
  for (const sim::OpRecord& op : m->median_step.ops) {
    p.ops["cpu0"][graph::OpSignature((*ex)->graph(), op.node)] = {1e-6, op.bytes, 1};
  }
  auto sim = sim::Simulator::Create(t.graph, c, &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  sim::SimResult r = sim->Run(std::vector<int>(t.graph.size(), 0), t.graph.Find(t.loss));
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.step.peak_bytes[0], m->peak_bytes[0]);
}

TEST(SimulatorTest, ExceedingACapacityIsAnOutOfMemoryResultNamingTheDevice) {
  graph::TrainingGraph t = LeNet();
  cluster::Cluster c = TwoCpus("300KB");
  auto ex = Executor::Create(t.graph, c, std::vector<int>(t.graph.size(), 0));
  ASSERT_TRUE(ex.ok());
  sim::Profile p = Uniform((*ex)->graph(), {"cpu0"}, 1e-6);
  auto sim = sim::Simulator::Create(t.graph, c, &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  sim::SimResult r = sim->Run(std::vector<int>(t.graph.size(), 0), t.graph.Find(t.loss));
  EXPECT_EQ(r.status.code(), graph::StatusCode::kOutOfMemory);
  EXPECT_NE(r.status.message().find("device 'cpu0' is out of memory at node '"), std::string::npos)
      << r.status.message();
  EXPECT_NE(r.status.message().find("capacity 300000"), std::string::npos);
}

TEST(SimulatorTest, ARunIsIndependentOfTheRunsBeforeIt) {
  // Run keeps a run's copies in a per-thread table that it never clears: runs
  // of other placements and of another simulator, one of them ending early out
  // of memory with copies live, must leave nothing the next run sees.
  graph::TrainingGraph t = LeNet();
  const graph::NodeId loss = t.graph.Find(t.loss);
  const int n = t.graph.size();
  std::vector<int> alternating(n), thirds(n);
  for (int i = 0; i < n; ++i) {
    alternating[i] = i % 2;
    thirds[i] = i % 3 == 0;
  }
  auto sim = sim::Simulator::Create(t.graph, Sims("1GB/s"), nullptr);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  const sim::SimResult first = sim->Run(alternating, loss);
  ASSERT_TRUE(first.status.ok()) << first.status.message();
  ASSERT_FALSE(first.step.transfers.empty());

  EXPECT_TRUE(sim->Run(thirds, loss).status.ok());
  auto cramped = sim::Simulator::Create(t.graph, Sims("1GB/s", "200KB"), nullptr);
  ASSERT_TRUE(cramped.ok()) << cramped.status().message();
  EXPECT_EQ(cramped->Run(alternating, loss).status.code(), graph::StatusCode::kOutOfMemory);

  auto same = [&](const sim::SimResult& r) {
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.step.seconds, first.step.seconds);
    EXPECT_EQ(r.step.peak_bytes, first.step.peak_bytes);
    ASSERT_EQ(r.step.transfers.size(), first.step.transfers.size());
    for (size_t i = 0; i < r.step.transfers.size(); ++i) {
      EXPECT_EQ(r.step.transfers[i].end_us, first.step.transfers[i].end_us);
    }
  };
  same(sim->Run(alternating, loss));
  sim::SimResult elsewhere;
  std::thread([&] { elsewhere = sim->Run(alternating, loss); }).join();
  same(elsewhere);
}

}  // namespace
}  // namespace runtime
