#include "runtime/profiler.h"

#include <ATen/Context.h>
#include <gtest/gtest.h>

#include "graph/graphdef.h"
#include "graph/models.h"
#include "graph/shape_inference.h"
#include "graph/signature.h"
#include "graph/training.h"
#include "sim/simulator.h"
#include "tests/runtime/chain_steps.h"
#include "tests/runtime/test_util.h"

namespace runtime {
namespace {

using testing::TwoCpus;

TEST(ProfilerTest, ProfilesEverySignatureOnEachCpuOnceAndFitsBothLinks) {
  auto fwd = graph::BuildLeNet({4, 1});
  ASSERT_TRUE(fwd.ok());
  auto t = graph::BuildTrainingGraph(*fwd, {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n  - {name: cpu1, kind: cpu, cores: "
      "[1]}\n",
      "two.yaml");
  ASSERT_TRUE(c.ok());
  sim::Profile p;
  ProfileReport report;
  ASSERT_TRUE(ProfileGraph(t->graph, t->loss, *c, {0, 1}, &p, &report).ok());
  EXPECT_EQ(report.measured, (std::vector<std::string>{"cpu0", "cpu1"}));
  EXPECT_GT(report.signatures, 10);
  EXPECT_EQ(static_cast<int>(p.ops["cpu0"].size()), report.signatures);
  EXPECT_EQ(static_cast<int>(p.ops["cpu1"].size()), report.signatures);
  EXPECT_EQ(report.links_measured, 2);
  ASSERT_NE(p.Link("cpu0", "cpu1"), nullptr);
  EXPECT_GT(p.Link("cpu0", "cpu1")->bandwidth_bytes_per_s, 0);
  EXPECT_EQ(p.dispatch_s.count("cpu0"), 1u);

  // The second time everything is there: nothing runs.
  ProfileReport again;
  ASSERT_TRUE(ProfileGraph(t->graph, t->loss, *c, {0, 1}, &p, &again).ok());
  EXPECT_TRUE(again.measured.empty());
  EXPECT_EQ(again.reused, (std::vector<std::string>{"cpu0", "cpu1"}));
  EXPECT_EQ(again.new_signatures, 0);
  EXPECT_EQ(again.links_measured, 0);

  // And the simulator needs no estimate on either device.
  auto sim = sim::Simulator::Create(t->graph, *c, &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  std::vector<int> split(t->graph.size(), 0);
  for (graph::NodeId id = t->graph.size() / 2; id < t->graph.size(); ++id) split[id] = 1;
  sim::SimResult r = sim->Run(split, t->graph.Find(t->loss));
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.estimated_ops, 0);
  EXPECT_GT(r.step.seconds, 0);
  EXPECT_FALSE(r.step.transfers.empty());
}

// Warm steps (ProfileOptions::warm_steps) run untimed on the same executors
// before each timed step: the profile is as complete as without them.
TEST(ProfilerTest, WithWarmStepsEverySignatureAndTheSharingFiguresAreStillMeasured) {
  auto fwd = graph::BuildLeNet({4, 1});
  ASSERT_TRUE(fwd.ok());
  auto t = graph::BuildTrainingGraph(*fwd, {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  ProfileOptions options{0, 2};
  options.warm_steps = 2;
  sim::Profile p;
  ProfileReport report;
  ASSERT_TRUE(ProfileGraph(t->graph, t->loss, TwoCpus(), options, &p, &report).ok());
  EXPECT_EQ(report.measured, (std::vector<std::string>{"cpu0", "cpu1"}));
  EXPECT_EQ(static_cast<int>(p.ops["cpu0"].size()), report.signatures);
  EXPECT_EQ(static_cast<int>(p.ops["cpu1"].size()), report.signatures);
  EXPECT_EQ(p.slowdown.count("cpu1"), 1u);
  EXPECT_EQ(p.dispatch_cross_s.count("cpu0"), 1u);
}

// A host too busy to run the two copies at once, even in extra steps, gets no
// parallel figures (ProfileBuilderTest below), and the report names the
// devices: nothing to check this time.
void SkipIfTheCopiesNeverRanAtOnce(const ProfileReport& report) {
  if (!report.parallel_unmeasured.empty()) {
    GTEST_SKIP() << "the host ran the two copies one after the other (busy)";
  }
}

// With the parallel step (ProfileOptions::parallel_step) both sets of
// sharing figures are measured, the parallel ones paired with the
// alternating step's cross-device edges per op; a device whose sharing
// figures are measured again without it loses the parallel ones.
TEST(ProfilerTest, TheParallelStepGivesItsFiguresAndAProfileRedoneWithoutItDropsThem) {
  auto fwd = graph::BuildLeNet({4, 1});
  ASSERT_TRUE(fwd.ok());
  auto t = graph::BuildTrainingGraph(*fwd, {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  ProfileOptions options{0, 2};
  options.parallel_step = true;
  sim::Profile p;
  ProfileReport report;
  ASSERT_TRUE(ProfileGraph(t->graph, t->loss, TwoCpus(), options, &p, &report).ok());
  SkipIfTheCopiesNeverRanAtOnce(report);
  if (IsSkipped()) return;
  for (const char* d : {"cpu0", "cpu1"}) {
    EXPECT_EQ(p.slowdown.count(d), 1u) << d;
    ASSERT_EQ(p.parallel_slowdown.count(d), 1u) << d;
    EXPECT_GT(p.parallel_slowdown.at(d), 0) << d;
    ASSERT_EQ(p.parallel_cold_s.count(d), 1u) << d;
    EXPECT_EQ(p.parallel_cold_s.at(d).size(), ColdIdleBins().size()) << d;
    // Alternating in topological order: most ops read the op before, on the other cpu.
    ASSERT_EQ(p.shared_cross.count(d), 1u) << d;
    EXPECT_GT(p.shared_cross.at(d), 0.5) << d;
  }
  // Again without it, with the links forgotten so that sharing is measured anew.
  p.links.clear();
  options.parallel_step = false;
  ASSERT_TRUE(ProfileGraph(t->graph, t->loss, TwoCpus(), options, &p, &report).ok());
  EXPECT_EQ(p.slowdown.count("cpu0"), 1u);
  EXPECT_TRUE(p.parallel_slowdown.empty());
  EXPECT_TRUE(p.parallel_cold_s.empty());
  EXPECT_TRUE(p.shared_cross.empty());
  EXPECT_TRUE(report.parallel_unmeasured.empty()) << "not asked for";

  // A complete profile without them, asked for them (links kept): the
  // sharing steps run again, now with the parallel one.
  options.parallel_step = true;
  ASSERT_TRUE(ProfileGraph(t->graph, t->loss, TwoCpus(), options, &p, &report).ok());
  EXPECT_EQ(report.links_measured, 0);
  SkipIfTheCopiesNeverRanAtOnce(report);
  if (IsSkipped()) return;
  EXPECT_EQ(p.parallel_slowdown.size(), 2u);
  EXPECT_EQ(p.shared_cross.size(), 2u);
}

using testing::Alone;
using testing::Chain;

// Each copy of the chain on its own cpu at once, every kernel 1.1x its time
// alone: the parallel slowdown, no extras; the alternating figures and their
// cross-device edges per op (cpu0: b -> c and a -> b over a, c, d; cpu1: the
// same two over b) from the shared step beside it. Refitted without parallel
// steps (Recalibration's kSharing), a profile loses its parallel figures.
TEST(ProfileBuilderTest, AParallelStepGivesTheParallelFiguresPairedWithTheSharedStepsCrossEdges) {
  const graph::Graph g = Chain();
  auto both = g.WithCopy("copy/");
  ASSERT_TRUE(both.ok()) << both.status().message();
  const cluster::Cluster c = TwoCpus();
  ProfileBuilder b;
  for (int d = 0; d < 2; ++d) b.AddStep(g, c, d, Alone(g, d, 1.0));
  for (int i = 0; i < 8; ++i) b.AddSharedStep(g, c, testing::Shared(g));
  sim::StepStats par;
  for (int d = 0; d < 2; ++d) {
    const sim::StepStats one = Alone(g, d, 1.1);
    for (sim::OpRecord r : one.ops) {
      r.node += d * g.size();
      par.ops.push_back(r);
    }
  }
  for (int i = 0; i < 2; ++i) b.AddParallelStep(*both, c, par);
  sim::Profile p;
  b.Finish(&p);
  for (const char* d : {"cpu0", "cpu1"}) {
    EXPECT_NEAR(p.parallel_slowdown.at(d), 1.1, 1e-9) << d;
    // Its kernels all followed idle spells under 5 us; the other bins keep
    // the alternating step's extras (c's 29 us spell on cpu0 gave one).
    const auto& par = p.parallel_cold_s.at(d);
    const auto& alternating = p.cold_s.at(d);
    ASSERT_EQ(par.size(), alternating.size());
    EXPECT_NEAR(par[0].second, 0, 1e-15) << d;
    for (size_t bin = 1; bin < par.size(); ++bin) EXPECT_EQ(par[bin], alternating[bin]) << d;
  }
  EXPECT_GT(p.cold_s.at("cpu0")[2].second, 0) << "the case that tells the rule apart";
  EXPECT_NEAR(p.shared_cross.at("cpu0"), 2.0 / 3, 1e-9);
  EXPECT_NEAR(p.shared_cross.at("cpu1"), 2.0, 1e-9);

  ProfileBuilder shared_only;
  for (int d = 0; d < 2; ++d) shared_only.AddStep(g, c, d, Alone(g, d, 1.0));
  shared_only.AddSharedStep(g, c, testing::Shared(g));
  shared_only.Finish(&p);
  EXPECT_EQ(p.slowdown.count("cpu0"), 1u);
  EXPECT_TRUE(p.parallel_slowdown.empty());
  EXPECT_TRUE(p.shared_cross.empty());
}

// A busy host may run the two copies of a parallel step one after the other:
// no sharing measured, so no parallel figures until enough kernels overlapped.
TEST(ProfileBuilderTest, ParallelFiguresNeedKernelsThatRanWhileTheOtherCopyRanOne) {
  const graph::Graph g = Chain();
  auto both = g.WithCopy("copy/");
  ASSERT_TRUE(both.ok()) << both.status().message();
  const cluster::Cluster c = TwoCpus();
  // Each copy's four kernels; cpu1's start `offset_us` later. At once they
  // run 1.1x slower than alone; one after the other, as alone.
  auto parallel_step = [&](double offset_us) {
    sim::StepStats par;
    for (int d = 0; d < 2; ++d) {
      for (sim::OpRecord r : Alone(g, d, offset_us > 0 ? 1.0 : 1.1).ops) {
        r.node += d * g.size();
        r.start_us += d * offset_us;
        r.end_us += d * offset_us;
        par.ops.push_back(r);
      }
    }
    return par;
  };
  ProfileBuilder b;
  for (int d = 0; d < 2; ++d) b.AddStep(g, c, d, Alone(g, d, 1.0));
  for (int i = 0; i < 8; ++i) b.AddSharedStep(g, c, testing::Shared(g));
  // One after the other, a second apart: far beyond any spin.
  for (int i = 0; i < 4; ++i) b.AddParallelStep(*both, c, parallel_step(1e6));
  EXPECT_EQ(b.ParallelOverlaps("cpu0"), 0);
  sim::Profile p;
  b.Finish(&p);
  EXPECT_EQ(p.slowdown.count("cpu0"), 1u) << "the alternating step's figures stand";
  EXPECT_TRUE(p.parallel_slowdown.empty());
  EXPECT_TRUE(p.shared_cross.empty());

  // One step at once: four kernels each, under the minimum; two: eight.
  b.AddParallelStep(*both, c, parallel_step(0));
  EXPECT_EQ(b.ParallelOverlaps("cpu1"), 4);
  b.Finish(&p);
  EXPECT_TRUE(p.parallel_slowdown.empty());
  b.AddParallelStep(*both, c, parallel_step(0));
  ASSERT_EQ(b.ParallelOverlaps("cpu1"), ProfileBuilder::kMinParallelOverlap);
  b.Finish(&p);
  for (const char* d : {"cpu0", "cpu1"}) {
    EXPECT_NEAR(p.parallel_slowdown.at(d), 1.1, 1e-9) << d;
  }

  // Back to back, cpu1's copy starting 1 us after cpu0's ends: within cpu0's
  // spin, so "awake" for the sharing fit, but no kernel of one copy ran while
  // the other's did.
  ProfileBuilder back_to_back;
  for (int d = 0; d < 2; ++d) back_to_back.AddStep(g, c, d, Alone(g, d, 1.0));
  for (int i = 0; i < 8; ++i) back_to_back.AddSharedStep(g, c, testing::Shared(g));
  const sim::StepStats serial = parallel_step(74);  // cpu0's copy ends at 73 us
  ASSERT_LT(serial.ops[4].start_us - serial.ops[3].end_us, c.devices[0].spin_s * 1e6);
  for (int i = 0; i < 4; ++i) back_to_back.AddParallelStep(*both, c, serial);
  EXPECT_EQ(back_to_back.ParallelOverlaps("cpu1"), 0);
  back_to_back.Finish(&p);
  EXPECT_TRUE(p.parallel_slowdown.empty());
}

TEST(ProfileBuilderTest, OpTimesAsStepMediansAreTheirShareOfTheMedianStepSlowStepsCounted) {
  const graph::Graph g = Chain();
  const cluster::Cluster c = TwoCpus();
  ProfileBuilder b(0.10, OpTime::kStepMedian);
  for (double factor : {1.0, 1.2, 1.4, 1.3, 0.9}) b.AddStep(g, c, 0, Alone(g, 0, factor));
  EXPECT_EQ(b.KeptSteps("cpu0"), 5) << "every step counts";
  EXPECT_EQ(b.SlowSteps("cpu0"), 1) << "x1.4 is over 10% slower than the median x1.2 (x1.3 is not)";
  sim::Profile p;
  EXPECT_EQ(b.Finish(&p), 3);
  const sim::OpTiming* neg = p.Find("cpu0", graph::OpSignature(g, g.Find("b")));
  ASSERT_NE(neg, nullptr);
  EXPECT_NEAR(neg->seconds, 24e-6, 1e-12) << "20 us in the median step (x1.2)";
  EXPECT_EQ(neg->samples, 5);
  // Relu runs twice a step (a and d: 10 us each): its mean within a step, then the median.
  const sim::OpTiming* relu = p.Find("cpu0", graph::OpSignature(g, g.Find("a")));
  ASSERT_NE(relu, nullptr);
  EXPECT_NEAR(relu->seconds, 12e-6, 1e-12);
}

TEST(ProfileBuilderTest, OpTimesAsTheMeanTakeEverySample) {
  const graph::Graph g = Chain();
  const cluster::Cluster c = TwoCpus();
  ProfileBuilder b(0.10, OpTime::kMean);
  for (double factor : {1.0, 1.0, 1.4, 1.0}) b.AddStep(g, c, 0, Alone(g, 0, factor));
  EXPECT_EQ(b.KeptSteps("cpu0"), 4);
  sim::Profile p;
  EXPECT_EQ(b.Finish(&p), 3);
  const sim::OpTiming* neg = p.Find("cpu0", graph::OpSignature(g, g.Find("b")));
  ASSERT_NE(neg, nullptr);
  EXPECT_NEAR(neg->seconds, 22e-6, 1e-12) << "the mean of 20, 20, 28 and 20 us";
}

TEST(ProfileBuilderTest, AGpusUntimedStepsGiveItsLaunchesAndDispatchAndItsTimedStepsItsKernels) {
  graph::Graph g = testing::Chain();
  cluster::Cluster c = testing::CpuAndGpu();
  ProfileBuilder b;
  for (int i = 0; i < 3; ++i) {
    // Untimed: launches of 10/20/30/10 us, 1 us apart (the chain's Alone step).
    b.AddStep(g, c, 1, testing::Alone(g, 1));
    // Timed: each op 4 us of kernels, its launch 50 us (the timing's waits)
    // and 9 us between launches.
    sim::StepStats timed;
    double t = 0;
    for (const char* n : {"a", "b", "c", "d"}) {
      sim::OpRecord r{g.Find(n), 1, t, t + 50};
      r.kernel_start_us = t + 60;
      r.kernel_end_us = t + 64;
      timed.ops.push_back(r);
      t += 59;
    }
    timed.seconds = t / 1e6;
    timed.busy_us = {0, 200};
    b.AddStep(g, c, 1, timed);
  }
  sim::Profile p;
  b.Finish(&p);
  EXPECT_NEAR(p.dispatch_s.at("gpu0"), 3e-6 / 4, 1e-12);  // 3 us of gaps over 4 ops
  EXPECT_NEAR(p.host_s.at("gpu0").at(graph::OpSignature(g, g.Find("c"))), 30e-6, 1e-12);
  EXPECT_NEAR(p.ops.at("gpu0").at(graph::OpSignature(g, g.Find("c"))).seconds, 4e-6, 1e-12);
  EXPECT_EQ(b.KeptSteps("gpu0"), 3);
}

// A split step's copies between the cpu and the GPU, each timed from when the
// GPU's queue drained: 20 us + bytes at 5 GB/s onto the GPU, 30 us + bytes at
// 4 GB/s off it (12 of each, 64 KiB to 768 KiB); the off-GPU link's copies are
// too few in the second case.
sim::StepStats GpuSplitStep(const graph::Graph& g, int off_gpu_copies) {
  sim::StepStats step;
  step.ops.push_back({g.Find("a"), 0, 0, 500});  // its ops are no figure of the profile's
  step.ops.push_back({g.Find("b"), 1, 600, 610});
  double t = 1000;
  for (int i = 1; i <= 12; ++i) {
    const int64_t bytes = i * 65536;
    const double on = 20 + bytes / 5e9 * 1e6, off = 30 + bytes / 4e9 * 1e6;
    step.transfers.push_back({g.Find("a"), 0, 1, bytes, t, t + on});
    if (i <= off_gpu_copies) step.transfers.push_back({g.Find("b"), 1, 0, bytes, t, t + off});
    t += 1000;
  }
  step.seconds = t / 1e6;
  return step;
}

TEST(ProfileBuilderTest, ASplitStepsCopiesRefitTheLinksBetweenTheCpuAndTheGpuAndGiveNothingElse) {
  const graph::Graph g = Chain();
  const cluster::Cluster c = testing::CpuAndGpu();
  ProfileBuilder b;
  b.AddGpuSplitStep(c, GpuSplitStep(g, 12));
  sim::Profile p;
  EXPECT_EQ(b.Finish(&p), 0);
  const sim::LinkFit* on = p.Link("cpu0", "gpu0");
  const sim::LinkFit* off = p.Link("gpu0", "cpu0");
  ASSERT_NE(on, nullptr);
  ASSERT_NE(off, nullptr);
  EXPECT_NEAR(on->latency_s, 20e-6, 1e-9);
  EXPECT_NEAR(on->bandwidth_bytes_per_s, 5e9, 1e6);
  EXPECT_EQ(on->samples, 12);
  EXPECT_NEAR(off->latency_s, 30e-6, 1e-9);
  EXPECT_NEAR(off->bandwidth_bytes_per_s, 4e9, 1e6);
  EXPECT_TRUE(p.ops.empty());
  EXPECT_TRUE(p.dispatch_s.empty());
  EXPECT_TRUE(p.slowdown.empty());
}

TEST(ProfileBuilderTest, ALinkWithFewerThanEightCopiesInTheSplitStepKeepsItsFirstFit) {
  const graph::Graph g = Chain();
  const cluster::Cluster c = testing::CpuAndGpu();
  ProfileBuilder b;
  b.AddGpuSplitStep(c, GpuSplitStep(g, 7));
  sim::Profile p;
  b.Finish(&p);
  EXPECT_NE(p.Link("cpu0", "gpu0"), nullptr);
  EXPECT_EQ(p.Link("gpu0", "cpu0"), nullptr);
}

TEST(ProfileBuilderTest, GpuLinksNamesParse) {
  GpuLinks how = GpuLinks::kCopies;
  EXPECT_TRUE(ParseGpuLinks("step", &how));
  EXPECT_EQ(how, GpuLinks::kStep);
  EXPECT_TRUE(ParseGpuLinks("copies", &how));
  EXPECT_EQ(how, GpuLinks::kCopies);
  EXPECT_FALSE(ParseGpuLinks("split", &how));
}

TEST(ProfileBuilderTest, OpTimeNamesParse) {
  OpTime t = OpTime::kMean;
  EXPECT_TRUE(ParseOpTime("steady-mean", &t));
  EXPECT_EQ(t, OpTime::kSteadyMean);
  EXPECT_TRUE(ParseOpTime("step-median", &t));
  EXPECT_EQ(t, OpTime::kStepMedian);
  EXPECT_TRUE(ParseOpTime("mean", &t));
  EXPECT_EQ(t, OpTime::kMean);
  EXPECT_FALSE(ParseOpTime("median", &t));
}

TEST(ProfileBuilderTest, AStepDuringWhichTheDeviceRanSlowIsLeftOutByDefault) {
  const graph::Graph g = Chain();
  const cluster::Cluster c = TwoCpus();
  ProfileBuilder b;
  for (double factor : {1.0, 1.0, 1.4, 1.0}) b.AddStep(g, c, 0, Alone(g, 0, factor));
  EXPECT_EQ(b.KeptSteps("cpu0"), 3);
  EXPECT_EQ(b.SlowSteps("cpu0"), 1);
  sim::Profile p;
  EXPECT_EQ(b.Finish(&p), 3);  // Relu (a and d), Neg, Tanh
  const sim::OpTiming* neg = p.Find("cpu0", graph::OpSignature(g, g.Find("b")));
  ASSERT_NE(neg, nullptr);
  EXPECT_NEAR(neg->seconds, 20e-6, 1e-12) << "the slow step's 28 us is not in the mean";
  EXPECT_EQ(neg->samples, 3);
  EXPECT_EQ(neg->spread, 0);
}

TEST(ProfileBuilderTest, OpsWhileTheOtherCpuIsAwakeGiveItsSlowdownDispatchAndPollTimes) {
  const graph::Graph g = Chain();
  const cluster::Cluster c = TwoCpus();
  ProfileBuilder b;
  for (int d = 0; d < 2; ++d) b.AddStep(g, c, d, Alone(g, d, 1.0));
  b.AddSharedStep(g, c, testing::Shared(g));  // b and c 1.2x slower than alone
  sim::Profile p;
  b.Finish(&p);
  EXPECT_NEAR(p.slowdown.at("cpu0"), 46.0 / 40.0, 1e-9);  // c and d; not a
  EXPECT_NEAR(p.slowdown.at("cpu1"), 24.0 / 20.0, 1e-9);
  EXPECT_NEAR(p.dispatch_shared_s.at("cpu0"), 2e-6, 1e-12);  // d
  EXPECT_NEAR(p.poll_s.at("cpu1"), 2e-6, 1e-12);             // b: 17 - 1 (copy) - 14
  EXPECT_NEAR(p.poll_s.at("cpu0"), 2e-6, 1e-12);             // c: 44 - 1 (copy) - 41
}

// Kernels after their device idled take more than alone, by how long it idled:
// a (idle 2 us) and b (1 us) 1.5 us more, c (100 us) 6 us, d (300 us) 12 us;
// cpu1 sleeps throughout, so none is shared and the extras are all there is.
TEST(ProfileBuilderTest, KernelsAfterIdleSpellsGiveTheColdExtrasByIdleTime) {
  const graph::Graph g = Chain();
  const cluster::Cluster c = TwoCpus();
  ProfileBuilder b;
  for (int i = 0; i < 3; ++i) b.AddStep(g, c, 0, Alone(g, 0, 1.0));
  sim::StepStats s;
  s.ops = {{g.Find("a"), 0, 2, 13.5},
           {g.Find("b"), 0, 14.5, 36},
           {g.Find("c"), 0, 136, 172},
           {g.Find("d"), 0, 472, 494}};
  s.seconds = 495e-6;
  for (int i = 0; i < 8; ++i) b.AddSharedStep(g, c, s);
  sim::Profile p;
  b.Finish(&p);
  const std::vector<std::pair<double, double>>& cold = p.cold_s.at("cpu0");
  ASSERT_EQ(cold.size(), ColdIdleBins().size());
  EXPECT_NEAR(cold[0].second, 1.5e-6, 1e-12);  // idle under 5 us: a and b
  EXPECT_EQ(cold[1].second, 0);                // 5-20 us: none measured
  EXPECT_EQ(cold[2].second, 0);                // 20-50 us: none measured
  EXPECT_NEAR(cold[3].second, 6e-6, 1e-12);    // 50-200 us: c
  EXPECT_NEAR(cold[4].second, 12e-6, 1e-12);   // over 200 us: d
  EXPECT_EQ(p.slowdown.count("cpu0"), 0u) << "cpu1 was never awake";

  // The previous model (the ablation) has no cold kernels.
  sim::Profile q;
  b.set_previous_model(true);
  b.Finish(&q);
  EXPECT_EQ(q.cold_s.count("cpu0"), 0u);
}

// Profiles a tiny MLP's training step on the devices of `yaml` (named `source`).
graph::Status ProfileTinyMlp(const std::string& yaml, const std::string& source, sim::Profile* p) {
  auto t = graph::BuildTrainingGraph(*graph::BuildMlp({4, {8}, 1}), {});
  EXPECT_TRUE(t.ok());
  auto c = cluster::ParseDevicesYaml(yaml, source);
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!t.ok() || !c.ok()) return graph::Internal("test setup failed");
  ProfileReport report;
  return ProfileGraph(t->graph, t->loss, *c, {}, p, &report);
}

TEST(ProfilerTest, OnlySimulatedDevicesIsAnError) {
  sim::Profile p;
  graph::Status st = ProfileTinyMlp(
      "devices:\n  - {name: g0, kind: sim, simulates: gpu, peak_flops: 1T, memory_bandwidth: "
      "1GB/s}\n",
      "sim.yaml", &p);
  EXPECT_EQ(st.message(), "sim.yaml: every device is simulated; there is nothing to profile");
}

// Profiling a GPU itself: tests/runtime/profiler_cuda_test.cc.
TEST(ProfilerTest, ACudaDeviceInABuildWithoutCudaIsRefusedBeforeAnythingRuns) {
  if (at::hasCUDA()) GTEST_SKIP() << "this build and host have CUDA";
  sim::Profile p;
  graph::Status st = ProfileTinyMlp(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n  - {name: gpu0, kind: cuda, index: 0}\n",
      "gpu.yaml", &p);
  EXPECT_EQ(st.code(), graph::StatusCode::kUnimplemented);
  EXPECT_EQ(
      st.message().rfind("gpu.yaml: device 'gpu0' is cuda, and this build's LibTorch has no CUDA",
                         0),
      0u)
      << st.message();
  EXPECT_TRUE(p.ops.empty());
}

}  // namespace
}  // namespace runtime
