// The search job's phases (planner/job/search_session.h): the baselines, the
// policy's updates and the hill climbs, and the order they run in.
#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstdio>
#include <string>

#include "frontend/args.h"
#include "frontend/stop_signals.h"
#include "planner/baselines/baselines.h"
#include "planner/job/baseline_runs.h"
#include "planner/job/log.h"
#include "planner/job/patience.h"
#include "planner/job/search_session.h"
#include "planner/rewards/confirm.h"
#include "planner/sources/registry.h"
#include "sim/statistics.h"

namespace planner::job {

namespace {

// search::BestPlacement::method of the policy's own samples.
constexpr char kPolicyMethod[] = "search";

// What one update's placements cost: the mean and min of those that ran.
struct UpdateSummary {
  double mean_s = 0, min_s = 0;  // 0 when none ran
  int ran = 0, failed = 0;
};

UpdateSummary Summarize(const search::SearchIteration& it) {
  UpdateSummary u;
  double sum = 0;
  for (const rewards::Evaluation& e : it.evaluations) {
    if (!e.status.ok()) continue;
    sum += e.step_s;
    u.min_s = u.ran ? std::min(u.min_s, e.step_s) : e.step_s;
    ++u.ran;
  }
  u.failed = static_cast<int>(it.evaluations.size()) - u.ran;
  u.mean_s = u.ran ? sum / u.ran : 0;
  return u;
}

// "update 12: best 1.234 ms (etf), mean 2.345 ms, 0 failed, elapsed 3 s, ETA 57 s".
std::string ProgressLine(int iteration, const search::Search& search, const UpdateSummary& u,
                         std::optional<double> budget_s, std::optional<int64_t> iterations) {
  std::string eta;
  if (budget_s) {
    eta = ", ETA " +
          std::to_string(static_cast<int>(std::max(0.0, *budget_s - search.elapsed_s()))) + " s";
  } else if (iterations && iteration > 0) {
    eta = ", ETA " +
          std::to_string(
              static_cast<int>(search.elapsed_s() / iteration * (*iterations - iteration))) +
          " s";
  }
  const std::string best_text =
      search.best() ? frontend::FormatMs(search.best()->step_s) + " (" + search.best()->method + ")"
                    : "none yet";
  char line[512];
  std::snprintf(line, sizeof line, "update %d: best %s, mean %s, %d failed, elapsed %.0f s%s",
                iteration, best_text.c_str(), u.ran ? frontend::FormatMs(u.mean_s).c_str() : "-",
                u.failed, search.elapsed_s(), eta.c_str());
  return line;
}

struct ClimbResult {
  std::vector<refine::RefineStart> starts;  // step times on the climb's reward source
  refine::MultiStartResult result;
};

// The hill climb (planner/refine/refine.h) on `climb_on` from the best so far and the
// next fastest baselines that differ from it, `max_starts` in all (refine.h
// says why the fastest start is not always the best one), counting a placement
// that only swaps identical GPUs as the same start. Each start is evaluated on `climb_on`,
// whose times may differ from the search's (a simulator behind real rewards).
// Prints what it did.
ClimbResult ClimbFromStarts(std::FILE* log, const graph::Graph& forward, const cluster::Cluster& c,
                            const rewards::RewardSource& climb_on,
                            const search::BestPlacement& best,
                            std::vector<refine::RefineStart> baselines,
                            const refine::RefineOptions& options, size_t max_starts) {
  assert(max_starts >= 1);
  ClimbResult out;
  out.starts.push_back({best.method, best.device_of_node, best.step_s});
  std::vector<std::vector<int>> canonical{placement::CanonicalDevices(best.device_of_node, c)};
  std::stable_sort(baselines.begin(), baselines.end(),
                   [](const refine::RefineStart& a, const refine::RefineStart& b) {
                     return a.step_s < b.step_s;
                   });
  for (const refine::RefineStart& b : baselines) {
    if (out.starts.size() >= max_starts) break;
    std::vector<int> form = placement::CanonicalDevices(b.device_of_node, c);
    if (std::find(canonical.begin(), canonical.end(), form) != canonical.end()) continue;
    canonical.push_back(std::move(form));
    out.starts.push_back(b);
  }
  for (refine::RefineStart& s : out.starts) {
    const rewards::Evaluation e = climb_on.Evaluate(s.device_of_node);
    if (e.status.ok()) s.step_s = e.step_s;
  }
  // Said before the climb, which prints nothing more until it ends: a log read
  // while it runs (fleet up's progress) shows where the search is.
  Say(log, "refine: climbing from %zu start(s) for at most %.0f s\n", out.starts.size(),
      options.budget_s);
  out.result = refine::RefineFromStarts(forward, static_cast<int>(c.devices.size()), climb_on,
                                        out.starts, options, frontend::StopOnSignals::flag());
  const refine::RefineResult& r = out.result.refine;
  std::string from;
  for (size_t i = 0; i < out.starts.size(); ++i) {
    from += (i ? ", " : "") + out.starts[i].method + " " + frontend::FormatMs(out.starts[i].step_s);
  }
  const std::string guided =
      options.kick_placement ? std::to_string(r.kicks_guided) + " onto the policy's samples, " : "";
  Say(log, "refine: from %zu start(s) (%s), continued from %s\n", out.starts.size(), from.c_str(),
      out.starts[out.result.chosen].method.c_str());
  std::string runs = r.runs > 0 ? " and " + std::to_string(r.runs) + " runs of sibling scopes" : "";
  if (r.apart > 0) runs += ", " + std::to_string(r.apart) + " gradient ops apart";
  Say(log,
      "refine: %d name scopes%s, %d moves tried, %d kept in %d sweeps (%d of %d critical-path "
      "ops moved), %d kicks (%s%d kept), %.1f s: %s -> %s\n",
      r.units - r.runs - r.apart, runs.c_str(), r.evaluated, r.kept, r.sweeps, r.critical_kept,
      r.critical_tried, r.kicks, guided.c_str(), r.kicks_kept, r.seconds,
      frontend::FormatMs(out.starts[0].step_s).c_str(), frontend::FormatMs(r.step_s).c_str());
  if (options.cutoff) {
    Say(log,
        "refine: the simulator stopped %d of the %d moves early (--cutoff: none of them "
        "could be kept)\n",
        r.cut_off, r.evaluated);
  }
  if (r.repeats_skipped > 0) {
    Say(log,
        "refine: %d units and critical-path ops not tried again (tried at the same placement, "
        "with no move kept since)\n",
        r.repeats_skipped);
  }
  return out;
}

struct ClimbPhase {
  std::optional<search::BestPlacement>
      found;                  // faster than its start; step time on the search's reward
  std::vector<int> ended_at;  // the climb's placement, found or not
  int kicks = 0;              // made after its sweeps converged
  double seconds = 0;
  bool stalled = false;  // ended by RefineOptions::stall_s
};

// ClimbFromStarts from `best` and `baselines` (`max_starts` in all) on `climb_on`; a placement it
// improved on the simulator behind measured rewards is measured on `reward`
// (the simulator proposes, the hardware decides).
ClimbPhase ClimbAndMeasure(std::FILE* log, const graph::Graph& forward, const cluster::Cluster& c,
                           const rewards::RewardSource& climb_on,
                           const rewards::RewardSource& reward, const search::BestPlacement& best,
                           std::vector<refine::RefineStart> baselines,
                           const refine::RefineOptions& options, int max_starts) {
  const ClimbResult climb = ClimbFromStarts(log, forward, c, climb_on, best, std::move(baselines),
                                            options, static_cast<size_t>(max_starts));
  const refine::RefineResult& r = climb.result.refine;
  const refine::RefineStart& from = climb.starts[climb.result.chosen];
  ClimbPhase out{std::nullopt, r.device_of_node, r.kicks, r.seconds, r.stalled};
  if (r.step_s >= from.step_s) return out;
  double step_s = r.step_s;
  if (&climb_on != &reward) {
    const rewards::Evaluation measured = reward.Evaluate(r.device_of_node);
    Say(log, "refine: its placement (%s simulated) measured %s\n",
        frontend::FormatMs(r.step_s).c_str(), rewards::DescribeEvaluation(measured).c_str());
    if (!measured.status.ok()) return out;
    step_s = measured.step_s;
  }
  // A climb from a climbed placement keeps its name ("expert+refine").
  const bool climbed = from.method.find("+refine") != std::string::npos;
  out.found = search::BestPlacement{climbed ? from.method : from.method + "+refine", step_s,
                                    r.device_of_node, 0, 0};
  return out;
}

struct PolicyPhase {
  graph::Status status = graph::Status::Ok();  // a failed update or output
  double left_s = 0;                           // of the budget, when the patience ended the phase
};

// Policy updates until --iterations, `budget_s` of search time in all, a
// signal, or, with `patience_s` > 0, once the best has not improved (by more
// than --patience-gain) for that long since `patience_from_s` (search time) or
// the best's own time (planner/job/patience.h). Each
// update adds to the curve (and --csv), writes an improvement to -o, and the
// checkpoint is saved every 30 s.
PolicyPhase RunPolicy(const Session& s, Run& run, std::optional<double> budget_s, double patience_s,
                      double patience_from_s) {
  search::Search& search = *run.search;
  const SearchJobOptions& o = s.options;
  using Clock = std::chrono::steady_clock;
  auto last_print = Clock::now() - std::chrono::seconds(10);
  auto last_checkpoint = Clock::now();
  PolicyPhase phase;
  std::optional<PolicyPatience> patience;
  search::BestPlacement start;  // the best when the patience started
  while (!StopRequested()) {
    if (o.iterations && search.iterations() >= *o.iterations) break;
    if (budget_s && search.elapsed_s() >= *budget_s) break;
    if (patience_s > 0 && budget_s && search.best()) {
      const search::BestPlacement& best = *search.best();
      if (!patience) {
        // The first patience holds while the best is where the policy started
        // (a baseline); a resumed search's own best has had its first gain.
        const double first_s = best.method == kPolicyMethod ? 0 : o.patience_first_s.value_or(0);
        patience.emplace(patience_s, o.patience_gain.value_or(0), patience_from_s, best.step_s,
                         best.found_at_s, first_s);
        start = best;
      }
      patience->Observe(best.step_s, best.found_at_s);
      if (const double waited = patience->Stalled(search.elapsed_s()); waited > 0) {
        phase.left_s = *budget_s - search.elapsed_s();
        if (!patience->gained() && waited < patience_s) {
          char gain[32] = "nothing better than";
          if (o.patience_gain.value_or(0) > 0) {
            std::snprintf(gain, sizeof gain, "no gain of %g%% on", 100 * *o.patience_gain);
          }
          Say(s.log(),
              "policy search: %s %s's %s in its first %.0f s; its %.0f s left go to the "
              "hill climb\n",
              gain, start.method.c_str(), frontend::FormatMs(start.step_s).c_str(), waited,
              phase.left_s);
        } else if (o.patience_gain.value_or(0) > 0) {
          Say(s.log(),
              "policy search: no gain of %g%% in the last %.0f s; its %.0f s left go to the "
              "hill climb\n",
              100 * *o.patience_gain, waited, phase.left_s);
        } else {
          Say(s.log(),
              "policy search: no better placement in the last %.0f s; its %.0f s left go to "
              "the hill climb\n",
              waited, phase.left_s);
        }
        break;
      }
    }
    search::SearchIteration it = search.Step(*s.reward);
    if (phase.status = it.status; !phase.status.ok()) {
      // A signal during the update (a fleet's or a server's wait ends on
      // one): the update is abandoned, and the search ends as on any stop.
      if (StopRequested()) {
        Say(s.log(), "update %d abandoned on the signal (%s)\n", search.iterations() + 1,
            phase.status.message().c_str());
        phase.status = graph::Status::Ok();
      }
      break;
    }
    const UpdateSummary u = Summarize(it);
    const double best = search.best() ? search.best()->step_s : 0;
    run.curve.push_back({it.iteration, u.mean_s, best});
    if (run.csv.is_open()) {
      char row[256];
      std::snprintf(row, sizeof row, "%d,%.3f,%.9g,%.9g,%d,%.9g,%.6g,%.6g,%.6g\n", it.iteration,
                    search.elapsed_s(), u.mean_s, u.min_s, u.failed, best, it.baseline,
                    it.learning_rate, it.grad_norm);
      run.csv << row << std::flush;
    }
    if (it.improved) {
      if (phase.status = run.WriteBest(s); !phase.status.ok()) break;
    }
    const auto now = Clock::now();
    if (it.improved || now - last_print >= std::chrono::seconds(1)) {
      Say(s.log(), "%s\n", ProgressLine(it.iteration, search, u, budget_s, o.iterations).c_str());
      last_print = now;
    }
    if (!s.options.checkpoint_path.empty() && now - last_checkpoint >= std::chrono::seconds(30)) {
      if (phase.status = search.Save(s.options.checkpoint_path, s.identity); !phase.status.ok())
        break;
      last_checkpoint = now;
    }
  }
  return phase;
}

// --order climb-first's first phase: the climb from the baselines until its
// kicks stall (--patience) or `total_s` ends; its result is offered to the
// search as its best, which the policy then imitates.
graph::Result<ClimbPhase> ClimbFirst(const Session& s, Run& run, double total_s) {
  search::Search& search = *run.search;
  refine::RefineOptions first;
  first.budget_s = total_s;
  first.stall_s = s.options.patience_s.value_or(0);
  first.seed = s.options.seed;
  first.focused_sweeps = s.options.focused_sweeps;
  first.sibling_runs = s.options.sibling_runs;
  first.cutoff = s.options.cutoff;
  ClimbPhase climb =
      ClimbAndMeasure(s.log(), s.forward(), s.cluster(), *run.climb_on, *s.reward, *search.best(),
                      run.baselines.ran, first, s.options.climb_starts);
  if (climb.found) {
    search.Offer(climb.found->method, climb.found->device_of_node,
                 rewards::Evaluation{graph::Status::Ok(), climb.found->step_s}, 0);
    GRAPH_RETURN_IF_ERROR(run.WriteBest(s));
  }
  const char* why = climb.stalled                   ? "its kicks found nothing for --patience"
                    : climb.seconds < total_s - 0.5 ? "its kicks exhausted"
                                                    : "out of time";
  Say(s.log(), "climb first: %s after %.0f s (%s); the policy starts from it with %.0f s\n",
      frontend::FormatMs(search.best()->step_s).c_str(), climb.seconds, why,
      std::max(0.0, *s.options.budget_s - climb.seconds));
  return climb;
}

// Real rewards with a Recalibration: the climb's simulator remade on
// whichever of the profile and its refits (planner/job/recalibration.h)
// predicts the placements measured so far best. Prints each one's median
// error and the choice.
graph::Status RefitClimbSimulator(const Session& s, Run& run) {
  if (!s.recalibration || !s.memo || !run.profile_sim || !s.profile) return graph::Status::Ok();
  const Recalibration& r = *s.recalibration;
  if (r.single_steps() + r.shared_steps() == 0) return graph::Status::Ok();
  const auto make_sim = [&s](const sim::Profile& p) {
    rewards::RewardContext context = s.context;
    context.profile = &p;
    context.observer = nullptr;
    return sources::MakeRewardSource("sim", context);
  };
  RefitChoice choice = ChooseRefit(r, *s.profile, s.memo->Evaluated(), make_sim);
  std::string errors;
  for (Refit how : {Refit::kNone, Refit::kOpTimes, Refit::kSharing}) {
    const double e = choice.median_error[static_cast<int>(how)];
    char part[96];
    if (e < 0) {
      std::snprintf(part, sizeof part, "%s -", RefitName(how));
    } else {
      std::snprintf(part, sizeof part, "%s %.1f%%", RefitName(how), 100 * e);
    }
    errors += (errors.empty() ? "" : ", ") + std::string(part);
  }
  Say(s.log(),
      "refine: %d measured steps (%d on one device, %d shared); median |simulated - measured| "
      "over the %d measured placements: %s; the climb runs on the %s\n",
      r.single_steps() + r.shared_steps(), r.single_steps(), r.shared_steps(), choice.placements,
      errors.c_str(), RefitName(choice.chosen));
  if (choice.chosen == Refit::kNone) return graph::Status::Ok();
  auto profile = std::make_unique<sim::Profile>(std::move(choice.profile));
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<rewards::RewardSource> refitted, make_sim(*profile));
  run.profile_sim = std::move(refitted);  // before the profile the old one used goes
  run.refitted_profile = std::move(profile);
  run.climb_on = run.profile_sim.get();
  return graph::Status::Ok();
}

// Whether the policy's own sample is the best so far and beats the best
// baseline by --patience-gain (any improvement without the stall rule): only
// then has it learned something for the kicks to follow. A policy that never
// left the baselines behind is mostly its initial noise, and its samples'
// kicks did worse than random ones (docs/search.md, "Kicks onto the policy's
// samples").
bool PolicyGained(const Session& s, const Run& run, const search::BestPlacement& best) {
  const std::optional<refine::RefineStart>& baseline = run.baselines.best;
  const double gain = s.options.patience_gain.value_or(0);
  return run.search->iterations() > 0 && best.method == kPolicyMethod &&
         (!baseline || best.step_s < baseline->step_s * (1 - gain));
}

// "refine: random kicks: the policy gained less than 0.5% on expert's 243.334 ms".
void SayKicksAreRandom(const Session& s, const Run& run, const search::BestPlacement& best) {
  // What the policy did not beat: the best, or the best baseline under the policy's own.
  const bool own = best.method == kPolicyMethod && run.baselines.best;
  const std::string& method = own ? run.baselines.best->method : best.method;
  const double step_s = own ? run.baselines.best->step_s : best.step_s;
  const double gain = s.options.patience_gain.value_or(0);
  char what[64] = "found nothing faster than";
  if (gain > 0) std::snprintf(what, sizeof what, "gained less than %g%% on", 100 * gain);
  Say(s.log(), "refine: random kicks: the policy %s %s's %s\n", what, method.c_str(),
      frontend::FormatMs(step_s).c_str());
}

// The last phase: the climb from `*best` for `budget_s`, and with policy-first
// from the baselines too (climb-first climbed them already); after a first
// climb its kicks go on where they stopped, from its result when the policy
// found nothing better, so that the policy costs the climb its time and
// nothing else (with --kicks random, or a policy that did not gain on the
// baselines: PolicyGained; otherwise the kicks move units onto its samples).
// A faster placement replaces `*best` and is written.
graph::Status ClimbLast(const Session& s, const Run& run, const std::optional<ClimbPhase>& first,
                        double budget_s, search::BestPlacement* best) {
  search::Search& search = *run.search;
  refine::RefineOptions refine;
  refine.budget_s = budget_s;
  refine.seed = s.options.seed;
  refine.focused_sweeps = s.options.focused_sweeps;
  refine.sibling_runs = s.options.sibling_runs;
  refine.cutoff = s.options.cutoff;
  if (s.options.kicks_from_policy && search.iterations() > 0) {
    if (PolicyGained(s, run, *best)) {
      // Each kick's sample from a generator of its own: the kicks repeat with
      // --seed, and the policy's own draws are untouched.
      const uint64_t seed = s.options.seed;
      refine.kick_placement = [&search, seed](uint64_t kick) {
        return search.SamplePlacement(seed * 0x9E3779B97F4A7C15ULL + kick + 1);
      };
    } else {
      SayKicksAreRandom(s, run, *best);
    }
  }
  if (first) {
    refine.first_kick = first->kicks;
    refine.start_converged = first->kicks > 0 && best->device_of_node == first->ended_at;
  }
  const ClimbPhase climb = ClimbAndMeasure(
      s.log(), s.forward(), s.cluster(), *run.climb_on, *s.reward, *best,
      s.options.climb_first ? std::vector<refine::RefineStart>{} : run.baselines.ran, refine,
      s.options.climb_starts);
  if (!climb.found || climb.found->step_s >= best->step_s) return graph::Status::Ok();
  *best = *climb.found;
  best->iteration = search.iterations();
  best->found_at_s = search.elapsed_s() + climb.seconds;
  GRAPH_RETURN_IF_ERROR(
      run.WriteBest(s, *best, search.elapsed_s() + climb.seconds, search.iterations()));
  // The checkpoint keeps the climb's best too: a search stopped during the
  // climb and resumed climbed again from the policy's best, and wrote a slower
  // placement over the faster one in -o.
  rewards::Evaluation found;
  found.step_s = best->step_s;
  search.Offer(best->method, best->device_of_node, found, search.iterations());
  if (s.options.checkpoint_path.empty()) return graph::Status::Ok();
  return search.Save(s.options.checkpoint_path, s.identity);
}

}  // namespace

