#include "planner/job/search_job.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "frontend/stop_signals.h"
#include "graph/file_util.h"
#include "placement/module_placement.h"
#include "planner/job/exports.h"
#include "planner/job/profile_cache.h"
#include "planner/job/search_session.h"
#include "planner/rewards/verdict.h"
#include "planner/sources/registry.h"
#include "runtime/kernel.h"
#include "sim/simulator.h"
#include "sim/statistics.h"
#include "sim/timeline.h"

namespace planner::job {

bool StopRequested() { return frontend::StopOnSignals::requested(); }

namespace {

// --order climb-first without --patience: how long the climb, then the
// policy, may go without a better placement before handing the time on.
constexpr double kClimbFirstPatienceS = 60;
// Policy first with --budget and a climb, unless told otherwise: the stall
// rule that was never behind the climb alone beyond the seeds' spread on the
// six paper models (docs/search.md, "Where the search stands").
constexpr double kPolicyPatienceS = 60;
constexpr double kPolicyPatienceGain = 0.005;
// ...and until the policy's first gain on the best baseline: on the paper
// models it came within 8 s or not within 60 s (docs/search.md, "A policy
// that beats no baseline").
constexpr double kPolicyPatienceFirstS = 30;

// The hardware's verdict on the found placement `*best` against the best
// baseline (planner/rewards/verdict.h), printed: unless the gain is significant,
// `*best` becomes the baseline; with real rewards both times become the
// rounds' medians. Returns the sentence for the result and the rounds' medians.
// Stopped by a signal during the rounds (`interrupted`): nothing is changed
// and the rounds measured are in `rounds`.
struct HardwareDecision {
  std::string text;
  std::optional<double> found_s, baseline_s;  // the rounds' medians, when they ran
  bool interrupted = false;
  int rounds = 0;
};
HardwareDecision DecideOnHardware(std::FILE* log, const rewards::RewardSource& hardware,
                                  bool real_rewards, const rewards::VerdictOptions& options,
                                  const std::string& baseline,
                                  const std::vector<int>& baseline_devices, double* baseline_s,
                                  search::BestPlacement* best) {
  if (best->device_of_node == baseline_devices) {
    // The baseline's own placement, whatever found it again (a climb that made
    // no move is labelled METHOD+refine): written as the baseline.
    *best = search::BestPlacement{baseline, *baseline_s, baseline_devices, 0, 0};
    return {"no improvement over " + baseline + ": the search " +
                (real_rewards ? "measured" : "found") + " no other placement faster",
            {},
            {}};
  }
  const volatile std::sig_atomic_t* stop = frontend::StopOnSignals::flag();
  rewards::Verdict v =
      rewards::CompareOnHardware(hardware, best->device_of_node, baseline_devices, options, stop);
  // Stopped by a signal: the rounds measured decide if they can.
  if (v.status.ok() && *stop && v.rounds < sim::WilcoxonFewestPairs(options.alpha)) {
    HardwareDecision d;
    d.interrupted = true;
    d.rounds = v.rounds;
    return d;
  }
  const std::string text = v.status.ok()
                               ? rewards::DescribeVerdict(v, baseline, options)
                               : "could not be measured against " + baseline + " (" +
                                     v.status.message() + "), so " + baseline + " is the result";
  if (v.status.ok() && *stop) {
    Say(log, "stopped by a signal after %d of %d rounds: they decide\n", v.rounds, options.rounds);
  }
  Say(log, "on the hardware, %s (%s) against %s: %s\n", best->method.c_str(),
      frontend::FormatMs(best->step_s).c_str(), baseline.c_str(), text.c_str());
  // Each round's pair, for a reader who doubts the verdict (one slow draw shows).
  if (v.status.ok() && v.rounds > 0) {
    std::string rounds;
    for (int r = 0; r < v.rounds; ++r) {
      char pair[64];
      std::snprintf(pair, sizeof pair, " %.3f/%.3f", 1e3 * v.candidate_s[r],
                    1e3 * v.incumbent_s[r]);
      rounds += pair;
    }
    Say(log, "  its rounds, ms (found/%s):%s\n", baseline.c_str(), rounds.c_str());
  }
  HardwareDecision d{text, {}, {}};
  if (v.status.ok() && !v.candidate_s.empty()) {
    d.found_s = sim::Median(v.candidate_s);
    d.baseline_s = sim::Median(v.incumbent_s);
  }
  if (v.status.ok() && real_rewards) {
    *baseline_s = sim::Median(v.incumbent_s);
    if (v.significant) best->step_s = sim::Median(v.candidate_s);
  }
  if (!v.status.ok() || !v.significant) {
    *best = search::BestPlacement{baseline, *baseline_s, baseline_devices, 0, 0};
  }
  return d;
}

// The result's lines: the best baseline, the best found and its gain (or the
// hardware's verdict), and the simulator's lower bound.
void PrintResult(std::FILE* log, const std::string& reward_name, const search::Search& search,
                 const std::string& baseline, std::optional<double> baseline_s,
                 const search::BestPlacement& best, const std::string& verdict_text, double bound,
                 int estimated_ops) {
  Say(log, "\nresult (%s rewards, %d updates, %.1f s of search):\n", reward_name.c_str(),
      search.iterations(), search.elapsed_s());
  if (baseline_s) {
    Say(log, "  best baseline  %-16s %s\n", baseline.c_str(),
        frontend::FormatMs(*baseline_s).c_str());
  } else {
    Say(log, "  best baseline  none ran\n");
  }
  Say(log, "  best found     %-16s %s", best.method.c_str(),
      frontend::FormatMs(best.step_s).c_str());
  if (best.iteration > 0) Say(log, " (update %d, at %.1f s)", best.iteration, best.found_at_s);
  if (!verdict_text.empty()) {
    Say(log, "\n  on hardware    %s", verdict_text.c_str());
  } else if (baseline_s) {
    Say(log, ", %.1f%% faster than the best baseline", 100 * (1 - best.step_s / *baseline_s));
  }
  Say(log, "\n");
  if (bound > 0) {
    Say(log, "  lower bound    %s: no placement on these devices is faster",
        frontend::FormatMs(bound).c_str());
    if (baseline_s) {
      Say(log, " (at most %.1f%% faster than the best baseline)", 100 * (1 - bound / *baseline_s));
    }
    Say(log, "\n");
  }
  if (estimated_ops > 0) {
    Say(log, "  %d of its ops' times are roofline estimates (no profile entry)\n", estimated_ops);
  }
}

// With sim rewards: names the op types the simulator can only estimate.
void PrintOpsWithoutKernels(std::FILE* log, const graph::Graph& training) {
  std::set<std::string> no_kernel;
  for (const graph::Node& n : training.nodes()) {
    if (runtime::RunsKernel(n.op) && !runtime::FindKernel(n.op)) no_kernel.insert(n.op);
  }
  if (no_kernel.empty()) return;
  std::string list;
  for (const std::string& op : no_kernel) list += (list.empty() ? "" : ", ") + op;
  Say(log,
      "note: %zu op types have no kernel here (%s): the simulator places them by its "
      "roofline estimate, and the result cannot be measured on this machine\n",
      no_kernel.size(), list.c_str());
}

// --gradients heavy: the gradient ops the climbs may place apart
// (refine::HeavyGradientOps on the simulator of `s`'s context) into
// s->context.apart. Prints them.
graph::Status ChooseGradientsApart(Session* s) {
  const double fraction = s->options.gradients_apart_fraction;
  if (fraction <= 0) return graph::Status::Ok();
  GRAPH_ASSIGN_OR_RETURN(
      const sim::Simulator costs,
      sim::Simulator::Create(s->setup->training.graph, s->cluster(), s->context.profile));
  s->context.apart = refine::HeavyGradientOps(costs, s->forward(), s->num_devices(), fraction);
  std::string names;
  for (size_t k = 0; k < s->context.apart.size(); ++k) {
    if (k == 3) {
      names += " and " + std::to_string(s->context.apart.size() - 3) + " more";
      break;
    }
    names += (k ? ", " : ": ") + s->setup->training.graph.node(s->context.apart[k]).name;
  }
  Say(s->log(),
      "gradients: %zu gradient op(s) may run apart from their op, placed by the policy and "
      "the climb (--gradients heavy: each at least %g%% of the %s dependency bound on its "
      "fastest device)%s\n",
      s->context.apart.size(), 100 * fraction,
      frontend::FormatMs(costs.DependencyBoundSeconds()).c_str(), names.c_str());
  return graph::Status::Ok();
}

}  // namespace

SearchJobOptions WithStopDefaults(SearchJobOptions o) {
  if (!o.iterations && !o.budget_s) o.iterations = 200;
  const bool policy_patience = o.budget_s && o.refine_s > 0 && !o.climb_first;
  if (o.climb_first && !o.patience_s) o.patience_s = kClimbFirstPatienceS;  // 0 is refused
  if (!o.patience_s) o.patience_s = policy_patience ? kPolicyPatienceS : 0;
  if (!o.patience_gain) o.patience_gain = policy_patience ? kPolicyPatienceGain : 0;
  if (!o.patience_first_s) {
    o.patience_first_s = policy_patience && o.patience_s > 0 ? kPolicyPatienceFirstS : 0;
  }
  return o;
}

namespace {

// Loads `s`'s inputs (model, devices, profile, reward source) and prints what
// it will search.
graph::Status OpenSession(const SearchJobOptions& options, Session* s) {
  s->options = WithStopDefaults(options);
  const SearchJobOptions& o = s->options;
  GRAPH_ASSIGN_OR_RETURN(s->setup, frontend::LoadPlacedTraining(o.model_path, o.devices_path, "",
                                                                o.inference, o.training));
  GRAPH_ASSIGN_OR_RETURN(s->profile,
                         ProfileForDevices(o.profile_path, o.profile_cache_dir, *s->setup));
  s->context = rewards::RewardContext{&s->forward(),
                                      &s->setup->training,
                                      &s->cluster(),
                                      s->profile ? &*s->profile : nullptr,
                                      2,
                                      o.steps,
                                      &s->setup->model.options,
                                      &s->options.training,
                                      o.fleet_path};
  if (o.recalibrate && o.reward == "real") {
    s->recalibration = std::make_unique<Recalibration>(s->cluster());
    s->context.observer = s->recalibration.get();
  }
  GRAPH_RETURN_IF_ERROR(ChooseGradientsApart(s));
  GRAPH_ASSIGN_OR_RETURN(s->hardware, sources::MakeRewardSource(o.reward, s->context));
  if (s->real_rewards()) s->memo.emplace(*s->hardware);
  s->reward = s->memo ? &*s->memo : s->hardware.get();
  s->identity = {placement::ModelDigest(s->forward()), s->cluster().digest, o.reward};
  Say(s->log(), "%s on %s: %d ops to place (training graph of %d nodes), %d devices, reward %s\n",
      o.model_path.c_str(), o.devices_path.c_str(), s->forward().size(),
      s->setup->training.graph.size(), s->num_devices(), o.reward.c_str());
  if (std::string note = frontend::BatchNote(s->setup->model); !note.empty()) {
    Say(s->log(), "%s\n", note.c_str());
  }
  if (o.reward == "sim") PrintOpsWithoutKernels(s->log(), s->setup->training.graph);
  // Refused before any work or file (a one-device search writes at once).
  if (!o.export_modules_path.empty()) {
    GRAPH_RETURN_IF_ERROR(placement::CheckPyTorchModules(s->forward(), o.model_path));
  }
  return graph::Status::Ok();
}

// One device: nothing to choose. Writes every op on it.
graph::Status SearchOneDevice(const Session& s, SearchJobResult* result) {
  std::vector<int> all(s.forward().size(), 0);
  const rewards::Evaluation e = s.reward->Evaluate(all);
  const std::string& device = s.cluster().devices[0].name;
  Say(s.log(),
      "%s has one device, '%s': every op runs on it and there is nothing to search (step %s)\n",
      s.options.devices_path.c_str(), device.c_str(), rewards::DescribeEvaluation(e).c_str());
  result->best = {"single:" + device, e.status.ok() ? e.step_s : 0, all, 0, 0};
  if (!s.options.out_path.empty()) {
    placement::Placement p = s.PlacementOf(result->best, 0, 0);
    if (!e.status.ok()) p.simulated_step_s = p.measured_step_s = std::nullopt;
    GRAPH_RETURN_IF_ERROR(placement::WritePlacement(s.options.out_path, p));
    Say(s.log(), "placement: %s\n", s.options.out_path.c_str());
  }
  return s.Export(all, "single:" + device);
}

// Grouper "auto": the name scopes or the learned Grouper, by the best
// baseline's placement (search::Search::ChooseGrouper). Prints the choice.
void ChooseGrouper(const Session& s, const std::optional<refine::RefineStart>& best_baseline,
                   search::Search* search) {
  if (s.options.search.grouper != "auto") return;
  const search::GrouperChoice c =
      search->ChooseGrouper(best_baseline ? best_baseline->device_of_node : std::vector<int>{});
  const std::string by = best_baseline ? best_baseline->method + "'s placement" : "no baseline";
  Say(s.log(),
      "grouper: %s (auto: cut where %s cuts them, %d of the %d groups stay name scopes; "
      "%d needed)\n",
      c.scopes ? "name scopes" : "learned", by.c_str(), c.scopes_kept, c.groups, c.scopes_needed);
}

// Search::AllowApart's argument: the forward node each apart gradient op
// takes its device from when colocated.
std::vector<int> ApartFollows(const Session& s) {
  if (s.context.apart.empty()) return {};
  const std::vector<graph::NodeId> source =
      placement::ForwardSourceOfNode(s.setup->training.graph, s.forward());
  std::vector<int> follows;
  for (graph::NodeId id : s.context.apart) follows.push_back(source[id]);
  return follows;
}

// The --csv file of a search resumed at `iterations` updates, without the rows of
// later ones: a search killed outright wrote rows past its last checkpoint, and
// the resumed search wrote those updates' numbers again.
graph::Status DropRowsAfter(const std::string& csv_path, int iterations) {
  GRAPH_ASSIGN_OR_RETURN(std::string text, graph::ReadFile(csv_path));
  std::istringstream in(text);
  std::string kept, line;
  for (bool header = true; std::getline(in, line); header = false) {
    if (header || std::atoll(line.c_str()) <= iterations) kept += line + "\n";
  }
  if (kept == text) return graph::Status::Ok();
  return graph::WriteFileAtomic(csv_path, kept);
}

// `devices` (one per forward op) extended as the search places gradients
// apart (Search::AllowApart): each apart op on its forward op's device, or on
// the one `p`'s gradients_apart gives it. An error when `p` places apart an op
// that this search does not.
graph::Status ExtendWithGradientsApart(const Session& s, const placement::Placement& p,
                                       std::vector<int>* devices) {
  if (p.gradients_apart.empty() && s.context.apart.empty()) return graph::Status::Ok();
  std::map<std::string, std::string> apart(p.gradients_apart.begin(), p.gradients_apart.end());
  const std::vector<int> follows = ApartFollows(s);
  const std::vector<int> forward(*devices);
  for (size_t k = 0; k < s.context.apart.size(); ++k) {
    const std::string& name = s.setup->training.graph.node(s.context.apart[k]).name;
    auto it = apart.find(name);
    if (it == apart.end()) {
      devices->push_back(forward[follows[k]]);
      continue;
    }
    const int d = s.cluster().IndexOf(it->second);
    if (d < 0) return graph::InvalidArgument("it places '" + name + "' on '" + it->second + "'");
    devices->push_back(d);
    apart.erase(it);
  }
  if (!apart.empty()) {
    return graph::InvalidArgument("it places '" + apart.begin()->first +
                                  "' apart, which this search does not (--gradients)");
  }
  return graph::Status::Ok();
}

// A resumed search starts from its checkpoint, which is up to 30 s older than
// the placement the stopped search wrote last (OUT.unverified when the
// hardware judges, else -o): that placement, still valid for this model and
// these devices, is evaluated again and offered, so that resuming after a
// SIGKILL does not write a slower placement over it.
void OfferLastWritten(const Session& s, search::Search* search) {
  if (s.options.out_path.empty()) return;
  const std::string path = s.options.out_path + (s.judged_on_hardware() ? ".unverified" : "");
  if (!graph::CheckRegularFile(path).ok()) return;
  auto not_offered = [&](const std::string& why) {
    Say(s.log(), "resume: %s not offered to the search: %s\n", path.c_str(), why.c_str());
  };
  graph::Result<placement::Placement> p = placement::ReadPlacement(path);
  if (!p.ok()) return not_offered(p.status().message());
  if (graph::Status st = placement::ValidatePlacement(*p, s.forward(), s.cluster(), path);
      !st.ok()) {
    return not_offered(st.message());
  }
  std::vector<int> devices = placement::DeviceOfNode(*p, s.forward(), s.cluster());
  if (graph::Status st = ExtendWithGradientsApart(s, *p, &devices); !st.ok()) {
    return not_offered(st.message());
  }
  const rewards::Evaluation e = s.reward->Evaluate(devices);
  if (!e.status.ok()) return not_offered(rewards::DescribeEvaluation(e));
  std::string method = p->method.substr(0, p->method.find(" (unverified"));
  if (method.rfind("baseline ", 0) == 0) method = method.substr(9);
  const bool kept = search->Offer(method, devices, e, search->iterations());
  Say(s.log(), "resume: %s (%s) %s: %s\n", path.c_str(), method.c_str(),
      s.real_rewards() ? "measured" : "simulated", frontend::FormatMs(e.step_s).c_str());
  if (kept) Say(s.log(), "resume: it is the search's best\n");
}

// A search that does not resume moves an earlier search's checkpoint at its
// checkpoint's path (the same -o run again without --resume) to PATH.prev,
// and says so, rather than writing over what may be hours of search.
graph::Status KeepEarlierCheckpoint(const Session& s) {
  const std::string& path = s.options.checkpoint_path;
  if (!graph::CheckRegularFile(path).ok()) return graph::Status::Ok();
  const std::string prev = path + ".prev";
  const bool replaces = graph::CheckRegularFile(prev).ok();
  if (std::rename(path.c_str(), prev.c_str()) != 0) {
    return graph::IoError(path + ": cannot move the earlier checkpoint there to " + prev + ": " +
                          std::strerror(errno));
  }
  Say(s.log(),
      "note: %s held an earlier search's checkpoint: moved to %s%s (--resume %s goes on "
      "with that search)\n",
      path.c_str(), prev.c_str(), replaces ? ", over an older one" : "", prev.c_str());
  return graph::Status::Ok();
}

// Creates (or resumes) the search, runs the baselines, warm-starts the policy,
// joins the parameter server and opens the curve's file.
graph::Status StartRun(Session& s, Run* run) {
  const SearchJobOptions& o = s.options;
  GRAPH_ASSIGN_OR_RETURN(run->search,
                         search::Search::Create(s.forward(), s.num_devices(), o.search, o.seed));
  search::Search& search = *run->search;
  search.AllowApart(ApartFollows(s));
  run->resumed = !o.resume_path.empty();
  if (run->resumed) {
    GRAPH_RETURN_IF_ERROR(search.Load(o.resume_path, s.identity));
    Say(s.log(), "resumed %s: %d updates done, %.1f s searched\n", o.resume_path.c_str(),
        search.iterations(), search.elapsed_s());
  }
  run->climb_on = s.real_rewards() ? nullptr : s.reward;
  if (s.real_rewards() && s.profile) {
    auto made = sources::MakeRewardSource("sim", s.context);
    if (made.ok()) {
      run->climb_on = (run->profile_sim = std::move(*made)).get();
    } else if (o.refine_s > 0) {
      Say(s.log(), "refine: no hill climb: its simulator cannot time this model (%s)\n",
          made.status().message().c_str());
    }
  }
  // The cost-based baselines plan on the climb's simulator.
  Say(s.log(), "baselines:\n");
  std::optional<sim::Simulator> own_costs;
  GRAPH_ASSIGN_OR_RETURN(
      const sim::Simulator* costs,
      rewards::PlanningCosts(run->climb_on ? *run->climb_on : *s.reward, s.context, &own_costs));
  run->baselines = RunBaselines(s, *s.reward, costs, &search);
  if (run->resumed && !StopRequested()) OfferLastWritten(s, &search);
  GRAPH_RETURN_IF_ERROR(run->WriteBest(s));

  const std::optional<refine::RefineStart>& best_baseline = run->baselines.best;
  if (!run->resumed) ChooseGrouper(s, best_baseline, &search);
  if (!run->resumed && o.search.warm_start_steps > 0 && best_baseline && !StopRequested()) {
    search::WarmStartResult w = search.WarmStart(best_baseline->device_of_node);
    GRAPH_RETURN_IF_ERROR(w.status);
    // With the name scopes as the groups the Grouper was not fitted (WarmStartResult).
    const bool scopes = search.places_scopes();
    char grouper[96] = "";
    if (!scopes) {
      std::snprintf(grouper, sizeof grouper, "%.3f (Grouper, %d steps, %.1f s), ", w.grouper_loss,
                    w.grouper_steps, w.grouper_s);
    }
    Say(s.log(), "warm start from %s: cross-entropy %s%.3f (Placer, %d steps, %.1f s%s)\n",
        best_baseline->method.c_str(), grouper, w.placer_loss, w.placer_steps, w.placer_s,
        scopes ? "; the groups are name scopes, so the Grouper is not fitted" : "");
  }
  if (!o.ps.endpoint.empty()) {
    GRAPH_ASSIGN_OR_RETURN(run->ps, search::ConnectParameterServer(o.ps));
    const std::string policy_of =
        s.identity.model_digest + " on devices " + s.identity.devices_digest +
        // Searches that place other groups do not share a policy (grouper
        // "auto" chooses by each search's own best baseline).
        (search.places_scopes() ? ", placing name scopes" : ", placing the Grouper's groups");
    GRAPH_RETURN_IF_ERROR(search.UseParameterServer(run->ps.get(), policy_of));
    Say(s.log(), "ps: joined %s at parameter version %lld\n", o.ps.endpoint.c_str(),
        static_cast<long long>(search.parameter_version()));
  }
  // A checkpoint as soon as the policy is set up, so that a search killed
  // outright (SIGKILL, a lost machine) before the first periodic save (every
  // 30 s) can still be resumed from its warm start.
  if (!o.checkpoint_path.empty() && !run->resumed) {
    GRAPH_RETURN_IF_ERROR(KeepEarlierCheckpoint(s));
    GRAPH_RETURN_IF_ERROR(search.Save(o.checkpoint_path, s.identity));
  }
  if (!o.csv_path.empty()) {
    const bool append = run->resumed && std::ifstream(o.csv_path).good();
    if (append) GRAPH_RETURN_IF_ERROR(DropRowsAfter(o.csv_path, search.iterations()));
    run->csv.open(o.csv_path, append ? std::ios::app : std::ios::trunc);
    if (!run->csv) return graph::IoError(o.csv_path + ": cannot write --csv output");
    if (!append) {
      run->csv << "iteration,elapsed_s,mean_step_s,min_step_s,failed,best_step_s,baseline_cost,"
                  "learning_rate,grad_norm\n";
    }
  }
  return graph::Status::Ok();
}

// A real source to check a sim search's result with, when every device is
// real; null otherwise.
std::unique_ptr<rewards::RewardSource> RealCheckForSim(const Session& s) {
  if (s.options.reward != "sim") return nullptr;
  for (const cluster::DeviceSpec& d : s.cluster().devices) {
    if (d.kind == cluster::DeviceKind::kSim) return nullptr;
  }
  auto real = sources::MakeRewardSource(
      "real",
      rewards::RewardContext{&s.forward(), &s.setup->training, &s.cluster(), nullptr, 2, 10});
  return real.ok() ? std::move(*real) : nullptr;
}

// The result: on real devices the hardware's verdict against the best
// baseline (which becomes the result unless the gain is significant), the
// result's lines, and the files that show it (graphdef, picture).
graph::Status Conclude(const Session& s, const Run& run, search::BestPlacement best,
                       SearchJobResult* result) {
  const search::Search& search = *run.search;
  const SearchJobOptions& o = s.options;
  const std::optional<refine::RefineStart>& baseline = run.baselines.best;
  std::optional<double> baseline_s;
  if (baseline) baseline_s = baseline->step_s;
  SearchReport report;  // the picture's figures, each from where it was taken
  report.measured = s.real_rewards();
  report.curve = run.curve;
  report.baseline_method = baseline ? baseline->method : best.method;
  report.baseline_s = baseline_s.value_or(best.step_s);
  // On real devices the hardware decides (planner/rewards/verdict.h): the best of many
  // noisy measurements is the luckiest, and a simulated gain is a prediction,
  // so the found placement must beat the best baseline in fresh interleaved
  // rounds at the stated level, or the baseline is the result. Sim rewards on
  // real devices: the result is measured for real too.
  std::unique_ptr<rewards::RewardSource> sim_checked_on = RealCheckForSim(s);
  const rewards::RewardSource* on_hardware =
      s.real_rewards() ? s.hardware.get() : sim_checked_on.get();
  std::string verdict_text;
  // Stopped by a signal before the verdict: what the search found is untested
  // (sim rewards: a prediction; real ones: the best of many noisy samples),
  // and the placement to use is what an undecided verdict keeps.
  std::optional<search::BestPlacement> unverified;
  std::string unverified_why = "stopped before the hardware's verdict";
  const bool stopped = StopRequested();
  const bool found_baseline = baseline && best.device_of_node == baseline->device_of_node;
  auto not_decided = [&](const std::string& when) {
    return "not decided: stopped " + when + ", so " + frontend::FormatMs(best.step_s) +
           " is the search's own " +
           (s.real_rewards() ? "measurement (the best of many noisy ones: biased low)"
                             : "prediction") +
           " and " + baseline->method + " is the result";
  };
  if (on_hardware && baseline && stopped && !found_baseline) {
    verdict_text = not_decided("before the hardware's verdict");
    unverified = best;
  } else if (on_hardware && baseline) {  // after a signal: the baseline found again
    const std::string found_method = best.method;
    HardwareDecision d =
        DecideOnHardware(s.log(), *on_hardware, s.real_rewards(), o.verdict, baseline->method,
                         baseline->device_of_node, &*baseline_s, &best);
    if (d.interrupted) {
      verdict_text = not_decided("during the hardware's verdict (" + std::to_string(d.rounds) +
                                 " of " + std::to_string(o.verdict.rounds) + " rounds)");
      Say(s.log(), "on the hardware, %s\n", verdict_text.c_str());
      unverified = best;
      unverified_why = "stopped during the hardware's verdict";
    }
    if (!d.interrupted) verdict_text = d.text;
    report.verdict_found_s = d.found_s;
    report.verdict_baseline_s = d.baseline_s;
    report.found_method = found_method;
    if (!found_baseline && !d.interrupted) {
      GRAPH_RETURN_IF_ERROR(s.WritePlacementOf(best, search.elapsed_s(), search.iterations()));
    }
    if (!d.interrupted) s.RemoveUnverified();
  }
  // After a signal the hardware runs no more steps: the result has no
  // measured timeline.
  const bool measure_no_more = StopRequested() && s.real_rewards();
  sim::StepStats timeline;
  const rewards::Evaluation final_eval =
      measure_no_more ? rewards::Evaluation{} : s.reward->Timeline(best.device_of_node, &timeline);
  result->lower_bound_s = s.reward->LowerBoundSeconds();
  PrintResult(s.log(), o.reward, search, baseline ? baseline->method : "", baseline_s, best,
              verdict_text, result->lower_bound_s, final_eval.estimated_ops);
  if (baseline) {
    result->best_baseline =
        search::BestPlacement{baseline->method, *baseline_s, baseline->device_of_node, 0, 0};
  }
  if (unverified) {
    // -o gets the baseline; the found placement is kept beside it, labelled.
    best = *result->best_baseline;
    GRAPH_RETURN_IF_ERROR(s.WriteUnverified(*unverified, search.elapsed_s(), search.iterations(),
                                            unverified_why, true));
    GRAPH_RETURN_IF_ERROR(s.WritePlacementOf(best, search.elapsed_s(), search.iterations()));
  }
  result->best = best;
  result->verdict = verdict_text;
  result->unverified = unverified;
  if (const std::string line = s.hardware->Summary(); !line.empty()) {
    Say(s.log(), "%s\n", line.c_str());
  }
  if (run.ps) Say(s.log(), "%s\n", run.ps->Summary().c_str());
  if (!o.out_path.empty()) Say(s.log(), "placement: %s\n", o.out_path.c_str());
  if (!o.checkpoint_path.empty()) Say(s.log(), "checkpoint: %s\n", o.checkpoint_path.c_str());
  if (sim_checked_on && !StopRequested()) {
    const rewards::Evaluation m = sim_checked_on->Evaluate(best.device_of_node);
    if (m.status.ok()) {
      Say(s.log(), "  measured       %s on the real devices; simulator error %+.1f%%\n",
          frontend::FormatMs(m.step_s).c_str(), 100 * (best.step_s - m.step_s) / m.step_s);
    } else {
      Say(s.log(), "  measured       %s\n", rewards::DescribeEvaluation(m).c_str());
    }
  }
  GRAPH_RETURN_IF_ERROR(s.Export(best.device_of_node, best.method));
  if (!o.svg_path.empty()) {
    const std::string title = o.model_path + " on " + o.devices_path + ": " + best.method + " " +
                              frontend::FormatMs(best.step_s) + " (" + o.reward + ")";
    report.title = title;
    report.verdict = verdict_text;
    report.result_method = best.method;
    // The result's step; after a signal the result is the baseline, not the found placement.
    if (unverified && !measure_no_more) s.reward->Timeline(best.device_of_node, &timeline);
    report.timeline = timeline;
    report.timeline_skipped = measure_no_more;
    GRAPH_RETURN_IF_ERROR(graph::WriteFileAtomic(
        o.svg_path, SearchReportSvg(report, s.reward->executed_graph(), s.cluster())));
    Say(s.log(), "picture: %s\n", o.svg_path.c_str());
  }
  return graph::Status::Ok();
}

// The method a file names for `method` (the best's): a baseline's as `planner
// baseline` writes it ("baseline metis"), anything searched as it is.
std::string FileMethod(const std::string& method) {
  const bool searched =
      method.rfind("search", 0) == 0 || method.find("+refine") != std::string::npos;
  return searched ? method : "baseline " + method;
}

}  // namespace

placement::Placement Session::PlacementOf(const search::BestPlacement& b, double seconds,
                                          int iterations) const {
  placement::Placement p = placement::MakePlacement(
      options.model_path, forward(), identity.model_digest, options.devices_path, cluster(),
      FileMethod(b.method), b.device_of_node, options.training.optimizer);
  if (b.device_of_node.size() > static_cast<size_t>(forward().size())) {
    const graph::Graph& training = setup->training.graph;
    p.gradients_apart =
        placement::GradientsApart(training, placement::ForwardSourceOfNode(training, forward()),
                                  context.apart, forward().size(), b.device_of_node, cluster());
  }
  (real_rewards() ? p.measured_step_s : p.simulated_step_s) = b.step_s;
  p.search = {{"iterations", iterations},
              {"seconds", std::round(seconds * 10) / 10},
              {"found_at_iteration", b.iteration},
              {"found_at_seconds", std::round(b.found_at_s * 10) / 10}};
  return p;
}

graph::Status Session::WritePlacementOf(const search::BestPlacement& b, double seconds,
                                        int iterations) const {
  if (options.out_path.empty()) return graph::Status::Ok();
  return placement::WritePlacement(options.out_path, PlacementOf(b, seconds, iterations));
}

graph::Status Session::WriteUnverified(const search::BestPlacement& b, double seconds,
                                       int iterations, const std::string& why, bool say) const {
  if (options.out_path.empty()) return graph::Status::Ok();
  placement::Placement p = PlacementOf(b, seconds, iterations);
  p.method += " (unverified: " + why + ")";
  const std::string path = options.out_path + ".unverified";
  GRAPH_RETURN_IF_ERROR(placement::WritePlacement(path, p));
  if (say) {
    Say(log(), "unverified: %s (the search's best, which the hardware did not judge)\n",
        path.c_str());
  }
  return graph::Status::Ok();
}

void Session::RemoveUnverified() const {
  if (options.out_path.empty()) return;
  const std::string path = options.out_path + ".unverified";
  if (std::remove(path.c_str()) == 0) {
    Say(log(), "removed %s: the hardware has judged the search's best\n", path.c_str());
  }
}

bool Session::judged_on_hardware() const {
  if (real_rewards()) return true;
  if (options.reward != "sim") return false;
  for (const cluster::DeviceSpec& d : cluster().devices) {
    if (d.kind == cluster::DeviceKind::kSim) return false;
  }
  return true;
}

graph::Status Session::Export(const std::vector<int>& device_of_node,
                              const std::string& method) const {
  // The forward graph's part (--gradients heavy refuses the exports).
  const std::vector<int> forward_device(device_of_node.begin(),
                                        device_of_node.begin() + forward().size());
  const SimulatedStep simulated = options.reward == "sim" ? SimulatedStepOf(*hardware) : nullptr;
  return WriteExports({options.export_graphdef_path, options.export_modules_path}, forward(),
                      cluster(), forward_device, options.model_path, options.devices_path,
                      FileMethod(method), simulated, log());
}

graph::Status Run::WriteBest(const Session& s) const {
  if (!search->best()) return graph::Status::Ok();
  return WriteBest(s, *search->best(), search->elapsed_s(), search->iterations());
}

graph::Status Run::WriteBest(const Session& s, const search::BestPlacement& b, double seconds,
                             int iterations) const {
  if (!s.judged_on_hardware() || !baselines.best) return s.WritePlacementOf(b, seconds, iterations);
  const refine::RefineStart& base = *baselines.best;
  GRAPH_RETURN_IF_ERROR(
      s.WritePlacementOf(search::BestPlacement{base.method, base.step_s, base.device_of_node, 0, 0},
                         seconds, iterations));
  if (b.device_of_node == base.device_of_node) return graph::Status::Ok();
  return s.WriteUnverified(b, seconds, iterations,
                           "the search's best so far, not yet judged by "
                           "the hardware",
                           false);
}

graph::Status CheckSearchJobOptions(const SearchJobOptions& o) {
  GRAPH_RETURN_IF_ERROR(sources::CheckRewardName(o.reward));
  GRAPH_RETURN_IF_ERROR(rewards::CheckVerdictOptions(o.verdict));
  if (!o.fleet_path.empty() != (o.reward == "fleet")) {
    return graph::InvalidArgument("--fleet FLEET goes with --reward fleet, and only with it");
  }
  if (o.patience_s.value_or(0) > 0 && (!o.budget_s || o.refine_s == 0)) {
    return graph::InvalidArgument(
        "--patience goes with --budget and a hill climb to hand it to (not --refine 0)");
  }
  // The two flags that shape the policy-first stall rule need that rule.
  const bool stall_rule = o.patience_s != 0.0 && !o.climb_first && o.budget_s && o.refine_s != 0;
  const std::pair<bool, const char*> shaping[] = {
      {o.patience_gain.has_value(), "--patience-gain"},
      {o.patience_first_s.value_or(0) > 0, "--patience-first"}};
  for (const auto& [given, flag] : shaping) {
    if (given && !stall_rule) {
      return graph::InvalidArgument(std::string(flag) +
                                    " goes with --budget, a hill climb and --order policy-first "
                                    "(not --patience 0)");
    }
  }
  if (o.gradients_apart_fraction > 0) {
    if (!o.export_graphdef_path.empty() || !o.export_modules_path.empty()) {
      return graph::InvalidArgument(
          std::string(o.export_graphdef_path.empty() ? "--export-modules" : "--export-graphdef") +
          " carries the devices of the model's own ops, and a gradient runs with its op there: "
          "it cannot carry --gradients heavy's placement (use the placement file)");
    }
  }
  if (o.climb_first && (!o.budget_s || o.refine_s == 0 || o.reward != "sim")) {
    return graph::InvalidArgument(
        "--order climb-first goes with --budget, --reward sim and a hill climb (not --refine 0)");
  }
  if (o.climb_first && o.patience_s == 0.0) {
    return graph::InvalidArgument(
        "--patience 0 with --order climb-first would never hand the climb's result to the "
        "policy (for the climb alone: --iterations 0)");
  }
  return graph::Status::Ok();
}

graph::Status RunSearchJob(const SearchJobOptions& options, SearchJobResult* result) {
  GRAPH_RETURN_IF_ERROR(CheckSearchJobOptions(options));
  Session s;
  GRAPH_RETURN_IF_ERROR(OpenSession(options, &s));
  if (s.num_devices() == 1) return SearchOneDevice(s, result);
  Run run;
  // From the baselines to the verdict, SIGINT or SIGTERM ends the search
  // early with every file complete (a fleet stops its controllers so, whatever
  // phase each is in): a verdict not reached or not finished leaves the found
  // placement unverified.
  std::optional<frontend::StopOnSignals> stop_on_signals;
  if (options.stop_on_signals) stop_on_signals.emplace();
  graph::Status started = StartRun(s, &run);
  graph::Result<search::BestPlacement> best =
      started.ok() ? SearchPhases(s, run) : graph::Result<search::BestPlacement>(started);
  if (run.search) {
    result->iterations = run.search->iterations();
    result->seconds = run.search->elapsed_s();
  }
  GRAPH_RETURN_IF_ERROR(best.status());
  graph::Status concluded = Conclude(s, run, *best, result);
  result->stopped = StopRequested();
  return concluded;
}

}  // namespace planner::job
