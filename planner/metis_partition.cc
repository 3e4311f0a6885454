#include "planner/metis_partition.h"

#include <metis.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "graph/cost.h"
#include "planner/baselines.h"
#include "planner/placement.h"

namespace planner {

namespace {

// Microseconds as a METIS weight: at least 1, and small enough that sums over
// a graph of a million edges stay within idx_t.
idx_t Weight(double seconds) {
  if (!(seconds > 0)) return 1;
  return static_cast<idx_t>(std::clamp(std::llround(seconds * 1e6), 1LL, 1LL << 20));
}

}  // namespace

graph::Result<std::vector<int>> MetisPlacement(const graph::Graph& forward,
                                               const runtime::Simulator& costs,
                                               const cluster::Cluster& c) {
  const std::vector<int> accel = Accelerators(c);
  const int n = forward.size();
  std::vector<int> out(n, accel[0]);
  if (accel.size() == 1 || n < 2) return out;
  const graph::Graph& g = costs.graph();
  const std::vector<graph::NodeId> source = ForwardSourceOfNode(g, forward);

  std::vector<double> work(n, 0);
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (source[id] < 0 || !costs.Scheduled(id)) continue;
    const double s = costs.OpSeconds(id, accel[0]);
    if (s < 0) {
      return graph::InvalidArgument(c.source + ": device '" + c.devices[accel[0]].name +
                                    "' cannot give op '" + g.node(id).name +
                                    "' a time (a real device needs a profile: planner profile)");
    }
    work[source[id]] += s;
  }
  // Undirected, both directions listed, no self-loops: METIS's graph format.
  std::vector<std::map<int, double>> edges(n);
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    for (const graph::TensorRef& in : g.node(id).inputs) {
      const graph::NodeId a = source[in.node], b = source[id];
      if (a < 0 || b < 0 || a == b) continue;
      const double s = costs.TransferSeconds(
          accel[0], accel[1], std::max<int64_t>(0, graph::OutputBytes(g.node(in.node), in.index)));
      if (!std::isfinite(s)) {
        return graph::InvalidArgument(c.source + ": no link between '" + c.devices[accel[0]].name +
                                      "' and '" + c.devices[accel[1]].name +
                                      "' to weigh the cut by");
      }
      edges[a][b] += s;
      edges[b][a] += s;
    }
  }
  std::vector<idx_t> xadj{0}, adjncy, adjwgt, vwgt(n);
  adjncy.reserve(1);  // non-null even for a graph without edges
  adjwgt.reserve(1);
  for (int v = 0; v < n; ++v) {
    vwgt[v] = Weight(work[v]);
    for (const auto& [u, s] : edges[v]) {
      adjncy.push_back(u);
      adjwgt.push_back(Weight(s));
    }
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
  }
  idx_t nvtxs = n, ncon = 1, nparts = static_cast<idx_t>(accel.size()), objval = 0;
  std::vector<idx_t> part(n, 0);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // the same partition every run
  const int rc =
      METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                          adjwgt.data(), &nparts, nullptr, nullptr, options, &objval, part.data());
  if (rc != METIS_OK) {
    return graph::Internal("METIS_PartGraphKway failed (code " + std::to_string(rc) + ") on " +
                           std::to_string(n) + " ops");
  }
  for (int v = 0; v < n; ++v) out[v] = accel[part[v]];
  return out;
}

}  // namespace planner