// Every baseline for the devices (planner/baselines/baselines.h), evaluated on `reward`
// and printed; with real rewards the fastest measured again (ConfirmFastest);
// then offered to `search`. After a signal, no more once one ran.
BaselinesRun RunBaselines(const Session& s, const rewards::RewardSource& reward,
                          const sim::Simulator* costs, search::Search* search) {
  const graph::Graph& forward = s.forward();
  const cluster::Cluster& c = s.cluster();
  BaselineRunOptions run;
  if (s.real_rewards()) run.hardware = s.hardware.get();
  run.memo = s.memo ? &*s.memo : nullptr;
  run.rounds = s.options.baseline_rounds;
  run.stop = frontend::StopOnSignals::flag();
  run.log = s.log();
  BaselineRuns runs =
      RunBaselineMethods(baselines::BaselineMethods(c), forward, c, costs, reward, run);
  BaselinesRun out;
  out.first_failure = runs.first_failure;
  for (const rewards::Measurement& m : runs.measured) {
    const rewards::Evaluation& e = m.evaluation;
    if (e.status.ok()) {
      out.ran.push_back({m.method, m.device_of_node, e.step_s});
      if (!out.best || e.step_s < out.best->step_s) {
        out.best = refine::RefineStart{m.method, m.device_of_node, e.step_s};
      }
    }
    search->Offer(m.method, m.device_of_node, e, 0);
  }
  return out;
}

