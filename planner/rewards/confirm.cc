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

// Measures the placements of `ran`'s entries `which` `options.rounds` more
// times, each round starting one later, and gives every entry holding one of
// them its median (and `memo`). Returns each one's times, its draw first.
std::vector<ConfirmedTimes> MeasureAgain(const RewardSource& hardware, const ConfirmOptions& options,
                                         const std::vector<size_t>& which,
                                         std::vector<Measurement>* ran,
                                         const RememberingReward* memo) {
  std::vector<ConfirmedTimes> out;
  for (size_t k : which) out.push_back({(*ran)[k].method, {(*ran)[k].evaluation.step_s}});
  for (int r = 0; r < options.rounds; ++r) {
    for (size_t j = 0; j < which.size(); ++j) {
      if (options.stop && *options.stop) break;
      const size_t k = (j + r) % which.size();
      const Evaluation e = hardware.Evaluate((*ran)[which[k]].device_of_node);
      if (e.status.ok()) out[k].step_s.push_back(e.step_s);
    }
  }
  for (size_t k = 0; k < which.size(); ++k) {
    const std::vector<int> placement = (*ran)[which[k]].device_of_node;
    Evaluation confirmed = (*ran)[which[k]].evaluation;
    confirmed.step_s = sim::Median(out[k].step_s);
    if (memo) memo->Replace(placement, confirmed);
    for (Measurement& m : *ran) {
      if (m.device_of_node == placement) m.evaluation = confirmed;
    }
  }
  return out;
}

}  // namespace

std::vector<ConfirmedTimes> ConfirmFastest(const RewardSource& hardware,
                                           const ConfirmOptions& options,
                                           std::vector<Measurement>* ran,
                                           const RememberingReward* memo) {
  const std::vector<size_t> order = FastestDistinct(*ran, options.fastest);
  if (order.size() < 2 || options.rounds <= 0) return {};
  std::vector<ConfirmedTimes> out = MeasureAgain(hardware, options, order, ran, memo);
  std::vector<std::vector<int>> confirmed;
  for (size_t k : order) confirmed.push_back((*ran)[k].device_of_node);
  // The medians of lucky first draws can rise above a placement measured once:
  // then that one is the fastest on one draw, and is measured again too, until
  // the fastest is a median.
  for (;;) {
    if (options.stop && *options.stop) break;
    const size_t fastest = FastestDistinct(*ran, 1).front();
    const std::vector<int>& placement = (*ran)[fastest].device_of_node;
    if (std::find(confirmed.begin(), confirmed.end(), placement) != confirmed.end()) break;
    confirmed.push_back(placement);
    out.push_back(MeasureAgain(hardware, options, {fastest}, ran, memo).front());
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
