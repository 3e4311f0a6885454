#include "trainer/tuner.h"

#include <cassert>
#include <cmath>
#include <cstdio>

namespace trainer {

double ImplicitMomentum(int groups) { return 1.0 - 1.0 / groups; }

std::vector<int> GroupChoices(int ranks) {
  std::vector<int> g;
  for (int k = 1; k < ranks; k *= 2) g.push_back(k);
  g.push_back(ranks);
  return g;
}

std::vector<TuneConfig> Candidates(int ranks, const TunerOptions& o) {
  std::vector<TuneConfig> out;
  for (int g : GroupChoices(ranks)) {
    double ceiling = std::max(0.0, o.total_momentum - ImplicitMomentum(g)) + 0.05;
    for (double mu : o.momenta) {
      if (mu > ceiling) continue;
      for (double lr : o.learning_rates) out.push_back({g, lr, mu});
    }
  }
  return out;
}

double SecondsPerUnitLoss(const Probe& p) {
  const double inf = std::numeric_limits<double>::infinity();
  if (!p.ok || p.steps < 2 || !std::isfinite(p.first_loss) || !std::isfinite(p.final_loss)) {
    return inf;
  }
  double rate = p.base_loss > 0 ? (p.base_loss - p.final_loss) / (0.75 * p.steps)
                                : (p.first_loss - p.final_loss) / (p.steps / 2.0);
  return rate > 0 ? p.step_s / rate : inf;
}

Probe MakeProbe(const TuneConfig& config, double step_s, const std::vector<double>& losses,
                double base_loss) {
  const size_t n = losses.size(), half = n / 2;
  assert(n >= 2);
  double sums[2] = {0, 0};
  for (size_t s = 0; s < n; ++s) sums[s >= half] += losses[s];
  return Probe{
      config,   true, step_s, sums[0] / half, sums[1] / (n - half), static_cast<int64_t>(n),
      base_loss};
}

int ChooseProbe(const std::vector<Probe>& probes) {
  int best = -1;
  for (size_t i = 0; i < probes.size(); ++i) {
    double s = SecondsPerUnitLoss(probes[i]);
    if (std::isfinite(s) && (best < 0 || s < SecondsPerUnitLoss(probes[best]))) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

std::string Describe(const TuneConfig& c) {
  char b[128];
  std::snprintf(b, sizeof b, "groups %d (%s), lr %g, momentum %g", c.groups,
                c.groups == 1 ? "sync" : "async", c.learning_rate, c.momentum);
  return b;
}

}  // namespace trainer
