#include "planner/job/recalibration.h"

#include <cmath>
#include <set>

#include "sim/statistics.h"

namespace planner::job {

const char* RefitName(Refit r) {
  switch (r) {
    case Refit::kNone:
      return "profile as made";
    case Refit::kOpTimes:
      return "op times refitted";
    case Refit::kSharing:
      return "op times and sharing refitted";
  }
  return "?";
}

void Recalibration::Observe(const graph::Graph& executed, const sim::StepStats& step) {
  if (step.replayed || step.ops.empty()) return;
  std::set<int> used;
  for (const sim::OpRecord& r : step.ops) used.insert(r.device);
  for (int d : used) {
    if (cluster_.devices[d].kind != cluster::DeviceKind::kCpu) return;
  }
  if (used.size() == 1) {
    op_times_.AddStep(executed, cluster_, *used.begin(), step);
    sharing_.AddStep(executed, cluster_, *used.begin(), step);
    ++single_;
  } else {
    sharing_.AddSharedStep(executed, cluster_, step);
    ++shared_;
  }
}

sim::Profile Recalibration::Refitted(const sim::Profile& base, Refit how) const {
  sim::Profile refitted = base;
  if (how == Refit::kOpTimes) op_times_.Finish(&refitted);
  if (how == Refit::kSharing) sharing_.Finish(&refitted);
  return refitted;
}

RefitChoice ChooseRefit(const Recalibration& r, const sim::Profile& base,
                        const std::vector<std::pair<std::vector<int>, double>>& measured,
                        const MakeSimulator& make_sim) {
  RefitChoice out;
  out.placements = static_cast<int>(measured.size());
  out.profile = base;
  double best = -1;
  for (Refit how : {Refit::kNone, Refit::kOpTimes, Refit::kSharing}) {
    sim::Profile p = r.Refitted(base, how);
    std::vector<double> errors;
    {
      auto simulator = make_sim(p);  // refers to p: gone before p moves
      if (!simulator.ok()) continue;
      for (const auto& [placement, step_s] : measured) {
        const rewards::Evaluation e = (*simulator)->Evaluate(placement);
        if (e.status.ok() && step_s > 0) errors.push_back(std::fabs(e.step_s - step_s) / step_s);
      }
    }
    if (errors.size() != measured.size() || errors.empty()) continue;
    const double median = sim::Median(errors);
    out.median_error[static_cast<int>(how)] = median;
    if (best < 0 || median < best) {
      best = median;
      out.chosen = how;
      out.profile = std::move(p);
    }
  }
  return out;
}

}  // namespace planner::job
