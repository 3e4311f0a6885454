// The picture of a search (SVG): the reward curve (each update's mean step time
// and the best so far, against the best baseline) above the result's timeline,
// one row per device, ops coloured by op type, transfers as thin bars.
//
// It tells the verdict's story: every figure says where it comes from. With
// real rewards the curve is the search's own measurements (the best so far is
// the luckiest of many noisy samples: biased low), the verdict's fresh
// interleaved rounds are drawn beside it as their medians, and the timeline is
// one more measured step; with sim rewards all are the simulator's predictions.
// Thread safety: a pure function.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "sim/timeline.h"

namespace planner::job {

struct CurvePoint {
  int iteration;
  double mean_step_s;  // of the update's placements that ran (failed ones left out); 0: none ran
  double best_step_s;  // best so far, baselines included
};

struct SearchReport {
  std::string title;
  std::string verdict;    // the hardware's verdict as printed; empty: none was asked
  bool measured = false;  // the curve's figures are measurements, not predictions
  std::vector<CurvePoint> curve;
  std::string baseline_method;  // the best baseline...
  double baseline_s = 0;        // ...as the search measured or predicted it
  // The verdict rounds' medians (measured), when its rounds ran: the search's
  // found placement (found_method) against the best baseline.
  std::string found_method;
  std::optional<double> verdict_found_s, verdict_baseline_s;
  std::string result_method;  // the result's method, and the step of its timeline
  sim::StepStats timeline;
  bool timeline_skipped = false;  // stopped by a signal: no step was measured after the search
};

std::string SearchReportSvg(const SearchReport& report, const graph::Graph& g,
                            const cluster::Cluster& c);

}  // namespace planner::job
