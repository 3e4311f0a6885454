#include "runtime/executor.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "runtime/host_memory.h"
#include "runtime/kernel.h"
#include "runtime/reference_executor.h"
#include "runtime/rewrite.h"
#include "runtime/threads.h"

namespace runtime {

namespace {

using Clock = std::chrono::steady_clock;

int64_t Key(graph::NodeId node, int index) { return (static_cast<int64_t>(node) << 16) | index; }

}  // namespace

struct Executor::Step {
  std::mutex mu;
  std::condition_variable done;
  std::vector<int> pending;
  std::vector<std::vector<at::Tensor>> values;
  std::vector<std::vector<int>> uses;                    // consumers still to read each output
  std::vector<std::vector<int64_t>> bytes;               // accounted bytes of each output
  std::map<std::pair<int64_t, int>, at::Tensor> copies;  // (output, device) -> its copy there
  std::vector<int64_t> live, peak;
  std::vector<double> busy;
  std::vector<OpRecord> ops;
  std::vector<TransferRecord> transfers;
  int remaining = 0;  // nodes not yet finished
  int in_flight = 0;  // nodes scheduled on a device and not yet finished
  graph::Status error;
  std::map<std::string, at::Tensor> feeds;
  Clock::time_point t0;

  double Now() const {
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  }
};

Executor::Executor(const graph::Graph& g, const cluster::Cluster& c, std::vector<int> d)
    : g_(RewriteForExecution(g)), cluster_(c), device_of_node_(std::move(d)) {}

Executor::~Executor() = default;

graph::Result<std::unique_ptr<Executor>> Executor::Create(const graph::Graph& g,
                                                          const cluster::Cluster& cluster,
                                                          std::vector<int> device_of_node) {
  if (static_cast<int>(device_of_node.size()) != g.size()) {
    return graph::InvalidArgument("the placement covers " + std::to_string(device_of_node.size()) +
                                  " nodes, the graph has " + std::to_string(g.size()));
  }
  // The reference executor's checks (kernels for every op, constants convertible)
  // and its initial state are ours too.
  GRAPH_ASSIGN_OR_RETURN(ReferenceExecutor reference, ReferenceExecutor::Create(g));
  std::unique_ptr<Executor> ex(new Executor(g, cluster, std::move(device_of_node)));
  std::vector<char> used(cluster.devices.size(), 0);
  for (int d : ex->device_of_node_) {
    if (d < 0 || d >= static_cast<int>(cluster.devices.size())) {
      return graph::InvalidArgument("placement names device index " + std::to_string(d) +
                                    ", which does not exist");
    }
    used[d] = 1;
  }
  // Every kernel is LibTorch code that runs on cpu devices, and would on cuda
  // devices with a CUDA LibTorch; sim devices are models with no kernels at all.
  std::map<std::string, int> misplaced;  // device -> ops placed there
  std::string first;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const cluster::DeviceSpec& spec = cluster.devices[ex->device_of_node_[id]];
    if (spec.kind != cluster::DeviceKind::kSim) continue;
    if (misplaced[spec.name]++ == 0 && first.empty()) {
      first = "'" + g.node(id).name + "' (" + g.node(id).op + ") on '" + spec.name + "'";
    }
  }
  if (!misplaced.empty()) {
    std::string list;
    for (const auto& [name, count] : misplaced) {
      list += (list.empty() ? "" : ", ") + std::to_string(count) + " on '" + name + "'";
    }
    return graph::InvalidArgument(
        "the placement puts ops on simulated devices, which have no kernels (" + list + "; first " +
        first + "): measure on cpu or cuda devices, or simulate instead");
  }
  // Kernels run single-threaded inside a device's workers (see device.h); the
  // process-wide pools left at several threads would be shared and fought over
  // by every device's matmuls.
  SetKernelThreads(1);
  // Steps reuse freed pages instead of faulting fresh ones in (host_memory.h).
  KeepFreedMemory();
  for (size_t d = 0; d < cluster.devices.size(); ++d) {
    if (!used[d]) {
      ex->devices_.emplace_back();
      continue;
    }
    GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Device> dev, MakeDevice(cluster.devices[d]));
    ex->devices_.push_back(std::move(dev));
  }
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (IsStateOp(g.node(id).op)) ex->state_[id] = reference.state(g.node(id).name);
  }
  ex->consumers_.resize(g.size());
  ex->control_consumers_.resize(g.size());
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const graph::Node& n = ex->g_.node(id);  // inputs as rewritten
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      ex->consumers_[n.inputs[i].node].push_back({id, static_cast<int>(i)});
    }
    for (graph::NodeId c : n.control_inputs) ex->control_consumers_[c].push_back(id);
  }
  return ex;
}

