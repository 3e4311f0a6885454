#include "planner/baselines/list_schedule.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <unordered_set>

#include "graph/cost.h"
#include "placement/placement.h"

namespace planner::baselines {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One run of earliest-task-first over the training graph of `costs`: the state
// of the schedule and its steps. Devices are decided per forward op (group):
// the first op of a group to be scheduled decides where the group goes.
class EtfScheduler {
 public:
  // `favourite_child`: SCT's favourite child of each forward op (-1: none;
  // msct.h), or null for plain ETF.
  EtfScheduler(const graph::Graph& forward, const sim::Simulator& costs, const cluster::Cluster& c,
               const std::vector<graph::NodeId>* favourite_child = nullptr)
      : forward_(forward),
        costs_(costs),
        c_(c),
        g_(costs.graph()),
        n_(g_.size()),
        nd_(static_cast<int>(c.devices.size())),
        source_(placement::ForwardSourceOfNode(g_, forward)),
        favourite_child_(favourite_child) {}

  graph::Result<ListSchedule> Run() {
    GRAPH_RETURN_IF_ERROR(CheckEveryOpHasATime());
    PlanMemory();
    PlanPriorities();
    PlanWorkers();
    GRAPH_RETURN_IF_ERROR(Schedule());
    ListSchedule out;
    out.predicted_s = makespan_;
    out.device_of_node.assign(forward_.size(), 0);
    for (graph::NodeId f = 0; f < forward_.size(); ++f) {
      if (group_device_[f] >= 0) out.device_of_node[f] = group_device_[f];
    }
    return out;
  }

 private:
  // Which devices can time each op; an op none can time has no schedule.
  graph::Status CheckEveryOpHasATime() const {
    for (graph::NodeId id = 0; id < n_; ++id) {
      if (!costs_.Scheduled(id)) continue;
      bool any = false;
      for (int d = 0; d < nd_ && !any; ++d) any = costs_.OpSeconds(id, d) >= 0;
      if (!any) {
        return graph::InvalidArgument(
            c_.source + ": no device can give op '" + g_.node(id).name + "' (" + g_.node(id).op +
            ") a time (a real device's op times come from a profile, and the one given, if any, "
            "lacks this op: planner profile MODEL DEVICES -o PROFILE adds it)");
      }
    }
    return graph::Status::Ok();
  }

  // What each forward op keeps on its device, with the nodes that follow it,
  // and what each device holds.
  void PlanMemory() {
    need_.assign(forward_.size(), 0);
    for (graph::NodeId id = 0; id < n_; ++id) {
      if (source_[id] >= 0) need_[source_[id]] += costs_.NodeBytes(id);
    }
    capacity_.assign(nd_, kInf);
    used_.assign(nd_, 0);
    for (int d = 0; d < nd_; ++d) {
      if (c_.devices[d].memory_bytes) {
        capacity_[d] = static_cast<double>(*c_.devices[d].memory_bytes);
      }
    }
  }

  // The graph's edges, and the priority for ties: the longest path after an
  // op, each op at its fastest time.
  void PlanPriorities() {
    std::vector<double> fastest(n_, 0);
    for (graph::NodeId id = 0; id < n_; ++id) {
      if (!costs_.Scheduled(id)) continue;
      fastest[id] = kInf;
      for (int d = 0; d < nd_; ++d) {
        if (costs_.OpSeconds(id, d) >= 0) {
          fastest[id] = std::min(fastest[id], costs_.OpSeconds(id, d));
        }
      }
    }
    consumers_.assign(n_, {});
    pending_.assign(n_, 0);
    for (graph::NodeId id = 0; id < n_; ++id) {
      for (const graph::TensorRef& in : g_.node(id).inputs) consumers_[in.node].push_back(id);
      for (graph::NodeId p : g_.node(id).control_inputs) consumers_[p].push_back(id);
      pending_[id] =
          static_cast<int>(g_.node(id).inputs.size() + g_.node(id).control_inputs.size());
    }
    after_.assign(n_, 0);
    const std::vector<graph::NodeId>& topo = g_.topological_order();
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
      double longest = 0;
      for (graph::NodeId k : consumers_[*it]) longest = std::max(longest, after_[k]);
      after_[*it] = fastest[*it] + longest;
    }
    group_device_.assign(forward_.size(), -1);
    dev_.assign(n_, -1);
    finish_.assign(n_, 0);
    ready_at_.assign(n_, {});
  }

