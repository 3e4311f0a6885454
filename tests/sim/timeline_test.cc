#include "sim/timeline.h"

#include <gtest/gtest.h>

#include "graph/graphdef.h"

namespace sim {
namespace {

// Nodes named in `names`, each reading the ones listed after ':' ("c:a,b").
graph::Graph Chain(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& spec : names) {
    const size_t colon = spec.find(':');
    text += "node { name: '" + spec.substr(0, colon) + "' op: '" +
            (colon == std::string::npos ? "Const" : "AddN") + "'";
    if (colon != std::string::npos) {
      std::string rest = spec.substr(colon + 1);
      for (size_t at = 0; at <= rest.size();) {
        size_t comma = rest.find(',', at);
        if (comma == std::string::npos) comma = rest.size();
        text += " input: '" + rest.substr(at, comma - at) + "'";
        at = comma + 1;
      }
    }
    text += " }\n";
  }
  auto g = graph::ParseTextGraphDef(text, "chain.pbtxt");
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

OpRecord Op(const graph::Graph& g, const std::string& name, int device, double start, double end) {
  return {g.Find(name), device, start, end};
}

std::vector<std::string> Names(const graph::Graph& g, const std::vector<CriticalOp>& path) {
  std::vector<std::string> out;
  for (const CriticalOp& c : path) out.push_back(g.node(c.node).name);
  return out;
}

TEST(CriticalPathTest, FollowsTheInputThatArrivedLast) {
  graph::Graph g = Chain({"a", "b", "c:a,b"});
  StepStats s;
  s.ops = {Op(g, "a", 0, 0, 10), Op(g, "b", 0, 10, 14), Op(g, "c", 0, 14, 20)};
  std::vector<CriticalOp> path = CriticalPath(g, s);
  EXPECT_EQ(Names(g, path), (std::vector<std::string>{"c", "b", "a"}))
      << "b ran after a on the same device, so c's wait goes back through both";
  EXPECT_FALSE(path[0].waited_for_device);
  EXPECT_FALSE(path[0].input_transferred);
}

TEST(CriticalPathTest, GoesToTheDevicesPreviousOpWhenAnOpQueued) {
  // y's input x was there at 5, but y started at 20, after z held the device.
  graph::Graph g = Chain({"x", "z", "y:x"});
  StepStats s;
  s.ops = {Op(g, "x", 0, 0, 5), Op(g, "z", 0, 5, 20), Op(g, "y", 0, 20, 25)};
  std::vector<CriticalOp> path = CriticalPath(g, s);
  EXPECT_EQ(Names(g, path), (std::vector<std::string>{"y", "z", "x"}));
  EXPECT_TRUE(path[0].waited_for_device);
  EXPECT_DOUBLE_EQ(path[0].ready_us, 5);
  EXPECT_DOUBLE_EQ(path[0].start_us, 20);
  EXPECT_TRUE(path[1].waited_for_device) << "z needs no input, but x held the device until 5";
  EXPECT_FALSE(path[2].waited_for_device);
}

TEST(CriticalPathTest, MarksAnInputThatCameFromAnotherDevice) {
  // b on device 1 started when a's copy arrived; c (device 1, independent) ended
  // earlier and did not hold b back.
  graph::Graph g = Chain({"a", "c", "b:a"});
  StepStats s;
  s.ops = {Op(g, "a", 0, 0, 10), Op(g, "c", 1, 0, 3), Op(g, "b", 1, 12, 20)};
  s.transfers = {{g.Find("a"), 0, 1, 64, 10, 12}};
  std::vector<CriticalOp> path = CriticalPath(g, s);
  EXPECT_EQ(Names(g, path), (std::vector<std::string>{"b", "a"}));
  EXPECT_TRUE(path[0].input_transferred);
  EXPECT_EQ(path[0].device, 1);
  EXPECT_DOUBLE_EQ(path[0].ready_us, 12) << "when the copy arrived";
  EXPECT_EQ(path[1].device, 0);
  EXPECT_FALSE(path[0].waited_for_device) << "the copy, not the device, was last";
}

TEST(CriticalPathTest, PassesThroughNodesWithoutARecord) {
  // v takes no time (no record): c waited for a through it.
  graph::Graph g = Chain({"a", "b", "v:a", "c:v,b"});
  StepStats s;
  s.ops = {Op(g, "b", 1, 0, 2), Op(g, "a", 0, 0, 10), Op(g, "c", 0, 10, 11)};
  EXPECT_EQ(Names(g, CriticalPath(g, s)), (std::vector<std::string>{"c", "a"}));
}

TEST(CriticalPathTest, IsEmptyForAStepWithoutOps) {
  graph::Graph g = Chain({"a"});
  EXPECT_TRUE(CriticalPath(g, StepStats{}).empty());
}

}  // namespace
}  // namespace sim
