// The simulator's error against real runs, on the local two-CPU-device machine,
// for the placements users meet: for every model of bench_models.h (the zoo's
// small models and every model of models/tfjs), every op on cpu0, every op on
// cpu1, the etf, metis and scotch baselines, two random placements, and the
// placement a search on the simulator finds (the hill climb, planner/refine/refine.h,
// from the best of the others). Prints each placement's measured and simulated
// step, then per model and per group the median and 90th percentile of
// |error| and Kendall's tau within the model; then, on the same measurements,
// the ablations: the simulator's previous model of sharing the host, and op
// times estimated the two other ways of runtime::OpTime.
//
// Protocol: this machine's speed drifts by tens of percent over seconds to
// minutes, so everything is interleaved: each round runs one step of every
// placement of every model, in turn; the single-device steps of the rounds are
// the op profile, as planner profile builds it. Measured: the median over the
// rounds, with the sign test's 95% interval.
//
// Calibration: what the simulator knows of the machine beyond op times (the
// links as the executor's copies pay them, the hand-off to a polling worker,
// a cpu's slowdown and per-op time while the other is awake) is measured on
// the calibration models only, from steps with their ops alternating between
// the cpus, as planner profile does; the costs of waking a sleeping worker
// come from runtime::ProfileLinks' microbenchmarks. The models held out
// (--held-out) contribute nothing but their own op times, as a new model
// profiled on an already profiled machine does, and are reported apart.
//
// Kendall's tau: over pairs of placements of one model. "tau" compares the
// medians; "tau resolved" only the pairs whose order the hardware resolves
// (the sign test's 95% interval of their paired per-round differences
// excludes zero): (concordant - discordant) / pairs resolved, a pair the
// simulator ties counting against it. Pairs the measurement cannot order say
// nothing about the simulator. "The hardware against itself": tau-b between
// the medians of the even and of the odd rounds, the agreement the machine's
// own noise leaves two measurements of the same placements; a simulator
// cannot be expected to rank a model's placements much better than that (each
// half has half the rounds, so this understates how well the full medians
// repeat).
//
//   sim_accuracy [--rounds R] [--models DIR] [--only A,B] [--held-out A,B]
//                [--spin DURATION] [--search SECONDS] [--diff N]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "bench/bench_models.h"
#include "placement/placement.h"
#include "planner/baselines/baselines.h"
#include "planner/refine/refine.h"
#include "planner/sources/registry.h"
#include "runtime/executor.h"
#include "runtime/measure.h"
#include "runtime/profiler.h"
#include "sim/simulator.h"
#include "sim/statistics.h"
#include "sim/timeline_diff.h"

