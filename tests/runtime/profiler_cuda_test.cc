// Profiling a cuda device (runtime/profiler.h) and simulating it with what was
// profiled (sim/simulator.h). Every test skips where this build's LibTorch
// has no CUDA or the host has no GPU.
#include <ATen/Context.h>
#include <gtest/gtest.h>

#include "runtime/executor.h"
#include "runtime/measure.h"
#include "runtime/profiler.h"
#include "sim/simulator.h"
#include "tests/runtime/test_util.h"

namespace runtime {
namespace {

using testing::LeNet;

#define SKIP_WITHOUT_GPU() \
  if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA in this build or no GPU on this host"

using testing::CpuAndGpu;

// LeNet's training step profiled on cpu0 and gpu0, 1 warm-up round and 3 timed.
graph::Status ProfileLeNet(const graph::TrainingGraph& t, sim::Profile* p, ProfileReport* report,
                           GpuLinks gpu_links = GpuLinks::kStep) {
  ProfileOptions options{1, 3};
  options.gpu_links = gpu_links;
  return ProfileGraph(t.graph, t.loss, CpuAndGpu(), options, p, report);
}

TEST(ProfilerCudaTest, AGpuGetsKernelAndLaunchTimesAndLinksBothWays) {
  SKIP_WITHOUT_GPU();
  graph::TrainingGraph t = LeNet();
  sim::Profile p;
  ProfileReport report;
  graph::Status st = ProfileLeNet(t, &p, &report);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(report.measured.size(), 2u);
  ASSERT_FALSE(p.ops["gpu0"].empty());
  EXPECT_EQ(p.host_s["gpu0"].size(), p.ops["gpu0"].size());
  EXPECT_EQ(p.host_s.count("cpu0"), 0u);  // a cpu's kernels are its host time
  EXPECT_GT(p.launch_s["gpu0"], 0);
  EXPECT_LT(p.launch_s["gpu0"], 1e-3);
  for (const auto& link :
       {std::pair<std::string, std::string>{"cpu0", "gpu0"}, {"gpu0", "cpu0"}, {"gpu0", "gpu0"}}) {
    const sim::LinkFit* fit = p.Link(link.first, link.second);
    ASSERT_NE(fit, nullptr) << link.first << " -> " << link.second;
    EXPECT_GT(fit->bandwidth_bytes_per_s, 1e8) << link.first << " -> " << link.second;
  }
}

TEST(ProfilerCudaTest, TheLinksBetweenTheCpuAndTheGpuAreRefittedToASplitStepsCopies) {
  SKIP_WITHOUT_GPU();
  graph::TrainingGraph t = LeNet();
  sim::Profile p;
  ProfileReport report;
  graph::Status st = ProfileLeNet(t, &p, &report);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_FALSE(report.first_gpu_links.empty());
  for (const auto& [link, first] : report.first_gpu_links) {
    EXPECT_NE(link.first, link.second);
    const sim::LinkFit* fit = p.Link(link.first, link.second);
    ASSERT_NE(fit, nullptr);
    EXPECT_GE(fit->samples, 8) << link.first << " -> " << link.second;
    EXPECT_GT(fit->bandwidth_bytes_per_s, 1e8) << link.first << " -> " << link.second;
    EXPECT_EQ(first.samples, 5) << "the first fit: copies of one tensor, 5 sizes";
  }
  // Links already in the profile are kept: no split step runs again.
  ASSERT_TRUE(ProfileLeNet(t, &p, &report).ok());
  EXPECT_TRUE(report.first_gpu_links.empty());
  // --gpu-links copies: the first fit stays.
  sim::Profile copies;
  ASSERT_TRUE(ProfileLeNet(t, &copies, &report, GpuLinks::kCopies).ok());
  EXPECT_TRUE(report.first_gpu_links.empty());
  EXPECT_EQ(copies.Link("cpu0", "gpu0")->samples, 5);
}

// LeNet's step on a GPU is its launches' (tiny kernels): a simulator that
// took kernel times alone, or added launches to them, would be far off.
TEST(ProfilerCudaTest, TheSimulatedGpuStepIsNearTheMeasuredOne) {
  SKIP_WITHOUT_GPU();
  graph::TrainingGraph t = LeNet();
  const cluster::Cluster c = CpuAndGpu();
  sim::Profile p;
  ProfileReport report;
  ASSERT_TRUE(ProfileGraph(t.graph, t.loss, c, ProfileOptions{1, 5}, &p, &report).ok());
  for (const std::vector<int>& placement :
       {std::vector<int>(t.graph.size(), 1), testing::ConvsOn(t.graph, 1, 0)}) {
    auto ex = Executor::Create(t.graph, c, placement);
    ASSERT_TRUE(ex.ok()) << ex.status().message();
    auto m = Measure(**ex, t.graph, t.loss, MeasureOptions{2, 10, 1});
    ASSERT_TRUE(m.ok()) << m.status().message();
    auto sim = sim::Simulator::Create(t.graph, c, &p);
    ASSERT_TRUE(sim.ok()) << sim.status().message();
    sim::SimResult r = sim->Run(placement, sim->graph().Find(t.loss));
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_GT(r.step.seconds, m->time.median_s / 2);
    EXPECT_LT(r.step.seconds, m->time.median_s * 2);
  }
}

}  // namespace
}  // namespace runtime
