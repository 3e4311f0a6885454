#include "trainer/replica.h"

#include <ATen/ATen.h>

#include <set>

#include "graph/attr.h"
#include "graph/shape_inference.h"
#include "runtime/executor.h"
#include "runtime/kernel.h"
#include "sim/timeline.h"

namespace trainer {
namespace {

// The update ops and what only they read (learning rates, momentum constants,
// accumulators), plus anything downstream of them: the update half.
std::vector<char> UpdateHalf(const graph::TrainingGraph& t) {
  const graph::Graph& g = t.graph;
  std::vector<char> in(g.size(), 0);
  for (graph::NodeId u : t.updates) in[u] = 1;
  for (graph::NodeId id : g.topological_order()) {  // downstream of an update
    const graph::Node& n = g.node(id);
    for (const auto& i : n.inputs) in[id] |= in[i.node];
    for (graph::NodeId c : n.control_inputs) in[id] |= in[c];
  }
  std::vector<std::vector<graph::NodeId>> readers(g.size());
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    for (const auto& i : g.node(id).inputs) readers[i.node].push_back(id);
  }
  std::set<graph::NodeId> params(t.parameters.begin(), t.parameters.end());
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (in[id] || params.count(id) || readers[id].empty()) continue;
    bool only_updates = true;
    for (graph::NodeId r : readers[id]) only_updates &= in[r] != 0;
    if (only_updates && g.node(id).inputs.empty()) in[id] = 1;
  }
  return in;
}

graph::Result<graph::Graph> Build(std::vector<graph::NodeSpec> specs, const std::string& what) {
  GRAPH_ASSIGN_OR_RETURN(graph::Graph g, graph::Graph::Create(std::move(specs), what));
  graph::InferenceReport report = graph::InferShapes(g);
  (void)report;  // the specs come from a graph whose shapes were all known
  return g;
}

std::vector<int> DevicesByName(const graph::Graph& part, const graph::Graph& whole,
                               const std::vector<int>& device_of_node) {
  std::vector<int> d(part.size(), 0);
  for (graph::NodeId id = 0; id < part.size(); ++id) {
    graph::NodeId w = whole.Find(part.node(id).name);
    if (w >= 0) d[id] = device_of_node[w];
  }
  return d;
}

}  // namespace

Replica::~Replica() = default;

graph::Result<std::unique_ptr<Replica>> Replica::Create(const graph::TrainingGraph& t,
                                                        const cluster::Cluster& cluster,
                                                        const std::vector<int>& device_of_node) {
  const graph::Graph& g = t.graph;
  std::unique_ptr<Replica> r(new Replica());
  r->loss_ = t.loss;
  std::vector<char> update = UpdateHalf(t);
  std::vector<graph::NodeSpec> all = g.ToSpecs();
  std::vector<graph::NodeSpec> compute_specs, update_specs;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (update[id]) continue;
    graph::NodeSpec s = all[id];
    std::vector<std::string> inputs;  // drop control edges into the update half
    for (const std::string& in : s.inputs) {
      if (in.empty() || in[0] != '^' || !update[g.Find(in.substr(1))]) inputs.push_back(in);
    }
    s.inputs = std::move(inputs);
    compute_specs.push_back(std::move(s));
  }
  // The update half reads parameters (state, shared) and gradients (fed).
  std::set<graph::NodeId> copied;
  std::map<graph::NodeId, std::string> feed_of_update;
  for (size_t p = 0; p < t.updates.size(); ++p) {
    const graph::Node& u = g.node(t.updates[p]);
    const std::string& param = g.node(t.parameters[p]).name;
    if (g.node(t.parameters[p]).output_dtypes.at(0) != graph::DType::kFloat) {
      return graph::InvalidArgument("parameter '" + param + "' is not float32");
    }
    r->parameters_.push_back(param);
    int grad_inputs = 0;
    for (const graph::TensorRef& in : u.inputs) {
      const graph::Node& src = g.node(in.node);
      if (update[in.node] || runtime::IsStateOp(src.op)) continue;
      ++grad_inputs;
      r->gradient_fetches_.push_back(g.TensorName(in));
      std::string feed = "trainer/gradient/" + param;
      r->gradient_feeds_.push_back(feed);
      feed_of_update[t.updates[p]] = feed;
      update_specs.push_back({feed,
                              "Placeholder",
                              {},
                              "",
                              {{"dtype", graph::MakeAttr(src.output_dtypes.at(in.index))},
                               {"shape", graph::MakeAttr(src.output_shapes.at(in.index))}}});
    }
    if (grad_inputs != 1) {
      return graph::Internal("update '" + u.name + "' reads " + std::to_string(grad_inputs) +
                             " gradients, expected one");
    }
    if (copied.insert(t.parameters[p]).second) update_specs.push_back(all[t.parameters[p]]);
  }
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (!update[id]) continue;
    graph::NodeSpec s = all[id];
    std::vector<std::string> inputs;
    const graph::Node& n = g.node(id);
    size_t k = 0;
    for (const std::string& in : s.inputs) {
      if (!in.empty() && in[0] == '^') continue;  // orderings of the whole step
      const graph::TensorRef& ref = n.inputs[k++];
      bool fed = !update[ref.node] && !runtime::IsStateOp(g.node(ref.node).op);
      if (fed && !feed_of_update.count(id)) {
        return graph::Unimplemented("'" + n.name + "' follows an update but reads '" + in +
                                    "' of the backward pass: such a step cannot be split");
      }
      inputs.push_back(fed ? feed_of_update.at(id) : in);
    }
    s.inputs = std::move(inputs);
    if (n.op == "VariableV2" || n.op == "Variable") r->slots_.push_back(n.name);
    update_specs.push_back(std::move(s));
  }
  GRAPH_ASSIGN_OR_RETURN(graph::Graph cg, Build(std::move(compute_specs), "forward and backward"));
  GRAPH_ASSIGN_OR_RETURN(graph::Graph ug, Build(std::move(update_specs), "updates"));
  GRAPH_ASSIGN_OR_RETURN(
      r->compute_, runtime::Executor::Create(cg, cluster, DevicesByName(cg, g, device_of_node)));
  GRAPH_ASSIGN_OR_RETURN(
      r->update_, runtime::Executor::Create(ug, cluster, DevicesByName(ug, g, device_of_node)));
  for (const std::string& p : r->parameters_) r->update_->set_state(p, r->compute_->state(p));
  r->gradient_of_node_.resize(cg.size());
  for (size_t p = 0; p < r->gradient_fetches_.size(); ++p) {
    graph::TensorRef ref = *cg.FindTensor(r->gradient_fetches_[p]);
    r->gradient_of_node_[ref.node].push_back({static_cast<int>(p), ref.index});
  }
  r->loss_node_ = cg.Find(t.loss);
  return r;
}

