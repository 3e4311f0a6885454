#include "runtime/measure.h"

#include <ATen/ATen.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include "graph/graphdef.h"
#include "graph/models.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "tests/runtime/test_util.h"

namespace runtime {
namespace {

using testing::TwoCpus;

graph::TrainingGraph TwoBranch() {
  return testing::Training(graph::BuildTwoBranch({4, {16, 16}, 1}));
}

// Branch b (and everything colocated with it) on cpu1.
std::vector<int> PerBranch(const graph::Graph& g) {
  std::vector<int> d(g.size(), 0);
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const graph::Node& n = g.node(id);
    const std::string& key = n.colocation.empty() ? n.name : n.colocation[0];
    d[id] = key.rfind("b/", 0) == 0 ? 1 : 0;
  }
  return d;
}

TEST(MeasureTest, RobustMeanLeavesOutASlowStepButMinMedianMaxSeeIt) {
  StepTimeStats s = SummarizeStepTimes({0.010, 0.011, 0.0105, 0.0102, 0.050});
  EXPECT_EQ(s.n, 5);
  EXPECT_EQ(s.outliers, 1);
  EXPECT_NEAR(s.robust_mean_s, (0.010 + 0.011 + 0.0105 + 0.0102) / 4, 1e-12);
  EXPECT_DOUBLE_EQ(s.min_s, 0.010);
  EXPECT_DOUBLE_EQ(s.median_s, 0.0105);
  EXPECT_DOUBLE_EQ(s.max_s, 0.050);
}

TEST(MeasureTest, StepsWithinFivePercentOfTheMedianAreNeverOutliers) {
  // Two equal samples make the MAD zero; the third is 4% off.
  StepTimeStats s = SummarizeStepTimes({0.100, 0.100, 0.104});
  EXPECT_EQ(s.outliers, 0);
  EXPECT_NEAR(s.robust_mean_s, 0.304 / 3, 1e-12);
}

TEST(MeasureTest, MedianOfAnEvenSampleIsTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(SummarizeStepTimes({1, 2, 3, 4}).median_s, 2.5);
}

TEST(MeasureTest, RandomFeedsFollowPlaceholderShapesAndTypes) {
  graph::TrainingGraph t = TwoBranch();
  auto feeds = RandomFeeds(t.graph, 7);
  ASSERT_TRUE(feeds.ok()) << feeds.status().message();
  for (graph::NodeId id = 0; id < t.graph.size(); ++id) {
    const graph::Node& n = t.graph.node(id);
    if (n.op != "Placeholder") continue;
    ASSERT_EQ(feeds->count(n.name), 1u) << n.name;
    const at::Tensor& v = feeds->at(n.name);
    EXPECT_EQ(v.sizes().vec(), n.output_shapes[0].dims()) << n.name;
    if (at::isFloatingType(v.scalar_type())) {
      EXPECT_GE(v.min().item<float>(), 0.f);
      EXPECT_LT(v.max().item<float>(), 1.f);
    } else {
      EXPECT_EQ(v.abs().sum().item<int64_t>(), 0) << n.name;
    }
  }
  // The same seed gives the same feeds.
  auto again = RandomFeeds(t.graph, 7);
  for (const auto& [name, v] : *feeds) EXPECT_TRUE(at::equal(v, again->at(name))) << name;
}

TEST(MeasureTest, PlaceholderWithoutStaticShapeIsNamed) {
  auto g = graph::Graph::Create(
      {{"x", "Placeholder", {}, "", {{"dtype", graph::MakeAttr(graph::DType::kFloat)}}}}, "m");
  ASSERT_TRUE(g.ok());
  graph::InferShapes(*g);  // shape unknown: no "shape" attribute
  auto feeds = RandomFeeds(*g, 1);
  ASSERT_FALSE(feeds.ok());
  EXPECT_NE(feeds.status().message().find("placeholder 'x' has no static shape"),
            std::string::npos);
}

// A batch no host can hold (4 TiB of floats here) is an error naming the
// input, returned before any step: LibTorch's allocator throws, and uncaught
// that ended the process.
TEST(MeasureTest, AFeedTooLargeForTheHostIsNamedNotThrown) {
  auto g = graph::ParseTextGraphDef(
      "node { name: 'images' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'shape' value { shape { dim { size: 1099511627776 } } } } }",
      "m.pbtxt");
  ASSERT_TRUE(g.ok()) << g.status().message();
  graph::InferShapes(*g);
  auto feeds = RandomFeeds(*g, 1);
  ASSERT_FALSE(feeds.ok());
  EXPECT_NE(feeds.status().message().find("placeholder 'images' of shape [1099511627776]: "),
            std::string::npos)
      << feeds.status().message();
}

// ONNX allows string inputs; LibTorch has no such tensor. Refused by name
// (before, an assert compiled out of release builds fed floats instead).
TEST(MeasureTest, AStringPlaceholderIsRefusedByName) {
  auto g = graph::ParseTextGraphDef(
      "node { name: 'text' op: 'Placeholder' attr { key: 'dtype' value { type: DT_STRING } } "
      "attr { key: 'shape' value { shape { dim { size: 2 } } } } }",
      "m.pbtxt");
  ASSERT_TRUE(g.ok()) << g.status().message();
  graph::InferShapes(*g);
  auto feeds = RandomFeeds(*g, 1);
  ASSERT_FALSE(feeds.ok());
  EXPECT_EQ(feeds.status().message(), "placeholder 'text' is of type string, which cannot be fed");
}

TEST(MeasureTest, MeasuresTheTimedStepsAndEveryDeviceOfATwoDevicePlacement) {
  graph::TrainingGraph t = TwoBranch();
  auto ex = Executor::Create(t.graph, TwoCpus(), PerBranch(t.graph));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  MeasureOptions o;
  o.warmup = 1;
  o.steps = 4;
  auto m = Measure(**ex, t.graph, t.loss, o);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->time.n, 4);
  EXPECT_EQ(m->step_s.size(), 4u);
  EXPECT_LE(m->time.min_s, m->time.median_s);
  EXPECT_LE(m->time.median_s, m->time.max_s);
  ASSERT_EQ(m->busy_s.size(), 2u);
  EXPECT_GT(m->busy_s[0], 0);
  EXPECT_GT(m->busy_s[1], 0);
  EXPECT_GT(m->peak_bytes[0], 0);
  EXPECT_GT(m->peak_bytes[1], 0);
  EXPECT_GT(m->transfers, 0);  // the branches meet in the loss on cpu0
  EXPECT_EQ(m->transfers, static_cast<int>(m->median_step.transfers.size()));
}

