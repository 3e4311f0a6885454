#include "sim/simulator.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <queue>

#include "graph/cost.h"
#include "graph/signature.h"
#include "sim/op_kind.h"
#include "sim/rewrite.h"

namespace sim {

namespace {

// Ops whose kernels return views of an input (or the updated variable): their
// outputs occupy no new memory. Used where the profile does not say.
bool IsViewOp(const std::string& op) {
  static const char* kViews[] = {"Identity",      "StopGradient",   "Reshape",
                                 "Squeeze",       "ExpandDims",     "ApplyGradientDescent",
                                 "ApplyMomentum", "PreventGradient"};
  for (const char* v : kViews) {
    if (op == v) return true;
  }
  return false;
}

struct Rates {
  double flops_per_s = 0, bytes_per_s = 0;  // 0: unknown
  bool ok() const { return flops_per_s > 0 && bytes_per_s > 0; }
};

constexpr double kNoTime = -1;  // neither profiled nor estimable on that device

// The copies of one run, per (copy slot, device), in a flat array that outlives
// the run: an entry counts only if it carries the run's stamp, so a run starts
// without clearing megabytes (NMT-8 on 9 devices: 270,000 entries). An entry's
// fields are read together, so they sit together.
struct CopyEntry {
  uint32_t held = 0;   // == run: a copy is live on that device...
  uint32_t sent = 0;   // == run: an eager send there is under way...
  double arrival = 0;  // ...and arrives then (kept after the copy is released)
  int64_t bytes = 0;   // what the live copy occupies
};

struct CopyTable {
  std::vector<CopyEntry> entries;
  uint32_t run = 0;