  // A cpu has a worker per thread, any other device one.
  void PlanWorkers() {
    last_group_.assign(nd_, -1);
    worker_free_.assign(nd_, {});
    for (int d = 0; d < nd_; ++d) {
      const cluster::DeviceSpec& spec = c_.devices[d];
      worker_free_[d].assign(spec.kind == cluster::DeviceKind::kCpu ? std::max(1, spec.threads) : 1,
                             0.0);
    }
  }

  std::vector<double>::iterator EarliestWorker(int d) {
    return std::min_element(worker_free_[d].begin(), worker_free_[d].end());
  }

  // The device the node's group is on; -1: not decided yet. A node outside
  // every group (source -1) runs on device 0, as DeviceOfSources puts it.
  int FixedDevice(graph::NodeId id) const {
    return source_[id] < 0 ? 0 : group_device_[source_[id]];
  }

  void Decide(graph::NodeId id, int d) {
    dev_[id] = d;
    if (source_[id] >= 0 && group_device_[source_[id]] < 0) {
      group_device_[source_[id]] = d;
      used_[d] += static_cast<double>(need_[source_[id]]);
    }
  }

  // A node without a kernel whose group is undecided waits for its first
  // scheduled consumer; its inputs the same, in turn.
  void Settle(graph::NodeId id, int d) {
    for (const graph::TensorRef& in : g_.node(id).inputs) {
      if (dev_[in.node] >= 0) continue;
      const int f = FixedDevice(in.node);
      Decide(in.node, f >= 0 ? f : d);
      Settle(in.node, dev_[in.node]);
    }
  }

  // When the inputs of `id` are on (or copied to) device d.
  double DataReady(graph::NodeId id, int d) const {
    double t = 0;
    const graph::Node& node = g_.node(id);
    for (const graph::TensorRef& in : node.inputs) {
      double arrives = finish_[in.node];
      const int from = dev_[in.node];
      if (from >= 0 && from != d) {
        arrives += costs_.TransferSeconds(
            from, d, std::max<int64_t>(0, graph::OutputBytes(g_.node(in.node), in.index)));
      }
      t = std::max(t, arrives);
    }
    for (graph::NodeId p : node.control_inputs) t = std::max(t, finish_[p]);
    return t;
  }

  void Release(graph::NodeId id) {
    for (graph::NodeId k : consumers_[id]) {
      if (--pending_[k] > 0) continue;
      (costs_.Scheduled(k) ? ready_ : free_nodes_).push_back(k);
    }
  }

  // The bytes of the inputs of `id` that device d would copy in: copies made
  // on another device stay on the receiving one (counted once per tensor and
  // device, and recorded when `record`).
  double CopyBytes(graph::NodeId id, int d, bool record) {
    int64_t bytes = 0;
    for (const graph::TensorRef& in : g_.node(id).inputs) {
      if (dev_[in.node] < 0 || dev_[in.node] == d) continue;
      const uint64_t k = (static_cast<uint64_t>(in.node) << 24) |
                         (static_cast<uint64_t>(in.index) << 8) | static_cast<uint64_t>(d);
      if (copied_.count(k)) continue;
      if (record) copied_.insert(k);
      bytes += std::max<int64_t>(0, graph::OutputBytes(g_.node(in.node), in.index));
    }
    return static_cast<double>(bytes);
  }

