#include "planner/rewards/confirm.h"

#include <algorithm>
#include <cstdio>

#include "graph/duration.h"
#include "sim/statistics.h"

namespace planner::rewards {

namespace {

// The first entry of each distinct ok placement, fastest first by its draw,
// at most `fastest` of them.
std::vector<size_t> FastestDistinct(const std::vector<Measurement>& ran, size_t fastest) {
  std::vector<size_t> order;
  for (size_t i = 0; i < ran.size(); ++i) {
    if (!ran[i].evaluation.status.ok()) continue;
    bool seen = false;
    for (size_t j : order) seen |= ran[j].device_of_node == ran[i].device_of_node;
    if (!seen) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ran[a].evaluation.step_s < ran[b].evaluation.step_s;
  });
  if (order.size() > fastest) order.resize(fastest);
  return order;
}

}  // namespace

std::vector<ConfirmedTimes> ConfirmFastest(const RewardSource& hardware,
                                           const ConfirmOptions& options,
                                           std::vector<Measurement>* ran,
                                           const RememberingReward* memo) {
  const std::vector<size_t> order = FastestDistinct(*ran, options.fastest);
  if (order.size() < 2 || options.rounds <= 0) return {};
  std::vector<ConfirmedTimes> out;
  for (size_t k : order) out.push_back({(*ran)[k].method, {(*ran)[k].evaluation.step_s}});
  for (int r = 0; r < options.rounds; ++r) {
    for (size_t j = 0; j < order.size(); ++j) {
      if (options.stop && *options.stop) break;
      const size_t k = (j + r) % order.size();
      const Evaluation e = hardware.Evaluate((*ran)[order[k]].device_of_node);
      if (e.status.ok()) out[k].step_s.push_back(e.step_s);
    }
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const std::vector<int> placement = (*ran)[order[k]].device_of_node;
    Evaluation confirmed = (*ran)[order[k]].evaluation;
    confirmed.step_s = sim::Median(out[k].step_s);
    if (memo) memo->Replace(placement, confirmed);
    for (Measurement& m : *ran) {
      if (m.device_of_node == placement) m.evaluation = confirmed;
    }
  }
  return out;
}

std::string DescribeConfirmed(int rounds, const std::vector<ConfirmedTimes>& times) {
  std::string said;
  for (const ConfirmedTimes& t : times) {
    const auto [lo, hi] = std::minmax_element(t.step_s.begin(), t.step_s.end());
    char range[64];
    std::snprintf(range, sizeof range, " [%.3f..%.3f]", 1e3 * *lo, 1e3 * *hi);
    said += (said.empty() ? "" : ", ") + t.method + " " + graph::FormatMs(sim::Median(t.step_s)) +
            range;
  }
  char head[128];
  std::snprintf(head, sizeof head,
                "  measured again (%d rounds, the %zu fastest; median [range] of each one's %zu): ",
                rounds, times.size(), times.front().step_s.size());
  return head + said;
}

}  // namespace planner::rewards