namespace {

struct Options {
  int rounds = 9;
  int warmup = 2;
  std::string models_dir = "models/tfjs";  // run from the repository root
  std::vector<std::string> only;
  // The models added to the repository after the simulator's last tuning
  // (issue "every real model trains"): none of them was looked at while it was.
  std::vector<std::string> held_out = {
      "age",    "centernet", "facemesh", "facemesh-attention", "facemesh-detection-full",
      "gender", "nanodet"};
  std::string spin;     // cpu devices' spin; empty: the devices file's default
  double search_s = 2;  // hill climb per model, on the planning profile
  int diff = 0;         // timeline diffs of the N placements with the largest |error|
};

struct Placed {
  int model = 0;
  std::string name;
  std::vector<int> forward_device;
  std::vector<int> device_of_node;  // of the training graph
  std::unique_ptr<runtime::Executor> ex;
  std::vector<double> measured;  // seconds, one per timed round
  double simulated = 0;
  double simulated_warm = 0;   // by the previous model of sharing the host (an ablation)
  double simulated_other = 0;  // by one of the other ablations, in turn
  int single = -1;             // the device of a single-device placement
};

bool HeldOut(const Options& o, const std::string& name) {
  return std::find(o.held_out.begin(), o.held_out.end(), name) != o.held_out.end();
}

[[noreturn]] void Die(const std::string& what, const graph::Status& st) {
  std::fprintf(stderr, "sim_accuracy: %s: %s\n", what.c_str(), st.message().c_str());
  std::exit(1);
}

graph::Status Step(runtime::Executor& ex, const std::map<std::string, at::Tensor>& feeds,
                   const std::string& fetch, sim::StepStats* stats) {
  std::vector<at::Tensor> out;
  return ex.Run(feeds, {fetch}, &out, stats);
}

// A quick profile to plan the placements on: a few single-device steps.
sim::Profile PlanningProfile(const bench::Model& m, const cluster::Cluster& c,
                             const sim::Profile& machine,
                             const std::map<std::string, at::Tensor>& feeds) {
  runtime::ProfileBuilder b;
  for (int d = 0; d < 2; ++d) {
    auto ex = runtime::Executor::Create(m.training.graph, c,
                                        std::vector<int>(m.training.graph.size(), d));
    if (!ex.ok()) Die(m.name, ex.status());
    for (int i = 0; i < 4; ++i) {
      sim::StepStats s;
      graph::Status st = Step(**ex, feeds, m.training.loss, &s);
      if (!st.ok()) Die(m.name, st);
      if (i >= 1) b.AddStep((*ex)->graph(), c, d, s);
    }
  }
  sim::Profile p = machine;
  b.Finish(&p);
  return p;
}

// The placements of one model, named; duplicates of an earlier one are dropped.
std::vector<std::pair<std::string, std::vector<int>>> PlanPlacements(const bench::Model& m,
                                                                     const cluster::Cluster& c,
                                                                     const sim::Profile& p,
                                                                     double search_s) {
  const int n = m.forward.size();
  std::vector<std::pair<std::string, std::vector<int>>> out;
  auto add = [&](const std::string& name, std::vector<int> d) {
    for (const auto& [other, e] : out) {
      if (e == d) {
        std::printf("  (%s: %s is the same placement as %s)\n", m.name.c_str(), name.c_str(),
                    other.c_str());
        return;
      }
    }
    out.push_back({name, std::move(d)});
  };
  add("single cpu0", std::vector<int>(n, 0));
  add("single cpu1", std::vector<int>(n, 1));
  auto sim = sim::Simulator::Create(m.training.graph, c, &p);
  if (!sim.ok()) Die(m.name, sim.status());
  for (const char* method : {"etf", "metis", "scotch"}) {
    auto b = planner::baselines::MakeBaseline(method, m.forward, c, &*sim);
    if (!b.ok()) Die(m.name + " " + method, b.status());
    add(method, b->device_of_node);
  }
  for (uint32_t seed = 1; seed <= 2; ++seed) {
    std::mt19937 rng(seed);
    std::vector<int> d(n);
    for (int& x : d) x = static_cast<int>(rng() & 1);
    add("random " + std::to_string(seed), d);
  }
  planner::rewards::RewardContext context{&m.forward, &m.training, &c, &p};
  auto reward = planner::sources::MakeRewardSource("sim", context);
  if (!reward.ok()) Die(m.name, reward.status());
  size_t best = 0;
  double best_s = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    planner::rewards::Evaluation e = (*reward)->Evaluate(out[i].second);
    if (e.status.ok() && (best_s == 0 || e.step_s < best_s)) {
      best = i;
      best_s = e.step_s;
    }
  }
  planner::refine::RefineOptions ro;
  ro.budget_s = search_s;
  planner::refine::RefineResult r =
      planner::refine::Refine(m.forward, 2, **reward, out[best].second, best_s, ro, nullptr);
  add("searched", r.device_of_node);
  return out;
}

// A profile with no op times: the machine's figures fitted on the calibration
// models (`fitted`), the wake-up costs of the microbenchmarks (`machine`).
sim::Profile MachineFigures(const sim::Profile& fitted, const sim::Profile& machine) {
  sim::Profile p;
  p.links = fitted.links;
  p.slowdown = fitted.slowdown;
  p.cold_s = fitted.cold_s;
  p.dispatch_shared_s = fitted.dispatch_shared_s;
  p.dispatch_cross_s = fitted.dispatch_cross_s;
  p.poll_s = fitted.poll_s;
  p.wakeup_s = machine.wakeup_s;
  p.notify_s = machine.notify_s;
  return p;
}

