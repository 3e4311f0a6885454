#include "graph/models.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "graph/cost.h"
#include "graph/graphdef.h"
#include "graph/shape_inference.h"
#include "graph/summary.h"
#include "graph/training.h"

namespace graph {
namespace {

struct Built {
  Graph g;
  InferenceReport report;
};

Built Infer(Result<Graph> r) {
  EXPECT_TRUE(r.ok()) << r.status().message();
  Built b{r.ok() ? std::move(r).value() : Graph(), {}};
  b.report = InferShapes(b.g);
  return b;
}

Shape OutShape(const Graph& g, const std::string& name) {
  NodeId id = g.Find(name);
  EXPECT_GE(id, 0) << name;
  return id >= 0 && g.node(id).num_outputs() > 0 ? g.node(id).output_shapes[0] : Shape();
}

std::vector<float> Floats(const Node& n) {
  const Tensor* t = n.attr("value")->get<Tensor>();
  std::vector<float> v(static_cast<size_t>(t->num_elements()));
  std::memcpy(v.data(), t->bytes().data(), v.size() * sizeof(float));
  return v;
}

// Every node `from` reaches through data inputs, itself included.
std::set<NodeId> Ancestors(const Graph& g, NodeId from) {
  std::set<NodeId> seen;
  std::vector<NodeId> stack = {from};
  while (!stack.empty()) {
    NodeId n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    for (const TensorRef& in : g.node(n).inputs) stack.push_back(in.node);
  }
  return seen;
}

void ExpectStaticAndClean(const Built& b, int64_t batch) {
  EXPECT_TRUE(b.report.unknown_ops.empty());
  EXPECT_TRUE(b.report.problems.empty()) << b.report.problems.front();
  EXPECT_TRUE(b.report.unknown_shape_nodes.empty())
      << b.g.node(b.report.unknown_shape_nodes.front()).name;
  EXPECT_TRUE(b.report.bound_placeholders.empty());
  EXPECT_EQ(OutShape(b.g, "images"), Shape({batch, 28, 28, 1}));
  EXPECT_EQ(OutShape(b.g, "labels"), Shape({batch}));
  EXPECT_EQ(OutShape(b.g, "logits"), Shape({batch, 10}));
  EXPECT_EQ(OutShape(b.g, "xent"), Shape({batch}));
  EXPECT_EQ(OutShape(b.g, "loss"), Shape::Scalar());
  const Node& loss = b.g.node(b.g.Find("loss"));
  EXPECT_EQ(loss.op, "Mean");
  EXPECT_EQ(loss.output_dtypes[0], DType::kFloat);
  // Output 0 of the cross-entropy: the per-example loss.
  EXPECT_EQ(loss.inputs[0], (TensorRef{b.g.Find("xent"), 0}));
  EXPECT_EQ(b.g.node(b.g.Find("labels")).output_dtypes[0], DType::kInt32);
}

GraphSummary Summary(const Built& b) { return Summarize(b.g, b.report, InferenceOptions()); }

TEST(Models, MlpIsStaticWithHandCountedParameters) {
  Built b = Infer(BuildMlp({}));
  ExpectStaticAndClean(b, 64);
  EXPECT_EQ(OutShape(b.g, "flatten"), Shape({64, 784}));
  EXPECT_EQ(OutShape(b.g, "hidden_1/Relu"), Shape({64, 256}));
  GraphSummary s = Summary(b);
  EXPECT_EQ(s.parameters, (784 * 256 + 256) + (256 * 256 + 256) + (256 * 10 + 10));
  EXPECT_EQ(s.parameters, 269322);
  EXPECT_EQ(s.parameter_tensors, 6);
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(s.outputs[0].name, "loss");

  MlpOptions o;
  o.batch = 8;
  o.hidden = {100};
  Built small = Infer(BuildMlp(o));
  ExpectStaticAndClean(small, 8);
  EXPECT_EQ(Summary(small).parameters, (784 * 100 + 100) + (100 * 10 + 10));
}

TEST(Models, LeNetIsStaticWithHandCountedParameters) {
  LeNetOptions o;
  o.batch = 32;
  Built b = Infer(BuildLeNet(o));
  ExpectStaticAndClean(b, 32);
  EXPECT_EQ(OutShape(b.g, "conv1/Relu"), Shape({32, 28, 28, 6}));
  EXPECT_EQ(OutShape(b.g, "pool1"), Shape({32, 14, 14, 6}));
  EXPECT_EQ(OutShape(b.g, "conv2/Relu"), Shape({32, 10, 10, 16}));
  EXPECT_EQ(OutShape(b.g, "pool2"), Shape({32, 5, 5, 16}));
  EXPECT_EQ(OutShape(b.g, "flatten"), Shape({32, 400}));
  EXPECT_EQ(OutShape(b.g, "fc2/Relu"), Shape({32, 84}));
  GraphSummary s = Summary(b);
  EXPECT_EQ(s.parameters, (5 * 5 * 1 * 6 + 6) + (5 * 5 * 6 * 16 + 16) + (400 * 120 + 120) +
                              (120 * 84 + 84) + (84 * 10 + 10));
  EXPECT_EQ(s.parameters, 61706);
  EXPECT_EQ(s.parameter_tensors, 10);
  EXPECT_EQ(OutShape(Infer(BuildLeNet({})).g, "images").dim(0), 64);  // the default batch
}

TEST(Models, TwoBranchIsStaticWithHandCountedParameters) {
  Built b = Infer(BuildTwoBranch({}));
  ExpectStaticAndClean(b, 64);
  EXPECT_EQ(b.g.node(b.g.Find("logits")).op, "AddV2");
  GraphSummary s = Summary(b);
  EXPECT_EQ(s.parameters, 2 * ((784 * 512 + 512) + (512 * 512 + 512) + (512 * 10 + 10)));
  EXPECT_EQ(s.parameter_tensors, 12);
}

TEST(Models, OpsCarryTensorFlowAttrs) {
  Built b = Infer(BuildLeNet({}));
  const Node& conv = b.g.node(b.g.Find("conv2/Conv2D"));
  EXPECT_EQ(conv.attr_string("padding", ""), "VALID");
  EXPECT_EQ(conv.attr_string("data_format", ""), "NHWC");
  EXPECT_EQ(*conv.attr_ints("strides"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(conv.attr_type("T", DType::kInvalid), DType::kFloat);
  const Node& pool = b.g.node(b.g.Find("pool1"));
  EXPECT_EQ(*pool.attr_ints("ksize"), (std::vector<int64_t>{1, 2, 2, 1}));
  const Node& kernel = b.g.node(b.g.Find("fc1/kernel"));
  EXPECT_EQ(kernel.op, "Const");
  EXPECT_EQ(kernel.attr_type("dtype", DType::kInvalid), DType::kFloat);
  EXPECT_EQ(kernel.attr("value")->get<Tensor>()->shape(), Shape({400, 120}));
  const Node& xent = b.g.node(b.g.Find("xent"));
  EXPECT_EQ(xent.op, "SparseSoftmaxCrossEntropyWithLogits");
  EXPECT_EQ(xent.attr_type("Tlabels", DType::kInvalid), DType::kInt32);
  const Node& axis = b.g.node(b.g.Find("loss/reduction_indices"));
  EXPECT_EQ(axis.attr("value")->get<Tensor>()->ToInt64s(), (std::vector<int64_t>{0}));
  EXPECT_EQ(axis.attr_type("dtype", DType::kInvalid), DType::kInt32);
}

TEST(Models, RoundTripThroughGraphDef) {
  for (auto build : std::vector<std::function<Result<Graph>()>>{
           [] { return BuildMlp({}); }, [] { return BuildLeNet({}); },
           [] { return BuildTwoBranch({}); }}) {
    Result<Graph> g = build();
    ASSERT_TRUE(g.ok()) << g.status().message();
    Result<Graph> back = ParseBinaryGraphDef(SerializeGraphDef(*g), "model.pb");
    ASSERT_TRUE(back.ok()) << back.status().message();
    std::string diff;
    EXPECT_TRUE(g->SameStructure(*back, &diff)) << diff;
  }
}

TEST(Models, WeightsAreGlorotUniformAndBiasesZero) {
  Built b = Infer(BuildLeNet({}));
  for (const auto& [name, fan] :
       std::vector<std::pair<std::string, int>>{{"conv1/kernel", 25 * 1 + 25 * 6},
                                                {"conv2/kernel", 25 * 6 + 25 * 16},
                                                {"fc1/kernel", 400 + 120},
                                                {"logits/kernel", 84 + 10}}) {
    float limit = std::sqrt(6.0f / fan);
    double max_abs = 0;
    for (float x : Floats(b.g.node(b.g.Find(name)))) {
      ASSERT_LE(std::fabs(x), limit) << name;
      max_abs = std::max<double>(max_abs, std::fabs(x));
    }
    EXPECT_GT(max_abs, 0.5 * limit) << name;  // spread over the range, not all near 0
  }
  for (const char* name : {"conv1/bias", "fc2/bias", "logits/bias"}) {
    for (float x : Floats(b.g.node(b.g.Find(name)))) ASSERT_EQ(x, 0.0f) << name;
  }
}

TEST(Models, SeedDeterminesWeights) {
  auto weights = [](uint32_t seed) {
    MlpOptions o;
    o.seed = seed;
    Result<Graph> g = BuildMlp(o);
    EXPECT_TRUE(g.ok());
    std::vector<std::vector<float>> w;
    for (const Node& n : g->nodes()) {
      if (n.op == "Const" && n.attr_type("dtype", DType::kInvalid) == DType::kFloat) {
        w.push_back(Floats(n));
      }
    }
    return w;
  };
  auto a = weights(7), again = weights(7), other = weights(8);
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a, again);
  for (size_t i = 0; i < a.size(); i += 2) EXPECT_NE(a[i], other[i]);  // kernels
  for (size_t i = 1; i < a.size(); i += 2) EXPECT_EQ(a[i], other[i]);  // zero biases

  LeNetOptions l1, l2;
  l2.seed = 2;
  Result<Graph> g1 = BuildLeNet(l1), g1b = BuildLeNet(l1), g2 = BuildLeNet(l2);
  ASSERT_TRUE(g1.ok() && g1b.ok() && g2.ok());
  std::string diff;
  EXPECT_TRUE(g1->SameStructure(*g1b, &diff)) << diff;
  EXPECT_FALSE(g1->SameStructure(*g2, &diff));
}

TEST(Models, TwoBranchBranchesAreDisjointAndEqualCost) {
  Built b = Infer(BuildTwoBranch({}));
  const Graph& g = b.g;
  NodeId images = g.Find("images"), join = g.Find("logits");
  std::set<NodeId> a = Ancestors(g, g.Find("a/logits")), c = Ancestors(g, g.Find("b/logits"));
  a.erase(images);
  c.erase(images);
  for (NodeId n : a) EXPECT_EQ(c.count(n), 0u) << g.node(n).name;
  EXPECT_GE(a.size(), 10u);
  EXPECT_EQ(a.size(), c.size());
  // Nothing outside a branch reads from it except the join.
  for (NodeId n = 0; n < g.size(); ++n) {
    for (const TensorRef& in : g.node(n).inputs) {
      for (const std::set<NodeId>* branch : {&a, &c}) {
        if (branch->count(in.node) && !branch->count(n)) {
          EXPECT_EQ(n, join) << g.node(n).name;
        }
      }
    }
  }
  std::vector<OpCost> costs = ComputeCosts(g);
  double fa = 0, fc = 0;
  for (NodeId n : a) fa += costs[n].flops;
  for (NodeId n : c) fc += costs[n].flops;
  EXPECT_EQ(fa, fc);
  // The header's estimate: 85.6 MFLOP of MatMul per branch, plus bias and ReLU.
  EXPECT_NEAR(fa, 2.0 * 64 * (784 * 512 + 512 * 512 + 512 * 10), 0.2e6);
}

// Whether the ops of `model`'s training step that depend on the images run one
// after another: the longest path through them visits them all. Left out: ops
// computed from constants alone (shape arithmetic), and the loss's own value,
// which the gradients do not read (they start from the cross-entropy's
// backprop output), a Mean over the batch.
bool TrainingStepIsOneChain(Result<Graph> model) {
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) return false;
  Result<TrainingGraph> t = BuildTrainingGraph(*model, {});
  EXPECT_TRUE(t.ok()) << t.status().message();
  if (!t.ok()) return false;
  const Graph& g = t->graph;
  const std::vector<NodeId>& order = g.topological_order();
  std::vector<int> depth(g.size(), 0);  // longest chain of image-dependent ops ending here
  const NodeId images = g.Find("images");
  int ops = 0, longest = 0;
  for (NodeId n : order) {
    int before = 0;
    bool reads_images = n == images;
    auto visit = [&](NodeId in) {
      if (depth[in] > 0 || in == images) reads_images = true;
      before = std::max(before, depth[in]);
    };
    for (const TensorRef& in : g.node(n).inputs) visit(in.node);
    for (NodeId in : g.node(n).control_inputs) visit(in);
    if (!reads_images || n == images || g.node(n).name == t->loss) continue;
    depth[n] = before + 1;
    ++ops;
    longest = std::max(longest, depth[n]);
  }
  EXPECT_GT(ops, 10);
  return longest == ops;
}

TEST(Models, ChainTrainingStepHasNoParallelismAndMlpsHas) {
  EXPECT_TRUE(TrainingStepIsOneChain(BuildChain({})));
  ChainOptions o;
  o.tanh_layers = 2;
  o.width = 30;
  EXPECT_TRUE(TrainingStepIsOneChain(BuildChain(o)));
  // An MLP's weight gradients run beside the backward pass through the layers.
  EXPECT_FALSE(TrainingStepIsOneChain(BuildMlp({})));
}

TEST(Models, ChainIsStaticWithOneParameter) {
  Built b = Infer(BuildChain({}));
  ExpectStaticAndClean(b, 64);
  EXPECT_EQ(OutShape(b.g, "tanh_7"), Shape({64, 1280}));
  GraphSummary s = Summary(b);
  EXPECT_EQ(s.parameters, 784 * 1280);
  EXPECT_EQ(s.parameter_tensors, 1);
}

TEST(Models, RejectsBadSizes) {
  MlpOptions m;
  m.batch = 0;
  EXPECT_EQ(BuildMlp(m).status().message(), "mlp: batch must be in [1, 1048576], got 0");
  m.batch = 1;
  m.hidden = {256, -3};
  EXPECT_EQ(BuildMlp(m).status().message(),
            "mlp: hidden layer size must be in [1, 1048576], got -3");
  LeNetOptions l;
  l.batch = -1;
  EXPECT_EQ(BuildLeNet(l).status().code(), StatusCode::kInvalidArgument);
  TwoBranchOptions t;
  t.hidden = {int64_t{1} << 40};
  EXPECT_EQ(BuildTwoBranch(t).status().message(),
            "two_branch: hidden layer size must be in [1, 1048576], got 1099511627776");
  t.hidden = {};  // no hidden layers: each branch is linear
  Built lin = Infer(BuildTwoBranch(t));
  ExpectStaticAndClean(lin, 64);
  ChainOptions c;
  c.width = 25;
  EXPECT_EQ(BuildChain(c).status().message(), "chain: width must be a multiple of 10, got 25");
  c.width = 10;
  c.tanh_layers = -1;
  EXPECT_EQ(BuildChain(c).status().message(), "chain: tanh layers must be in [0, 1024], got -1");
}

}  // namespace
}  // namespace graph