  // Whether op `id` may go to device d: it can time it, and the op's group is
  // there already or still fits with the copies of its inputs.
  bool Allowed(graph::NodeId id, int d, bool check_memory) {
    if (costs_.OpSeconds(id, d) < 0) return false;
    const int f = FixedDevice(id);
    if (f >= 0) return f == d;
    return !check_memory ||
           used_[d] + static_cast<double>(need_[source_[id]]) + CopyBytes(id, d, false) <=
               capacity_[d];
  }

  // Nodes without a kernel finish when their inputs do, on their group's
  // device if it is decided.
  void FinishFreeNodes() {
    while (!free_nodes_.empty()) {
      const graph::NodeId id = free_nodes_.back();
      free_nodes_.pop_back();
      double t = 0;
      for (const graph::TensorRef& in : g_.node(id).inputs) t = std::max(t, finish_[in.node]);
      for (graph::NodeId p : g_.node(id).control_inputs) t = std::max(t, finish_[p]);
      finish_[id] = t;
      if (const int f = FixedDevice(id); f >= 0) Decide(id, f);
      ++done_;
      Release(id);
    }
  }

  // Data-ready times are computed once, when an op becomes ready; an input
  // without a kernel that a later op settles elsewhere is not re-priced.
  void PriceReadyOps() {
    for (graph::NodeId id : ready_) {
      if (!ready_at_[id].empty()) continue;
      ready_at_[id].assign(nd_, kInf);
      for (int d = 0; d < nd_; ++d) {
        if (costs_.OpSeconds(id, d) >= 0) ready_at_[id][d] = DataReady(id, d);
      }
    }
  }

  struct Choice {
    size_t index = 0;  // into ready_
    int device = -1;   // -1: none
    double start = kInf, end = kInf;
  };

  double StartOn(graph::NodeId id, int d) { return std::max(*EarliestWorker(d), ready_at_[id][d]); }

  // Whether no other allowed device can start `id` later than d: SCT's urgent
  // op, which a device kept for a favourite child still takes.
  bool Urgent(graph::NodeId id, int d, bool check_memory) {
    const double here = StartOn(id, d);
    for (int o = 0; o < nd_; ++o) {
      if (o != d && Allowed(id, o, check_memory) && StartOn(id, o) > here) return false;
    }
    return true;
  }

  // SCT's rule (msct.h): the ready op of the favourite child of device d's
  // last group, undecided, that can start on d no later than anywhere else; d
  // keeps itself for it. -1: none (always, for plain ETF).
  graph::NodeId Reserved(int d, bool check_memory) {
    if (!favourite_child_ || last_group_[d] < 0) return -1;
    const graph::NodeId fc = (*favourite_child_)[last_group_[d]];
    if (fc < 0 || group_device_[fc] >= 0) return -1;
    for (graph::NodeId id : ready_) {
      if (source_[id] != fc || !Allowed(id, d, check_memory)) continue;
      bool earliest = true;
      for (int o = 0; o < nd_ && earliest; ++o) {
        earliest = o == d || !Allowed(id, o, check_memory) || StartOn(id, o) >= StartOn(id, d);
      }
      if (earliest) return id;
    }
    return -1;
  }

  // The ready op and device that finish first (ties: the longer path after,
  // then the lower id), among those that fit in memory, else among all; a
  // device kept for a favourite child takes only it or an urgent op.
  Choice PickEarliest() {
    Choice best;
    std::vector<graph::NodeId> reserved(nd_, -1);
    for (bool check_memory : {true, false}) {
      for (int d = 0; d < nd_; ++d) reserved[d] = Reserved(d, check_memory);
      for (size_t i = 0; i < ready_.size(); ++i) {
        const graph::NodeId id = ready_[i];
        for (int d = 0; d < nd_; ++d) {
          if (!Allowed(id, d, check_memory)) continue;
          if (reserved[d] >= 0 && reserved[d] != id && !Urgent(id, d, check_memory)) continue;
          const double start = StartOn(id, d);
          const double end = start + costs_.OpSeconds(id, d);
          const graph::NodeId incumbent = ready_[best.index];
          const bool better =
              best.device < 0 || end < best.end ||
              (end == best.end && (after_[id] > after_[incumbent] ||
                                   (after_[id] == after_[incumbent] && id < incumbent)));
          if (better) best = {i, d, start, end};
        }
      }
      if (best.device >= 0) break;  // else nothing fits: any device, out of memory
    }
    return best;
  }