// +1 / -1: the hardware says a is slower / faster than b (paired rounds);
// 0: it cannot tell.
int Resolved(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d;
  for (size_t r = 0; r < a.size() && r < b.size(); ++r) d.push_back(a[r] - b[r]);
  double lo = 0, hi = 0;
  if (!sim::MedianInterval(d, 0.95, &lo, &hi)) return 0;
  return lo > 0 ? 1 : hi < 0 ? -1 : 0;
}

struct Agreement {
  double tau = 0;           // Kendall's tau-b of the medians
  double tau_resolved = 1;  // over the resolved pairs
  double self_tau = 0;      // the hardware against itself: even rounds' medians against odd's
  int pairs = 0, resolved = 0;
};

// Kendall's tau-b between two rankings of the same items.
double TauB(const std::vector<double>& x, const std::vector<double>& y) {
  double c = 0, d = 0, tx = 0, ty = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    for (size_t j = i + 1; j < x.size(); ++j) {
      const double a = x[i] - x[j], b = y[i] - y[j];
      if (a == 0 && b != 0) ++tx;
      if (b == 0 && a != 0) ++ty;
      if (a != 0 && b != 0) ((a > 0) == (b > 0) ? c : d) += 1;
    }
  }
  const double denom = std::sqrt((c + d + tx) * (c + d + ty));
  return denom > 0 ? (c - d) / denom : 0;
}

// The median of the rounds r with r % 2 == parity.
double HalfMedian(const std::vector<double>& rounds, size_t parity) {
  std::vector<double> half;
  for (size_t r = parity; r < rounds.size(); r += 2) half.push_back(rounds[r]);
  return bench::Median(half);
}

Agreement Agree(const std::vector<const Placed*>& ps, double Placed::*simulated) {
  Agreement a;
  std::vector<double> measured, predicted, even, odd;
  for (const Placed* p : ps) {
    measured.push_back(bench::Median(p->measured));
    predicted.push_back(p->*simulated);
    even.push_back(HalfMedian(p->measured, 0));
    odd.push_back(HalfMedian(p->measured, 1));
  }
  a.tau = TauB(measured, predicted);
  a.self_tau = TauB(even, odd);
  double rc = 0, rd = 0, rt = 0;
  for (size_t i = 0; i < ps.size(); ++i) {
    for (size_t j = i + 1; j < ps.size(); ++j) {
      ++a.pairs;
      const int r = Resolved(ps[i]->measured, ps[j]->measured);
      if (r == 0) continue;
      ++a.resolved;
      const double y = predicted[i] - predicted[j];
      if (y == 0) {
        ++rt;
      } else {
        ((r > 0) == (y > 0) ? rc : rd) += 1;
      }
    }
  }
  if (a.resolved > 0) a.tau_resolved = (rc - rd) / (rc + rd + rt);
  return a;
}

constexpr double kTauTarget = 0.85;  // the issue's mark for tau within every model

struct Summary {
  double median = 0, p90 = 0, worst_tau = 1, worst_tau_resolved = 1, worst_self_tau = 1;
  int placements = 0, models = 0;
  int reaching = 0, self_reaching = 0;  // models whose tau, and self tau, reach kTauTarget
};

Summary Summarize(const std::vector<double>& errors, const std::vector<Agreement>& agreements) {
  Summary s;
  s.median = bench::Median(errors);
  s.p90 = bench::Quantile(errors, 0.9);
  s.placements = static_cast<int>(errors.size());
  s.models = static_cast<int>(agreements.size());
  for (const Agreement& a : agreements) {
    s.worst_tau = std::min(s.worst_tau, a.tau);
    s.worst_tau_resolved = std::min(s.worst_tau_resolved, a.tau_resolved);
    s.worst_self_tau = std::min(s.worst_self_tau, a.self_tau);
    s.reaching += a.tau >= kTauTarget;
    s.self_reaching += a.self_tau >= kTauTarget;
  }
  return s;
}

const frontend::CommandSpec kSpec{
    "sim_accuracy",
    "[--rounds R] [--only A,B] [--held-out A,B] [--spin D] [--search S] [--diff N]",
    "The simulator's error against measured steps on the local two CPUs: every model, its\n"
    "single-device, baseline and climbed placements, interleaved rounds (docs/simulator.md).",
    {},
    bench::ModelFlags(
        {{"--rounds", "R", "timed rounds per placement, at least 6 (default 9)"},
         {"--held-out", "A,B,...", "models kept out of calibration"},
         {"--search", "SECONDS", "hill climb per model (default 2)"},
         {"--diff", "N", "timeline diffs of the N placements with the largest |error|"}}),
    /*program=*/""};

