#include "graph/training.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "graph/cost.h"
#include "graph/gradients.h"

namespace graph {

namespace {

bool FloatOutput(const Node& n, int i) {
  return i < n.num_outputs() && IsFloating(n.output_dtypes[i]);
}

// Adds mean(square(out)) for each floating graph output, and their sum as the
// loss. Its gradient with respect to each output is 2 * out / size(out), seeded
// directly, so the reverse pass needs no shapes of the loss ops themselves.
Result<std::string> AddSyntheticLoss(const Graph& g, GraphBuilder& b,
                                     const std::function<void(TensorRef, std::string)>& seed) {
  std::vector<int> consumers = g.ConsumerCounts();
  std::vector<std::string> terms;
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    if (consumers[id] != 0 || n.op == "Const" || IsTrainableParameter(n)) continue;
    for (int i = 0; i < n.num_outputs(); ++i) {
      if (!FloatOutput(n, i) || !n.output_shapes[i].FullyDefined()) continue;
      std::vector<int64_t> axes;
      for (int d = 0; d < n.output_shapes[i].rank(); ++d) axes.push_back(d);
      AttrMap t = {{"T", MakeAttr(n.output_dtypes[i])}};
      b.SetScope("synthetic_loss/", "", n.requested_device);
      std::string sq = b.Add("Square", "Square", {g.TensorName({id, i})}, t);
      AttrMap mean = t;
      mean["keep_dims"] = MakeAttr(false);
      terms.push_back(b.Add("Mean", "Mean", {sq, b.IntConst("axes", axes)}, mean));
      b.SetScope("gradients/" + n.name + "/", n.name, n.requested_device);
      float scale =
          2.0f / static_cast<float>(std::max<int64_t>(n.output_shapes[i].NumElements(), 1));
      seed({id, i},
           b.Add("Mul", "loss_seed", {g.TensorName({id, i}), b.FloatConst("scale", scale)}, t));
    }
  }
  if (terms.empty()) return InvalidArgument("the graph has no floating-point output to train on");
  b.SetScope("", "", "");
  if (terms.size() == 1) {
    return b.Add("Identity", "synthetic_loss", {terms[0]}, {{"T", MakeAttr(DType::kFloat)}});
  }
  return b.Add(
      "AddN", "synthetic_loss", terms,
      {{"T", MakeAttr(DType::kFloat)}, {"N", MakeAttr(static_cast<int64_t>(terms.size()))}});
}

std::string NodeOf(const std::string& input) {
  size_t colon = input.rfind(':');
  return input.substr(input[0] == '^' ? 1 : 0,
                      colon == std::string::npos ? std::string::npos : colon - (input[0] == '^'));
}

// Rules emit gradients for every input; those for inputs no parameter depends on
// (a first convolution's input images, say) are computed by nobody's request.
// Removes added nodes that nothing reads, repeatedly, keeping updates and the loss.
void PruneUnusedGradients(std::vector<NodeSpec>* nodes, int first_added) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < nodes->size(); ++i) index[(*nodes)[i].name] = i;
  std::vector<int> readers(nodes->size(), 0);
  for (const NodeSpec& s : *nodes) {
    for (const std::string& in : s.inputs) {
      auto it = index.find(NodeOf(in));
      if (it != index.end()) ++readers[it->second];
    }
  }
  auto keep = [&](const NodeSpec& s) {
    return s.op == "ApplyGradientDescent" || s.op == "ApplyMomentum" ||
           s.name.rfind("synthetic_loss", 0) == 0;
  };
  std::vector<char> dead(nodes->size(), 0);
  std::vector<size_t> stack;
  for (size_t i = first_added; i < nodes->size(); ++i) {
    if (readers[i] == 0 && !keep((*nodes)[i])) stack.push_back(i);
  }
  while (!stack.empty()) {
    size_t i = stack.back();
    stack.pop_back();
    if (dead[i]) continue;
    dead[i] = 1;
    for (const std::string& in : (*nodes)[i].inputs) {
      auto it = index.find(NodeOf(in));
      if (it == index.end()) continue;
      size_t j = it->second;
      if (--readers[j] == 0 && static_cast<int>(j) >= first_added && !keep((*nodes)[j])) {
        stack.push_back(j);
      }
    }
  }
  size_t w = 0;
  for (size_t i = 0; i < nodes->size(); ++i) {
    if (dead[i]) continue;
    if (w != i) (*nodes)[w] = std::move((*nodes)[i]);
    ++w;
  }
  nodes->resize(w);
}

