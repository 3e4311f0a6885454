#include "planner/baselines/metis_partition.h"

#include <metis.h>

#include <algorithm>

#include "planner/baselines/partition_graph.h"

namespace planner::baselines {

graph::Result<std::vector<int>> MetisPlacement(const graph::Graph& forward,
                                               const sim::Simulator& costs,
                                               const cluster::Cluster& c) {
  const std::vector<int> accel = Accelerators(c);
  const int n = forward.size();
  std::vector<int> out(n, accel[0]);
  if (accel.size() == 1 || n < 2) return out;
  GRAPH_ASSIGN_OR_RETURN(PartitionGraph pg,
                         BuildPartitionGraph(forward, costs, c, accel[0], accel[0], accel[1]));
  const Csr csr = ToCsr(pg);
  std::vector<idx_t> xadj(csr.xadj.begin(), csr.xadj.end());
  std::vector<idx_t> adjncy(csr.adjncy.begin(), csr.adjncy.end());
  std::vector<idx_t> adjwgt(csr.adjwgt.begin(), csr.adjwgt.end());
  std::vector<idx_t> vwgt(csr.vwgt.begin(), csr.vwgt.end());
  adjncy.reserve(1);  // non-null even for a graph without edges
  adjwgt.reserve(1);
  // No more parts than ops: METIS prints "too many parts" (on stdout) otherwise.
  idx_t nvtxs = n, ncon = 1, objval = 0;
  idx_t nparts = static_cast<idx_t>(std::min<size_t>(accel.size(), static_cast<size_t>(n)));
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

}  // namespace planner::baselines