// The options; exits on --help or a usage error.
Options Parse(int argc, char** argv) {
  const frontend::Args args = frontend::ParseProgramArgs(kSpec, argc, argv);
  Options o;
  frontend::TypedFlags flags(args);
  o.rounds = flags.Int("--rounds", o.rounds, 6, 10000);
  o.search_s = flags.Number("--search", o.search_s, 0, 3600);
  o.diff = flags.Int("--diff", o.diff, 0, 100000);
  if (!flags.status().ok()) std::exit(frontend::UsageError(kSpec, flags.status()));
  o.models_dir = args.Get("--models", o.models_dir);
  o.only = bench::SplitCommas(args.Get("--only"));
  if (args.Has("--held-out")) o.held_out = bench::SplitCommas(args.Get("--held-out"));
  o.spin = args.Get("--spin");
  return o;
}

// The whole run, in the order main calls its steps. Each step dies (Die) on an
// error: a benchmark that cannot measure prints why and stops.
class Accuracy {
 public:
  Accuracy(const Options& o, cluster::Cluster c, std::vector<bench::Model> models)
      : o_(o),
        c_(std::move(c)),
        models_(std::move(models)),
        ops_(models_.size()),
        alternating_(models_.size()),
        sims_(models_.size()),
        warm_sims_(models_.size()) {}

  // Hand-off costs and a first link fit: the machine, measured once.
  void ProfileMachine() {
    std::printf("cpu devices poll for %.0f us before their workers sleep\n",
                c_.devices[0].spin_s * 1e6);
    if (auto links = runtime::ProfileLinks(c_, &machine_); !links.ok())
      Die("links", links.status());
    for (const std::string d : {"cpu0", "cpu1"}) {
      std::printf(
          "%s: handed an op, starts after %.1f us polling, %.1f us asleep; waking it "
          "costs the hander %.1f us\n",
          d.c_str(), machine_.poll_s[d] * 1e6, machine_.wakeup_s[d] * 1e6,
          machine_.notify_s[d] * 1e6);
    }
  }

  // Each model's placements to measure, with their executors, and for the
  // calibration models an alternating placement (the links as the executor's
  // copies pay them).
  void PlaceAll() {
    for (size_t k = 0; k < models_.size(); ++k) {
      const bench::Model& m = models_[k];
      auto f = runtime::RandomFeeds(m.training.graph, 1);
      if (!f.ok()) Die(m.name, f.status());
      feeds_.push_back(std::move(f).value());
      const sim::Profile planning = PlanningProfile(m, c_, machine_, feeds_[k]);
      for (auto& [name, fwd] : PlanPlacements(m, c_, planning, o_.search_s)) {
        Placed p;
        p.model = static_cast<int>(k);
        p.name = name;
        p.forward_device = fwd;
        p.device_of_node = placement::TrainingDeviceOfNode(m.training.graph, m.forward, fwd);
        if (name == "single cpu0") p.single = 0;
        if (name == "single cpu1") p.single = 1;
        auto ex = runtime::Executor::Create(m.training.graph, c_, p.device_of_node);
        if (!ex.ok()) Die(m.name + " " + name, ex.status());
        p.ex = std::move(ex).value();
        placed_.push_back(std::move(p));
      }
      if (HeldOut(o_, m.name)) continue;
      std::vector<int> alt(m.training.graph.size());
      const std::vector<graph::NodeId>& topo = m.training.graph.topological_order();
      for (size_t i = 0; i < topo.size(); ++i) alt[topo[i]] = static_cast<int>(i % 2);
      auto ex = runtime::Executor::Create(m.training.graph, c_, alt);
      if (!ex.ok()) Die(m.name, ex.status());
      alternating_[k] = std::move(ex).value();
    }
  }

  // Every placement's steps, round by round, interleaved across placements.
  void MeasureRounds() {
    for (int r = 0; r < o_.warmup + o_.rounds; ++r) {
      const bool timed = r >= o_.warmup;
      for (size_t k = 0; k < models_.size(); ++k) MeasureModel(k, timed);
    }
  }