// Ops whose output may share storage with their first input (kernels return views).
bool MayAlias(const std::string& op) {
  static const std::unordered_set<std::string> kOps = {
      "Identity", "StopGradient", "Snapshot", "Reshape", "Squeeze", "ExpandDims", "Transpose",
      "Slice",    "StridedSlice", "Unpack",   "Split",   "SplitV",  "BroadcastTo"};
  return kOps.count(op) > 0;
}

// An update overwrites its parameter in place, so it must run after every op
// that reads the parameter or a tensor that may alias it (TF1's `w/read`
// Identity, a Reshape view, ...). Explicit control inputs make that order part of
// the graph, for any executor.
void AddUpdateOrdering(std::vector<NodeSpec>* nodes, int first_added) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < nodes->size(); ++i) index[(*nodes)[i].name] = i;
  std::vector<std::vector<size_t>> consumers(nodes->size());
  for (size_t i = 0; i < nodes->size(); ++i) {
    for (const std::string& in : (*nodes)[i].inputs) {
      if (in.empty() || in[0] == '^') continue;
      auto it = index.find(NodeOf(in));
      if (it != index.end()) consumers[it->second].push_back(i);
    }
  }
  std::vector<std::vector<std::string>> waits(nodes->size());
  for (size_t u = first_added; u < nodes->size(); ++u) {
    const NodeSpec& update = (*nodes)[u];
    if (update.op != "ApplyGradientDescent" && update.op != "ApplyMomentum") continue;
    auto param = index.find(NodeOf(update.inputs[0]));
    if (param == index.end()) continue;
    std::vector<size_t> aliases = {param->second};
    std::unordered_set<size_t> readers;
    for (size_t k = 0; k < aliases.size(); ++k) {
      for (size_t c : consumers[aliases[k]]) {
        if (c == u || !readers.insert(c).second) continue;
        const NodeSpec& s = (*nodes)[c];
        if (MayAlias(s.op) && NodeOf(s.inputs[0]) == (*nodes)[aliases[k]].name)
          aliases.push_back(c);
      }
    }
    for (size_t r : readers) waits[u].push_back("^" + (*nodes)[r].name);
    std::sort(waits[u].begin(), waits[u].end());
  }
  for (size_t u = 0; u < nodes->size(); ++u) {
    for (std::string& w : waits[u]) (*nodes)[u].inputs.push_back(std::move(w));
  }
}

// Which nodes lie downstream of a trainable parameter along floating edges.
std::vector<char> FromParameters(const Graph& g, const std::vector<char>& trainable) {
  std::vector<char> from_param(g.size(), 0);
  for (NodeId id : g.topological_order()) {
    const Node& n = g.node(id);
    bool any_float_out = false;
    for (int i = 0; i < n.num_outputs(); ++i) any_float_out |= FloatOutput(n, i);
    if (!any_float_out) continue;
    if (trainable[id]) {
      from_param[id] = 1;
      continue;
    }
    for (const TensorRef& in : n.inputs) {
      if (from_param[in.node] && FloatOutput(g.node(in.node), in.index)) from_param[id] = 1;
    }
  }
  return from_param;
}

// The gradients of each output of the forward graph, summed (AddN) when
// several consumers contribute.
class Gradients {
 public:
  Gradients(const Graph& g, GraphBuilder& b) : g_(g), b_(b), grads_(g.size()) {}

  void Add(TensorRef t, std::string gname) {
    auto& per_out = grads_[t.node];
    if (static_cast<int>(per_out.size()) <= t.index) per_out.resize(t.index + 1);
    per_out[t.index].push_back(std::move(gname));
  }
  bool Any(NodeId id) const { return !grads_[id].empty(); }
  // The gradient of output i of `id`, its contributions summed once; "" when none.
  std::string Summed(NodeId id, int i) {
    if (static_cast<int>(grads_[id].size()) <= i || grads_[id][i].empty()) return "";
    auto& list = grads_[id][i];
    if (list.size() == 1) return list[0];
    std::string sum = b_.Add("AddN", "AddN", list,
                             {{"T", MakeAttr(g_.node(id).output_dtypes[i])},
                              {"N", MakeAttr(static_cast<int64_t>(list.size()))}});
    list = {sum};
    return sum;
  }

