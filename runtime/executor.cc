#include "runtime/executor.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "graph/summary.h"
#include "runtime/adaptive_mutex.h"
#include "runtime/copies.h"
#include "runtime/host_memory.h"
#include "runtime/kernel.h"
#include "runtime/reference_executor.h"
#include "runtime/threads.h"
#include "runtime/torch_status.h"
#include "sim/rewrite.h"

namespace runtime {

namespace {

using Clock = std::chrono::steady_clock;

int64_t Key(graph::NodeId node, int index) { return (static_cast<int64_t>(node) << 16) | index; }

}  // namespace

// What the devices' workers share during a step. Each node's outputs (`values`,
// `bytes`) are written by its producer before any consumer can run: the consumer
// is dispatched by whoever brings its `pending` count to zero, and those
// decrements order the writes before the reads. Counts are atomics and what each
// device records is its own, so that workers on different cores seldom meet on a
// lock (adaptive_mutex.h): they did on every op when one mutex guarded it all,
// and that cost split placements microseconds per op (docs/runtime.md).
struct Executor::Step {
  // One per device, on its own cache lines.
  struct alignas(64) PerDevice {
    AdaptiveMutex mu;  // guards the members below it (the device's workers and releasers meet here)
    std::unordered_map<int64_t, at::Tensor> copies;  // output key -> its copy on this device
    std::vector<sim::OpRecord> ops;
    std::vector<int> tokens;  // with kernel timing: each op's token (Device::BeginKernels)
    double timing_start_us = 0;
    double timing_us = 0;  // host time in Begin/EndKernels (the device's one worker)
    std::vector<sim::TransferRecord> transfers;
    double busy = 0;
    std::atomic<int64_t> live{0}, peak{0};

    // Returns the live bytes this addition made (what its out-of-memory check reads:
    // `live` itself may move on at once).
    int64_t Add(int64_t bytes) {
      int64_t now = live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
      int64_t seen = peak.load(std::memory_order_relaxed);
      while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
      }
      return now;
    }
  };

  std::vector<std::vector<at::Tensor>> values;
  std::vector<std::vector<int64_t>> bytes;  // accounted bytes of each output
  std::unique_ptr<std::atomic<int>[]> pending;
  // Consumers still to read each output: node i's output k at uses[use_base[i] + k],
  // for k < use_count[i] (outputs past it have no reader).
  std::unique_ptr<std::atomic<int>[]> uses;
  std::vector<int> use_base, use_count;
  std::unique_ptr<PerDevice[]> devices;
  // Nodes dispatched whose Finish has not returned, plus one held by Run while it
  // dispatches the roots. A node dispatches its consumers before it leaves, so the
  // count reaches zero once, when nothing runs or ever will: the step is over.
  std::atomic<int> active{1};
  std::atomic<bool> failed{false};
  AdaptiveMutex mu;  // guards error and over
  std::condition_variable_any done;
  graph::Status error;
  bool over = false;
  std::map<std::string, at::Tensor> feeds;
  Clock::time_point t0;
  bool capturing = false;  // the kernels are recorded as a CUDA graph (executor.h)

  double Now() const {
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  }
  std::atomic<int>* Uses(const graph::TensorRef& t) {
    return t.index < use_count[t.node] ? &uses[use_base[t.node] + t.index] : nullptr;
  }
};

namespace {

// A step whose activations alone, freed as soon as read, outgrow what the host
// has available was run anyway: its allocations grew into swap and the OOM
// killer (a batch of 100,000 images took 18 GB in 20 s, silently). The
// estimate is one schedule's (topological order; views counted as new bytes)
// and devices side by side hold more or less at once, so only a step that
// needs more than twice what is available is refused: one far past the host.
graph::Status CheckHostMemory(const graph::Graph& g) {
  const std::optional<int64_t> available = AvailableHostBytes();
  const int64_t peak = graph::PeakLiveActivationBytes(g);
  if (!available || peak <= 2 * *available) return graph::Status::Ok();
  char line[256];
  std::snprintf(line, sizeof line,
                "the training step's activations come to about %.2f GiB at their peak (live at "
                "once in topological order), more than twice the %.2f GiB this host has "
                "available: a smaller batch",
                peak / double(1 << 30), *available / double(1 << 30));
  return graph::Status(graph::StatusCode::kOutOfMemory, line);
}

}  // namespace