  // The machine's figures from the calibration models, then each model's
  // profile; and the ablation: the simulator's previous model of sharing the
  // host, fitted to the same steps.
  void Calibrate() {
    calibration_ = machine_;
    for (size_t k = 0; k < models_.size(); ++k) {
      if (!HeldOut(o_, models_[k].name)) ops_[k].Finish(&calibration_);
    }
    machine_steps_.Finish(&calibration_);
    PrintCalibration();
    sim::Profile warm = calibration_;
    warm.cold_s.clear();
    warm.dispatch_cross_s.clear();
    machine_steps_.set_previous_model(true);
    machine_steps_.Finish(&warm);
    for (size_t k = 0; k < models_.size(); ++k) {
      sims_[k] = ModelSimulator(k, calibration_);
      warm_sims_[k] = ModelSimulator(k, warm);
    }
  }

  // Each placement measured against simulated, per model and per group.
  void PrintTable() {
    std::printf("\n%-26s %-12s %12s %19s %12s %8s\n", "model", "placement", "measured ms",
                "95% interval", "simulated ms", "error");
    std::vector<double> errors[2];
    std::vector<Agreement> agreements[2];
    for (size_t k = 0; k < models_.size(); ++k) {
      const int group = HeldOut(o_, models_[k].name) ? 1 : 0;
      agreements[group].push_back(PrintModel(k, &errors[group]));
    }
    std::printf(
        "\n%d rounds (+%d warm-up), interleaved; targets: median |error| <= 5%%, p90 <= "
        "15%%, tau >= 0.85 within every model\n",
        o_.rounds, o_.warmup);
    for (int g = 0; g < 2; ++g) {
      if (errors[g].empty()) continue;
      const Summary s = Summarize(errors[g], agreements[g]);
      PrintSummary(g, s);
      std::printf(
          "%-12s tau >= %.2f in %d of %d models; the hardware against itself (even rounds' "
          "medians against odd's) in %d, lowest %.3f\n",
          "", kTauTarget, s.reaching, s.models, s.self_reaching, s.worst_self_tau);
    }
    PrintSingleBias(&Placed::simulated);
  }

  // The ablations' figures on the same measurements: the previous model of
  // sharing the host, then op times estimated otherwise (runtime::OpTime),
  // everything refitted.
  void PrintAblations() {
    PrintAblation(
        "the previous model of sharing the host (no cold kernels or cross-device dispatch, "
        "median poll)",
        &Placed::simulated_warm);
    machine_steps_.set_previous_model(false);
    for (const runtime::OpTime op_time : {runtime::OpTime::kMean, runtime::OpTime::kStepMedian}) {
      SimulateWithOpTime(op_time);
      PrintAblation(op_time == runtime::OpTime::kMean
                        ? "op times as the mean over every step (--op-time mean)"
                        : "op times as each step's mean, the median over every step (--op-time "
                          "step-median)",
                    &Placed::simulated_other);
    }
    for (runtime::ProfileBuilder& b : ops_) b.set_op_time(runtime::OpTime::kSteadyMean);
  }

  // Where the worst predictions depart from a fresh measured step.
  void PrintDiffs() {
    std::vector<Placed*> worst;
    for (Placed& p : placed_) worst.push_back(&p);
    std::sort(worst.begin(), worst.end(), [](const Placed* a, const Placed* b) {
      return std::fabs(a->simulated / bench::Median(a->measured) - 1) >
             std::fabs(b->simulated / bench::Median(b->measured) - 1);
    });
    for (int i = 0; i < o_.diff && i < static_cast<int>(worst.size()); ++i) {
      Placed& p = *worst[i];
      const bench::Model& m = models_[p.model];
      sim::StepStats real;
      (void)Step(*p.ex, feeds_[p.model], m.training.loss, &real);
      sim::SimResult r = sims_[p.model]->Run(p.device_of_node, Fetch(m));
      std::printf(
          "\n%s, %s:\n%s", m.name.c_str(), p.name.c_str(),
          sim::FormatTimelineDiff(sims_[p.model]->graph(), c_,
                                  sim::DiffTimelines(sims_[p.model]->graph(), c_, real, r.step))
              .c_str());
    }
  }

 private:
  static graph::NodeId Fetch(const bench::Model& m) {
    return m.training.graph.Find(m.training.loss);
  }