// Through the search and the hill climb: with --order climb-first the climb
// goes first, from the baselines, until it stalls; the policy then starts from
// its result (the best, which the policy imitates), and the climb gets
// whatever time the policy leaves. The policy costs the climb nothing while
// the climb still improves. Returns the best placement found; a signal
// ends each phase early.
graph::Result<search::BestPlacement> SearchPhases(const Session& s, Run& run) {
  search::Search& search = *run.search;
  const SearchJobOptions& o = s.options;
  const double total_s = o.budget_s ? *o.budget_s + o.refine_s : 0;  // climb-first's
  std::optional<ClimbPhase> first_climb;
  if (o.climb_first && !run.resumed && search.best() && !StopRequested()) {
    GRAPH_ASSIGN_OR_RETURN(first_climb.emplace(), ClimbFirst(s, run, total_s));
  }
  const double climbed_s = first_climb ? first_climb->seconds : 0;
  std::optional<double> policy_budget_s = o.budget_s;
  if (o.climb_first) policy_budget_s = std::max(0.0, *o.budget_s - climbed_s);
  const PolicyPhase policy =
      RunPolicy(s, run, policy_budget_s, run.climb_on ? o.patience_s.value_or(0) : 0,
                run.resumed ? 0 : search.elapsed_s());
  if (StopRequested())
    Say(s.log(), "stopped by a signal after %d updates; files are complete\n", search.iterations());
  GRAPH_RETURN_IF_ERROR(policy.status);
  if (!s.options.checkpoint_path.empty())
    GRAPH_RETURN_IF_ERROR(search.Save(s.options.checkpoint_path, s.identity));
  GRAPH_RETURN_IF_ERROR(run.WriteBest(s));
  if (!search.best()) {
    const graph::Status& failure = run.baselines.first_failure;
    return graph::Status(failure.code(), s.options.model_path + " on " + s.options.devices_path +
                                             ": no placement ran (every baseline and sample "
                                             "failed; " +
                                             failure.message() + ")");
  }
  search::BestPlacement best = *search.best();
  Say(s.log(), "policy search: best %s (%s) after %d updates, %.1f s%s\n",
      frontend::FormatMs(best.step_s).c_str(), best.method.c_str(), search.iterations(),
      search.elapsed_s(), search.places_scopes() ? " (placing name scopes)" : "");
  const double last_climb_s = o.climb_first
                                  ? std::max(0.0, total_s - climbed_s - search.elapsed_s())
                                  : o.refine_s + policy.left_s;
  if (run.climb_on && o.refine_s > 0 && last_climb_s > 0 && !StopRequested()) {
    GRAPH_RETURN_IF_ERROR(RefitClimbSimulator(s, run));
    GRAPH_RETURN_IF_ERROR(ClimbLast(s, run, first_climb, last_climb_s, &best));
    if (StopRequested()) {
      Say(s.log(),
          "stopped by a signal during the hill climb; its best so far is kept and "
          "files are complete\n");
    }
  }
  return best;
}

}  // namespace planner::job
