// The executor with a cuda device (runtime/device_cuda.cc). Every test skips
// where this build's LibTorch has no CUDA or the host has no GPU.
#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "runtime/copies.h"
#include "runtime/executor.h"
#include "runtime/measure.h"
#include "runtime/reference_executor.h"
#include "tests/runtime/test_util.h"

namespace runtime {
namespace {

using testing::LeNet;
using testing::LeNetFeeds;

#define SKIP_WITHOUT_GPU() \
  if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA in this build or no GPU on this host"

using testing::CpuAndGpu;

// Convolutions and their gradients on the GPU (device 1), the rest on cpu0.
std::vector<int> ConvsOnGpu(const graph::Graph& g) { return testing::ConvsOn(g, 1, 0); }

TEST(ExecutorCudaTest, GpuAndMixedPlacementsMatchTheReferenceExecutorWithEitherSync) {
  SKIP_WITHOUT_GPU();
  // cuDNN's TF32 convolutions round to 10 bits; the reference is float32.
  at::globalContext().setAllowTF32CuDNN(false);
  graph::TrainingGraph t = LeNet();
  auto ref = ReferenceExecutor::Create(t.graph);
  ASSERT_TRUE(ref.ok());
  std::vector<at::Tensor> expected;
  ASSERT_TRUE(ref->Run(LeNetFeeds(), {t.loss}, &expected).ok());
  const std::string param = t.graph.node(t.parameters[0]).name;
  for (const char* sync : {"", ", sync: op", ", host_copies: pinned"})
    for (const auto& placement : {std::vector<int>(t.graph.size(), 1), ConvsOnGpu(t.graph)}) {
      SCOPED_TRACE(sync);
      auto ex = Executor::Create(t.graph, CpuAndGpu(sync), placement);
      ASSERT_TRUE(ex.ok()) << ex.status().message();
      std::vector<at::Tensor> got;
      sim::StepStats stats;
      graph::Status st = (*ex)->Run(LeNetFeeds(), {t.loss}, &got, &stats);
      ASSERT_TRUE(st.ok()) << st.message();
      EXPECT_TRUE(at::allclose(got[0].cpu(), expected[0], 1e-4, 1e-5))
          << got[0].cpu() << " vs " << expected[0];
      EXPECT_TRUE(at::allclose((*ex)->state(param).cpu(), ref->state(param), 1e-4, 1e-5))
          << "the update of " << param << " differs";
    }
}

TEST(ExecutorCudaTest, ParametersLiveOnTheGpuAndCrossingEdgesAreTransfers) {
  SKIP_WITHOUT_GPU();
  graph::TrainingGraph t = LeNet();
  auto ex = Executor::Create(t.graph, CpuAndGpu(), ConvsOnGpu(t.graph));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  EXPECT_TRUE((*ex)->state("conv1/kernel").is_cuda());
  EXPECT_FALSE((*ex)->state("fc1/kernel").is_cuda());
  std::vector<at::Tensor> got;
  sim::StepStats stats;
  ASSERT_TRUE((*ex)->Run(LeNetFeeds(), {t.loss}, &got, &stats).ok());
  int to_gpu = 0, to_cpu = 0;
  for (const sim::TransferRecord& r : stats.transfers) {
    to_gpu += r.src_device == 0 && r.dst_device == 1;
    to_cpu += r.src_device == 1 && r.dst_device == 0;
  }
  EXPECT_GT(to_gpu, 0);
  EXPECT_GT(to_cpu, 0);
  int gpu_ops = 0;
  for (const sim::OpRecord& r : stats.ops) gpu_ops += r.device == 1;
  EXPECT_GT(gpu_ops, 10);
  EXPECT_GT(stats.busy_us[1], 0);
  EXPECT_GT(stats.peak_bytes[1], 0);
}

TEST(ExecutorCudaTest, WithPinnedHostCopiesACopyOffTheGpuIsPinnedInItsOwnStrides) {
  SKIP_WITHOUT_GPU();
  cluster::DeviceSpec gpu;
  gpu.name = "gpu0";
  gpu.kind = cluster::DeviceKind::kCuda;
  gpu.cuda_index = 0;
  gpu.pinned_host_copies = true;
  const at::Tensor x = at::rand({2, 3, 4, 5}, at::TensorOptions().device(at::kCUDA))
                           .contiguous(at::MemoryFormat::ChannelsLast);
  const at::Tensor y = CopyAcross(x, c10::Device(c10::kCPU), gpu);
  EXPECT_TRUE(y.is_pinned());
  EXPECT_TRUE(y.strides() == x.strides());
  EXPECT_TRUE(at::equal(y, x.cpu()));
  gpu.pinned_host_copies = false;
  const at::Tensor z = CopyAcross(x, c10::Device(c10::kCPU), gpu);
  EXPECT_FALSE(z.is_pinned());
  EXPECT_TRUE(at::equal(z, y));
  // Onto the GPU a copy is Tensor::to's whatever the key says.
  gpu.pinned_host_copies = true;
  EXPECT_TRUE(at::equal(CopyAcross(y, c10::Device(c10::kCUDA, 0), gpu).cpu(), y));
}

TEST(ExecutorCudaTest, ACudaIndexTheHostLacksIsRefusedNamingTheDevice) {
  SKIP_WITHOUT_GPU();
  graph::TrainingGraph t = LeNet();
  auto c =
      cluster::ParseDevicesYaml("devices:\n  - {name: gpu9, kind: cuda, index: 99}\n", "g.yaml");
  ASSERT_TRUE(c.ok());
  auto ex = Executor::Create(t.graph, *c, std::vector<int>(t.graph.size(), 0));
  ASSERT_FALSE(ex.ok());
  EXPECT_NE(ex.status().message().find("device 'gpu9' is cuda index 99, but this host has "),
            std::string::npos)
      << ex.status().message();
}

TEST(ExecutorCudaTest, OutOfGpuMemoryNamesTheDeviceAndBytes) {
  SKIP_WITHOUT_GPU();
  graph::TrainingGraph t = LeNet();
  auto ex =
      Executor::Create(t.graph, CpuAndGpu(", memory: 64KiB"), std::vector<int>(t.graph.size(), 1));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  std::vector<at::Tensor> got;
  graph::Status st = (*ex)->Run(LeNetFeeds(), {t.loss}, &got);
  ASSERT_EQ(st.code(), graph::StatusCode::kOutOfMemory) << st.message();
  EXPECT_NE(st.message().find("device 'gpu0' is out of memory"), std::string::npos) << st.message();
}

TEST(ExecutorCudaTest, KernelTimingGivesEveryGpuOpASpanOnTheDeviceWithinTheStep) {
  SKIP_WITHOUT_GPU();
  graph::TrainingGraph t = LeNet();
  auto ex = Executor::Create(t.graph, CpuAndGpu(), std::vector<int>(t.graph.size(), 1));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  for (double hold_s : {0.0, 50e-6, 500e-6}) {
    SCOPED_TRACE(hold_s);
    (*ex)->set_kernel_timing(true, hold_s);
    std::vector<at::Tensor> got;
    sim::StepStats stats;
    ASSERT_TRUE((*ex)->Run(LeNetFeeds(), {t.loss}, &got, &stats).ok());
    ASSERT_FALSE(stats.ops.empty());
    // The step's clock stops once the GPU is done: no kernel ends after it
    // (with the events' clock placed a hold late, the last would by 500 us).
    for (const sim::OpRecord& r : stats.ops) {
      EXPECT_GE(r.kernel_start_us, 0) << t.graph.node(r.node).name;
      EXPECT_GE(r.kernel_end_us, r.kernel_start_us) << t.graph.node(r.node).name;
      EXPECT_LE(r.kernel_end_us, stats.seconds * 1e6 + 25) << t.graph.node(r.node).name;
    }
  }
  (*ex)->set_kernel_timing(false);
  std::vector<at::Tensor> got;
  sim::StepStats stats;
  ASSERT_TRUE((*ex)->Run(LeNetFeeds(), {t.loss}, &got, &stats).ok());
  for (const sim::OpRecord& r : stats.ops) EXPECT_EQ(r.kernel_start_us, -1);
}

// Copy timing (what `planner profile`'s split step runs with): a copy's record
// is the copy alone, so a copy off the GPU starts once its producer's kernels
// have run, not at its request (the simulator adds the wait for the GPU's
// queue itself). Kernel timing without a hold gives the producers' ends.
TEST(ExecutorCudaTest, WithCopyTimingACopyOffTheGpuIsRecordedFromWhenItsProducersKernelsEnded) {
  SKIP_WITHOUT_GPU();
  graph::TrainingGraph t = LeNet();
  auto ex = Executor::Create(t.graph, CpuAndGpu(), ConvsOnGpu(t.graph));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  (*ex)->set_kernel_timing(true);
  (*ex)->set_copy_timing(true);
  std::vector<at::Tensor> got;
  sim::StepStats stats;
  ASSERT_TRUE((*ex)->Run(LeNetFeeds(), {t.loss}, &got, &stats).ok());
  std::map<graph::NodeId, double> kernels_end;
  for (const sim::OpRecord& r : stats.ops) {
    if (r.device == 1) kernels_end[r.node] = r.kernel_end_us;
  }
  int checked = 0;
  for (const sim::TransferRecord& r : stats.transfers) {
    auto it = kernels_end.find(r.from_node);
    if (r.src_device != 1 || it == kernels_end.end()) continue;
    // The events' clock meets the host's within a few microseconds.
    EXPECT_GE(r.start_us, it->second - 25) << t.graph.node(r.from_node).name;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(ExecutorCudaTest, AnOutOfRangeLabelGivesANanLossOnTheGpuAsTensorFlowsGpuKernel) {
  SKIP_WITHOUT_GPU();
  graph::TrainingGraph t = LeNet();
  auto feeds = LeNetFeeds();
  feeds["labels"][0].fill_(10);  // 10 classes
  auto ex = Executor::Create(t.graph, CpuAndGpu(), std::vector<int>(t.graph.size(), 1));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  std::vector<at::Tensor> got;
  graph::Status st = (*ex)->Run(feeds, {t.loss}, &got);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_TRUE(std::isnan(got[0].cpu().item<float>()));
  // On a cpu device it is an error naming the node, as TensorFlow's CPU kernel.
  auto cpu = Executor::Create(t.graph, CpuAndGpu(), std::vector<int>(t.graph.size(), 0));
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  st = (*cpu)->Run(feeds, {t.loss}, &got);
  EXPECT_NE(st.message().find("a label is outside [0, 10)"), std::string::npos) << st.message();
}

TEST(ExecutorCudaTest, MeasureReportsTheGpuAllocatorsPeakAndNoneForACpu) {
  SKIP_WITHOUT_GPU();
  graph::TrainingGraph t = LeNet();
  auto ex = Executor::Create(t.graph, CpuAndGpu(), ConvsOnGpu(t.graph));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  auto m = Measure(**ex, t.graph, t.loss, MeasureOptions{1, 2, 1});
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->allocator_peak_bytes.size(), 2u);
  EXPECT_EQ(m->allocator_peak_bytes[0], -1);
  // At least the GPU's parameters and the activations the executor counted.
  EXPECT_GE(m->allocator_peak_bytes[1], m->peak_bytes[1]);
}

// Each step's loss and a parameter after it, for steps with feeds of `seeds`.
struct Steps {
  std::vector<float> losses;
  std::vector<at::Tensor> params;
  std::vector<bool> replayed;
};
Steps RunSteps(Executor& ex, const graph::TrainingGraph& t, const std::vector<uint64_t>& seeds) {
  Steps out;
  const std::string param = t.graph.node(t.parameters[0]).name;
  for (uint64_t seed : seeds) {
    std::vector<at::Tensor> got;
    sim::StepStats stats;
    graph::Status st = ex.Run(LeNetFeeds(seed), {t.loss}, &got, &stats);
    EXPECT_TRUE(st.ok()) << st.message();
    if (!st.ok()) break;
    out.losses.push_back(got[0].cpu().item<float>());
    out.params.push_back(ex.state(param).cpu());
    out.replayed.push_back(stats.replayed);
  }
  return out;
}

TEST(ExecutorCudaTest, StepsReplayedFromACudaGraphTrainAsStepsRunOpByOp) {
  SKIP_WITHOUT_GPU();
  at::globalContext().setAllowTF32CuDNN(false);
  graph::TrainingGraph t = LeNet();
  const std::vector<int> on_gpu(t.graph.size(), 1);
  auto eager = Executor::Create(t.graph, CpuAndGpu(), on_gpu);
  auto graphed = Executor::Create(t.graph, CpuAndGpu(", graphs: on"), on_gpu);
  ASSERT_TRUE(eager.ok() && graphed.ok());
  EXPECT_EQ((*graphed)->graph_note(), "");
  // New feeds every step: a replay must read them, not the captured step's.
  const std::vector<uint64_t> seeds = {3, 4, 5, 6, 7};
  Steps want = RunSteps(**eager, t, seeds), got = RunSteps(**graphed, t, seeds);
  ASSERT_EQ(got.losses.size(), seeds.size()) << (*graphed)->graph_note();
  EXPECT_EQ(got.replayed, (std::vector<bool>{false, false, true, true, true}))
      << (*graphed)->graph_note();
  for (size_t i = 0; i < seeds.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_NEAR(got.losses[i], want.losses[i], 1e-4 * (1 + std::fabs(want.losses[i])));
    EXPECT_TRUE(at::allclose(got.params[i], want.params[i], 1e-4, 1e-5));
  }
  // set_state replaces a tensor the graph wrote: the next two steps capture again.
  const std::string param = t.graph.node(t.parameters[0]).name;
  for (auto* ex : {eager->get(), graphed->get()}) ex->set_state(param, want.params[0]);
  want = RunSteps(**eager, t, {8, 9, 10});
  got = RunSteps(**graphed, t, {8, 9, 10});
  EXPECT_EQ(got.replayed, (std::vector<bool>{false, false, true}));
  ASSERT_EQ(got.losses.size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_TRUE(at::allclose(got.params[i], want.params[i], 1e-4, 1e-5));
}

TEST(ExecutorCudaTest, GraphsAreOffWithANoteWhenThePlacementUsesTheCpuToo) {
  SKIP_WITHOUT_GPU();
  graph::TrainingGraph t = LeNet();
  auto ex = Executor::Create(t.graph, CpuAndGpu(", graphs: on"), ConvsOnGpu(t.graph));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  EXPECT_NE((*ex)->graph_note().find("this placement uses 2 device(s)"), std::string::npos)
      << (*ex)->graph_note();
  Steps got = RunSteps(**ex, t, {3, 3, 3});
  EXPECT_EQ(got.replayed, (std::vector<bool>{false, false, false}));
}

}  // namespace
}  // namespace runtime
