#include "planner/job/baseline_runs.h"

#include "placement/colocation.h"
#include "planner/baselines/baselines.h"
#include "planner/job/log.h"

namespace planner::job {

namespace {

bool Stopped(const BaselineRunOptions& o) { return o.stop && *o.stop; }

bool AnyOk(const std::vector<rewards::Measurement>& measured) {
  for (const rewards::Measurement& m : measured) {
    if (m.evaluation.status.ok()) return true;
  }
  return false;
}

}  // namespace

BaselineRuns RunBaselineMethods(const std::vector<std::string>& methods,
                                const graph::Graph& forward, const cluster::Cluster& c,
                                const sim::Simulator* costs, const rewards::RewardSource& reward,
                                const BaselineRunOptions& o) {
  BaselineRuns out;
  // Each method's placement as it runs: a model's colocated ops on their
  // group's device (a search that finds it again then compares equal).
  const std::vector<graph::NodeId> roots = placement::ColocationRoots(forward);
  for (size_t i = 0; i < methods.size(); ++i) {
    if (Stopped(o) && AnyOk(out.measured)) {  // a result to write is enough
      out.not_run.assign(methods.begin() + static_cast<long>(i), methods.end());
      std::string left;
      for (const std::string& m : out.not_run) left += (left.empty() ? "" : ", ") + m;
      Say(o.log, "  stopped by a signal: %s not run\n", left.c_str());
      break;
    }
    auto made = baselines::MakeBaseline(methods[i], forward, c, costs, o.stop);
    if (!made.ok()) {
      Say(o.log, "  %-16s skipped: %s\n", methods[i].c_str(), made.status().message().c_str());
      if (out.first_failure.ok()) out.first_failure = made.status();
      continue;
    }
    made->device_of_node = placement::Colocated(roots, std::move(made->device_of_node));
    rewards::Evaluation e = reward.Evaluate(made->device_of_node);
    Say(o.log, "%s\n", baselines::DescribeBaseline(*made, e).c_str());
    if (!e.status.ok() && out.first_failure.ok()) out.first_failure = e.status;
    out.measured.push_back({made->method, std::move(made->device_of_node), std::move(e)});
  }
  if (o.hardware && Stopped(o)) {  // the draws decide; said once
    if (out.not_run.empty()) {
      Say(o.log, "  stopped by a signal: none measured again, each one's draw decides\n");
    }
  } else if (o.hardware) {
    rewards::ConfirmOptions confirm;
    confirm.rounds = o.rounds;
    confirm.stop = o.stop;
    const auto times = rewards::ConfirmFastest(*o.hardware, confirm, &out.measured, o.memo);
    if (!times.empty()) Say(o.log, "%s\n", rewards::DescribeConfirmed(o.rounds, times).c_str());
    if (Stopped(o) && !times.empty()) {
      Say(o.log, "  stopped by a signal while measuring again: the medians of those measured\n");
    }
  }
  return out;
}

}  // namespace planner::job