  void MeasureModel(size_t k, bool timed) {
    const bench::Model& m = models_[k];
    for (Placed& p : placed_) {
      if (p.model != static_cast<int>(k)) continue;
      sim::StepStats s;
      graph::Status st = Step(*p.ex, feeds_[k], m.training.loss, &s);
      if (!st.ok()) Die(m.name + " " + p.name, st);
      if (!timed) continue;
      p.measured.push_back(s.seconds);
      if (p.single >= 0) ops_[k].AddStep(p.ex->graph(), c_, p.single, s);
    }
    if (!alternating_[k]) return;
    sim::StepStats alt;
    graph::Status st = Step(*alternating_[k], feeds_[k], m.training.loss, &alt);
    if (!st.ok()) Die(m.name, st);
    if (timed) machine_steps_.AddSharedStep(alternating_[k]->graph(), c_, alt);
  }

  void PrintCalibration() {
    for (const std::string d : {"cpu0", "cpu1"}) {
      std::printf(
          "from the calibration models, %s while the other cpu is awake: kernels x%.3f, "
          "%.2f us per op outside them (alone %.2f us); handed an op while polling, "
          "starts after %.1f us\n",
          d.c_str(), calibration_.slowdown[d], calibration_.dispatch_shared_s[d] * 1e6,
          calibration_.dispatch_s[d] * 1e6, calibration_.poll_s[d] * 1e6);
      std::printf(
          "  %s: per op outside kernels in a split step, %.2f us more per cross-device edge per "
          "op\n",
          d.c_str(), calibration_.dispatch_cross_s[d] * 1e6);
      std::printf("  %s's kernels take more after idling, by idle time:%s\n", d.c_str(),
                  sim::DescribeColdBins(calibration_.cold_s[d]).c_str());
    }
    std::printf("copies cpu0->cpu1 %.2f us + %.1f GB/s\n",
                calibration_.links[{"cpu0", "cpu1"}].latency_s * 1e6,
                calibration_.links[{"cpu0", "cpu1"}].bandwidth_bytes_per_s / 1e9);
  }

  // Model k's simulator on the machine figures of `from` and its own op times.
  std::unique_ptr<sim::Simulator> ModelSimulator(size_t k, const sim::Profile& from) {
    sim::Profile p = MachineFigures(from, machine_);
    ops_[k].Finish(&p);
    auto sim = sim::Simulator::Create(models_[k].training.graph, c_, &p);
    if (!sim.ok()) Die(models_[k].name, sim.status());
    return std::make_unique<sim::Simulator>(std::move(sim).value());
  }

  // Simulates model k's placements; prints a row each and the model's line.
  Agreement PrintModel(size_t k, std::vector<double>* group_errors) {
    const bench::Model& m = models_[k];
    const bool held_out = HeldOut(o_, m.name);
    std::vector<double> model_errors;
    std::vector<const Placed*> of_model;
    for (Placed& p : placed_) {
      if (p.model != static_cast<int>(k)) continue;
      sim::SimResult r = sims_[k]->Run(p.device_of_node, Fetch(m));
      if (!r.status.ok()) Die(m.name + " " + p.name, r.status);
      p.simulated = r.step.seconds;
      sim::SimResult w = warm_sims_[k]->Run(p.device_of_node, Fetch(m));
      if (!w.status.ok()) Die(m.name + " " + p.name, w.status);
      p.simulated_warm = w.step.seconds;
      const double measured = bench::Median(p.measured), err = (p.simulated - measured) / measured;
      double lo = 0, hi = 0;
      sim::MedianInterval(p.measured, 0.95, &lo, &hi);
      std::printf("%-26s %-12s %12.3f %8.3f - %8.3f %12.3f %+7.1f%%\n",
                  (m.name + (held_out ? " (held out)" : "")).c_str(), p.name.c_str(),
                  measured * 1e3, lo * 1e3, hi * 1e3, p.simulated * 1e3, 100 * err);
      model_errors.push_back(std::fabs(err));
      group_errors->push_back(std::fabs(err));
      of_model.push_back(&p);
    }
    const Agreement a = Agree(of_model, &Placed::simulated);
    std::printf(
        "  %s: median |error| %.1f%%, p90 %.1f%%; tau %.3f; tau resolved %.3f (%d of %d "
        "pairs resolved); the hardware against itself %.3f\n",
        m.name.c_str(), 100 * bench::Median(model_errors), 100 * bench::Quantile(model_errors, 0.9),
        a.tau, a.tau_resolved, a.resolved, a.pairs, a.self_tau);
    return a;
  }