  // Starts a run over `size` entries; returns its stamp.
  uint32_t Begin(size_t size) {
    if (entries.size() < size) entries.resize(size);
    if (++run == 0) {  // the stamps wrapped: forget every old one
      std::fill(entries.begin(), entries.end(), CopyEntry{});
      run = 1;
    }
    return run;
  }
};

double Roofline(const graph::OpCost& c, const Rates& r) {
  const double bytes = static_cast<double>(c.bytes_read + c.bytes_written);
  return std::max(c.flops / r.flops_per_s, bytes / r.bytes_per_s);
}

}  // namespace

graph::Result<Simulator> Simulator::Create(const graph::Graph& g, const cluster::Cluster& c,
                                           const Profile* profile) {
  GRAPH_RETURN_IF_ERROR(graph::CheckNoControlFlow(g, "simulation"));
  Simulator s;
  s.g_ = RewriteForExecution(g);
  s.cluster_ = c;
  const int nd = static_cast<int>(c.devices.size());
  if (nd == 0) return graph::InvalidArgument(c.source + ": no devices");
  if (nd > 255) return graph::InvalidArgument(c.source + ": more than 255 devices");
  std::vector<std::string> sig;
  std::vector<std::vector<int64_t>> out_bytes;
  s.ClassifyNodes(profile, &sig, &out_bytes);
  const std::vector<graph::OpCost> costs = graph::ComputeCosts(s.g_);
  s.PlanDevices(profile, costs, sig);
  s.PlanLinks(profile);
  s.PlanEdges(out_bytes);
  s.PlanCopySlots(out_bytes);
  return s;
}

void Simulator::ClassifyNodes(const Profile* profile, std::vector<std::string>* sig,
                              std::vector<std::vector<int64_t>>* out_bytes) {
  const graph::Graph& rg = g_;
  const int n = rg.size();
  sig->assign(n, "");
  out_bytes->assign(n, {});
  scheduled_.assign(n, 0);
  state_bytes_.assign(n, 0);
  for (graph::NodeId id = 0; id < n; ++id) {
    const graph::Node& node = rg.node(id);
    scheduled_[id] = RunsKernel(node.op);
    if (IsStateOp(node.op)) {
      state_bytes_[id] = std::max<int64_t>(0, graph::OutputBytes(node, 0));
      (*out_bytes)[id].assign(node.num_outputs(), 0);  // resident, counted once
      continue;
    }
    for (int k = 0; k < node.num_outputs(); ++k) {
      (*out_bytes)[id].push_back(std::max<int64_t>(0, graph::OutputBytes(node, k)));
    }
    if (scheduled_[id]) (*sig)[id] = graph::OpSignature(rg, id);
  }
  // Views: as profiled (any device), else by op type.
  for (graph::NodeId id = 0; id < n; ++id) {
    if (!scheduled_[id]) continue;
    bool view = IsViewOp(rg.node(id).op);
    if (profile) {
      for (const cluster::DeviceSpec& d : cluster_.devices) {
        if (const OpTiming* t = profile->Find(d.name, (*sig)[id])) {
          view = t->output_bytes == 0;
          break;
        }
      }
    }
    if (view) std::fill((*out_bytes)[id].begin(), (*out_bytes)[id].end(), 0);
  }
}

namespace {

// Effective rates of a device: its datasheet figures when the devices file
// gives them, else fitted to its profiled ops of this graph (compute-bound ops,
// >= 1 FLOP per byte, for FLOP/s; the others for bytes/s); unknown without.
Rates DeviceRates(const cluster::DeviceSpec& spec, const Profile* profile,
                  const std::vector<graph::OpCost>& costs, const std::vector<std::string>& sig,
                  const std::vector<char>& scheduled) {
  if (spec.peak_flops && spec.memory_bandwidth) return {*spec.peak_flops, *spec.memory_bandwidth};
  if (!profile) return {};
  double flops = 0, flop_s = 0, bytes = 0, byte_s = 0;
  for (size_t id = 0; id < costs.size(); ++id) {
    if (!scheduled[id] || !costs[id].known) continue;
    const OpTiming* t = profile->Find(spec.name, sig[id]);
    if (!t || t->seconds <= 0) continue;
    const double b = static_cast<double>(costs[id].bytes_read + costs[id].bytes_written);
    if (costs[id].flops >= b) {
      flops += costs[id].flops;
      flop_s += t->seconds;
    } else {
      bytes += b;
      byte_s += t->seconds;
    }
  }
  if (flop_s > 0 && byte_s > 0) return {flops / flop_s, bytes / byte_s};
  return {};
}

}  // namespace

void Simulator::PlanDevices(const Profile* profile, const std::vector<graph::OpCost>& costs,
                            const std::vector<std::string>& sig) {
  const int n = g_.size(), nd = static_cast<int>(cluster_.devices.size());
  op_s_.assign(nd, std::vector<double>(n, 0));
  estimated_.assign(nd, std::vector<char>(n, 0));
  dispatch_s_.assign(nd, 0);
  dispatch_shared_s_.assign(nd, 0);
  dispatch_cross_s_.assign(nd, -1);
  slowdown_.assign(nd, 1);
  cold_s_.assign(nd, {});
  parallel_slowdown_.assign(nd, -1);
  parallel_cold_s_.assign(nd, {});
  shared_cross_.assign(nd, 0);
  wakeup_s_.assign(nd, 0);
  poll_s_.assign(nd, 0);
  notify_s_.assign(nd, 0);
  spin_s_.assign(nd, 0);
  async_.assign(nd, 0);
  host_s_.assign(nd, {});
  for (int d = 0; d < nd; ++d) {
    const cluster::DeviceSpec& spec = cluster_.devices[d];
    if (spec.kind == cluster::DeviceKind::kCuda && !spec.sync_each_op) {
      PlanLaunches(d, profile, sig);
    }
    if (spec.kind == cluster::DeviceKind::kCpu) {
      spin_s_[d] = spec.spin_s;
      cpu_devices_.push_back(d);
    }
    if (profile) PlanOverheads(d, *profile);
    const Rates rates = DeviceRates(spec, profile, costs, sig, scheduled_);
    for (graph::NodeId id = 0; id < n; ++id) {
      if (!scheduled_[id]) continue;
      const OpTiming* t = profile ? profile->Find(spec.name, sig[id]) : nullptr;
      if (t) {
        op_s_[d][id] = t->seconds;
      } else if (rates.ok()) {  // without a FLOP rule or shapes: the bytes we know, if any
        graph::OpCost cost = costs[id];
        if (!cost.known) cost.flops = 0;
        op_s_[d][id] = Roofline(cost, rates);
        estimated_[d][id] = 1;
      } else {
        op_s_[d][id] = kNoTime;
      }
    }
  }
}

void Simulator::PlanLaunches(int d, const Profile* profile, const std::vector<std::string>& sig) {
  const cluster::DeviceSpec& spec = cluster_.devices[d];
  const int n = g_.size();
  async_[d] = 1;
  double launch = 0;
  if (profile) {
    auto it = profile->launch_s.find(spec.name);
    if (it != profile->launch_s.end()) launch = it->second;
  }
  host_s_[d].assign(n, launch);
  for (graph::NodeId id = 0; profile && id < n; ++id) {
    const double h = scheduled_[id] ? profile->HostSeconds(spec.name, sig[id]) : -1;
    if (h >= 0) host_s_[d][id] = h;
  }
}

void Simulator::PlanOverheads(int d, const Profile& profile) {
  const cluster::DeviceSpec& spec = cluster_.devices[d];
  auto it = profile.dispatch_s.find(spec.name);
  if (it != profile.dispatch_s.end()) dispatch_s_[d] = it->second;
  auto shared = profile.dispatch_shared_s.find(spec.name);
  dispatch_shared_s_[d] =
      shared != profile.dispatch_shared_s.end() ? shared->second : dispatch_s_[d];
  for (auto [from, to] :
       {std::pair{&profile.wakeup_s, &wakeup_s_[d]}, std::pair{&profile.poll_s, &poll_s_[d]},
        std::pair{&profile.notify_s, &notify_s_[d]}}) {
    auto w = from->find(spec.name);
    if (w != from->end()) *to = w->second;
  }
  if (spec.kind != cluster::DeviceKind::kCpu) return;
  auto f = profile.slowdown.find(spec.name);
  if (f != profile.slowdown.end()) slowdown_[d] = f->second;
  auto cross = profile.dispatch_cross_s.find(spec.name);
  if (cross != profile.dispatch_cross_s.end()) dispatch_cross_s_[d] = cross->second;
  auto cold = profile.cold_s.find(spec.name);
  if (cold != profile.cold_s.end()) cold_s_[d] = cold->second;
  auto par = profile.parallel_slowdown.find(spec.name);
  auto par_cold = profile.parallel_cold_s.find(spec.name);
  auto at = profile.shared_cross.find(spec.name);
  // All three with the slowdown they pair with, or none (a hand-edited file
  // without parallel_cold would blend the cold extras toward nothing).
  if (par != profile.parallel_slowdown.end() && at != profile.shared_cross.end() &&
      par_cold != profile.parallel_cold_s.end() && f != profile.slowdown.end()) {
    parallel_slowdown_[d] = par->second;
    shared_cross_[d] = at->second;
    parallel_cold_s_[d] = par_cold->second;
  }
}

void Simulator::PlanLinks(const Profile* profile) {
  const cluster::Cluster& c = cluster_;
  const int nd = static_cast<int>(c.devices.size());
  links_.assign(nd, std::vector<LinkFit>(nd));
  consumer_copies_.assign(nd * nd, 0);
  for (int a = 0; a < nd; ++a) {
    for (int b = 0; b < nd; ++b) {
      if (a == b) continue;
      const LinkFit* fit = profile ? profile->Link(c.devices[a].name, c.devices[b].name) : nullptr;
      if (fit) {
        links_[a][b] = *fit;
      } else if (std::optional<cluster::LinkSpec> l = c.Link(a, b)) {
        links_[a][b] = {l->latency_s, l->bandwidth_bytes_per_s, 0};
      }
      // The executor's consumer copies what it reads from another cpu device, and
      // between a cpu and a cuda device too: LibTorch's blocking copy to or from
      // a GPU is the copy queued on the GPU's stream and a wait for that stream.
      const cluster::DeviceKind ka = c.devices[a].kind, kb = c.devices[b].kind;
      const bool host_a = ka == cluster::DeviceKind::kCpu, host_b = kb == cluster::DeviceKind::kCpu;
      consumer_copies_[a * nd + b] = (host_a && host_b) ||
                                     (host_a && kb == cluster::DeviceKind::kCuda) ||
                                     (host_b && ka == cluster::DeviceKind::kCuda);
    }
  }
}

void Simulator::PlanEdges(const std::vector<std::vector<int64_t>>& out_bytes) {
  const graph::Graph& rg = g_;
  const int n = rg.size();
  out_offset_.assign(n + 1, 0);
  base_pending_.assign(n, 0);
  in_offset_.assign(n + 1, 0);
  use_offset_.assign(n + 1, 0);
  ctrl_offset_.assign(n + 1, 0);
  out_total_.assign(n, 0);
  for (graph::NodeId id = 0; id < n; ++id) {
    const graph::Node& node = rg.node(id);
    in_offset_[id + 1] = in_offset_[id] + static_cast<int>(node.inputs.size());
    for (const graph::TensorRef& in : node.inputs) {
      in_.push_back(in);
      ++use_offset_[in.node + 1];
    }
    for (graph::NodeId p : node.control_inputs) ++ctrl_offset_[p + 1];
    out_offset_[id + 1] = out_offset_[id] + static_cast<int>(out_bytes[id].size());
    for (int64_t b : out_bytes[id]) {
      out_flat_.push_back(b);
      out_total_[id] += b;
    }
    base_pending_[id] = static_cast<int>(node.inputs.size() + node.control_inputs.size());
  }
  for (graph::NodeId id = 0; id < n; ++id) {
    use_offset_[id + 1] += use_offset_[id];
    ctrl_offset_[id + 1] += ctrl_offset_[id];
  }
  use_.resize(use_offset_[n]);
  ctrl_.resize(ctrl_offset_[n]);
  std::vector<int> next_use(use_offset_.begin(), use_offset_.end() - 1);
  std::vector<int> next_ctrl(ctrl_offset_.begin(), ctrl_offset_.end() - 1);
  for (graph::NodeId id = 0; id < n; ++id) {  // readers in id order, as the executor wakes them
    const graph::Node& node = rg.node(id);
    for (const graph::TensorRef& in : node.inputs) use_[next_use[in.node]++] = {id, in.index};
    for (graph::NodeId p : node.control_inputs) ctrl_[next_ctrl[p]++] = id;
  }
}

void Simulator::PlanCopySlots(const std::vector<std::vector<int64_t>>& out_bytes) {
  const graph::Graph& rg = g_;
  const int n = rg.size();
  base_uses_.assign(out_offset_[n], 0);
  std::vector<int> slots(n, 0);
  for (graph::NodeId id = 0; id < n; ++id) {
    slots[id] = std::max(slots[id], static_cast<int>(out_bytes[id].size()));
    for (const graph::TensorRef& in : rg.node(id).inputs) {
      slots[in.node] = std::max(slots[in.node], in.index + 1);
      if (in.index < out_offset_[in.node + 1] - out_offset_[in.node]) {
        ++base_uses_[out_offset_[in.node] + in.index];
      }
    }
  }
  slot_offset_.assign(n + 1, 0);
  for (graph::NodeId id = 0; id < n; ++id) slot_offset_[id + 1] = slot_offset_[id] + slots[id];
  copy_bytes_.resize(slot_offset_[n]);
  send_bytes_.resize(slot_offset_[n]);
  for (graph::NodeId id = 0; id < n; ++id) {
    for (int k = 0; k < slots[id]; ++k) {
      // An executor copy occupies what the output is accounted at; a view's
      // copy (accounted 0) is a real tensor of the view's shape.
      const int64_t logical = std::max<int64_t>(0, graph::OutputBytes(rg.node(id), k));
      const int64_t accounted = k < static_cast<int>(out_bytes[id].size()) ? out_bytes[id][k] : 0;
      copy_bytes_[slot_offset_[id] + k] = accounted > 0 ? accounted : logical;
      send_bytes_[slot_offset_[id] + k] = logical;
    }
  }
}

int64_t Simulator::NodeBytes(graph::NodeId id) const { return state_bytes_[id] + out_total_[id]; }

double Simulator::TransferSeconds(int src, int dst, int64_t bytes) const {
  const LinkFit& l = links_[src][dst];
  if (l.bandwidth_bytes_per_s <= 0) return std::numeric_limits<double>::infinity();
  return l.latency_s + static_cast<double>(bytes) / l.bandwidth_bytes_per_s;
}

double Simulator::DependencyBoundSeconds() const {
  std::vector<double> done(g_.size(), 0.0);
  double bound = 0;
  for (graph::NodeId id : g_.topological_order()) {
    const graph::Node& node = g_.node(id);
    double start = 0;
    for (const graph::TensorRef& in : node.inputs) start = std::max(start, done[in.node]);
    for (graph::NodeId p : node.control_inputs) start = std::max(start, done[p]);
    double fastest = 0;
    if (scheduled_[id]) {
      fastest = std::numeric_limits<double>::infinity();
      for (const std::vector<double>& on_device : op_s_) {
        if (on_device[id] != kNoTime) fastest = std::min(fastest, on_device[id]);
      }
      if (std::isinf(fastest)) fastest = 0;  // no device can run it: Run refuses every placement
    }
    done[id] = start + fastest;
    bound = std::max(bound, done[id]);
  }
  return bound;
}

double Simulator::WorkBoundSeconds(int iterations) const {
  // For device weights w (w >= 0, sum 1) and any split with busiest device at T,
  // T >= sum_d w_d load_d >= sum_ops min_d w_d t(op, d) =: L(w); the best w gives
  // the relaxation's optimum (LP duality). Ascend L: the devices that would get
  // the most work at w get more weight.
  const int nd = static_cast<int>(op_s_.size());
  std::vector<graph::NodeId> ops;
  for (graph::NodeId id = 0; id < g_.size(); ++id) {
    if (scheduled_[id]) ops.push_back(id);
  }
  std::vector<double> w(nd, 1.0 / nd), load(nd);
  double best = 0, step = 1.0;
  for (int it = 0; it < iterations; ++it) {
    std::fill(load.begin(), load.end(), 0.0);
    double bound = 0;
    for (graph::NodeId id : ops) {
      int arg = -1;
      double low = std::numeric_limits<double>::infinity();
      for (int d = 0; d < nd; ++d) {
        if (op_s_[d][id] != kNoTime && w[d] * op_s_[d][id] < low) {
          low = w[d] * op_s_[d][id];
          arg = d;
        }
      }
      if (arg < 0) continue;  // no device can run it
      bound += low;
      load[arg] += op_s_[arg][id];
    }
    best = std::max(best, bound);
    const double most = *std::max_element(load.begin(), load.end());
    if (most <= 0) break;
    double sum = 0;
    for (int d = 0; d < nd; ++d) sum += w[d] *= std::exp(step * (load[d] / most - 0.5));
    for (double& x : w) x /= sum;
    step *= 0.99;
  }
  return best;
}

// One step's discrete-event simulation, for one Simulator::Run call on its
// thread: the state its event loop advances (per-device workers, queues,
// memory and links; copies of tensors on other devices) and the loop's
// handlers. A node finishing makes its consumers ready, either at once or when
// an eager send's copy arrives; ready nodes join their device's queue, and a
// free worker starts the next one, copying its inputs first where the executor
// copies on the consumer's side.
class Simulator::Step {
 public:
  Step(const Simulator& sim, const std::vector<int>& device_of_node, graph::NodeId fetch,
       double cutoff_s, CopyTable* table);
  SimResult Run();

