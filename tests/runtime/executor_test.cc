#include "runtime/executor.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <random>

#include "graph/graphdef.h"
#include "graph/models.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "runtime/reference_executor.h"
#include "tests/runtime/test_util.h"

namespace runtime {
namespace {

using testing::LeNet;
using testing::LeNetFeeds;
using testing::TwoCpus;

// Convolutions and their gradients on cpu0, everything else on cpu1.
std::vector<int> SplitPlacement(const graph::Graph& g) { return testing::ConvsOn(g, 0, 1); }

// Every op on a device drawn at random (updates with their parameters, as the
// planner places them): most edges cross devices, so the two workers meet on the
// step's shared state at almost every op.
std::vector<int> RandomPlacement(const graph::Graph& g, uint32_t seed) {
  std::mt19937 rng(seed);
  std::map<std::string, int> device_of_key;
  std::vector<int> d(g.size());
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const graph::Node& n = g.node(id);
    const std::string& key = n.colocation.empty() ? n.name : n.colocation[0];
    auto it = device_of_key.try_emplace(key, static_cast<int>(rng() % 2)).first;
    d[id] = it->second;
  }
  return d;
}

TEST(ExecutorTest, MatchesTheReferenceExecutorOnOneAndOnTwoDevices) {
  graph::TrainingGraph t = LeNet();
  cluster::Cluster c = TwoCpus();
  auto ref = ReferenceExecutor::Create(t.graph);
  ASSERT_TRUE(ref.ok());
  std::vector<at::Tensor> expected;
  ASSERT_TRUE(ref->Run(LeNetFeeds(), {t.loss}, &expected).ok());
  const std::string param = t.graph.node(t.parameters[0]).name;
  at::Tensor expected_param = ref->state(param);

  for (const auto& placement : {std::vector<int>(t.graph.size(), 0), SplitPlacement(t.graph)}) {
    auto ex = Executor::Create(t.graph, c, placement);
    ASSERT_TRUE(ex.ok()) << ex.status().message();
    std::vector<at::Tensor> got;
    sim::StepStats stats;
    graph::Status st = (*ex)->Run(LeNetFeeds(), {t.loss}, &got, &stats);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_TRUE(at::allclose(got[0], expected[0], 1e-6, 1e-6));
    EXPECT_TRUE(at::allclose((*ex)->state(param), expected_param, 1e-6, 1e-6))
        << "the update of " << param << " differs";
  }
}

TEST(ExecutorTest, CrossDeviceEdgesBecomeTransfersAndEveryOpIsOnTheTimeline) {
  graph::TrainingGraph t = LeNet();
  auto one = Executor::Create(t.graph, TwoCpus(), std::vector<int>(t.graph.size(), 0));
  auto two = Executor::Create(t.graph, TwoCpus(), SplitPlacement(t.graph));
  ASSERT_TRUE(one.ok() && two.ok());
  std::vector<at::Tensor> out;
  sim::StepStats a, b;
  ASSERT_TRUE((*one)->Run(LeNetFeeds(), {t.loss}, &out, &a).ok());
  ASSERT_TRUE((*two)->Run(LeNetFeeds(), {t.loss}, &out, &b).ok());
  EXPECT_TRUE(a.transfers.empty());
  ASSERT_FALSE(b.transfers.empty());
  for (const sim::TransferRecord& r : b.transfers) {
    EXPECT_NE(r.src_device, r.dst_device);
    EXPECT_GT(r.bytes, 0);
    EXPECT_LE(r.start_us, r.end_us);
  }
  int computed = 0;
  for (const graph::Node& n : t.graph.nodes()) {
    computed += n.op != "Const" && n.op != "Placeholder" && n.op != "NoOp" && n.op != "VariableV2";
  }
  EXPECT_EQ(static_cast<int>(b.ops.size()), computed);
  EXPECT_GT(b.busy_us[0], 0);
  EXPECT_GT(b.busy_us[1], 0);
  EXPECT_GT(b.peak_bytes[0], 0);
}

TEST(ExecutorTest, ExceedingADevicesMemoryIsAnOutOfMemoryResultNamingIt) {
  graph::TrainingGraph t = LeNet();
  // LeNet's parameters alone are about 247 KB; 300 KB cannot hold the activations too.
  auto ex = Executor::Create(t.graph, TwoCpus("300KB"), std::vector<int>(t.graph.size(), 0));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  std::vector<at::Tensor> out;
  graph::Status st = (*ex)->Run(LeNetFeeds(), {t.loss}, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), graph::StatusCode::kOutOfMemory);
  EXPECT_NE(st.message().find("device 'cpu0' is out of memory at node '"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("capacity 300000"), std::string::npos) << st.message();
}

TEST(ExecutorTest, AKernelErrorEndsTheStepWithoutHanging) {
  graph::TrainingGraph t = LeNet();
  auto ex = Executor::Create(t.graph, TwoCpus(), SplitPlacement(t.graph));
  ASSERT_TRUE(ex.ok());
  std::map<std::string, at::Tensor> feeds = LeNetFeeds();
  feeds["images"] = at::rand({8, 27, 27, 1});  // wrong image size
  std::vector<at::Tensor> out;
  graph::Status st = (*ex)->Run(feeds, {t.loss}, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().find('\n'), std::string::npos);
  // And the executor still works afterwards.
  EXPECT_TRUE((*ex)->Run(LeNetFeeds(), {t.loss}, &out).ok());
}

TEST(ExecutorTest, ManyStepsOfARandomSplitMatchTheReferenceStepByStep) {
  graph::TrainingGraph t = LeNet();
  auto ref = ReferenceExecutor::Create(t.graph);
  auto ex = Executor::Create(t.graph, TwoCpus(), RandomPlacement(t.graph, 11));
  ASSERT_TRUE(ref.ok() && ex.ok());
  const std::string param = t.graph.node(t.parameters[0]).name;
  for (uint64_t step = 0; step < 30; ++step) {
    std::vector<at::Tensor> expected, got;
    ASSERT_TRUE(ref->Run(LeNetFeeds(step), {t.loss}, &expected).ok());
    sim::StepStats stats;
    graph::Status st = (*ex)->Run(LeNetFeeds(step), {t.loss}, &got, &stats);
    ASSERT_TRUE(st.ok()) << "step " << step << ": " << st.message();
    ASSERT_TRUE(at::allclose(got[0], expected[0], 1e-5, 1e-6)) << "step " << step;
    ASSERT_FALSE(stats.transfers.empty());
    for (size_t i = 1; i < stats.ops.size(); ++i) {
      ASSERT_LE(stats.ops[i - 1].start_us, stats.ops[i].start_us) << "the timeline is in order";
    }
  }
  EXPECT_TRUE(at::allclose((*ex)->state(param), ref->state(param), 1e-5, 1e-6));
}

TEST(ExecutorTest, FailuresWhileBothDevicesRunEndEveryStepAndLeaveTheExecutorUsable) {
  graph::TrainingGraph t = LeNet();
  auto ref = ReferenceExecutor::Create(t.graph);
  auto ex = Executor::Create(t.graph, TwoCpus(), RandomPlacement(t.graph, 5));
  ASSERT_TRUE(ref.ok() && ex.ok());
  for (uint64_t step = 0; step < 20; ++step) {
    std::map<std::string, at::Tensor> bad = LeNetFeeds(step);
    bad["images"] = at::rand({8, 27, 27, 1});  // fails at the first convolution
    std::vector<at::Tensor> expected, got;
    EXPECT_FALSE((*ex)->Run(bad, {t.loss}, &got).ok()) << "step " << step;
    ASSERT_TRUE(ref->Run(LeNetFeeds(step), {t.loss}, &expected).ok());
    graph::Status st = (*ex)->Run(LeNetFeeds(step), {t.loss}, &got);
    ASSERT_TRUE(st.ok()) << "step " << step << ": " << st.message();
    ASSERT_TRUE(at::allclose(got[0], expected[0], 1e-5, 1e-6)) << "step " << step;
  }
  // Out of memory part way through, while the other device is busy.
  auto small = Executor::Create(t.graph, TwoCpus("300KB"), RandomPlacement(t.graph, 5));
  ASSERT_TRUE(small.ok());
  for (int step = 0; step < 20; ++step) {
    std::vector<at::Tensor> out;
    EXPECT_EQ((*small)->Run(LeNetFeeds(), {t.loss}, &out).code(), graph::StatusCode::kOutOfMemory);
  }
}

// Kernels run with denormals flushed to zero, as on TensorFlow's threads, in
// the executor and in the reference alike: 1e-20 squared (1e-40, below the
// smallest normal float) is 0 in both, 1e-10 squared stays 1e-20.
TEST(ExecutorTest, DenormalResultsAreFlushedToZeroAsTensorFlowDoes) {
  auto g = graph::ParseTextGraphDef(
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }"
      "node { name: 'y' op: 'Mul' input: 'x' input: 'x' attr { key: 'T' value { type: DT_FLOAT "
      "} } }",
      "m.pbtxt");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const std::map<std::string, at::Tensor> feeds = {{"x", at::tensor({1e-20f, 1e-10f})}};
  auto ref = ReferenceExecutor::Create(*g);
  ASSERT_TRUE(ref.ok());
  std::vector<at::Tensor> want;
  ASSERT_TRUE(ref->Run(feeds, {"y"}, &want).ok());
  for (int device : {0, 1}) {
    auto ex = Executor::Create(*g, TwoCpus(), std::vector<int>(g->size(), device));
    ASSERT_TRUE(ex.ok()) << ex.status().message();
    std::vector<at::Tensor> got;
    ASSERT_TRUE((*ex)->Run(feeds, {"y"}, &got).ok());
    EXPECT_EQ(got[0][0].item<float>(), 0.0f) << "cpu" << device;
    EXPECT_FLOAT_EQ(got[0][1].item<float>(), 1e-20f) << "cpu" << device;
  }
  EXPECT_EQ(want[0][0].item<float>(), 0.0f) << "the reference executor";
  EXPECT_FLOAT_EQ(want[0][1].item<float>(), 1e-20f);
}