Executor::Executor(const graph::Graph& g, const cluster::Cluster& c, std::vector<int> d)
    : g_(sim::RewriteForExecution(g)), cluster_(c), device_of_node_(std::move(d)) {}

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
  int gpus = 0;
  for (size_t d = 0; d < cluster.devices.size(); ++d) {
    gpus += used[d] && cluster.devices[d].kind == cluster::DeviceKind::kCuda;
  }
  if (gpus > 1) {
    return graph::Unimplemented("the placement uses " + std::to_string(gpus) +
                                " cuda devices: copies between GPUs are not built yet (one GPU, "
                                "with cpu devices, is)");
  }
  if (gpus == 0) GRAPH_RETURN_IF_ERROR(CheckHostMemory(g));
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
    GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Device> dev,
                           MakeDevice(cluster.devices[d], cluster.source));
    ex->devices_.push_back(std::move(dev));
  }
  for (size_t d = 0; d < ex->devices_.size(); ++d) {
    if (ex->devices_[d]) ex->cluster_.devices[d] = ex->devices_[d]->spec();  // capacities read
  }
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (!IsStateOp(g.node(id).op)) continue;
    const std::string& name = g.node(id).name;
    GRAPH_RETURN_IF_ERROR(Catching(
        [&] {
          return "placing '" + name + "' on device '" +
                 cluster.devices[ex->device_of_node_[id]].name + "'";
        },
        [&] { ex->set_state(name, reference.state(name)); }));
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
  ex->copy_devices_.resize(g.size());
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    for (const auto& [consumer, slot] : ex->consumers_[id]) {
      int d = ex->device_of_node_[consumer];
      std::vector<int>& to = ex->copy_devices_[id];
      if (d != ex->device_of_node_[id] && std::find(to.begin(), to.end(), d) == to.end()) {
        to.push_back(d);
      }
    }
  }
  ex->ChooseGraphDevice();
  return ex;
}

at::Tensor Executor::state(const std::string& node) const {
  auto it = state_.find(g_.Find(node));
  return it == state_.end() ? at::Tensor() : it->second;
}

void Executor::set_state(const std::string& node, at::Tensor value) {
  graph::NodeId id = g_.Find(node);
  assert(id >= 0 && "set_state of a node that does not exist");
  if (id < 0) return;
  state_[id] = OnDevice(std::move(value), device_of_node_[id]);
  KeepHostCopy(id);
  // A captured graph reads and writes the tensor this replaced; the next
  // step warms up again before a capture.
  DropCapture();
  last_key_.clear();
}

void Executor::KeepHostCopy(graph::NodeId id) {
  host_state_.erase(id);
  const at::Tensor& t = state_[id];
  // Shapes, axes and sizes: small. TensorFlow keeps every int32 tensor of a
  // GPU in host memory; the values kernels read on the host are such.
  constexpr int64_t kMaxElements = 1024;
  if (g_.node(id).op != "Const" || !t.defined() || !t.is_cuda() ||
      !at::isIntegralType(t.scalar_type(), /*includeBool=*/false) || t.numel() > kMaxElements) {
    return;
  }
  host_state_[id] = t.to(at::kCPU);
}

std::vector<int64_t> Executor::PeakMemory() const {
  std::vector<int64_t> out;
  for (const auto& d : devices_) out.push_back(d ? d->PeakMemory() : -1);
  return out;
}

void Executor::ResetPeakMemory() {
  for (const auto& d : devices_) {
    if (d) d->ResetPeakMemory();
  }
}

at::Tensor Executor::OnDevice(at::Tensor t, int dev) const {
  if (!t.defined() || !devices_[dev]) return t;
  const c10::Device where = devices_[dev]->torch_device();
  return t.device() == where ? t : t.to(where);
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
      Finish(s, id, {it->second}, graph::Status::Ok());  // on its device already (Run)
    }
  } else if (n.op == "NoOp") {
    Finish(s, id, {}, graph::Status::Ok());
  } else {
    devices_[device_of_node_[id]]->Schedule([this, s, id] { Execute(s, id); });
  }
}