at::Tensor Replica::parameter(int i) const { return compute_->state(parameters_[i]); }

int64_t Replica::parameter_elements() const {
  int64_t n = 0;
  for (int i = 0; i < num_parameters(); ++i) n += parameter(i).numel();
  return n;
}

graph::Status Replica::Compute(const std::map<std::string, at::Tensor>& feeds,
                               const GradientReady& on_gradient, std::vector<at::Tensor>* gradients,
                               double* loss, ComputeTimes* times) {
  if (on_gradient) {
    compute_->set_node_done_hook(
        [this, &on_gradient](graph::NodeId id, const std::vector<at::Tensor>& out) {
          for (const auto& [param, index] : gradient_of_node_[id]) on_gradient(param, out[index]);
        });
  } else {
    compute_->set_node_done_hook(nullptr);
  }
  std::vector<std::string> fetches{loss_};
  fetches.insert(fetches.end(), gradient_fetches_.begin(), gradient_fetches_.end());
  std::vector<at::Tensor> out;
  sim::StepStats stats;
  graph::Status st = compute_->Run(feeds, fetches, &out, times ? &stats : nullptr);
  compute_->set_node_done_hook(nullptr);
  GRAPH_RETURN_IF_ERROR(st);
  if (loss) *loss = out[0].item<double>();
  gradients->assign(out.begin() + 1, out.end());
  if (times) {
    double loss_end_us = 0;
    for (const sim::OpRecord& op : stats.ops) {
      if (op.node == loss_node_) loss_end_us = op.end_us;
    }
    times->forward_s = loss_end_us / 1e6;
    times->backward_s = stats.seconds - times->forward_s;
  }
  return graph::Status::Ok();
}

graph::Status Replica::Update(const std::vector<at::Tensor>& gradients) {
  assert(gradients.size() == gradient_feeds_.size());
  std::map<std::string, at::Tensor> feeds;
  for (size_t i = 0; i < gradients.size(); ++i) feeds[gradient_feeds_[i]] = gradients[i];
  std::vector<at::Tensor> none;
  return update_->Run(feeds, {}, &none);
}

std::vector<std::pair<std::string, at::Tensor>> Replica::State() const {
  std::vector<std::pair<std::string, at::Tensor>> s;
  for (int i = 0; i < num_parameters(); ++i) s.push_back({parameters_[i], parameter(i)});
  for (const std::string& slot : slots_) s.push_back({slot, update_->state(slot)});
  return s;
}

}  // namespace trainer