  void Commit(const Choice& choice) {
    const graph::NodeId id = ready_[choice.index];
    ready_[choice.index] = ready_.back();
    ready_.pop_back();
    const int d = choice.device;
    used_[d] += CopyBytes(id, d, true);
    Decide(id, d);
    Settle(id, d);
    finish_[id] = choice.start + costs_.OpSeconds(id, d);
    *EarliestWorker(d) = finish_[id];
    if (source_[id] >= 0) last_group_[d] = source_[id];
    makespan_ = std::max(makespan_, finish_[id]);
    ++done_;
    Release(id);
  }

  graph::Status Schedule() {
    for (graph::NodeId id = 0; id < n_; ++id) {
      if (pending_[id] == 0) (costs_.Scheduled(id) ? ready_ : free_nodes_).push_back(id);
    }
    while (done_ < n_) {
      FinishFreeNodes();
      if (ready_.empty()) break;
      PriceReadyOps();
      const Choice choice = PickEarliest();
      if (choice.device < 0) {  // every ready op follows a group on a device that cannot time it
        const graph::Node& node = g_.node(ready_.front());
        return graph::InvalidArgument(c_.source + ": op '" + node.name + "' (" + node.op +
                                      ") must run on device '" +
                                      c_.devices[FixedDevice(ready_.front())].name +
                                      "' with the op it follows, which cannot give it a time");
      }
      Commit(choice);
    }
    return graph::Status::Ok();
  }

  const graph::Graph& forward_;
  const sim::Simulator& costs_;
  const cluster::Cluster& c_;
  const graph::Graph& g_;
  const int n_, nd_;
  const std::vector<graph::NodeId> source_;            // the forward op each node follows; -1: none
  const std::vector<graph::NodeId>* favourite_child_;  // SCT's, or null (ETF)
  std::vector<graph::NodeId> last_group_;              // [device] group of its last op; -1

  std::vector<int64_t> need_;            // [forward op] bytes its group keeps
  std::vector<double> capacity_, used_;  // [device] bytes
  std::vector<std::vector<graph::NodeId>> consumers_;
  std::vector<int> pending_;                      // inputs not finished
  std::vector<double> after_;                     // longest path after the op
  std::vector<int> group_device_;                 // [forward op] device; -1: not yet
  std::vector<int> dev_;                          // [node] device; -1: not yet
  std::vector<double> finish_;                    // [node] seconds
  std::vector<std::vector<double>> worker_free_;  // [device][worker] seconds
  std::vector<graph::NodeId> ready_;              // scheduled ops whose inputs are done
  std::vector<std::vector<double>> ready_at_;     // [op][device], filled when ready
  std::vector<graph::NodeId> free_nodes_;         // nodes without a kernel, ready
  std::unordered_set<uint64_t> copied_;           // (tensor, device) copies made
  double makespan_ = 0;
  int done_ = 0;
};

}  // namespace

graph::Result<ListSchedule> EarliestTaskFirst(const graph::Graph& forward,
                                              const sim::Simulator& costs,
                                              const cluster::Cluster& c) {
  return EtfScheduler(forward, costs, c).Run();
}

graph::Result<ListSchedule> EarliestTaskFirstWithFavourites(
    const graph::Graph& forward, const sim::Simulator& costs, const cluster::Cluster& c,
    const std::vector<graph::NodeId>& favourite_child) {
  assert(static_cast<int>(favourite_child.size()) == forward.size());
  return EtfScheduler(forward, costs, c, &favourite_child).Run();
}

}  // namespace planner::baselines