TEST(MeasureTest, OutOfMemoryInAStepIsTheResultNamingTheStep) {
  graph::TrainingGraph t = TwoBranch();
  auto ex = Executor::Create(t.graph, TwoCpus("1KB"), std::vector<int>(t.graph.size(), 0));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  auto m = Measure(**ex, t.graph, t.loss, {});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), graph::StatusCode::kOutOfMemory);
  EXPECT_EQ(m.status().message().rfind("step 1: device 'cpu0' is out of memory", 0), 0u)
      << m.status().message();
}

TEST(MeasureTest, ChromeTraceIsJsonWithEveryOpAndTransferOnItsDeviceRow) {
  graph::TrainingGraph t = TwoBranch();
  cluster::Cluster c = TwoCpus();
  auto ex = Executor::Create(t.graph, c, PerBranch(t.graph));
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  auto m = Measure(**ex, t.graph, t.loss, {0, 1, 1});
  ASSERT_TRUE(m.ok()) << m.status().message();
  std::string json = sim::ChromeTrace(t.graph, c, m->median_step);
  google::protobuf::Struct root;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &root).ok()) << json;
  const auto& events = root.fields().at("traceEvents").list_value().values();
  int ops = 0, transfers = 0;
  std::map<int, std::string> row_names;
  for (const auto& e : events) {
    const auto& f = e.struct_value().fields();
    const int tid = static_cast<int>(f.at("tid").number_value());
    if (f.at("ph").string_value() == "M") {
      row_names[tid] = f.at("args").struct_value().fields().at("name").string_value();
      continue;
    }
    const std::string cat = f.at("cat").string_value();
    ops += cat == "op";
    transfers += cat == "transfer";
    EXPECT_GE(f.at("dur").number_value(), 0);
  }
  EXPECT_EQ(ops, static_cast<int>(m->median_step.ops.size()));
  EXPECT_EQ(transfers, static_cast<int>(m->median_step.transfers.size()));
  EXPECT_EQ(row_names[0], "cpu0");
  EXPECT_EQ(row_names[1000], "cpu1");
}

}  // namespace
}  // namespace runtime