 private:
  struct Event {
    double t;
    uint64_t seq;
    graph::NodeId node;
    bool edge;  // true: an input of `node` arrived; false: `node` finished
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };

  // A placement the profile or the links cannot run: the error, else Ok.
  graph::Status CheckPlaceable() const;
  // In steps with ops on several cpu devices (where they were measured): cold
  // kernels, and the executor's time per op by the device's cross-device edges
  // per op.
  void PlanCpuSharing();
  // Every op on one cuda device with `graphs: on`: the executor replays the
  // step as a CUDA graph (executor.h), so ops cost no launch or dispatch.
  void PlanGraphReplay();
  // With a finite cutoff: each device's kernel seconds at their least (no
  // sharing slowdown above 1, the smallest cold extra), all still to start.
  void PlanCutoff();
  // Whether device d's kernels still to start, at their least, end at or past
  // the cutoff: on a GPU after the kernels queued there, on a cpu's workers
  // after now (and after the running kernel, for one worker). Sets cut_.
  bool CutOff(int d);
  // Whether `bound`, a lower bound on the step, reaches the cutoff. Sets cut_.
  bool Past(double bound);
  // Takes node id's least kernel seconds off device d's unstarted sum, and
  // finds the device with the most again if it was d.
  void Started(graph::NodeId id, int d);
  void FindMost();
  double LeastKernelSeconds(graph::NodeId id, int d) const;
  int Outputs(graph::NodeId id) const { return s_.out_offset_[id + 1] - s_.out_offset_[id]; }
  size_t Entry(graph::NodeId node, int index, int d) const {
    return static_cast<size_t>(s_.slot_offset_[node] + index) * nd_ + d;
  }
  // Whether a cpu device of the host other than d is awake at t: running an op
  // (or copying for one) or polling for one. Another device's kernels and gaps
  // are slower then (runtime/profiler.h).
  bool OtherCpuAwake(int d, double t) const;
  double ColdSeconds(int d, double idle) const;
  // The executor's copies of `id`'s inputs from other devices onto d, from
  // *clock on; advances *clock past them.
  void CopyInputs(graph::NodeId id, int d, double* clock);
  // `woken`: the op was handed to an idle worker by another thread; `delay`:
  // what the worker starting it still had to do first. Returns whether it woke
  // a sleeping worker (the hand-off then costs the handing worker too).
  bool Start(graph::NodeId id, double t, bool woken, double delay);
  // Start's pipeline for an async GPU (see simulator.h): the launch from
  // `clock` on the worker, the kernels on the GPU.
  void StartOnGpu(graph::NodeId id, int d, double clock, double kernel);
  // A copy off async device `gpu` by another device's worker holds the GPU's
  // host side over [from, until); AfterGpuHostHeld: when a launch that would
  // begin at `clock` can begin.
  void HoldGpuHost(int gpu, double from, double until);
  double AfterGpuHostHeld(int gpu, double clock) const;
  void MakeReady(graph::NodeId id) {
    if (--pending_[id] == 0) ready_.push_back(id);
  }
  // Frees the inputs `id` was the last reader of, with their copies.
  void ReleaseInputs(graph::NodeId id);
  // Eager sends of `id`'s outputs at t: one transfer per output and receiving
  // device; consumers on its own device, or reading through the executor's
  // copies, are ready at once.
  void SendOutputs(graph::NodeId id, double t);
  // Finishes `id` at time t; false on out-of-memory.
  bool Finish(graph::NodeId id, double t);
  // Nodes that became ready at time t: state, feeds and NoOp finish at once
  // (and may make more ready); the others join their device's queue. `self`:
  // the device whose worker just finished an op and takes the next one from
  // its queue without waking (-1: none). False on out-of-memory.
  bool DispatchReady(double t, int self);