// A variable of a shape no host can hold fails where the executor is made,
// naming the variable (LibTorch's allocator throws; uncaught, that ended the
// process).
TEST(ExecutorTest, AVariableTooLargeForTheHostIsNamed) {
  auto g = graph::ParseTextGraphDef(
      "node { name: 'emb' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'shape' value { shape { dim { size: 1099511627776 } dim { size: 512 } } } } }",
      "m.pbtxt");
  ASSERT_TRUE(g.ok()) << g.status().message();
  graph::InferShapes(*g);
  auto ref = ReferenceExecutor::Create(*g);
  ASSERT_FALSE(ref.ok());
  EXPECT_NE(ref.status().message().find("variable 'emb' of shape [1099511627776,512]: "),
            std::string::npos)
      << ref.status().message();
}

TEST(ExecutorTest, UnfedPlaceholderIsAnError) {
  graph::TrainingGraph t = LeNet();
  auto ex = Executor::Create(t.graph, TwoCpus(), std::vector<int>(t.graph.size(), 1));
  ASSERT_TRUE(ex.ok());
  std::vector<at::Tensor> out;
  graph::Status st = (*ex)->Run({{"images", at::rand({8, 28, 28, 1})}}, {t.loss}, &out);
  EXPECT_EQ(st.message(), "placeholder 'labels' is not fed");
}