at::Tensor Executor::state(const std::string& node) const {
  auto it = state_.find(g_.Find(node));
  return it == state_.end() ? at::Tensor() : it->second;
}

void Executor::set_state(const std::string& node, at::Tensor value) {
  graph::NodeId id = g_.Find(node);
  assert(id >= 0 && "set_state of a node that does not exist");
  state_[id] = std::move(value);
}

void Executor::Dispatch(Step* s, graph::NodeId id) {
  const graph::Node& n = g_.node(id);
  if (IsStateOp(n.op)) {
    Finish(s, id, {state_.at(id)}, graph::Status::Ok());
  } else if (n.op == "Placeholder") {
    auto it = s->feeds.find(n.name);
    if (it == s->feeds.end()) {
      Finish(s, id, {}, graph::InvalidArgument("placeholder '" + n.name + "' is not fed"));
    } else {
      Finish(s, id, {it->second}, graph::Status::Ok());
    }
  } else if (n.op == "NoOp") {
    Finish(s, id, {}, graph::Status::Ok());
  } else {
    {
      std::lock_guard<std::mutex> l(s->mu);
      ++s->in_flight;
    }
    devices_[device_of_node_[id]]->Schedule([this, s, id] { Execute(s, id); });
  }
}

void Executor::Execute(Step* s, graph::NodeId id) {
  const graph::Node& n = g_.node(id);
  const int dev = device_of_node_[id];
  KernelContext ctx{n, {}, {}};
  {
    std::lock_guard<std::mutex> l(s->mu);
    if (!s->error.ok()) {  // the step failed elsewhere: drain without running
      --s->in_flight;
      s->done.notify_all();
      return;
    }
    for (const graph::TensorRef& in : n.inputs) {
      const auto& v = s->values[in.node];
      ctx.inputs.push_back(in.index < static_cast<int>(v.size()) ? v[in.index] : at::Tensor());
    }
  }
  // Inputs produced on another device arrive by a transfer, once per device.
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const graph::TensorRef& in = n.inputs[i];
    int src = device_of_node_[in.node];
    if (src == dev || !ctx.inputs[i].defined()) continue;
    std::pair<int64_t, int> key{Key(in.node, in.index), dev};
    {
      std::lock_guard<std::mutex> l(s->mu);
      auto it = s->copies.find(key);
      if (it != s->copies.end()) {
        ctx.inputs[i] = it->second;
        continue;
      }
    }
    double start = s->Now();
    at::Tensor copy = ctx.inputs[i].clone();
    double end = s->Now();
    std::lock_guard<std::mutex> l(s->mu);
    auto [it, inserted] = s->copies.emplace(key, copy);
    ctx.inputs[i] = it->second;
    if (inserted) {
      int64_t bytes = static_cast<int64_t>(copy.nbytes());
      s->transfers.push_back({in.node, src, dev, bytes, start, end});
      s->busy[dev] += end - start;
      s->live[dev] += bytes;
      s->peak[dev] = std::max(s->peak[dev], s->live[dev]);
    }
  }
  graph::Status st;
  double start = s->Now();
  for (size_t i = 0; i < n.inputs.size() && st.ok(); ++i) {
    if (!ctx.inputs[i].defined()) {
      st = ctx.Error("input " + std::to_string(i) + " was not produced");
    }
  }
  if (st.ok()) st = RunKernel(ctx);
  double end = s->Now();
  // Outputs that are views of an input occupy no new memory.
  std::vector<int64_t> bytes(ctx.outputs.size(), 0);
  int64_t total = 0;
  for (size_t k = 0; k < ctx.outputs.size(); ++k) {
    const at::Tensor& out = ctx.outputs[k];
    bool alias = !out.defined();
    for (const at::Tensor& in : ctx.inputs) alias |= in.defined() && out.is_alias_of(in);
    if (!alias) bytes[k] = static_cast<int64_t>(out.nbytes());
    total += bytes[k];
  }
  {
    std::lock_guard<std::mutex> l(s->mu);
    s->ops.push_back({id, dev, start, end, total});
    s->busy[dev] += end - start;
    s->bytes[id] = std::move(bytes);
  }
  Finish(s, id, std::move(ctx.outputs), st);
}