 private:
  const Graph& g_;
  GraphBuilder& b_;
  std::vector<std::vector<std::vector<std::string>>> grads_;  // [node][output]
};

// The loss: named, conventional ("loss"), or synthetic; it seeds the
// gradients. Returns its name.
Result<std::string> SeedLoss(const Graph& g, const TrainingOptions& opts, GraphBuilder& b,
                             Gradients& grads, TrainingPlan* out) {
  std::string loss = opts.loss;
  if (loss.empty() && g.Find("loss") >= 0) loss = "loss";
  if (loss.empty()) {
    out->synthetic_loss = true;
    return AddSyntheticLoss(
        g, b, [&](TensorRef t, std::string gname) { grads.Add(t, std::move(gname)); });
  }
  NodeId loss_id = g.Find(loss);
  if (loss_id < 0) return NotFound("loss node '" + loss + "' is not in the graph");
  const Node& loss_node = g.node(loss_id);
  if (!FloatOutput(loss_node, 0) || loss_node.output_shapes[0].NumElements() != 1) {
    return InvalidArgument(
        "loss '" + loss + "' must be a scalar float, is " +
        DTypeName(loss_node.num_outputs() ? loss_node.output_dtypes[0] : DType::kInvalid) + " " +
        (loss_node.num_outputs() ? loss_node.output_shapes[0].ToString()
                                 : std::string("with no output")));
  }
  b.SetScope("gradients/", loss, loss_node.requested_device);
  grads.Add({loss_id, 0}, b.FloatConst("loss_seed", 1.0f));
  return loss;
}

// The reverse pass, in reverse topological order: each node's gradient rule
// (graph/gradient_rules.h) turns its outputs' gradients into its inputs'.
Status ReversePass(const Graph& g, const std::vector<char>& trainable,
                   const std::vector<char>& from_param, GraphBuilder& b, Gradients& grads) {
  std::map<std::string, int> missing;  // op -> nodes without a rule
  const auto& topo = g.topological_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    NodeId id = *it;
    const Node& n = g.node(id);
    if (!from_param[id] || !grads.Any(id) || trainable[id]) continue;
    b.SetScope("gradients/" + n.name + "/", n.name, n.requested_device);
    GradContext c{g, id, std::vector<std::string>(n.num_outputs()), b};
    bool any = false;
    for (int i = 0; i < n.num_outputs(); ++i) {
      c.dy[i] = grads.Summed(id, i);
      any |= !c.dy[i].empty();
    }
    if (!any) continue;
    for (int i = 0; i < n.num_outputs(); ++i) {
      if (!c.dy[i].empty() && !n.output_shapes[i].FullyDefined()) {
        return InvalidArgument("training needs static shapes; '" + n.name + "' has " +
                               n.output_shapes[i].ToString());
      }
    }
    const GradFn* rule = FindGradient(n.op);
    if (!rule) {
      ++missing[n.op];
      continue;
    }
    std::vector<std::string> dx(n.inputs.size());
    GRAPH_RETURN_IF_ERROR((*rule)(c, &dx));
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const TensorRef& in = n.inputs[i];
      if (dx[i].empty() || !from_param[in.node] || !FloatOutput(g.node(in.node), in.index))
        continue;
      grads.Add(in, dx[i]);
    }
  }
  if (missing.empty()) return Status::Ok();
  std::string list;
  for (const auto& [op, count] : missing) {
    list += (list.empty() ? "" : ", ") + op + " (" + std::to_string(count) + " node" +
            (count > 1 ? "s" : "") + ")";
  }
  return Unimplemented("no gradient rule for: " + list);
}

