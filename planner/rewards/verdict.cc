#include "planner/rewards/verdict.h"

#include <cmath>
#include <cstdio>

#include "sim/statistics.h"

namespace planner::rewards {

namespace {
Verdict Failed(const graph::Status& st) {
  Verdict v;
  v.status = st;
  return v;
}
}  // namespace

Verdict CompareOnHardware(const RewardSource& reward, const std::vector<int>& candidate,
                          const std::vector<int>& incumbent, const VerdictOptions& options,
                          const volatile std::sig_atomic_t* stop) {
  Verdict v;
  std::vector<double> ratio;
  for (int round = 0; round < options.rounds && !(stop && *stop); ++round) {
    const bool candidate_first = round % 2 == 0;
    Evaluation first = reward.Evaluate(candidate_first ? candidate : incumbent);
    if (!first.status.ok()) return Failed(first.status);
    Evaluation second = reward.Evaluate(candidate_first ? incumbent : candidate);
    if (!second.status.ok()) return Failed(second.status);
    const double c = candidate_first ? first.step_s : second.step_s;
    const double i = candidate_first ? second.step_s : first.step_s;
    v.candidate_s.push_back(c);
    v.incumbent_s.push_back(i);
    ratio.push_back(c / i);
    ++v.rounds;
  }
  if (v.rounds == 0) return v;
  v.median_ratio = sim::Median(ratio);
  v.have_interval = sim::MedianInterval(ratio, 1 - 2 * options.alpha, &v.ratio_lo, &v.ratio_hi);
  std::vector<double> log_ratio;
  for (double r : ratio) log_ratio.push_back(std::log(r));
  v.p_value = sim::WilcoxonLessP(log_ratio);
  v.significant = v.p_value < options.alpha && v.median_ratio < 1;
  return v;
}

graph::Status CheckVerdictOptions(const VerdictOptions& options) {
  if (options.rounds >= sim::WilcoxonFewestPairs(options.alpha)) return graph::Status::Ok();
  char line[256];
  std::snprintf(line, sizeof line,
                "--rounds %d can never reach --significance %g: the smallest p-value %d rounds "
                "can give is %g (at least %d rounds)",
                options.rounds, options.alpha, options.rounds, std::ldexp(1.0, -options.rounds),
                sim::WilcoxonFewestPairs(options.alpha));
  return graph::InvalidArgument(line);
}

std::string DescribeVerdict(const Verdict& v, const std::string& incumbent,
                            const VerdictOptions& options) {
  char detail[256];
  char interval[96] = "";
  if (v.have_interval) {
    std::snprintf(interval, sizeof interval, ", %.0f%% interval %.3f-%.3f",
                  100 * (1 - 2 * options.alpha), v.ratio_lo, v.ratio_hi);
  }
  std::snprintf(detail, sizeof detail,
                "median ratio %.3f%s, Wilcoxon p = %.3g over %d interleaved rounds", v.median_ratio,
                interval, v.p_value, v.rounds);
  char head[128];
  if (v.significant) {
    std::snprintf(head, sizeof head, "%.1f%% faster than %s", 100 * (1 - v.median_ratio),
                  incumbent.c_str());
  } else {
    std::snprintf(head, sizeof head, "no significant improvement over %s (at p < %g)",
                  incumbent.c_str(), options.alpha);
  }
  return std::string(head) + " (" + detail + ")";
}

}  // namespace planner::rewards
