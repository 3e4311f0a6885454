#include "runtime/profiler.h"

#include <gtest/gtest.h>

#include "graph/models.h"
#include "graph/training.h"
#include "runtime/simulator.h"

namespace runtime {
namespace {

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
  Profile p;
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
  auto sim = Simulator::Create(t->graph, *c, &p);
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  std::vector<int> split(t->graph.size(), 0);
  for (graph::NodeId id = t->graph.size() / 2; id < t->graph.size(); ++id) split[id] = 1;
  SimResult r = sim->Run(split, t->graph.Find(t->loss));
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.estimated_ops, 0);
  EXPECT_GT(r.step.seconds, 0);
  EXPECT_FALSE(r.step.transfers.empty());
}

TEST(ProfilerTest, OnlySimulatedDevicesIsAnError) {
  auto fwd = graph::BuildMlp({4, {8}, 1});
  ASSERT_TRUE(fwd.ok());
  auto t = graph::BuildTrainingGraph(*fwd, {});
  ASSERT_TRUE(t.ok());
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: g0, kind: sim, simulates: gpu, peak_flops: 1T, memory_bandwidth: "
      "1GB/s}\n",
      "sim.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  Profile p;
  ProfileReport report;
  graph::Status st = ProfileGraph(t->graph, t->loss, *c, {}, &p, &report);
  EXPECT_EQ(st.message(), "sim.yaml: every device is simulated; there is nothing to profile");
}

}  // namespace
}  // namespace runtime