// One update per parameter that received a gradient (ApplyGradientDescent, or
// ApplyMomentum with its accumulator).
void AddUpdates(const Graph& g, const TrainingOptions& opts, const std::vector<char>& trainable,
                GraphBuilder& b, Gradients& grads, TrainingPlan* out) {
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    if (!trainable[id]) continue;
    b.SetScope("gradients/" + n.name + "/", n.name, n.requested_device);
    std::string grad = grads.Summed(id, 0);
    if (grad.empty()) {
      ++out->counts.unused_parameters;
      continue;
    }
    b.SetScope("train/" + n.name + "/", n.name, n.requested_device);
    AttrMap t = {{"T", MakeAttr(n.output_dtypes[0])}};
    std::string lr = b.FloatConst("learning_rate", opts.learning_rate);
    if (opts.optimizer == "sgd") {
      out->updates.push_back(
          b.Add("ApplyGradientDescent", "ApplyGradientDescent", {n.name, lr, grad}, t));
    } else {
      std::string accum =
          b.Add("VariableV2", "Momentum", {},
                {{"dtype", MakeAttr(n.output_dtypes[0])}, {"shape", MakeAttr(n.output_shapes[0])}});
      AttrMap m = t;
      m["use_nesterov"] = MakeAttr(false);
      out->updates.push_back(
          b.Add("ApplyMomentum", "ApplyMomentum",
                {n.name, accum, lr, grad, b.FloatConst("momentum", opts.momentum)}, m));
    }
    out->parameters.push_back(n.name);
  }
}

// Classifies the added nodes for reporting by their name scope.
void CountAddedNodes(int forward_size, TrainingPlan* out) {
  for (size_t i = forward_size; i < out->nodes.size(); ++i) {
    const std::string& name = out->nodes[i].name;
    if (name.rfind("train/", 0) == 0) {
      ++out->counts.update_nodes;
    } else if (name.rfind("synthetic_loss", 0) == 0) {
      ++out->counts.loss_nodes;
    } else {
      ++out->counts.backward_nodes;
    }
  }
}

}  // namespace

Result<TrainingPlan> PlanTrainingGraph(const Graph& forward, const TrainingOptions& opts,
                                       const InferenceOptions& inference) {
  if (opts.optimizer != "sgd" && opts.optimizer != "momentum") {
    return InvalidArgument("unknown optimizer '" + opts.optimizer + "' (expected sgd or momentum)");
  }
  GRAPH_RETURN_IF_ERROR(CheckNoControlFlow(forward, "training"));
  TrainingPlan out;
  Graph inferred;
  if (!forward.shapes_inferred()) {
    inferred = forward;
    InferShapes(inferred, inference);
  }
  const Graph& g = forward.shapes_inferred() ? forward : inferred;
  out.counts.forward_nodes = g.size();
  const std::vector<char> trainable = TrainableParameters(g);
  const std::vector<char> from_param = FromParameters(g, trainable);
  GraphBuilder b(g.ToSpecs());
  Gradients grads(g, b);
  GRAPH_ASSIGN_OR_RETURN(out.loss, SeedLoss(g, opts, b, grads, &out));
  GRAPH_RETURN_IF_ERROR(ReversePass(g, trainable, from_param, b, grads));
  AddUpdates(g, opts, trainable, b, grads, &out);
  out.nodes = b.Release();
  PruneUnusedGradients(&out.nodes, g.size());
  CountAddedNodes(g.size(), &out);
  return out;
}

Result<TrainingGraph> BuildTrainingGraph(const Graph& forward, const TrainingOptions& opts,
                                         const InferenceOptions& inference) {
  GRAPH_ASSIGN_OR_RETURN(TrainingPlan plan, PlanTrainingGraph(forward, opts, inference));
  TrainingGraph out;
  AddUpdateOrdering(&plan.nodes, plan.counts.forward_nodes);
  GRAPH_ASSIGN_OR_RETURN(out.graph, Graph::Create(std::move(plan.nodes), "training graph"));
  InferenceReport report = InferShapes(out.graph, inference);
  if (!report.problems.empty() || !report.unknown_ops.empty()) {
    return Internal("the training graph fails its own shape check: " +
                    (report.problems.empty() ? "no shape rule for " + report.unknown_ops[0]
                                             : report.problems[0]));
  }
  out.loss = plan.loss;
  out.synthetic_loss = plan.synthetic_loss;
  out.counts = plan.counts;
  for (const std::string& p : plan.parameters) out.parameters.push_back(out.graph.Find(p));
  for (const std::string& u : plan.updates) out.updates.push_back(out.graph.Find(u));
  return out;
}

}  // namespace graph
