// Omnivore's optimizer (Hadjis, Zhang, Mitliagkas, Iter and Re 2016), its model
// and choice; `trainer tune` runs the probes. Time to accuracy is modelled as
// time per iteration x iterations needed: each candidate configuration (compute
// groups, learning rate, explicit momentum) is run for a short probe from the
// same model on the same batches, its time per step measured (hardware
// efficiency) and its loss decrease per step (statistical efficiency) read as
// the drop of the probe's second-half loss below the untrained model's loss on
// those batches (base_loss), over the 3/4 of the probe its midpoint lies at
// (without a base, the drop from the first half to the second over half the
// probe); iterations to a fixed loss decrease are 1 / that rate, and the
// configuration with the least time per step / rate wins. Comparing against the
// same batches' untrained loss keeps mini-batch noise out of late-training
// probes, where the loss falls slower than it varies between batches.
//
// Asynchrony acts as implicit momentum, 1 - 1/groups (Mitliagkas et al. 2016),
// so the explicit momenta tried for g groups are those at most
// max(0, 0.9 - (1 - 1/g)) (with a tolerance): lowered as asynchrony rises.
// Thread safety: pure functions.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace trainer {

struct TuneConfig {
  int groups = 1;  // 1: synchronous (sync); more: async with that many groups
  double learning_rate = 0.01;
  double momentum = 0.9;
};

struct Probe {
  TuneConfig config;
  bool ok = false;        // the probe ran and reported
  double step_s = 0;      // training time per step
  double first_loss = 0;  // mean loss over the probe's first half
  double final_loss = 0;  // and over its second half
  int64_t steps = 0;
  // The starting model's mean loss on the second half's batches, not trained:
  // what the second half's loss would be without learning (0: unknown).
  double base_loss = 0;
};

struct TunerOptions {
  std::vector<double> learning_rates{0.1, 0.03, 0.01};
  std::vector<double> momenta{0.0, 0.3, 0.6, 0.9};
  double total_momentum = 0.9;  // explicit + implicit momentum aimed at
  int64_t probe_steps = 60;     // per probe (two logging windows of half each)
};

double ImplicitMomentum(int groups);

// 1, 2, 4, ... up to `ranks`, and `ranks` itself.
std::vector<int> GroupChoices(int ranks);

// Every configuration to probe for `ranks` ranks.
std::vector<TuneConfig> Candidates(int ranks, const TunerOptions& o);

// Estimated seconds per unit of loss decrease: step_s / rate; infinity for a
// probe that failed or whose loss did not fall (diverged or too small a rate).
double SecondsPerUnitLoss(const Probe& p);

// A probe of config from its per-step losses (at least 2): the first half is
// the first n/2 steps (rounded down), the second half the rest, the steps
// base_loss is measured on.
Probe MakeProbe(const TuneConfig& config, double step_s, const std::vector<double>& losses,
                double base_loss);

// The index of the probe with the least SecondsPerUnitLoss; -1 when none is finite.
int ChooseProbe(const std::vector<Probe>& probes);

// "groups 2 (async), lr 0.03, momentum 0.3"
std::string Describe(const TuneConfig& c);

}  // namespace trainer
