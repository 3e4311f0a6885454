#include "planner/baselines/partition_graph.h"

#include <algorithm>
#include <cmath>

#include "graph/cost.h"
#include "placement/placement.h"

namespace planner::baselines {

namespace {

constexpr double kTotalUnits = 1 << 24;

// `seconds` in units of `total` / 2^24: at least 1, at most 2^24.
int32_t Weight(double seconds, double total) {
  if (!(seconds > 0) || !(total > 0)) return 1;
  return static_cast<int32_t>(
      std::clamp(std::llround(seconds / total * kTotalUnits), 1LL, 1LL << 24));
}

graph::Status NoTime(const cluster::Cluster& c, int device, const std::string& op) {
  return graph::InvalidArgument(
      c.source + ": device '" + c.devices[device].name + "' cannot give op '" + op +
      "' a time (a real device's op times come from a profile, and the one given, if any, lacks "
      "this op: planner profile MODEL DEVICES -o PROFILE adds it)");
}

}  // namespace

graph::Result<std::vector<double>> StepKernelSeconds(const graph::Graph& forward,
                                                     const sim::Simulator& costs,
                                                     const cluster::Cluster& c) {
  const graph::Graph& g = costs.graph();
  const std::vector<graph::NodeId> source = placement::ForwardSourceOfNode(g, forward);
  std::vector<double> total(c.devices.size(), 0);
  for (int d = 0; d < static_cast<int>(c.devices.size()); ++d) {
    for (graph::NodeId id = 0; id < g.size(); ++id) {
      if (source[id] < 0 || !costs.Scheduled(id)) continue;
      const double s = costs.OpSeconds(id, d);
      if (s < 0) return NoTime(c, d, g.node(id).name);
      total[d] += s;
    }
  }
  return total;
}

graph::Result<PartitionGraph> BuildPartitionGraph(const graph::Graph& forward,
                                                  const sim::Simulator& costs,
                                                  const cluster::Cluster& c, int work_device,
                                                  int link_src, int link_dst) {
  const int n = forward.size();
  const graph::Graph& g = costs.graph();
  const std::vector<graph::NodeId> source = placement::ForwardSourceOfNode(g, forward);
  PartitionGraph out{std::vector<double>(n, 0), std::vector<std::map<int, double>>(n)};
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (source[id] < 0 || !costs.Scheduled(id)) continue;
    const double s = costs.OpSeconds(id, work_device);
    if (s < 0) return NoTime(c, work_device, g.node(id).name);
    out.work[source[id]] += s;
  }
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    for (const graph::TensorRef& in : g.node(id).inputs) {
      const graph::NodeId a = source[in.node], b = source[id];
      if (a < 0 || b < 0 || a == b) continue;
      const double s = costs.TransferSeconds(
          link_src, link_dst, std::max<int64_t>(0, graph::OutputBytes(g.node(in.node), in.index)));
      if (!std::isfinite(s)) {
        return graph::InvalidArgument(c.source + ": no link between '" + c.devices[link_src].name +
                                      "' and '" + c.devices[link_dst].name +
                                      "' to weigh the cut by");
      }
      out.edges[a][b] += s;
      out.edges[b][a] += s;
    }
  }
  return out;
}

Csr ToCsr(const PartitionGraph& g) {
  Csr csr;
  const int n = static_cast<int>(g.work.size());
  double total_work = 0, total_transfer = 0;
  for (int v = 0; v < n; ++v) {
    total_work += g.work[v];
    for (const auto& [u, s] : g.edges[v]) total_transfer += s;
  }
  csr.xadj.reserve(n + 1);
  csr.xadj.push_back(0);
  csr.vwgt.reserve(n);
  // Non-null data() even for a graph without edges: both libraries reject null arrays.
  csr.adjncy.reserve(1);
  csr.adjwgt.reserve(1);
  for (int v = 0; v < n; ++v) {
    csr.vwgt.push_back(Weight(g.work[v], total_work));
    for (const auto& [u, s] : g.edges[v]) {
      csr.adjncy.push_back(u);
      csr.adjwgt.push_back(Weight(s, total_transfer));
    }
    csr.xadj.push_back(static_cast<int32_t>(csr.adjncy.size()));
  }
  return csr;
}

std::vector<int> Accelerators(const cluster::Cluster& c) {
  std::vector<int> accel;
  for (size_t d = 0; d < c.devices.size(); ++d) {
    const cluster::DeviceSpec& s = c.devices[d];
    if (s.kind == cluster::DeviceKind::kCuda ||
        (s.kind == cluster::DeviceKind::kSim && s.simulates == "gpu")) {
      accel.push_back(static_cast<int>(d));
    }
  }
  if (accel.empty()) {
    for (size_t d = 0; d < c.devices.size(); ++d) accel.push_back(static_cast<int>(d));
  }
  return accel;
}

}  // namespace planner::baselines