void Executor::Leave(Step* s) {
  if (s->active.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // The step is over: stop the idle workers' polling now, so that they leave the
  // cores to the caller's thread, which wakes up to end the step.
  for (const auto& d : devices_) {
    if (d) d->SetPolling(false);
  }
  // Notified under the lock: Run cannot see `over` and destroy the step before
  // this thread is done with it.
  std::lock_guard<AdaptiveMutex> l(s->mu);
  s->over = true;
  s->done.notify_all();
}

void Executor::Fail(Step* s, graph::Status st) {
  std::lock_guard<AdaptiveMutex> l(s->mu);
  if (s->error.ok()) s->error = std::move(st);
  s->failed.store(true, std::memory_order_release);
}

at::Tensor Executor::InputOnDevice(Step* s, const graph::TensorRef& in, int dev, at::Tensor value) {
  const int src = device_of_node_[in.node];
  Step::PerDevice& d = s->devices[dev];
  const int64_t key = Key(in.node, in.index);
  {
    std::lock_guard<AdaptiveMutex> l(d.mu);
    auto it = d.copies.find(key);
    if (it != d.copies.end()) return it->second;
  }
  // Copy timing (profiling): a copy to or from a GPU first waits for the GPU's
  // queue, outside its record, so that the record is the copy alone, as the
  // simulator's links model it (the wait is the simulator's own).
  if (time_copies_) {
    for (int d : {src, dev}) {
      if (!devices_[d]->torch_device().is_cuda()) continue;
      // Inside the caller's Catching: the device's failure becomes the copy's.
      const graph::Status st = devices_[d]->Synchronize();
      if (!st.ok()) throw std::runtime_error(st.message());
    }
  }
  double start = s->Now();
  // Between two devices of one kind (two cpu devices share host memory) the
  // copy is what a transfer between them costs; across kinds it is the move.
  const c10::Device where = devices_[dev]->torch_device();
  at::Tensor copy =
      value.device() == where ? value.clone() : CopyAcross(value, where, devices_[src]->spec());
  double end = s->Now();
  std::lock_guard<AdaptiveMutex> l(d.mu);
  auto [it, inserted] = d.copies.emplace(key, copy);
  if (inserted) {
    int64_t bytes = static_cast<int64_t>(copy.nbytes());
    d.transfers.push_back({in.node, src, dev, bytes, start, end});
    d.busy += end - start;
    d.Add(bytes);
  }
  return it->second;
}

void Executor::Execute(Step* s, graph::NodeId id) {
  if (s->failed.load(std::memory_order_acquire)) {  // the step failed elsewhere: drain
    Leave(s);
    return;
  }
  const graph::Node& n = g_.node(id);
  const int dev = device_of_node_[id];
  KernelContext ctx{n, {}, {}, {}};
  for (const graph::TensorRef& in : n.inputs) {
    const auto& v = s->values[in.node];
    ctx.inputs.push_back(in.index < static_cast<int>(v.size()) ? v[in.index] : at::Tensor());
  }
  if (!host_state_.empty()) {
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      auto h = host_state_.find(n.inputs[i].node);
      if (h == host_state_.end()) continue;
      ctx.host_inputs.resize(n.inputs.size());
      ctx.host_inputs[i] = h->second;
    }
  }
  // Inputs produced on another device arrive by a transfer, once per device.
  graph::Status st = Catching(
      [&] {
        return "node '" + n.name + "': a copy to device '" + cluster_.devices[dev].name + "'";
      },
      [&] {
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          if (device_of_node_[n.inputs[i].node] == dev || !ctx.inputs[i].defined()) {
            continue;
          }
          ctx.inputs[i] = InputOnDevice(s, n.inputs[i], dev, ctx.inputs[i]);
        }
      });
  Device& device = *devices_[dev];
  // Timing's own events stay outside the op's span on the host.
  const double before = time_kernels_ ? s->Now() : 0;
  const int token = time_kernels_ && st.ok() ? device.BeginKernels() : -1;
  double start = s->Now();
  if (token >= 0) s->devices[dev].timing_us += start - before;
  for (size_t i = 0; i < n.inputs.size() && st.ok(); ++i) {
    if (!ctx.inputs[i].defined()) {
      st = ctx.Error("input " + std::to_string(i) + " was not produced");
    }
  }
  if (st.ok()) st = RunKernel(ctx);
  // A replay runs the GPU's kernels alone: what a kernel made on the host
  // would be stale by then.
  for (size_t k = 0; s->capturing && st.ok() && k < ctx.outputs.size(); ++k) {
    if (ctx.outputs[k].defined() && ctx.outputs[k].device() != device.torch_device()) {
      st = ctx.Error("output " + std::to_string(k) +
                     " is made on the host, which a CUDA graph's replay would not redo");
    }
  }
  // An op's outputs live on its device (a kernel may build a small tensor on
  // the host), and with `sync: op` its clock stops when its kernels have run.
  if (st.ok()) {
    st = Catching(
        [&] {
          return "node '" + n.name + "': its outputs to device '" + cluster_.devices[dev].name +
                 "'";
        },
        [&] {
          for (at::Tensor& out : ctx.outputs) out = OnDevice(std::move(out), dev);
        });
  }
  if (st.ok()) st = device.WaitForKernels();
  if (st.code() == graph::StatusCode::kOutOfMemory && st.message().rfind("device '", 0) != 0) {
    st = graph::Status(st.code(), "device '" + cluster_.devices[dev].name + "': " + st.message());
  }
  double end = s->Now();
  if (token >= 0) {
    device.EndKernels(token);
    s->devices[dev].timing_us += s->Now() - end;
  }
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
    Step::PerDevice& d = s->devices[dev];
    std::lock_guard<AdaptiveMutex> l(d.mu);
    d.ops.push_back({id, dev, start, end, total});
    if (time_kernels_) d.tokens.push_back(token);
    d.busy += end - start;
  }
  s->bytes[id] = std::move(bytes);
  ctx.inputs.clear();  // the step's references decide when inputs are freed
  Finish(s, id, std::move(ctx.outputs), st);
}