void Executor::Finish(Step* s, graph::NodeId id, std::vector<at::Tensor> outputs,
                      graph::Status st) {
  const graph::Node& n = g_.node(id);
  const bool scheduled = RunsKernel(n.op);
  if (st.ok() && node_done_) node_done_(id, outputs);
  std::vector<graph::NodeId> ready;
  {
    std::lock_guard<std::mutex> l(s->mu);
    if (scheduled) --s->in_flight;
    if (st.ok() && s->error.ok()) {
      const int dev = device_of_node_[id];
      if (s->bytes[id].size() != outputs.size()) s->bytes[id].assign(outputs.size(), 0);
      if (n.op == "Placeholder") s->bytes[id][0] = static_cast<int64_t>(outputs[0].nbytes());
      for (int64_t b : s->bytes[id]) s->live[dev] += b;
      s->peak[dev] = std::max(s->peak[dev], s->live[dev]);
      const cluster::DeviceSpec& spec = cluster_.devices[dev];
      if (spec.memory_bytes && s->live[dev] > *spec.memory_bytes) {
        st = graph::Status(graph::StatusCode::kOutOfMemory,
                           "device '" + spec.name + "' is out of memory at node '" + n.name +
                               "': " + std::to_string(s->live[dev]) + " bytes live, capacity " +
                               std::to_string(*spec.memory_bytes));
      }
    }
    if (!st.ok() || !s->error.ok()) {
      if (s->error.ok()) s->error = st;
      s->done.notify_all();
      return;
    }
    s->values[id] = std::move(outputs);
    s->uses[id].resize(s->values[id].size(), 0);
    for (size_t k = 0; k < s->values[id].size(); ++k) {  // outputs nobody reads
      if (s->uses[id][k] > 0) continue;
      s->live[device_of_node_[id]] -= s->bytes[id][k];
      s->values[id][k] = at::Tensor();
    }
    // Release inputs after their last consumer, with their copies on other devices.
    for (const graph::TensorRef& in : n.inputs) {
      if (in.index >= static_cast<int>(s->uses[in.node].size())) continue;
      if (--s->uses[in.node][in.index] > 0) continue;
      s->live[device_of_node_[in.node]] -= s->bytes[in.node][in.index];
      s->values[in.node][in.index] = at::Tensor();
      for (int d = 0; d < static_cast<int>(devices_.size()); ++d) {
        auto c = s->copies.find({Key(in.node, in.index), d});
        if (c == s->copies.end()) continue;
        s->live[d] -= static_cast<int64_t>(c->second.nbytes());
        s->copies.erase(c);
      }
    }
    for (const auto& [consumer, slot] : consumers_[id]) {
      if (--s->pending[consumer] == 0) ready.push_back(consumer);
    }
    for (graph::NodeId c : control_consumers_[id]) {
      if (--s->pending[c] == 0) ready.push_back(c);
    }
    if (--s->remaining == 0) {
      // The step is over: stop the idle workers' polling now, so that they leave
      // the cores to the caller's thread, which wakes up to end the step.
      for (const auto& d : devices_) {
        if (d) d->SetPolling(false);
      }
      s->done.notify_all();
    }
  }
  // The Step lives on Run's stack and may be gone once `remaining` reached zero;
  // then `ready` is empty (every node has finished), so nothing below touches it.
  for (graph::NodeId r : ready) Dispatch(s, r);
}

