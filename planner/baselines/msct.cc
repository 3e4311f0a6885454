#include "planner/baselines/msct.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "graph/cost.h"
#include "placement/colocation.h"
#include "placement/placement.h"
#include "planner/baselines/linear_program.h"

namespace planner::baselines {

namespace {

// The relaxation's data over the forward graph's ops, in microseconds (GLPK's
// simplex is better conditioned there than in seconds).
struct Relaxation {
  std::vector<std::pair<graph::NodeId, graph::NodeId>> edges;  // i -> j, distinct, i != j
  std::vector<double> comm_us;                                 // c_ij, per edge
  std::vector<double> compute_us;                              // p_i, per forward op
};

// The mean transfer time of `bytes` over ordered pairs of distinct linked devices.
double MeanTransferUs(const sim::Simulator& costs, int devices, int64_t bytes) {
  double sum = 0;
  int pairs = 0;
  for (int a = 0; a < devices; ++a) {
    for (int b = 0; b < devices; ++b) {
      const double t = a == b ? INFINITY : costs.TransferSeconds(a, b, bytes);
      if (std::isfinite(t)) sum += t, ++pairs;
    }
  }
  return pairs ? 1e6 * sum / pairs : 0;
}

Relaxation Gather(const graph::Graph& forward, const sim::Simulator& costs, int devices) {
  const graph::Graph& g = costs.graph();
  const std::vector<graph::NodeId> source = placement::ForwardSourceOfNode(g, forward);
  Relaxation r;
  r.compute_us.assign(forward.size(), 0);
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (!costs.Scheduled(id) || source[id] < 0) continue;
    double fastest = INFINITY;
    for (int d = 0; d < devices; ++d) {
      if (costs.OpSeconds(id, d) >= 0) fastest = std::min(fastest, costs.OpSeconds(id, d));
    }
    if (std::isfinite(fastest)) r.compute_us[source[id]] += 1e6 * fastest;
  }
  // The edges join units: a colocated op's edges are its group's root's
  // (placement/colocation.h), which holds the group's time.
  const std::vector<graph::NodeId> root = placement::ColocationRoots(forward);
  std::map<std::pair<graph::NodeId, graph::NodeId>, size_t> index;
  for (graph::NodeId to = 0; to < forward.size(); ++to) {
    std::vector<graph::NodeId> parents;
    for (const graph::TensorRef& in : forward.node(to).inputs) parents.push_back(in.node);
    for (graph::NodeId p : forward.node(to).control_inputs) parents.push_back(p);
    const graph::NodeId j = root[to];
    for (graph::NodeId from : parents) {
      const graph::NodeId i = root[from];
      // An op with no kernel (a parameter, constant or feed) goes where its
      // first consumer runs (list_schedule.h): no decision for the relaxation.
      if (i == j || r.compute_us[i] <= 0 || r.compute_us[j] <= 0) continue;
      // Groups joined both ways (a cycle only colocation makes) keep the first.
      if (index.count({j, i})) continue;
      if (index.emplace(std::make_pair(i, j), r.edges.size()).second) r.edges.push_back({i, j});
    }
  }
  // Every tensor that crosses between two adjacent groups in the training
  // step, once per receiving group, as the executor copies it.
  r.comm_us.assign(r.edges.size(), 0);
  std::set<std::tuple<graph::NodeId, int, graph::NodeId>> sent;  // (producer, output, group)
  for (graph::NodeId v = 0; v < g.size(); ++v) {
    for (const graph::TensorRef& in : g.node(v).inputs) {
      const graph::NodeId a = source[in.node], b = source[v];
      if (a < 0 || b < 0 || a == b) continue;
      auto it = index.find({a, b});
      if (it == index.end()) it = index.find({b, a});
      if (it == index.end() || !sent.insert({in.node, in.index, b}).second) continue;
      const int64_t bytes = std::max<int64_t>(0, graph::OutputBytes(g.node(in.node), in.index));
      r.comm_us[it->second] += MeanTransferUs(costs, devices, bytes);
    }
  }
  return r;
}

// Columns: x per edge, s per forward op, then w.
LinearProgram Formulate(const Relaxation& r) {
  LinearProgram lp;
  const int n = static_cast<int>(r.compute_us.size());
  // Every op and transfer in a row bounds any optimal schedule: a bound on
  // each time keeps the interior-point method on a bounded region.
  double serial = 1;
  for (double p : r.compute_us) serial += p;
  for (double c : r.comm_us) serial += c;
  for (size_t e = 0; e < r.edges.size(); ++e) lp.AddColumn(0, 0, 1);
  const int s0 = static_cast<int>(r.edges.size());
  for (int i = 0; i < n; ++i) lp.AddColumn(0, 0, serial);
  const int w = lp.AddColumn(1, 0, serial);
  std::vector<std::vector<int>> out(n), in(n);
  for (size_t e = 0; e < r.edges.size(); ++e) {
    const auto [i, j] = r.edges[e];
    out[i].push_back(static_cast<int>(e));
    in[j].push_back(static_cast<int>(e));
    // s_i + p_i + c_ij x_ij <= s_j
    lp.rows.push_back(
        {{{s0 + i, 1}, {s0 + j, -1}, {static_cast<int>(e), r.comm_us[e]}}, -r.compute_us[i]});
  }
  for (int i = 0; i < n; ++i) {
    // At most one favourite child and one favourite parent: sum x >= degree - 1.
    for (const std::vector<int>* edges : {&out[i], &in[i]}) {
      if (edges->size() < 2) continue;
      LinearProgram::Row row;
      for (int e : *edges) row.terms.push_back({e, -1});
      row.upper = 1 - static_cast<double>(edges->size());
      lp.rows.push_back(std::move(row));
    }
    if (out[i].empty() && r.compute_us[i] > 0) {
      lp.rows.push_back({{{s0 + i, 1}, {w, -1}}, -r.compute_us[i]});
    }
  }
  return lp;
}

}  // namespace

