#include "planner/refine.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

namespace planner {

RefineResult Refine(const graph::Graph& forward, int num_devices, const RewardSource& reward,
                    const std::vector<int>& start, double start_s, const RefineOptions& options,
                    const volatile std::sig_atomic_t* stop) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };

  // Every name-scope prefix is a unit ("decoder", "decoder/cell_1",
  // "decoder/cell_1/t_5"), coarse ones first, each in topological order.
  std::vector<std::vector<std::vector<graph::NodeId>>> by_depth;
  std::unordered_map<std::string, std::pair<int, int>> unit_of_scope;  // (depth, index)
  for (graph::NodeId id : forward.topological_order()) {
    const std::string& name = forward.node(id).name;
    std::vector<std::string> scopes;
    for (size_t slash = name.find('/'); slash != std::string::npos;
         slash = name.find('/', slash + 1)) {
      scopes.push_back(name.substr(0, slash));
    }
    if (scopes.empty()) scopes.push_back(name);
    for (size_t depth = 0; depth < scopes.size(); ++depth) {
      if (by_depth.size() <= depth) by_depth.emplace_back();
      auto [it, fresh] = unit_of_scope.emplace(
          scopes[depth],
          std::make_pair(static_cast<int>(depth), static_cast<int>(by_depth[depth].size())));
      if (fresh) by_depth[depth].emplace_back();
      by_depth[it->second.first][it->second.second].push_back(id);
    }
  }
  std::vector<std::vector<graph::NodeId>> units;
  for (auto& level : by_depth) {
    for (auto& unit : level) units.push_back(std::move(unit));
  }

  RefineResult r{start, start_s, static_cast<int>(units.size())};
  bool improved = true;
  while (improved && elapsed() < options.budget_s && !(stop && *stop)) {
    improved = false;
    ++r.sweeps;
    for (const std::vector<graph::NodeId>& unit : units) {
      if (elapsed() >= options.budget_s || (stop && *stop)) break;
      // Candidates: the whole unit on each device it is not already all on.
      std::vector<int> targets;
      for (int d = 0; d < num_devices; ++d) {
        bool all_there = true;
        for (graph::NodeId id : unit) all_there &= r.device_of_node[id] == d;
        if (!all_there) targets.push_back(d);
      }
      std::vector<std::vector<int>> candidates(targets.size(), r.device_of_node);
      for (size_t j = 0; j < targets.size(); ++j) {
        for (graph::NodeId id : unit) candidates[j][id] = targets[j];
      }
      const std::vector<Evaluation> results = EvaluateAll(reward, candidates);
      r.evaluated += static_cast<int>(targets.size());
      int best = -1;
      for (size_t j = 0; j < targets.size(); ++j) {
        if (results[j].status.ok() && results[j].step_s < r.step_s * (1 - 1e-9) &&
            (best < 0 || results[j].step_s < results[best].step_s)) {
          best = static_cast<int>(j);
        }
      }
      if (best >= 0) {
        r.device_of_node = std::move(candidates[best]);
        r.step_s = results[best].step_s;
        ++r.kept;
        improved = true;
      }
    }
  }
  r.seconds = elapsed();
  return r;
}

}  // namespace planner
