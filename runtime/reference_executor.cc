#include "runtime/reference_executor.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <cstring>
#include <map>
#include <set>

#include "runtime/flush_denormals.h"
#include "runtime/kernel.h"
#include "runtime/torch_status.h"

namespace runtime {

namespace {

bool IsSource(const std::string& op) {
  return op == "Const" || op == "VariableV2" || op == "Variable" || op == "Placeholder" ||
         op == "PlaceholderWithDefault" || op == "NoOp";
}

}  // namespace

graph::Result<at::Tensor> ToAten(const graph::Tensor& t) {
  if (!HasTorchType(t.dtype())) {
    return graph::Unimplemented("constants of type " + graph::DTypeName(t.dtype()) +
                                " have no tensor form");
  }
  // The bytes held must be the shape's before anything is allocated: a
  // corrupt constant may declare a shape no host could hold.
  const int64_t size = graph::DTypeSize(t.dtype()), n = t.num_elements();
  if (n < 0 || t.byte_size() % size || n != t.byte_size() / size) {
    return graph::InvalidArgument("constant holds " + std::to_string(t.byte_size()) +
                                  " bytes for shape " + t.shape().ToString() + " of type " +
                                  graph::DTypeName(t.dtype()));
  }
  at::Tensor out;
  GRAPH_RETURN_IF_ERROR(Catching(
      [&] { return "constant of shape " + t.shape().ToString(); },
      [&] { out = at::empty(t.shape().dims(), at::TensorOptions().dtype(ToTorch(t.dtype()))); }));
  if (out.nbytes() > 0) std::memcpy(out.data_ptr(), t.bytes().data(), out.nbytes());
  return out;
}

graph::Result<ReferenceExecutor> ReferenceExecutor::Create(const graph::Graph& g) {
  GRAPH_RETURN_IF_ERROR(graph::CheckNoControlFlow(g, "execution"));
  std::map<std::string, int> missing;
  for (const graph::Node& n : g.nodes()) {
    if (!IsSource(n.op) && !FindKernel(n.op)) ++missing[n.op];
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& [op, count] : missing) {
      list += (list.empty() ? "" : ", ") + op + " (" + std::to_string(count) + ")";
    }
    return graph::Unimplemented("no kernel for: " + list);
  }
  ReferenceExecutor ex(g);
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const graph::Node& n = g.node(id);
    if (n.op == "Const") {
      const graph::AttrValue* v = n.attr("value");
      const graph::Tensor* t = v ? v->get<graph::Tensor>() : nullptr;
      if (!t) return graph::InvalidArgument("Const '" + n.name + "' has no value");
      auto value = ToAten(*t);
      if (!value.ok()) {
        return graph::Status(value.status().code(),
                             "Const '" + n.name + "': " + value.status().message());
      }
      ex.state_[id] = *value;
    } else if (n.op == "VariableV2" || n.op == "Variable") {
      if (n.num_outputs() == 0 || !n.output_shapes[0].FullyDefined()) {
        return graph::InvalidArgument("variable '" + n.name + "' needs a static shape");
      }
      if (!HasTorchType(n.output_dtypes[0])) {
        return graph::Unimplemented("variable '" + n.name + "' is of type " +
                                    graph::DTypeName(n.output_dtypes[0]));
      }
      GRAPH_RETURN_IF_ERROR(Catching(
          [&] { return "variable '" + n.name + "' of shape " + n.output_shapes[0].ToString(); },
          [&] {
            ex.state_[id] = at::zeros(n.output_shapes[0].dims(),
                                      at::TensorOptions().dtype(ToTorch(n.output_dtypes[0])));
          }));
    }
  }
  return ex;
}

at::Tensor ReferenceExecutor::state(const std::string& node) const {
  auto it = state_.find(g_->Find(node));
  return it == state_.end() ? at::Tensor() : it->second;
}

void ReferenceExecutor::set_state(const std::string& node, at::Tensor value) {
  graph::NodeId id = g_->Find(node);
  assert(id >= 0 && "set_state of a node that does not exist");
  state_[id] = std::move(value);
}

graph::Status ReferenceExecutor::RunNode(graph::NodeId id,
                                         std::vector<std::vector<at::Tensor>>& values) {
  const graph::Node& n = g_->node(id);
  KernelContext ctx{n, {}, {}, {}};
  ctx.inputs.reserve(n.inputs.size());
  for (const graph::TensorRef& in : n.inputs) {
    const auto& src = values[in.node];
    if (in.index >= static_cast<int>(src.size()) || !src[in.index].defined()) {
      return graph::Internal("node '" + n.name + "' reads output " + std::to_string(in.index) +
                             " of '" + g_->node(in.node).name + "', which was not produced");
    }
    ctx.inputs.push_back(src[in.index]);
  }
  GRAPH_RETURN_IF_ERROR(RunKernel(ctx));
  values[id] = std::move(ctx.outputs);
  return graph::Status::Ok();
}

graph::Status ReferenceExecutor::Run(const std::map<std::string, at::Tensor>& feeds,
                                     const std::vector<std::string>& fetches,
                                     std::vector<at::Tensor>* results, const RunOptions& opts) {
  at::AutoGradMode grad_mode(opts.record_autograd);
  const ScopedFlushDenormals flush;  // as the executor's device workers run kernels
  std::vector<std::vector<at::Tensor>> values(g_->size());
  for (const auto& [name, tensor] : feeds) {
    graph::NodeId id = g_->Find(name);
    if (id < 0) return graph::NotFound("feed '" + name + "' is not a node of the graph");
    values[id] = {tensor};
  }
  for (graph::NodeId id : g_->topological_order()) {
    const graph::Node& n = g_->node(id);
    if (n.op == "Placeholder") {
      if (values[id].empty())
        return graph::InvalidArgument("placeholder '" + n.name + "' is not fed");
      continue;
    }
    if (n.op == "PlaceholderWithDefault" && !values[id].empty()) continue;
    auto st = state_.find(id);
    if (st != state_.end()) {
      values[id] = {st->second};
      continue;
    }
    if (n.op == "NoOp") continue;
    if (n.op == "PlaceholderWithDefault") {
      values[id] = {values[n.inputs[0].node][n.inputs[0].index]};
      continue;
    }
    GRAPH_RETURN_IF_ERROR(RunNode(id, values));
  }
  results->clear();
  for (const std::string& f : fetches) {
    std::optional<graph::TensorRef> t = g_->FindTensor(f);
    if (!t || t->index >= static_cast<int>(values[t->node].size())) {
      return graph::NotFound("fetch '" + f + "' is not an output of the graph");
    }
    results->push_back(values[t->node][t->index]);
  }
  return graph::Status::Ok();
}

}  // namespace runtime