  const Simulator& s_;
  const graph::Graph& g_;
  const std::vector<int>& dev_;
  const int n_, nd_;
  SimResult r_;
  std::vector<int> pending_;
  std::vector<int> uses_;  // readers left, per output (out_offset_)
  std::vector<int64_t> live_, peak_;
  std::vector<double> busy_;
  std::vector<int> free_workers_;
  std::vector<std::deque<graph::NodeId>> queue_;
  // Copies of an output on another device: bytes (for release) and, for links
  // that send eagerly, the time the copy arrives.
  CopyTable& table_;
  const uint32_t run_;
  // Whether any device got a copy of a slot this run: most never do, and
  // testing this small array spares the table's cache misses when they die.
  std::vector<char> copied_;
  std::vector<double> link_free_;
  std::vector<double> running_until_;  // when each device's last started kernel ends
  std::vector<double> gpu_free_;       // async devices: when the GPU is done with its kernels
  // Async devices: the (request, end) of each copy off the GPU that another
  // device's worker made, during which the GPU's own worker cannot launch.
  std::vector<std::vector<std::pair<double, double>>> host_held_;
  std::vector<double> kernels_end_;  // [node] on an async device: when its kernels end
  // When each device's worker last went idle: at the start every worker sleeps
  // (the executor lets workers poll during a step only).
  std::vector<double> idle_since_;
  std::vector<double> dispatch_split_;  // < 0: none
  // [device] its kernels' factor while another cpu is awake, and the weight of
  // the alternating step's cold extras against the parallel step's, in this
  // step (PlanCpuSharing: by its cross-device edges per op)
  std::vector<double> slowdown_;
  std::vector<double> alternating_weight_;
  bool cold_kernels_ = false;
  bool replayed_ = false;  // PlanGraphReplay
  const double cutoff_s_;
  std::vector<double> unstarted_s_;  // [device] PlanCutoff's sums, less what has started
  std::vector<int> workers_;         // [device]
  double most_unstarted_s_ = 0;      // the largest unstarted sum per worker...
  int most_device_ = -1;             // ...and its device
  double least_cold_s_ = 0;          // the smallest cold extra of any device, <= 0
  bool cut_ = false;
  double bound_s_ = 0;  // when cut_: the step's lower bound that reached the cutoff
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t seq_ = 0;
  int remaining_;
  double now_ = 0;
  std::vector<graph::NodeId> ready_;
};

Simulator::Step::Step(const Simulator& sim, const std::vector<int>& device_of_node,
                      graph::NodeId fetch, double cutoff_s, CopyTable* table)
    : s_(sim),
      g_(sim.g_),
      dev_(device_of_node),
      n_(sim.g_.size()),
      nd_(static_cast<int>(sim.cluster_.devices.size())),
      pending_(sim.base_pending_),
      uses_(sim.base_uses_),
      live_(nd_, 0),
      busy_(nd_, 0),
      free_workers_(nd_),
      queue_(nd_),
      table_(*table),
      run_(table->Begin(static_cast<size_t>(sim.slot_offset_[n_]) * nd_)),
      copied_(sim.slot_offset_[n_], 0),
      link_free_(nd_ * nd_, 0),
      running_until_(nd_, 0),
      gpu_free_(nd_, 0),
      host_held_(nd_),
      kernels_end_(n_, 0),
      idle_since_(nd_, -std::numeric_limits<double>::infinity()),
      dispatch_split_(nd_, -1),
      slowdown_(sim.slowdown_),
      alternating_weight_(nd_, 1),
      cutoff_s_(cutoff_s),
      workers_(nd_),
      remaining_(n_) {
  assert(static_cast<int>(dev_.size()) == n_);
  for (graph::NodeId id = 0; id < n_; ++id) assert(dev_[id] >= 0 && dev_[id] < nd_);
  if (fetch >= 0 && Outputs(fetch) > 0) ++uses_[s_.out_offset_[fetch]];
  for (graph::NodeId id = 0; id < n_; ++id) live_[dev_[id]] += s_.state_bytes_[id];
  peak_ = live_;
  for (int d = 0; d < nd_; ++d) {
    const cluster::DeviceSpec& spec = s_.cluster_.devices[d];
    free_workers_[d] = spec.kind == cluster::DeviceKind::kCpu ? std::max(1, spec.threads) : 1;
    workers_[d] = free_workers_[d];
  }
  r_.step.ops.reserve(n_);
}

graph::Status Simulator::Step::CheckPlaceable() const {
  std::vector<int> no_time(nd_, 0);
  std::string example;
  for (graph::NodeId id = 0; id < n_; ++id) {
    if (s_.op_s_[dev_[id]][id] == kNoTime && no_time[dev_[id]]++ == 0 && example.empty()) {
      example = "'" + s_.cluster_.devices[dev_[id]].name + "' has no profiled time for node '" +
                g_.node(id).name + "' (" + g_.node(id).op + ")";
    }
  }
  if (!example.empty()) {
    int total = 0;
    for (int k : no_time) total += k;
    return graph::InvalidArgument(
        "device " + example + " and no peak_flops/memory_bandwidth to estimate it (" +
        std::to_string(total) + " op(s) so placed): run planner profile on these devices");
  }
  for (graph::NodeId id = 0; id < n_; ++id) {
    for (int e = s_.in_offset_[id]; e < s_.in_offset_[id + 1]; ++e) {
      const graph::TensorRef& in = s_.in_[e];
      const int a = dev_[in.node], b = dev_[id];
      if (a != b && s_.links_[a][b].bandwidth_bytes_per_s <= 0) {
        return graph::InvalidArgument("no link from '" + s_.cluster_.devices[a].name + "' to '" +
                                      s_.cluster_.devices[b].name + "' (node '" + g_.node(id).name +
                                      "' reads '" + g_.node(in.node).name +
                                      "'): give one in the devices file or run planner profile");
      }
    }
  }
  return graph::Status::Ok();
}

void Simulator::Step::PlanCpuSharing() {
  if (s_.cpu_devices_.size() < 2) return;
  std::vector<double> edges(nd_, 0), ops(nd_, 0);
  for (graph::NodeId id = 0; id < n_; ++id) {
    if (!s_.scheduled_[id]) continue;
    ops[dev_[id]] += 1;
    for (int e = s_.in_offset_[id]; e < s_.in_offset_[id + 1]; ++e) {
      const graph::NodeId from = s_.in_[e].node;
      if (dev_[from] == dev_[id]) continue;
      edges[dev_[id]] += 1;
      if (s_.scheduled_[from]) edges[dev_[from]] += 1;
    }
  }
  int cpus_used = 0;
  for (int c : s_.cpu_devices_) cpus_used += ops[c] > 0;
  cold_kernels_ = cpus_used >= 2;
  for (int d = 0; cold_kernels_ && d < nd_; ++d) {
    if (s_.dispatch_cross_s_[d] >= 0 && ops[d] > 0) {
      dispatch_split_[d] = s_.dispatch_s_[d] + s_.dispatch_cross_s_[d] * edges[d] / ops[d];
    }
    // Between independent streams (no cross-device edge) and the alternating
    // step (shared_cross_ edges per op), linearly: an assumption, that what
    // sharing costs a kernel grows with its device's traffic to the others as
    // the executor's bookkeeping does (docs/simulator.md, item 8).
    if (s_.parallel_slowdown_[d] > 0 && s_.shared_cross_[d] > 0 && ops[d] > 0) {
      const double w = std::min(1.0, edges[d] / ops[d] / s_.shared_cross_[d]);
      alternating_weight_[d] = w;
      slowdown_[d] = s_.parallel_slowdown_[d] + w * (s_.slowdown_[d] - s_.parallel_slowdown_[d]);
    }
  }
}

void Simulator::Step::PlanGraphReplay() {
  int only = -1;
  for (graph::NodeId id = 0; id < n_; ++id) {
    if (!s_.scheduled_[id]) continue;
    if (only >= 0 && dev_[id] != only) return;
    only = dev_[id];
  }
  replayed_ = only >= 0 && s_.async_[only] && s_.cluster_.devices[only].cuda_graphs;
}

double Simulator::Step::LeastKernelSeconds(graph::NodeId id, int d) const {
  if (!s_.scheduled_[id]) return 0;
  if (s_.async_[d]) return s_.op_s_[d][id];  // a GPU's kernels take their time
  const double least = s_.op_s_[d][id] * std::min(1.0, slowdown_[d]);
  return cold_kernels_ ? std::max(0.0, least + least_cold_s_) : least;
}

void Simulator::Step::PlanCutoff() {
  if (!std::isfinite(cutoff_s_)) return;
  for (const auto* bins : {&s_.cold_s_, &s_.parallel_cold_s_}) {
    for (const auto& cold : *bins) {
      for (const auto& step : cold) least_cold_s_ = std::min(least_cold_s_, step.second);
    }
  }
  unstarted_s_.assign(nd_, 0);
  for (graph::NodeId id = 0; id < n_; ++id) {
    unstarted_s_[dev_[id]] += LeastKernelSeconds(id, dev_[id]);
  }
  FindMost();
}

bool Simulator::Step::Past(double bound) {
  if (bound < cutoff_s_) return false;
  cut_ = true;
  bound_s_ = bound;
  return true;
}

void Simulator::Step::Started(graph::NodeId id, int d) {
  if (unstarted_s_.empty()) return;
  unstarted_s_[d] -= LeastKernelSeconds(id, d);
  if (d == most_device_) FindMost();
}

void Simulator::Step::FindMost() {
  most_unstarted_s_ = 0;
  for (int other = 0; other < nd_; ++other) {
    if (unstarted_s_[other] / workers_[other] > most_unstarted_s_) {
      most_unstarted_s_ = unstarted_s_[other] / workers_[other];
      most_device_ = other;
    }
  }
}

bool Simulator::Step::CutOff(int d) {
  if (unstarted_s_.empty()) return false;
  const double from = s_.async_[d]       ? gpu_free_[d]
                      : workers_[d] == 1 ? std::max(now_, running_until_[d])
                                         : now_;
  // Less a part in 1e9: the sums here and the step's own differ in rounding.
  return Past((from + unstarted_s_[d] / workers_[d]) * (1 - 1e-9));
}

bool Simulator::Step::OtherCpuAwake(int d, double t) const {
  for (int other : s_.cpu_devices_) {
    if (other != d && (running_until_[other] > t || t - idle_since_[other] <= s_.spin_s_[other])) {
      return true;
    }
  }
  return false;
}

double Simulator::Step::ColdSeconds(int d, double idle) const {
  auto in_bin = [idle](const std::vector<std::pair<double, double>>& bins) {
    for (const auto& [below, extra] : bins) {
      if (idle < below) return extra;
    }
    return 0.0;
  };
  const double w = alternating_weight_[d];
  const double alternating = in_bin(s_.cold_s_[d]);
  return w >= 1 ? alternating : w * alternating + (1 - w) * in_bin(s_.parallel_cold_s_[d]);
}

void Simulator::Step::CopyInputs(graph::NodeId id, int d, double* clock) {
  for (int e = s_.in_offset_[id]; e < s_.in_offset_[id + 1]; ++e) {
    const graph::TensorRef& in = s_.in_[e];
    const int src = dev_[in.node];
    if (src == d || !s_.consumer_copies_[src * nd_ + d]) continue;
    CopyEntry& copy = table_.entries[Entry(in.node, in.index, d)];
    if (copy.held == run_) continue;
    const int64_t size = s_.copy_bytes_[s_.slot_offset_[in.node] + in.index];
    const double seconds = s_.TransferSeconds(src, d, size);
    // A copy to or from a GPU runs on its stream after every kernel queued
    // there, and the kernels queued after it wait for it.
    const int gpu = s_.async_[src] ? src : s_.async_[d] ? d : -1;
    if (gpu >= 0) {
      const double requested = *clock;
      *clock = std::max(*clock, gpu_free_[gpu]);
      gpu_free_[gpu] = *clock + seconds;
      // A copy off the GPU into the host's pageable memory holds the CUDA
      // driver from its request, through the wait for the GPU's queue, to its
      // end: the GPU's own worker launches nothing meanwhile (measured on an
      // H100, docs/simulator.md, "On a GPU").
      if (gpu == src) HoldGpuHost(gpu, requested, *clock + seconds);
    }
    r_.step.transfers.push_back({in.node, src, d, size, *clock * 1e6, (*clock + seconds) * 1e6});
    copy.held = run_;
    copy.bytes = size;
    copied_[s_.slot_offset_[in.node] + in.index] = 1;
    live_[d] += size;
    peak_[d] = std::max(peak_[d], live_[d]);
    busy_[d] += seconds;
    *clock += seconds;
  }
}

bool Simulator::Step::Start(graph::NodeId id, double t, bool woken, double delay) {
  const int d = dev_[id];
  --free_workers_[d];
  const bool slept = woken && t - idle_since_[d] > s_.spin_s_[d];
  const bool shared = OtherCpuAwake(d, t);
  const double dispatch = replayed_                 ? 0
                          : dispatch_split_[d] >= 0 ? dispatch_split_[d]
                          : shared                  ? s_.dispatch_shared_s_[d]
                                                    : s_.dispatch_s_[d];
  const double handed = woken && !replayed_ ? (slept ? s_.wakeup_s_[d] : s_.poll_s_[d]) : 0;
  double clock = t + delay + dispatch + handed;
  const double idle = clock - running_until_[d];
  CopyInputs(id, d, &clock);
  double kernel = s_.op_s_[d][id];
  Started(id, d);
  if (s_.async_[d]) {
    StartOnGpu(id, d, clock, kernel);
    CutOff(d);
    return slept;
  }
  if (shared) kernel *= slowdown_[d];
  if (cold_kernels_) kernel += ColdSeconds(d, idle);
  const double end = clock + kernel;
  running_until_[d] = std::max(running_until_[d], end);
  busy_[d] += kernel;
  r_.step.ops.push_back({id, d, clock * 1e6, end * 1e6, s_.out_total_[id]});
  r_.estimated_ops += s_.estimated_[d][id];
  events_.push({end, seq_++, id, false});
  CutOff(d);
  return slept;
}

void Simulator::Step::HoldGpuHost(int gpu, double from, double until) {
  auto& held = host_held_[gpu];
  // Holds that ended before now no launch can meet again (launches start at now or later).
  held.erase(
      std::remove_if(held.begin(), held.end(),
                     [this](const std::pair<double, double>& h) { return h.second <= now_; }),
      held.end());
  held.push_back({from, until});
}

double Simulator::Step::AfterGpuHostHeld(int gpu, double clock) const {
  for (bool moved = true; moved;) {
    moved = false;
    for (const auto& [from, until] : host_held_[gpu]) {
      if (from <= clock && clock < until) {
        clock = until;
        moved = true;
      }
    }
  }
  return clock;
}

void Simulator::Step::StartOnGpu(graph::NodeId id, int d, double clock, double kernel) {
  // The op's span on the worker starts at `clock`; its launch waits out the
  // copies off the GPU that hold the driver then.
  const double begins = AfterGpuHostHeld(d, clock);
  const double launched = begins + (replayed_ ? 0 : s_.host_s_[d][id]);
  const double start = std::max(begins, gpu_free_[d]);
  // Its last kernel cannot end before it is launched.
  const double end = std::max(start + kernel, launched);
  gpu_free_[d] = end;
  kernels_end_[id] = end;
  running_until_[d] = std::max(running_until_[d], launched);
  busy_[d] += kernel;
  OpRecord r{id, d, clock * 1e6, launched * 1e6, s_.out_total_[id]};
  r.kernel_start_us = start * 1e6;
  r.kernel_end_us = end * 1e6;
  r_.step.ops.push_back(r);
  r_.estimated_ops += s_.estimated_[d][id];
  events_.push({launched, seq_++, id, false});
}

void Simulator::Step::ReleaseInputs(graph::NodeId id) {
  for (int e = s_.in_offset_[id]; e < s_.in_offset_[id + 1]; ++e) {
    const graph::TensorRef& in = s_.in_[e];
    if (in.index >= Outputs(in.node)) continue;
    if (--uses_[s_.out_offset_[in.node] + in.index] > 0) continue;
    live_[dev_[in.node]] -= s_.out_flat_[s_.out_offset_[in.node] + in.index];
    if (!copied_[s_.slot_offset_[in.node] + in.index]) continue;
    CopyEntry* copies = &table_.entries[Entry(in.node, in.index, 0)];
    for (int other = 0; other < nd_; ++other) {
      if (copies[other].held != run_) continue;
      live_[other] -= copies[other].bytes;
      copies[other].held = 0;
    }
  }
}

void Simulator::Step::SendOutputs(graph::NodeId id, double t) {
  const int d = dev_[id];
  for (int u = s_.use_offset_[id]; u < s_.use_offset_[id + 1]; ++u) {
    const graph::NodeId consumer = s_.use_[u].node;
    const int index = s_.use_[u].index;
    const int cd = dev_[consumer];
    if (cd == d || s_.consumer_copies_[d * nd_ + cd]) {
      MakeReady(consumer);
      continue;
    }
    CopyEntry& copy = table_.entries[Entry(id, index, cd)];
    if (copy.sent != run_) {  // sent once; later consumers there wait for the same copy
      copy.sent = run_;
      const int64_t size = s_.send_bytes_[s_.slot_offset_[id] + index];
      double& link_free = link_free_[d * nd_ + cd];
      // Off a GPU once its kernels are done.
      const double ready = s_.async_[d] ? std::max(t, kernels_end_[id]) : t;
      const double sent_at = std::max(ready, link_free);
      copy.arrival = sent_at + s_.TransferSeconds(d, cd, size);
      link_free = copy.arrival;
      r_.step.transfers.push_back({id, d, cd, size, sent_at * 1e6, copy.arrival * 1e6});
      copy.held = run_;
      copy.bytes = size;
      copied_[s_.slot_offset_[id] + index] = 1;
      live_[cd] += size;
      peak_[cd] = std::max(peak_[cd], live_[cd]);
    }
    events_.push({copy.arrival, seq_++, consumer, true});
  }
}

bool Simulator::Step::Finish(graph::NodeId id, double t) {
  const int d = dev_[id];
  --remaining_;
  live_[d] += s_.out_total_[id];
  peak_[d] = std::max(peak_[d], live_[d]);
  const cluster::DeviceSpec& spec = s_.cluster_.devices[d];
  if (spec.memory_bytes && live_[d] > *spec.memory_bytes) {
    r_.status = graph::Status(graph::StatusCode::kOutOfMemory,
                              "device '" + spec.name + "' is out of memory at node '" +
                                  g_.node(id).name + "': " + std::to_string(live_[d]) +
                                  " bytes live, capacity " + std::to_string(*spec.memory_bytes));
    return false;
  }
  for (int k = 0; k < Outputs(id); ++k) {
    if (uses_[s_.out_offset_[id] + k] == 0) live_[d] -= s_.out_flat_[s_.out_offset_[id] + k];
  }
  ReleaseInputs(id);
  SendOutputs(id, t);
  for (int u = s_.ctrl_offset_[id]; u < s_.ctrl_offset_[id + 1]; ++u) MakeReady(s_.ctrl_[u]);
  return true;
}

bool Simulator::Step::DispatchReady(double t, int self) {
  while (!ready_.empty()) {
    graph::NodeId id = ready_.back();
    ready_.pop_back();
    if (!s_.scheduled_[id]) {
      if (!Finish(id, t)) return false;
      continue;
    }
    queue_[dev_[id]].push_back(id);
  }
  // Other devices first: the finishing worker hands their ops over before it
  // takes its own next one, paying for every sleeper it wakes.
  double notify = 0;
  for (int k = 0; k <= nd_; ++k) {
    const int d = k < nd_ ? k : self;
    if (d < 0 || (k < nd_ && d == self)) continue;
    while (free_workers_[d] > 0 && !queue_[d].empty() && !cut_) {
      graph::NodeId id = queue_[d].front();
      queue_[d].pop_front();
      if (Start(id, t, d != self, d == self ? notify : 0) && self >= 0) notify += s_.notify_s_[d];
    }
    if (free_workers_[d] > 0 && queue_[d].empty() && d == self) idle_since_[d] = t;
  }
  return true;
}

SimResult Simulator::Step::Run() {
  if (r_.status = CheckPlaceable(); !r_.status.ok()) return std::move(r_);
  PlanCpuSharing();
  PlanGraphReplay();
  PlanCutoff();
  for (graph::NodeId id = 0; id < n_; ++id) {
    if (pending_[id] == 0) ready_.push_back(id);
  }
  std::reverse(ready_.begin(), ready_.end());  // dispatch roots in id order
  bool ok = DispatchReady(0, -1);              // the caller's thread hands out the roots
  while (ok && !cut_ && !events_.empty()) {
    const Event e = events_.top();
    events_.pop();
    now_ = e.t;
    if (Past(now_)) break;
    // Every device's kernels still to start begin at now or later: the one
    // with the most of them bounds the step from the clock, even while idle.
    if (!unstarted_s_.empty() && Past((now_ + most_unstarted_s_) * (1 - 1e-9))) break;
    if (e.edge) {
      MakeReady(e.node);
    } else {
      ++free_workers_[dev_[e.node]];
      ok = Finish(e.node, now_);
    }
    if (ok) {
      std::reverse(ready_.begin(), ready_.end());
      ok = DispatchReady(now_, e.edge ? -1 : dev_[e.node]);
    }
  }
  if (!r_.status.ok()) return std::move(r_);
  r_.step.peak_bytes = peak_;
  r_.step.busy_us.resize(nd_);
  for (int d = 0; d < nd_; ++d) r_.step.busy_us[d] = busy_[d] * 1e6;
  if (cut_) {
    r_.cut_off = true;
    r_.step.seconds = bound_s_;
    return std::move(r_);
  }
  assert(remaining_ == 0 && "every node runs in an acyclic graph");
  r_.step.seconds = now_;
  for (double t : gpu_free_) r_.step.seconds = std::max(r_.step.seconds, t);
  r_.cut_off = r_.step.seconds >= cutoff_s_;  // a tie the bounds' slack let through
  return std::move(r_);
}

SimResult Simulator::Run(const std::vector<int>& device_of_node, graph::NodeId fetch,
                         double cutoff_s) const {
  thread_local CopyTable table;
  return Step(*this, device_of_node, fetch, cutoff_s, &table).Run();
}

}  // namespace sim
