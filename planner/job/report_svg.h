// The picture of a search (SVG): the reward curve (each update's mean step time
// and the best so far, against the best baseline) above the best placement's
// timeline, one row per device, ops coloured by op type, transfers as thin bars.
// Thread safety: a pure function.
#pragma once

#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "sim/timeline.h"

namespace planner {

struct CurvePoint {
  int iteration;
  double mean_step_s;  // of the update's placements that ran (failed ones left out); 0: none ran
  double best_step_s;  // best so far, baselines included
};

std::string SearchReportSvg(const std::string& title, const std::vector<CurvePoint>& curve,
                            double best_baseline_s, const graph::Graph& g,
                            const cluster::Cluster& c, const sim::StepStats& best_timeline);

}  // namespace planner