  static void PrintSummary(int group, const Summary& s) {
    const char* names[2] = {"calibration", "held out"};
    std::printf(
        "%-12s %3d placements of %2d models: median |error| %.1f%%, p90 %.1f%%; lowest "
        "tau within a model %.3f, lowest tau resolved %.3f\n",
        names[group], s.placements, s.models, 100 * s.median, 100 * s.p90, s.worst_tau,
        s.worst_tau_resolved);
  }

  // The single-device placements' median signed error: how far the profile's
  // op times sit from the rounds they were measured in.
  void PrintSingleBias(double Placed::*simulated) const {
    std::vector<double> single_signed;
    for (const Placed& p : placed_) {
      if (p.single >= 0) single_signed.push_back(p.*simulated / bench::Median(p.measured) - 1);
    }
    std::printf("%-12s single-device placements: median error (signed) %+.1f%%\n", "",
                100 * bench::Median(single_signed));
  }

  void PrintAblation(const char* what, double Placed::*simulated) const {
    std::printf("%s, on the same measurements:\n", what);
    for (int g = 0; g < 2; ++g) {
      std::vector<double> group_errors;
      std::vector<Agreement> group_agreements;
      for (size_t k = 0; k < models_.size(); ++k) {
        if ((HeldOut(o_, models_[k].name) ? 1 : 0) != g) continue;
        std::vector<const Placed*> of_model;
        for (const Placed& p : placed_) {
          if (p.model != static_cast<int>(k)) continue;
          group_errors.push_back(std::fabs(p.*simulated / bench::Median(p.measured) - 1));
          of_model.push_back(&p);
        }
        group_agreements.push_back(Agree(of_model, simulated));
      }
      if (!group_errors.empty()) PrintSummary(g, Summarize(group_errors, group_agreements));
    }
    PrintSingleBias(simulated);
  }

  // Every placement's simulated_other with op times estimated by `op_time`.
  void SimulateWithOpTime(runtime::OpTime op_time) {
    sim::Profile other = machine_;
    for (size_t k = 0; k < models_.size(); ++k) {
      ops_[k].set_op_time(op_time);
      if (!HeldOut(o_, models_[k].name)) ops_[k].Finish(&other);
    }
    machine_steps_.Finish(&other);
    for (size_t k = 0; k < models_.size(); ++k) {
      std::unique_ptr<sim::Simulator> sim = ModelSimulator(k, other);
      for (Placed& pl : placed_) {
        if (pl.model != static_cast<int>(k)) continue;
        sim::SimResult r = sim->Run(pl.device_of_node, Fetch(models_[k]));
        if (!r.status.ok()) Die(models_[k].name + " " + pl.name, r.status);
        pl.simulated_other = r.step.seconds;
      }
    }
  }

  const Options& o_;
  const cluster::Cluster c_;
  const std::vector<bench::Model> models_;
  sim::Profile machine_, calibration_;
  std::vector<std::map<std::string, at::Tensor>> feeds_;
  std::vector<Placed> placed_;
  std::vector<runtime::ProfileBuilder> ops_;
  runtime::ProfileBuilder machine_steps_;  // calibration models' alternating steps
  std::vector<std::unique_ptr<runtime::Executor>> alternating_;
  std::vector<std::unique_ptr<sim::Simulator>> sims_, warm_sims_;
};

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  auto c = bench::TwoCpus(o.spin);
  if (!c.ok()) Die("devices", c.status());
  auto loaded = bench::LoadModels(o.models_dir, o.only);
  if (!loaded.ok()) Die("models", loaded.status());
  Accuracy run(o, std::move(c).value(), std::move(loaded).value());
  run.ProfileMachine();
  run.PlaceAll();
  run.MeasureRounds();
  run.Calibrate();
  run.PrintTable();
  run.PrintAblations();
  if (o.diff > 0) run.PrintDiffs();
  return 0;
}
