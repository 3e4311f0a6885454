#include "runtime/simulator.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <queue>

#include "graph/cost.h"
#include "graph/signature.h"
#include "runtime/kernel.h"
#include "runtime/rewrite.h"

namespace runtime {

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

  void Begin(size_t size) {
    if (entries.size() < size) entries.resize(size);
    if (++run == 0) {  // the stamps wrapped: forget every old one
      std::fill(entries.begin(), entries.end(), CopyEntry{});
      run = 1;
    }
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
  const graph::Graph& rg = s.g_;
  const int n = rg.size(), nd = static_cast<int>(c.devices.size());
  if (nd == 0) return graph::InvalidArgument(c.source + ": no devices");
  if (nd > 255) return graph::InvalidArgument(c.source + ": more than 255 devices");
  const std::vector<graph::OpCost> costs = graph::ComputeCosts(rg);
  std::vector<std::string> sig(n);
  s.scheduled_.assign(n, 0);
  // [node][output] bytes accounted; flattened into out_flat_ below.
  std::vector<std::vector<int64_t>> out_bytes(n);
  s.state_bytes_.assign(n, 0);
  for (graph::NodeId id = 0; id < n; ++id) {
    const graph::Node& node = rg.node(id);
    const bool state = IsStateOp(node.op);
    s.scheduled_[id] = RunsKernel(node.op);
    if (state) {
      s.state_bytes_[id] = std::max<int64_t>(0, graph::OutputBytes(node, 0));
      out_bytes[id].assign(node.num_outputs(), 0);  // resident, counted once
      continue;
    }
    for (int k = 0; k < node.num_outputs(); ++k) {
      out_bytes[id].push_back(std::max<int64_t>(0, graph::OutputBytes(node, k)));
    }
    if (s.scheduled_[id]) sig[id] = graph::OpSignature(rg, id);
  }
  // Views: as profiled (any device), else by op type.
  for (graph::NodeId id = 0; id < n; ++id) {
    if (!s.scheduled_[id]) continue;
    bool view = IsViewOp(rg.node(id).op);
    if (profile) {
      for (const cluster::DeviceSpec& d : c.devices) {
        if (const OpTiming* t = profile->Find(d.name, sig[id])) {
          view = t->output_bytes == 0;
          break;
        }
      }
    }
    if (view) std::fill(out_bytes[id].begin(), out_bytes[id].end(), 0);
  }
  s.op_s_.assign(nd, std::vector<double>(n, 0));
  s.estimated_.assign(nd, std::vector<char>(n, 0));
  s.dispatch_s_.assign(nd, 0);
  s.dispatch_shared_s_.assign(nd, 0);
  s.dispatch_cross_s_.assign(nd, -1);
  s.slowdown_.assign(nd, 1);
  s.cold_s_.assign(nd, {});
  s.wakeup_s_.assign(nd, 0);
  s.poll_s_.assign(nd, 0);
  s.notify_s_.assign(nd, 0);
  s.spin_s_.assign(nd, 0);
  for (int d = 0; d < nd; ++d) {
    const cluster::DeviceSpec& spec = c.devices[d];
    if (spec.kind == cluster::DeviceKind::kCpu) {
      s.spin_s_[d] = spec.spin_s;
      s.cpu_devices_.push_back(d);
    }
    Rates rates;
    if (spec.peak_flops && spec.memory_bandwidth) {
      rates = {*spec.peak_flops, *spec.memory_bandwidth};
    } else if (profile) {
      // Effective rates of this device, fitted to its profiled ops of this graph:
      // compute-bound ops (>= 1 FLOP per byte) for FLOP/s, the others for bytes/s.
      double flops = 0, flop_s = 0, bytes = 0, byte_s = 0;
      for (graph::NodeId id = 0; id < n; ++id) {
        if (!s.scheduled_[id] || !costs[id].known) continue;
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
      if (flop_s > 0 && byte_s > 0) rates = {flops / flop_s, bytes / byte_s};
    }
    if (profile) {
      auto it = profile->dispatch_s.find(spec.name);
      if (it != profile->dispatch_s.end()) s.dispatch_s_[d] = it->second;
      auto shared = profile->dispatch_shared_s.find(spec.name);
      s.dispatch_shared_s_[d] =
          shared != profile->dispatch_shared_s.end() ? shared->second : s.dispatch_s_[d];
      for (auto [from, to] : {std::pair{&profile->wakeup_s, &s.wakeup_s_[d]},
                              std::pair{&profile->poll_s, &s.poll_s_[d]},
                              std::pair{&profile->notify_s, &s.notify_s_[d]}}) {
        auto w = from->find(spec.name);
        if (w != from->end()) *to = w->second;
      }
      auto f = profile->slowdown.find(spec.name);
      if (f != profile->slowdown.end() && spec.kind == cluster::DeviceKind::kCpu) {
        s.slowdown_[d] = f->second;
      }
      auto cross = profile->dispatch_cross_s.find(spec.name);
      if (cross != profile->dispatch_cross_s.end() && spec.kind == cluster::DeviceKind::kCpu) {
        s.dispatch_cross_s_[d] = cross->second;
      }
      auto cold = profile->cold_s.find(spec.name);
      if (cold != profile->cold_s.end() && spec.kind == cluster::DeviceKind::kCpu) {
        s.cold_s_[d] = cold->second;
      }
    }
    for (graph::NodeId id = 0; id < n; ++id) {
      if (!s.scheduled_[id]) continue;
      const OpTiming* t = profile ? profile->Find(spec.name, sig[id]) : nullptr;
      if (t) {
        s.op_s_[d][id] = t->seconds;
      } else if (rates.ok()) {  // without a FLOP rule or shapes: the bytes we know, if any
        graph::OpCost cost = costs[id];
        if (!cost.known) cost.flops = 0;
        s.op_s_[d][id] = Roofline(cost, rates);
        s.estimated_[d][id] = 1;
      } else {
        s.op_s_[d][id] = kNoTime;
      }
    }
  }
  s.links_.assign(nd, std::vector<LinkFit>(nd));
  s.consumer_copies_.assign(nd * nd, 0);
  for (int a = 0; a < nd; ++a) {
    for (int b = 0; b < nd; ++b) {
      if (a == b) continue;
      const LinkFit* fit = profile ? profile->Link(c.devices[a].name, c.devices[b].name) : nullptr;
      if (fit) {
        s.links_[a][b] = *fit;
      } else if (std::optional<cluster::LinkSpec> l = c.Link(a, b)) {
        s.links_[a][b] = {l->latency_s, l->bandwidth_bytes_per_s, 0};
      }
      s.consumer_copies_[a * nd + b] = c.devices[a].kind == cluster::DeviceKind::kCpu &&
                                       c.devices[b].kind == cluster::DeviceKind::kCpu;
    }
  }
  s.out_offset_.assign(n + 1, 0);
  s.base_pending_.assign(n, 0);
  s.in_offset_.assign(n + 1, 0);
  s.use_offset_.assign(n + 1, 0);
  s.ctrl_offset_.assign(n + 1, 0);
  s.out_total_.assign(n, 0);
  for (graph::NodeId id = 0; id < n; ++id) {
    const graph::Node& node = rg.node(id);
    s.in_offset_[id + 1] = s.in_offset_[id] + static_cast<int>(node.inputs.size());
    for (const graph::TensorRef& in : node.inputs) {
      s.in_.push_back(in);
      ++s.use_offset_[in.node + 1];
    }
    for (graph::NodeId p : node.control_inputs) ++s.ctrl_offset_[p + 1];
    s.out_offset_[id + 1] = s.out_offset_[id] + static_cast<int>(out_bytes[id].size());
    for (int64_t b : out_bytes[id]) {
      s.out_flat_.push_back(b);
      s.out_total_[id] += b;
    }
    s.base_pending_[id] = static_cast<int>(node.inputs.size() + node.control_inputs.size());
  }
  for (graph::NodeId id = 0; id < n; ++id) {
    s.use_offset_[id + 1] += s.use_offset_[id];
    s.ctrl_offset_[id + 1] += s.ctrl_offset_[id];
  }
  s.use_.resize(s.use_offset_[n]);
  s.ctrl_.resize(s.ctrl_offset_[n]);
  {
    std::vector<int> next_use(s.use_offset_.begin(), s.use_offset_.end() - 1);
    std::vector<int> next_ctrl(s.ctrl_offset_.begin(), s.ctrl_offset_.end() - 1);
    for (graph::NodeId id = 0; id < n; ++id) {  // readers in id order, as the executor wakes them
      const graph::Node& node = rg.node(id);
      for (const graph::TensorRef& in : node.inputs) s.use_[next_use[in.node]++] = {id, in.index};
      for (graph::NodeId p : node.control_inputs) s.ctrl_[next_ctrl[p]++] = id;
    }
  }
  s.base_uses_.assign(s.out_offset_[n], 0);
  std::vector<int> slots(n, 0);
  for (graph::NodeId id = 0; id < n; ++id) {
    slots[id] = std::max(slots[id], static_cast<int>(out_bytes[id].size()));
    for (const graph::TensorRef& in : rg.node(id).inputs) {
      slots[in.node] = std::max(slots[in.node], in.index + 1);
      if (in.index < s.out_offset_[in.node + 1] - s.out_offset_[in.node]) {
        ++s.base_uses_[s.out_offset_[in.node] + in.index];
      }
    }
  }
  s.slot_offset_.assign(n + 1, 0);
  for (graph::NodeId id = 0; id < n; ++id) s.slot_offset_[id + 1] = s.slot_offset_[id] + slots[id];
  s.copy_bytes_.resize(s.slot_offset_[n]);
  s.send_bytes_.resize(s.slot_offset_[n]);
  for (graph::NodeId id = 0; id < n; ++id) {
    for (int k = 0; k < slots[id]; ++k) {
      // An executor copy occupies what the output is accounted at; a view's
      // copy (accounted 0) is a real tensor of the view's shape.
      const int64_t logical = std::max<int64_t>(0, graph::OutputBytes(rg.node(id), k));
      const int64_t accounted = k < static_cast<int>(out_bytes[id].size()) ? out_bytes[id][k] : 0;
      s.copy_bytes_[s.slot_offset_[id] + k] = accounted > 0 ? accounted : logical;
      s.send_bytes_[s.slot_offset_[id] + k] = logical;
    }
  }
  return s;
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

SimResult Simulator::Run(const std::vector<int>& device_of_node, graph::NodeId fetch) const {
  const graph::Graph& g = g_;
  const int n = g.size(), nd = static_cast<int>(cluster_.devices.size());
  assert(static_cast<int>(device_of_node.size()) == n);
  SimResult r;
  const std::vector<int>& dev = device_of_node;
  std::vector<int> no_time(nd, 0);
  std::string example;
  for (graph::NodeId id = 0; id < n; ++id) {
    assert(dev[id] >= 0 && dev[id] < nd);
    if (op_s_[dev[id]][id] == kNoTime && no_time[dev[id]]++ == 0 && example.empty()) {
      example = "'" + cluster_.devices[dev[id]].name + "' has no profiled time for node '" +
                g.node(id).name + "' (" + g.node(id).op + ")";
    }
  }
  if (!example.empty()) {
    int total = 0;
    for (int k : no_time) total += k;
    r.status = graph::InvalidArgument(
        "device " + example + " and no peak_flops/memory_bandwidth to estimate it (" +
        std::to_string(total) + " op(s) so placed): run planner profile on these devices");
    return r;
  }
  for (graph::NodeId id = 0; id < n; ++id) {
    for (int e = in_offset_[id]; e < in_offset_[id + 1]; ++e) {
      const graph::TensorRef& in = in_[e];
      const int a = dev[in.node], b = dev[id];
      if (a != b && links_[a][b].bandwidth_bytes_per_s <= 0) {
        r.status = graph::InvalidArgument(
            "no link from '" + cluster_.devices[a].name + "' to '" + cluster_.devices[b].name +
            "' (node '" + g.node(id).name + "' reads '" + g.node(in.node).name +
            "'): give one in the devices file or run planner profile");
        return r;
      }
    }
  }

  std::vector<int> pending = base_pending_;
  std::vector<int> uses = base_uses_;  // readers left, per output (out_offset_)
  auto outputs = [&](graph::NodeId id) { return out_offset_[id + 1] - out_offset_[id]; };
  if (fetch >= 0 && outputs(fetch) > 0) ++uses[out_offset_[fetch]];

  std::vector<int64_t> live(nd, 0);
  for (graph::NodeId id = 0; id < n; ++id) live[dev[id]] += state_bytes_[id];
  std::vector<int64_t> peak = live;
  std::vector<double> busy(nd, 0);
  std::vector<int> free_workers(nd);
  for (int d = 0; d < nd; ++d) {
    const cluster::DeviceSpec& spec = cluster_.devices[d];
    free_workers[d] = spec.kind == cluster::DeviceKind::kCpu ? std::max(1, spec.threads) : 1;
  }
  std::vector<std::deque<graph::NodeId>> queue(nd);
  r.step.ops.reserve(n);
  // Copies of an output on another device: bytes (for release) and, for links
  // that send eagerly, the time the copy arrives.
  thread_local CopyTable table;
  table.Begin(static_cast<size_t>(slot_offset_[n]) * nd);
  const uint32_t run = table.run;
  auto entry = [&](graph::NodeId node, int index, int d) {
    return static_cast<size_t>(slot_offset_[node] + index) * nd + d;
  };
  // Whether any device got a copy of a slot this run: most never do, and
  // testing this small array spares the table's cache misses when they die.
  std::vector<char> copied(slot_offset_[n], 0);
  std::vector<double> link_free(nd * nd, 0);
  std::vector<double> running_until(nd, 0);  // when each device's last started kernel ends
  // When each device's worker last went idle: at the start every worker sleeps
  // (the executor lets workers poll during a step only).
  std::vector<double> idle_since(nd, -std::numeric_limits<double>::infinity());

  struct Event {
    double t;
    uint64_t seq;
    graph::NodeId node;
    bool edge;  // true: an input of `node` arrived; false: `node` finished
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  uint64_t seq = 0;
  int remaining = n;
  double now = 0;

  // Whether a cpu device of the host other than d is awake at t: running an op
  // (or copying for one) or polling for one. Another device's kernels and gaps
  // are slower then (runtime/profiler.h).
  auto OtherCpuAwake = [&](int d, double t) {
    for (int other : cpu_devices_) {
      if (other != d && (running_until[other] > t || t - idle_since[other] <= spin_s_[other])) {
        return true;
      }
    }
    return false;
  };

  // In steps with ops on several cpu devices (where they were measured): cold
  // kernels, and the executor's time per op by the device's cross-device
  // edges per op.
  std::vector<double> dispatch_split(nd, -1);
  bool cold_kernels = false;
  if (cpu_devices_.size() >= 2) {
    std::vector<double> edges(nd, 0), ops(nd, 0);
    for (graph::NodeId id = 0; id < n; ++id) {
      if (!scheduled_[id]) continue;
      ops[dev[id]] += 1;
      for (int e = in_offset_[id]; e < in_offset_[id + 1]; ++e) {
        const graph::NodeId from = in_[e].node;
        if (dev[from] == dev[id]) continue;
        edges[dev[id]] += 1;
        if (scheduled_[from]) edges[dev[from]] += 1;
      }
    }
    int cpus_used = 0;
    for (int c : cpu_devices_) cpus_used += ops[c] > 0;
    cold_kernels = cpus_used >= 2;
    for (int d = 0; cold_kernels && d < nd; ++d) {
      if (dispatch_cross_s_[d] >= 0 && ops[d] > 0) {
        dispatch_split[d] = dispatch_s_[d] + dispatch_cross_s_[d] * edges[d] / ops[d];
      }
    }
  }
  auto ColdSeconds = [&](int d, double idle) {
    for (const auto& [below, extra] : cold_s_[d]) {
      if (idle < below) return extra;
    }
    return 0.0;
  };

  // `woken`: the op was handed to an idle worker by another thread; `delay`:
  // what the worker starting it still had to do first. Returns whether it woke
  // a sleeping worker (the hand-off then costs the handing worker too).
  auto start = [&](graph::NodeId id, double t, bool woken, double delay) -> bool {
    const int d = dev[id];
    --free_workers[d];
    const bool slept = woken && t - idle_since[d] > spin_s_[d];
    const bool shared = OtherCpuAwake(d, t);
    const double dispatch = dispatch_split[d] >= 0 ? dispatch_split[d]
                            : shared               ? dispatch_shared_s_[d]
                                                   : dispatch_s_[d];
    double clock = t + delay + dispatch + (woken ? (slept ? wakeup_s_[d] : poll_s_[d]) : 0);
    const double idle = clock - running_until[d];
    for (int e = in_offset_[id]; e < in_offset_[id + 1]; ++e) {  // the executor's copies
      const graph::TensorRef& in = in_[e];
      const int src = dev[in.node];
      if (src == d || !consumer_copies_[src * nd + d]) continue;
      CopyEntry& copy = table.entries[entry(in.node, in.index, d)];
      if (copy.held == run) continue;
      const int64_t size = copy_bytes_[slot_offset_[in.node] + in.index];
      const double s = TransferSeconds(src, d, size);
      r.step.transfers.push_back({in.node, src, d, size, clock * 1e6, (clock + s) * 1e6});
      copy.held = run;
      copy.bytes = size;
      copied[slot_offset_[in.node] + in.index] = 1;
      live[d] += size;
      peak[d] = std::max(peak[d], live[d]);
      busy[d] += s;
      clock += s;
    }
    double kernel = op_s_[d][id];
    if (shared) kernel *= slowdown_[d];
    if (cold_kernels) kernel += ColdSeconds(d, idle);
    const double end = clock + kernel;
    running_until[d] = std::max(running_until[d], end);
    busy[d] += kernel;
    r.step.ops.push_back({id, d, clock * 1e6, end * 1e6, out_total_[id]});
    r.estimated_ops += estimated_[d][id];
    events.push({end, seq++, id, false});
    return slept;
  };

  std::vector<graph::NodeId> ready;
  auto make_ready = [&](graph::NodeId id) {
    if (--pending[id] == 0) ready.push_back(id);
  };

  // Finishes `id` at time t; returns false on out-of-memory.
  auto finish = [&](graph::NodeId id, double t) -> bool {
    const int d = dev[id];
    --remaining;
    live[d] += out_total_[id];
    peak[d] = std::max(peak[d], live[d]);
    const cluster::DeviceSpec& spec = cluster_.devices[d];
    if (spec.memory_bytes && live[d] > *spec.memory_bytes) {
      r.status = graph::Status(graph::StatusCode::kOutOfMemory,
                               "device '" + spec.name + "' is out of memory at node '" +
                                   g.node(id).name + "': " + std::to_string(live[d]) +
                                   " bytes live, capacity " + std::to_string(*spec.memory_bytes));
      return false;
    }
    for (int k = 0; k < outputs(id); ++k) {
      if (uses[out_offset_[id] + k] == 0) live[d] -= out_flat_[out_offset_[id] + k];
    }
    for (int e = in_offset_[id]; e < in_offset_[id + 1]; ++e) {
      const graph::TensorRef& in = in_[e];
      if (in.index >= outputs(in.node)) continue;
      if (--uses[out_offset_[in.node] + in.index] > 0) continue;
      live[dev[in.node]] -= out_flat_[out_offset_[in.node] + in.index];
      if (!copied[slot_offset_[in.node] + in.index]) continue;
      CopyEntry* copies = &table.entries[entry(in.node, in.index, 0)];
      for (int other = 0; other < nd; ++other) {
        if (copies[other].held != run) continue;
        live[other] -= copies[other].bytes;
        copies[other].held = 0;
      }
    }
    // Eager sends: one transfer per output and receiving device.
    for (int u = use_offset_[id]; u < use_offset_[id + 1]; ++u) {
      const graph::NodeId consumer = use_[u].node;
      const int index = use_[u].index;
      const int cd = dev[consumer];
      if (cd == d || consumer_copies_[d * nd + cd]) {
        make_ready(consumer);
        continue;
      }
      CopyEntry& copy = table.entries[entry(id, index, cd)];
      if (copy.sent != run) {  // sent once; later consumers there wait for the same copy
        copy.sent = run;
        const int64_t size = send_bytes_[slot_offset_[id] + index];
        double& lf = link_free[d * nd + cd];
        const double s0 = std::max(t, lf);
        copy.arrival = s0 + TransferSeconds(d, cd, size);
        lf = copy.arrival;
        r.step.transfers.push_back({id, d, cd, size, s0 * 1e6, copy.arrival * 1e6});
        copy.held = run;
        copy.bytes = size;
        copied[slot_offset_[id] + index] = 1;
        live[cd] += size;
        peak[cd] = std::max(peak[cd], live[cd]);
      }
      events.push({copy.arrival, seq++, consumer, true});
    }
    for (int u = ctrl_offset_[id]; u < ctrl_offset_[id + 1]; ++u) make_ready(ctrl_[u]);
    return true;
  };

  // Nodes that became ready at time t: state, feeds and NoOp finish at once (and
  // may make more ready); the others join their device's queue.
  // `self`: the device whose worker just finished an op and takes the next one
  // from its queue without waking (-1: none).
  auto dispatch_ready = [&](double t, int self) -> bool {
    while (!ready.empty()) {
      graph::NodeId id = ready.back();
      ready.pop_back();
      if (!scheduled_[id]) {
        if (!finish(id, t)) return false;
        continue;
      }
      const int d = dev[id];
      queue[d].push_back(id);
    }
    // Other devices first: the finishing worker hands their ops over before it
    // takes its own next one, paying for every sleeper it wakes.
    double notify = 0;
    for (int k = 0; k <= nd; ++k) {
      const int d = k < nd ? k : self;
      if (d < 0 || (k < nd && d == self)) continue;
      while (free_workers[d] > 0 && !queue[d].empty()) {
        graph::NodeId id = queue[d].front();
        queue[d].pop_front();
        if (start(id, t, d != self, d == self ? notify : 0) && self >= 0) notify += notify_s_[d];
      }
      if (free_workers[d] > 0 && queue[d].empty() && d == self) idle_since[d] = t;
    }
    return true;
  };

  for (graph::NodeId id = 0; id < n; ++id) {
    if (pending[id] == 0) ready.push_back(id);
  }
  std::reverse(ready.begin(), ready.end());  // dispatch roots in id order
  bool ok = dispatch_ready(0, -1);           // the caller's thread hands out the roots
  while (ok && !events.empty()) {
    Event e = events.top();
    events.pop();
    now = e.t;
    if (e.edge) {
      make_ready(e.node);
    } else {
      ++free_workers[dev[e.node]];
      ok = finish(e.node, now);
    }
    if (ok) {
      std::reverse(ready.begin(), ready.end());
      ok = dispatch_ready(now, e.edge ? -1 : dev[e.node]);
    }
  }
  if (!r.status.ok()) return r;
  assert(remaining == 0 && "every node runs in an acyclic graph");
  (void)remaining;
  r.step.seconds = now;
  r.step.peak_bytes = peak;
  r.step.busy_us.resize(nd);
  for (int d = 0; d < nd; ++d) r.step.busy_us[d] = busy[d] * 1e6;
  return r;
}

}  // namespace runtime