void Executor::Release(Step* s, const graph::TensorRef& t) {
  std::atomic<int>* uses = s->Uses(t);
  if (!uses || uses->fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // An output the graph reads but its op did not produce (the reader failed on it).
  if (t.index >= static_cast<int>(s->bytes[t.node].size())) return;
  s->devices[device_of_node_[t.node]].live.fetch_sub(s->bytes[t.node][t.index],
                                                     std::memory_order_relaxed);
  at::Tensor gone = std::move(s->values[t.node][t.index]);
  for (int d : copy_devices_[t.node]) {
    Step::PerDevice& dev = s->devices[d];
    at::Tensor copy;
    {
      std::lock_guard<AdaptiveMutex> l(dev.mu);
      auto c = dev.copies.find(Key(t.node, t.index));
      if (c == dev.copies.end()) continue;
      copy = std::move(c->second);
      dev.copies.erase(c);
    }
    dev.live.fetch_sub(static_cast<int64_t>(copy.nbytes()), std::memory_order_relaxed);
  }
}

void Executor::Finish(Step* s, graph::NodeId id, std::vector<at::Tensor> outputs,
                      graph::Status st) {
  const graph::Node& n = g_.node(id);
  if (st.ok() && node_done_) {
    // The hook runs on this worker thread: what it throws (a trainer's
    // gradient copy) fails the step naming the node, not std::terminate.
    st = Catching([&] { return n.name + ": after it ran"; }, [&] { node_done_(id, outputs); });
  }
  if (st.ok() && !s->failed.load(std::memory_order_acquire)) st = Keep(s, id, std::move(outputs));
  if (!st.ok()) Fail(s, std::move(st));
  if (s->failed.load(std::memory_order_acquire)) {
    Leave(s);
    return;
  }
  // Release inputs after their last consumer, with their copies on other devices.
  for (const graph::TensorRef& in : n.inputs) Release(s, in);
  std::vector<graph::NodeId> ready;
  for (const auto& [consumer, slot] : consumers_[id]) {
    if (s->pending[consumer].fetch_sub(1, std::memory_order_acq_rel) == 1)
      ready.push_back(consumer);
  }
  for (graph::NodeId c : control_consumers_[id]) {
    if (s->pending[c].fetch_sub(1, std::memory_order_acq_rel) == 1) ready.push_back(c);
  }
  // Counted before this node leaves, so that the step cannot look over between.
  s->active.fetch_add(static_cast<int>(ready.size()), std::memory_order_relaxed);
  for (graph::NodeId r : ready) Dispatch(s, r);
  Leave(s);
}

graph::Status Executor::Keep(Step* s, graph::NodeId id, std::vector<at::Tensor> outputs) {
  const graph::Node& n = g_.node(id);
  const int dev = device_of_node_[id];
  std::vector<int64_t>& bytes = s->bytes[id];
  if (bytes.size() != outputs.size()) bytes.assign(outputs.size(), 0);
  if (n.op == "Placeholder") bytes[0] = static_cast<int64_t>(outputs[0].nbytes());
  Step::PerDevice& d = s->devices[dev];
  int64_t total = 0;
  for (int64_t b : bytes) total += b;
  const int64_t live = d.Add(total);
  const cluster::DeviceSpec& spec = cluster_.devices[dev];
  if (spec.memory_bytes && live > *spec.memory_bytes) {
    return graph::Status(graph::StatusCode::kOutOfMemory,
                         "device '" + spec.name + "' is out of memory at node '" + n.name +
                             "': " + std::to_string(live) + " bytes live, capacity " +
                             std::to_string(*spec.memory_bytes));
  }
  for (size_t k = 0; k < outputs.size(); ++k) {  // outputs nobody reads
    if (static_cast<int>(k) < s->use_count[id] &&
        s->uses[s->use_base[id] + k].load(std::memory_order_relaxed) > 0) {
      continue;
    }
    d.live.fetch_sub(bytes[k], std::memory_order_relaxed);
    outputs[k] = at::Tensor();
  }
  s->values[id] = std::move(outputs);
  return graph::Status::Ok();
}

graph::Status Executor::Run(const std::map<std::string, at::Tensor>& feeds,
                            const std::vector<std::string>& fetches,
                            std::vector<at::Tensor>* results, sim::StepStats* stats) {
  at::NoGradGuard no_grad;
  if (graph_device_ >= 0 && !time_kernels_ && !node_done_) {
    return RunWithGraphs(feeds, fetches, results, stats);
  }
  return RunStep(feeds, fetches, results, stats, nullptr);
}

graph::Status Executor::RunStep(const std::map<std::string, at::Tensor>& feeds,
                                const std::vector<std::string>& fetches,
                                std::vector<at::Tensor>* results, sim::StepStats* stats,
                                Captured* capture) {
  const int n = g_.size();
  Step s;
  // Feeds are copied to their placeholder's device before the step's clock
  // starts, as inputs a GPU's step finds in its memory.
  for (const auto& [name, t] : feeds) {
    const graph::NodeId id = g_.Find(name);
    if (id < 0) return graph::NotFound("feed '" + name + "' is not a node of the graph");
    const int dev = device_of_node_[id];
    GRAPH_RETURN_IF_ERROR(Catching(
        [&] { return "feed '" + name + "' to device '" + cluster_.devices[dev].name + "'"; },
        [&] {
          // A graph's inputs are its own: replays copy the next feeds into them.
          const bool there = devices_[dev] && t.device() == devices_[dev]->torch_device();
          s.feeds[name] = capture && there ? t.clone() : OnDevice(t, dev);
        }));
  }
  std::vector<graph::TensorRef> fetch_refs;
  for (const std::string& f : fetches) {
    std::optional<graph::TensorRef> t = g_.FindTensor(f);
    if (!t) return graph::NotFound("fetch '" + f + "' is not an output of the graph");
    fetch_refs.push_back(*t);
  }
  InitCounts(&s, fetch_refs);
  s.values.resize(n);
  s.bytes.resize(n);
  s.devices.reset(new Step::PerDevice[devices_.size()]);
  for (const auto& [id, t] : state_) s.devices[device_of_node_[id]].Add(t.nbytes());
  s.t0 = Clock::now();
  if (time_kernels_) {
    for (size_t d = 0; d < devices_.size(); ++d) {
      if (!devices_[d]) continue;
      GRAPH_RETURN_IF_ERROR(devices_[d]->StartTiming(hold_s_));
      // The mark is recorded on an idle device (each step ends synchronised),
      // so it runs at once; the holds come before each op's kernels, after it.
      s.devices[d].timing_start_us = s.Now();
    }
  }
  if (capture) {
    GRAPH_RETURN_IF_ERROR(devices_[graph_device_]->BeginCapture());
    s.capturing = true;
  }
  std::vector<graph::NodeId> roots;
  for (graph::NodeId id = 0; id < n; ++id) {
    if (s.pending[id].load(std::memory_order_relaxed) == 0) roots.push_back(id);
  }
  // Idle workers poll for work during the step only (device.h).
  for (const auto& d : devices_) {
    if (d) d->SetPolling(true);
  }
  s.active.fetch_add(static_cast<int>(roots.size()), std::memory_order_relaxed);
  for (graph::NodeId r : roots) Dispatch(&s, r);
  Leave(&s);
  {
    std::unique_lock<AdaptiveMutex> l(s.mu);
    s.done.wait(l, [&] { return s.over; });
  }
  if (s.capturing) {  // the kernels were recorded: the step runs now
    graph::Status st = devices_[graph_device_]->EndCapture();
    if (st.ok() && s.error.ok()) st = devices_[graph_device_]->Replay();
    if (!st.ok() && s.error.ok()) s.error = std::move(st);
  }
  // A GPU may still run the kernels its last ops launched.
  for (const auto& d : devices_) {
    graph::Status st = d ? d->Synchronize() : graph::Status::Ok();
    if (!st.ok() && s.error.ok()) s.error = std::move(st);
  }
  if (s.error.ok() && time_kernels_) s.error = CollectKernelSpans(&s);
  if (!s.error.ok()) return s.error;
  if (stats) Collect(&s, stats);
  results->clear();
  for (size_t i = 0; i < fetch_refs.size(); ++i) {
    const auto& v = s.values[fetch_refs[i].node];
    if (fetch_refs[i].index >= static_cast<int>(v.size())) {
      return graph::NotFound("fetch '" + fetches[i] + "' is not an output of the graph");
    }
    results->push_back(v[fetch_refs[i].index]);
  }
  if (capture) {
    capture->feeds = std::move(s.feeds);
    capture->peak_bytes.clear();
    for (size_t d = 0; d < devices_.size(); ++d) capture->peak_bytes.push_back(s.devices[d].peak);
  }
  return graph::Status::Ok();
}

void Executor::InitCounts(Step* s, const std::vector<graph::TensorRef>& fetches) const {
  const int n = g_.size();
  s->pending.reset(new std::atomic<int>[n]);
  s->use_count.assign(n, 0);
  for (graph::NodeId id = 0; id < n; ++id) {
    const graph::Node& node = g_.node(id);
    s->pending[id].store(static_cast<int>(node.inputs.size() + node.control_inputs.size()),
                         std::memory_order_relaxed);
    for (const graph::TensorRef& in : node.inputs) {
      s->use_count[in.node] = std::max(s->use_count[in.node], in.index + 1);
    }
  }
  for (const graph::TensorRef& f : fetches) {
    s->use_count[f.node] = std::max(s->use_count[f.node], f.index + 1);
  }
  s->use_base.assign(n, 0);
  int total = 0;
  for (graph::NodeId id = 0; id < n; ++id) {
    s->use_base[id] = total;
    total += s->use_count[id];
  }
  s->uses.reset(new std::atomic<int>[total]);
  for (int i = 0; i < total; ++i) s->uses[i].store(0, std::memory_order_relaxed);
  for (graph::NodeId id = 0; id < n; ++id) {
    for (const graph::TensorRef& in : g_.node(id).inputs) s->Uses(in)->fetch_add(1);
  }
  for (const graph::TensorRef& f : fetches) s->Uses(f)->fetch_add(1);  // fetched: kept
}

graph::Status Executor::CollectKernelSpans(Step* s) {
  std::vector<std::pair<double, double>> spans;
  for (size_t d = 0; d < devices_.size(); ++d) {
    if (!devices_[d]) continue;
    GRAPH_RETURN_IF_ERROR(devices_[d]->KernelSpans(&spans));
    Step::PerDevice& dev = s->devices[d];
    for (size_t i = 0; i < dev.ops.size() && i < dev.tokens.size(); ++i) {
      const int t = dev.tokens[i];
      if (t < 0 || t >= static_cast<int>(spans.size())) continue;
      dev.ops[i].kernel_start_us = dev.timing_start_us + spans[t].first * 1e6;
      dev.ops[i].kernel_end_us = dev.timing_start_us + spans[t].second * 1e6;
    }
  }
  return graph::Status::Ok();
}

// Every device's records, ordered by start time as one step's are read.
void Executor::Collect(Step* s, sim::StepStats* stats) const {
  stats->seconds = s->Now() / 1e6;
  stats->ops.clear();
  stats->transfers.clear();
  stats->peak_bytes.assign(devices_.size(), 0);
  stats->busy_us.assign(devices_.size(), 0);
  stats->timing_us.assign(time_kernels_ ? devices_.size() : 0, 0);
  for (size_t d = 0; d < devices_.size(); ++d) {
    Step::PerDevice& dev = s->devices[d];
    stats->ops.insert(stats->ops.end(), dev.ops.begin(), dev.ops.end());
    stats->transfers.insert(stats->transfers.end(), dev.transfers.begin(), dev.transfers.end());
    stats->peak_bytes[d] = dev.peak.load();
    stats->busy_us[d] = dev.busy;
    if (time_kernels_) stats->timing_us[d] = dev.timing_us;
  }
  std::stable_sort(
      stats->ops.begin(), stats->ops.end(),
      [](const sim::OpRecord& a, const sim::OpRecord& b) { return a.start_us < b.start_us; });
  std::stable_sort(stats->transfers.begin(), stats->transfers.end(),
                   [](const sim::TransferRecord& a, const sim::TransferRecord& b) {
                     return a.start_us < b.start_us;
                   });
}

}  // namespace runtime