graph::Result<std::vector<graph::NodeId>> FavouriteChildren(const graph::Graph& forward,
                                                            const sim::Simulator& costs,
                                                            const cluster::Cluster& c,
                                                            const MsctOptions& options) {
  const Relaxation r = Gather(forward, costs, static_cast<int>(c.devices.size()));
  std::vector<graph::NodeId> child(forward.size(), -1);
  if (r.edges.empty()) return child;
  LpOptions lp_options;
  lp_options.method = options.lp_method;
  lp_options.time_limit_s = options.lp_time_limit_s;
  lp_options.stop = options.stop;
  auto x = SolveLinearProgram(Formulate(r), lp_options);
  if (!x.ok()) return x.status().WithContext("m-SCT's relaxation");
  // A parent keeps the favourite of smallest x, then a child the parent of smallest x.
  std::vector<int> by_parent(forward.size(), -1), by_child(forward.size(), -1);
  for (size_t e = 0; e < r.edges.size(); ++e) {
    if ((*x)[e] > options.favourite_threshold) continue;
    const graph::NodeId i = r.edges[e].first;
    if (by_parent[i] < 0 || (*x)[e] < (*x)[by_parent[i]]) by_parent[i] = static_cast<int>(e);
  }
  for (int e : by_parent) {
    if (e < 0) continue;
    const graph::NodeId j = r.edges[e].second;
    if (by_child[j] < 0 || (*x)[e] < (*x)[by_child[j]]) by_child[j] = e;
  }
  for (int e : by_child) {
    if (e >= 0) child[r.edges[e].first] = r.edges[e].second;
  }
  return child;
}

graph::Result<ListSchedule> ShortestCommunicationTime(const graph::Graph& forward,
                                                      const sim::Simulator& costs,
                                                      const cluster::Cluster& c,
                                                      const MsctOptions& options) {
  GRAPH_ASSIGN_OR_RETURN(std::vector<graph::NodeId> favourite,
                         FavouriteChildren(forward, costs, c, options));
  return EarliestTaskFirstWithFavourites(forward, costs, c, favourite);
}

}  // namespace planner::baselines
