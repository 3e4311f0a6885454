#include "planner/baselines/list_schedule.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <unordered_set>

#include "graph/cost.h"
#include "placement/placement.h"

namespace planner {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

graph::Result<ListSchedule> EarliestTaskFirst(const graph::Graph& forward,
                                              const sim::Simulator& costs,
                                              const cluster::Cluster& c) {
  const graph::Graph& g = costs.graph();
  const int n = g.size(), nd = static_cast<int>(c.devices.size());
  const std::vector<graph::NodeId> source = ForwardSourceOfNode(g, forward);

  // Which devices can time each op; an op none can time has no schedule.
  for (graph::NodeId id = 0; id < n; ++id) {
    if (!costs.Scheduled(id)) continue;
    bool any = false;
    for (int d = 0; d < nd && !any; ++d) any = costs.OpSeconds(id, d) >= 0;
    if (!any) {
      return graph::InvalidArgument(c.source + ": no device can give op '" + g.node(id).name +
                                    "' (" + g.node(id).op +
                                    ") a time (a real device needs a profile: planner profile)");
    }
  }

  // What each forward op keeps on its device, with the nodes that follow it.
  std::vector<int64_t> need(forward.size(), 0);
  for (graph::NodeId id = 0; id < n; ++id) {
    if (source[id] >= 0) need[source[id]] += costs.NodeBytes(id);
  }
  std::vector<double> capacity(nd, kInf), used(nd, 0);
  for (int d = 0; d < nd; ++d) {
    if (c.devices[d].memory_bytes) capacity[d] = static_cast<double>(*c.devices[d].memory_bytes);
  }

  // Priority for ties: the longest path after an op, each op at its fastest time.
  std::vector<double> fastest(n, 0);
  for (graph::NodeId id = 0; id < n; ++id) {
    if (!costs.Scheduled(id)) continue;
    fastest[id] = kInf;
    for (int d = 0; d < nd; ++d) {
      if (costs.OpSeconds(id, d) >= 0) fastest[id] = std::min(fastest[id], costs.OpSeconds(id, d));
    }
  }
  std::vector<std::vector<graph::NodeId>> consumers(n);
  std::vector<int> pending(n, 0);
  for (graph::NodeId id = 0; id < n; ++id) {
    for (const graph::TensorRef& in : g.node(id).inputs) consumers[in.node].push_back(id);
    for (graph::NodeId p : g.node(id).control_inputs) consumers[p].push_back(id);
    pending[id] = static_cast<int>(g.node(id).inputs.size() + g.node(id).control_inputs.size());
  }
  std::vector<double> after(n, 0);
  const std::vector<graph::NodeId>& topo = g.topological_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    double longest = 0;
    for (graph::NodeId k : consumers[*it]) longest = std::max(longest, after[k]);
    after[*it] = fastest[*it] + longest;
  }

  // Devices are decided per forward op (group); -1: not yet. A node outside every
  // group (source -1) runs on device 0, as DeviceOfSources puts it.
  std::vector<int> group_device(forward.size(), -1);
  std::vector<int> dev(n, -1);
  std::vector<double> finish(n, 0);
  auto fixed_device = [&](graph::NodeId id) {
    return source[id] < 0 ? 0 : group_device[source[id]];
  };
  auto decide = [&](graph::NodeId id, int d) {
    dev[id] = d;
    if (source[id] >= 0 && group_device[source[id]] < 0) {
      group_device[source[id]] = d;
      used[d] += static_cast<double>(need[source[id]]);
    }
  };
  // A node without a kernel whose group is undecided waits for its first
  // scheduled consumer; its inputs the same, in turn.
  std::function<void(graph::NodeId, int)> settle = [&](graph::NodeId id, int d) {
    for (const graph::TensorRef& in : g.node(id).inputs) {
      if (dev[in.node] >= 0) continue;
      const int f = fixed_device(in.node);
      decide(in.node, f >= 0 ? f : d);
      settle(in.node, dev[in.node]);
    }
  };

  // When the inputs of `id` are on (or copied to) device d.
  auto data_ready = [&](graph::NodeId id, int d) {
    double t = 0;
    const graph::Node& node = g.node(id);
    for (const graph::TensorRef& in : node.inputs) {
      double arrives = finish[in.node];
      const int from = dev[in.node];
      if (from >= 0 && from != d) {
        arrives += costs.TransferSeconds(
            from, d, std::max<int64_t>(0, graph::OutputBytes(g.node(in.node), in.index)));
      }
      t = std::max(t, arrives);
    }
    for (graph::NodeId p : node.control_inputs) t = std::max(t, finish[p]);
    return t;
  };

  std::vector<std::vector<double>> worker_free(nd);
  for (int d = 0; d < nd; ++d) {
    const cluster::DeviceSpec& spec = c.devices[d];
    worker_free[d].assign(spec.kind == cluster::DeviceKind::kCpu ? std::max(1, spec.threads) : 1,
                          0.0);
  }
  auto earliest_worker = [&](int d) {
    return std::min_element(worker_free[d].begin(), worker_free[d].end());
  };

