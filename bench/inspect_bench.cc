// Times what `planner inspect` does (read, parse, validate, infer shapes, cost,
// summarise) on a generated graph of N nodes, the size of the paper's largest
// training graphs (NMT 8-layer: 83,712 nodes).
//
//   inspect_bench [--nodes N] [--repeat R] [--keep FILE]
//
// The graph is a TF1-style residual CNN: VariableV2 weights read through
// Identity, Conv2D + BiasAdd + Relu + AddV2 blocks. --keep writes it to FILE so
// `time planner inspect FILE` can be run on the same input.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "graph/summary.h"

namespace {

graph::NodeSpec Node(std::string name, std::string op, std::vector<std::string> inputs) {
  graph::NodeSpec s;
  s.name = std::move(name);
  s.op = std::move(op);
  s.inputs = std::move(inputs);
  s.attrs["T"] = graph::MakeAttr(graph::DType::kFloat);
  return s;
}

graph::NodeSpec Variable(const std::string& name, std::vector<int64_t> dims) {
  graph::NodeSpec s = Node(name, "VariableV2", {});
  s.attrs.erase("T");
  s.attrs["dtype"] = graph::MakeAttr(graph::DType::kFloat);
  s.attrs["shape"] = graph::MakeAttr(graph::Shape(std::move(dims)));
  return s;
}

std::vector<graph::NodeSpec> ResidualStack(int target_nodes) {
  std::vector<graph::NodeSpec> specs;
  graph::NodeSpec in = Node("input", "Placeholder", {});
  in.attrs.erase("T");
  in.attrs["dtype"] = graph::MakeAttr(graph::DType::kFloat);
  in.attrs["shape"] = graph::MakeAttr(graph::Shape({32, 16, 16, 16}));
  specs.push_back(in);
  graph::AttrList strides;
  strides.i = {1, 1, 1, 1};
  std::string x = "input";
  for (int b = 0; static_cast<int>(specs.size()) + 8 <= target_nodes; ++b) {
    std::string p = "block" + std::to_string(b) + "/";
    specs.push_back(Variable(p + "w", {3, 3, 16, 16}));
    specs.push_back(Node(p + "w/read", "Identity", {p + "w"}));
    graph::NodeSpec conv = Node(p + "conv", "Conv2D", {x, p + "w/read"});
    conv.attrs["padding"] = graph::MakeAttr(std::string("SAME"));
    conv.attrs["strides"] = graph::MakeAttr(strides);
    specs.push_back(conv);
    specs.push_back(Variable(p + "b", {16}));
    specs.push_back(Node(p + "b/read", "Identity", {p + "b"}));
    specs.push_back(Node(p + "bias", "BiasAdd", {p + "conv", p + "b/read"}));
    specs.push_back(Node(p + "relu", "Relu", {p + "bias"}));
    specs.push_back(Node(p + "add", "AddV2", {p + "relu", x}));
    x = p + "add";
  }
  while (static_cast<int>(specs.size()) < target_nodes) {
    specs.push_back(Node("tail" + std::to_string(specs.size()), "Relu", {x}));
    x = specs.back().name;
  }
  return specs;
}

}  // namespace

const frontend::CommandSpec kSpec{
    "inspect_bench",
    "[--nodes N] [--repeat R] [--keep FILE]",
    "Times `planner inspect` on a generated residual CNN of N nodes.",
    {},
    {{"--nodes", "N", "nodes in the generated graph (default 100000)"},
     {"--repeat", "R", "timed runs (default 5)"},
     {"--keep", "FILE", "write the graph to FILE (default: a temporary file, removed)"}},
    /*program=*/""};

int main(int argc, char** argv) {
  const frontend::Args args = frontend::ParseProgramArgs(kSpec, argc, argv);
  frontend::TypedFlags flags(args);
  const int nodes = flags.Int("--nodes", 100000, 10, 100000000);
  const int repeat = flags.Int("--repeat", 5, 1, 1000);
  if (!flags.status().ok()) return frontend::UsageError(kSpec, flags.status());
  const std::string keep = args.Get("--keep");
  auto g = graph::Graph::Create(ResidualStack(nodes), "generated");
  if (!g.ok()) {
    std::fprintf(stderr, "%s\n", g.status().message().c_str());
    return 1;
  }
  std::string path = keep.empty() ? "/tmp/inspect_bench_" + std::to_string(getpid()) + ".pb" : keep;
  std::string bytes = graph::SerializeGraphDef(*g);
  if (auto st = graph::WriteFileAtomic(path, bytes); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  std::vector<double> seconds;
  int64_t training_nodes = 0;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    auto s = frontend::InspectModel(path, {});
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.status().message().c_str());
      return 1;
    }
    std::string text = graph::SummaryToText(*s, path);
    auto t1 = std::chrono::steady_clock::now();
    seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    if (r == 0 &&
        (!s->unknown_shape_nodes.empty() || !s->unknown_ops.empty() || !s->training.built)) {
      std::fprintf(stderr, "generated graph has unknown shapes or ops, or no training graph\n");
      return 1;
    }
    if (r == 0) training_nodes = s->training.nodes;
  }
  if (keep.empty()) unlink(path.c_str());
  std::sort(seconds.begin(), seconds.end());
  std::printf(
      "inspect_bench: %d nodes (training graph %lld), %.1f MiB GraphDef, %d runs: median %.3f s, "
      "min %.3f s, max %.3f s (target < 2 s)\n",
      g->size(), static_cast<long long>(training_nodes), bytes.size() / 1048576.0, repeat,
      seconds[seconds.size() / 2], seconds[0], seconds.back());
  return 0;
}