TEST(ExecutorTest, OpsOnADeviceKindWithoutKernelsAreCountedAndTheFirstNamed) {
  graph::TrainingGraph t = LeNet();
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: k40, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: "
      "288GB/s}\n  - {name: cpu0, kind: cpu, cores: [0]}\ndefault_link: {bandwidth: 10GB/s, "
      "latency: 10us}\n",
      "sim.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::vector<int> d(t.graph.size(), 1);
  d[t.graph.Find("conv1/Conv2D")] = 0;
  d[t.graph.Find("conv2/Conv2D")] = 0;
  auto ex = Executor::Create(t.graph, *c, d);
  ASSERT_FALSE(ex.ok());
  EXPECT_NE(ex.status().message().find("puts ops on simulated devices, which have no kernels (2 "
                                       "on 'k40'; first 'conv1/Conv2D' (Conv2D) on 'k40')"),
            std::string::npos)
      << ex.status().message();
}

TEST(ExecutorTest, CudaDeviceWithoutACudaBuildIsRefusedBeforeRunning) {
  if (at::hasCUDA()) GTEST_SKIP() << "this build has CUDA and the host a GPU (executor_cuda_test)";
  graph::TrainingGraph t = LeNet();
  auto c =
      cluster::ParseDevicesYaml("devices:\n  - {name: gpu0, kind: cuda, index: 0}\n", "gpu.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto ex = Executor::Create(t.graph, *c, std::vector<int>(t.graph.size(), 0));
  ASSERT_FALSE(ex.ok());
  EXPECT_NE(ex.status().message().find("device 'gpu0' is cuda"), std::string::npos)
      << ex.status().message();
}

TEST(ExecutorTest, TwoCudaDevicesAreRefusedBeforeAnyIsCreated) {
  graph::TrainingGraph t = LeNet();
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: gpu0, kind: cuda, index: 0}\n  - {name: gpu1, kind: cuda, index: 1}\n",
      "gpus.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::vector<int> placement(t.graph.size(), 0);
  placement.back() = 1;
  auto ex = Executor::Create(t.graph, *c, placement);
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.status().message(),
            "the placement uses 2 cuda devices: copies between GPUs are not built yet (one GPU, "
            "with cpu devices, is)");
  // One of them is fine as far as this check goes.
  auto one = Executor::Create(t.graph, *c, std::vector<int>(t.graph.size(), 1));
  if (!one.ok()) {
    EXPECT_EQ(one.status().message().find("cuda devices:"), std::string::npos);
  }
}

TEST(ExecutorTest, EveryOpWithoutAKernelIsListedBeforeAnythingRuns) {
  auto g = graph::ParseTextGraphDef(
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }"
      "node { name: 'a' op: 'FancyOp' input: 'x' }"
      "node { name: 'b' op: 'OtherOp' input: 'a' }"
      "node { name: 'c' op: 'FancyOp' input: 'b' }",
      "m.pbtxt");
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto ex = Executor::Create(*g, TwoCpus(), std::vector<int>(g->size(), 0));
  ASSERT_FALSE(ex.ok());
  EXPECT_NE(ex.status().message().find("FancyOp"), std::string::npos) << ex.status().message();
  EXPECT_NE(ex.status().message().find("OtherOp"), std::string::npos) << ex.status().message();
}

}  // namespace
}  // namespace runtime