  std::vector<graph::NodeId> ready;              // scheduled ops whose inputs are done
  std::vector<std::vector<double>> ready_at(n);  // [op][device], filled when ready
  std::vector<graph::NodeId> free_nodes;         // nodes without a kernel, ready
  for (graph::NodeId id = 0; id < n; ++id) {
    if (pending[id] == 0) (costs.Scheduled(id) ? ready : free_nodes).push_back(id);
  }
  double makespan = 0;
  auto release = [&](graph::NodeId id) {
    for (graph::NodeId k : consumers[id]) {
      if (--pending[k] > 0) continue;
      if (!costs.Scheduled(k)) {
        free_nodes.push_back(k);
        continue;
      }
      ready.push_back(k);
    }
  };
  // Copies of inputs made on another device stay on the receiving one (counted
  // once per tensor and device).
  std::unordered_set<uint64_t> copied;
  auto copy_key = [](const graph::TensorRef& t, int d) {
    return (static_cast<uint64_t>(t.node) << 24) | (static_cast<uint64_t>(t.index) << 8) |
           static_cast<uint64_t>(d);
  };
  auto copy_bytes = [&](graph::NodeId id, int d, bool record) {
    int64_t bytes = 0;
    for (const graph::TensorRef& in : g.node(id).inputs) {
      if (dev[in.node] < 0 || dev[in.node] == d) continue;
      const uint64_t k = copy_key(in, d);
      if (copied.count(k)) continue;
      if (record) copied.insert(k);
      bytes += std::max<int64_t>(0, graph::OutputBytes(g.node(in.node), in.index));
    }
    return static_cast<double>(bytes);
  };
  // Whether op `id` may go to device d: it can time it, and the op's group is
  // there already or still fits with the copies of its inputs.
  auto allowed = [&](graph::NodeId id, int d, bool check_memory) {
    if (costs.OpSeconds(id, d) < 0) return false;
    const int f = fixed_device(id);
    if (f >= 0) return f == d;
    return !check_memory ||
           used[d] + static_cast<double>(need[source[id]]) + copy_bytes(id, d, false) <=
               capacity[d];
  };

  int done = 0;
  while (done < n) {
    while (!free_nodes.empty()) {
      const graph::NodeId id = free_nodes.back();
      free_nodes.pop_back();
      double t = 0;
      for (const graph::TensorRef& in : g.node(id).inputs) t = std::max(t, finish[in.node]);
      for (graph::NodeId p : g.node(id).control_inputs) t = std::max(t, finish[p]);
      finish[id] = t;
      if (const int f = fixed_device(id); f >= 0) decide(id, f);
      ++done;
      release(id);
    }
    if (ready.empty()) break;
    // Data-ready times are computed once, when an op becomes ready; an input
    // without a kernel that a later op settles elsewhere is not re-priced.
    for (graph::NodeId id : ready) {
      if (!ready_at[id].empty()) continue;
      ready_at[id].assign(nd, kInf);
      for (int d = 0; d < nd; ++d) {
        if (costs.OpSeconds(id, d) >= 0) ready_at[id][d] = data_ready(id, d);
      }
    }
    size_t best_index = 0;
    int best_device = -1;
    double best_start = kInf, best_end = kInf;
    for (bool check_memory : {true, false}) {
      for (size_t i = 0; i < ready.size(); ++i) {
        const graph::NodeId id = ready[i];
        for (int d = 0; d < nd; ++d) {
          if (!allowed(id, d, check_memory)) continue;
          const double start = std::max(*earliest_worker(d), ready_at[id][d]);
          const double end = start + costs.OpSeconds(id, d);
          const bool better = best_device < 0 || end < best_end ||
                              (end == best_end &&
                               (after[id] > after[ready[best_index]] ||
                                (after[id] == after[ready[best_index]] && id < ready[best_index])));
          if (better) {
            best_index = i;
            best_device = d;
            best_start = start;
            best_end = end;
          }
        }
      }
      if (best_device >= 0) break;  // else nothing fits: any device, out of memory
    }
    if (best_device < 0) {  // every ready op follows a group on a device that cannot time it
      const graph::Node& node = g.node(ready.front());
      return graph::InvalidArgument(c.source + ": op '" + node.name + "' (" + node.op +
                                    ") must run on device '" +
                                    c.devices[fixed_device(ready.front())].name +
                                    "' with the op it follows, which cannot give it a time");
    }
    const graph::NodeId id = ready[best_index];
    ready[best_index] = ready.back();
    ready.pop_back();
    const int d = best_device;
    used[d] += copy_bytes(id, d, true);
    decide(id, d);
    settle(id, d);
    auto worker = earliest_worker(d);
    finish[id] = best_start + costs.OpSeconds(id, d);
    *worker = finish[id];
    makespan = std::max(makespan, finish[id]);
    ++done;
    release(id);
  }

  ListSchedule out;
  out.predicted_s = makespan;
  out.device_of_node.assign(forward.size(), 0);
  for (graph::NodeId f = 0; f < forward.size(); ++f) {
    if (group_device[f] >= 0) out.device_of_node[f] = group_device[f];
  }
  return out;
}

}  // namespace planner