graph::Status Executor::Run(const std::map<std::string, at::Tensor>& feeds,
                            const std::vector<std::string>& fetches,
                            std::vector<at::Tensor>* results, StepStats* stats) {
  at::NoGradGuard no_grad;
  const int n = g_.size();
  Step s;
  s.feeds = feeds;
  for (const auto& [name, t] : feeds) {
    if (g_.Find(name) < 0) return graph::NotFound("feed '" + name + "' is not a node of the graph");
  }
  std::vector<graph::TensorRef> fetch_refs;
  for (const std::string& f : fetches) {
    std::optional<graph::TensorRef> t = g_.FindTensor(f);
    if (!t) return graph::NotFound("fetch '" + f + "' is not an output of the graph");
    fetch_refs.push_back(*t);
  }
  s.pending.resize(n);
  s.values.resize(n);
  s.uses.resize(n);
  s.bytes.resize(n);
  s.live.assign(devices_.size(), 0);
  s.busy.assign(devices_.size(), 0);
  for (graph::NodeId id = 0; id < n; ++id) {
    const graph::Node& node = g_.node(id);
    s.pending[id] = static_cast<int>(node.inputs.size() + node.control_inputs.size());
    for (const graph::TensorRef& in : node.inputs) {
      if (static_cast<int>(s.uses[in.node].size()) <= in.index)
        s.uses[in.node].resize(in.index + 1);
      ++s.uses[in.node][in.index];
    }
  }
  for (const graph::TensorRef& f : fetch_refs) {  // fetched tensors stay alive
    if (static_cast<int>(s.uses[f.node].size()) <= f.index) s.uses[f.node].resize(f.index + 1);
    ++s.uses[f.node][f.index];
  }
  for (const auto& [id, t] : state_)
    s.live[device_of_node_[id]] += static_cast<int64_t>(t.nbytes());
  s.peak = s.live;
  s.remaining = n;
  s.t0 = Clock::now();
  std::vector<graph::NodeId> roots;
  for (graph::NodeId id = 0; id < n; ++id) {
    if (s.pending[id] == 0) roots.push_back(id);
  }
  // Idle workers poll for work during the step only (device.h).
  for (const auto& d : devices_) {
    if (d) d->SetPolling(true);
  }
  for (graph::NodeId r : roots) Dispatch(&s, r);
  {
    std::unique_lock<std::mutex> l(s.mu);
    s.done.wait(l, [&] { return s.remaining == 0 || (!s.error.ok() && s.in_flight == 0); });
  }
  for (const auto& d : devices_) {
    if (d) d->SetPolling(false);
  }
  if (!s.error.ok()) return s.error;
  if (stats) {
    stats->seconds = s.Now() / 1e6;
    stats->ops = std::move(s.ops);
    stats->transfers = std::move(s.transfers);
    stats->peak_bytes = s.peak;
    stats->busy_us = s.busy;
  }
  results->clear();
  for (size_t i = 0; i < fetch_refs.size(); ++i) {
    const auto& v = s.values[fetch_refs[i].node];
    if (fetch_refs[i].index >= static_cast<int>(v.size())) {
      return graph::NotFound("fetch '" + fetches[i] + "' is not an output of the graph");
    }
    results->push_back(v[fetch_refs[i].index]);
  }
  return graph::Status::Ok();
}

}  // namespace runtime
