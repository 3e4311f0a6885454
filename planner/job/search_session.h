// Internal to the search job (search_job.cc, search_phases.cc): a job's
// loaded inputs (Session), its state past them (Run), and the phases that
// search_job.cc runs in order. Not for other rooms: RunSearchJob is the API.
//
// Ownership: a Session owns the model, devices, profile and reward sources;
// its RewardContext points into it, so it stays where it was made. A Run
// owns the search, the climb's simulator and the curve's file.
#pragma once

#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/model_loading.h"
#include "placement/placement.h"
#include "planner/job/log.h"
#include "planner/job/recalibration.h"
#include "planner/job/report_svg.h"
#include "planner/job/search_job.h"
#include "planner/refine/refine.h"
#include "planner/rewards/reward.h"
#include "planner/rewards/reward_memo.h"
#include "planner/search/parameter_server.h"
#include "planner/search/search.h"
#include "sim/profile.h"

namespace planner::job {

// True once a signal asked the job to stop (frontend/stop_signals.h).
bool StopRequested();

struct Session {
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  SearchJobOptions options;
  std::optional<frontend::PlacedTraining> setup;
  std::optional<sim::Profile> profile;
  // real rewards with options.recalibrate: told of every measured step (the
  // context's observer), to refit the climb's simulator
  std::unique_ptr<Recalibration> recalibration;
  rewards::RewardContext context;
  std::unique_ptr<rewards::RewardSource> hardware;  // as made: the verdict measures on it afresh
  std::optional<rewards::RememberingReward> memo;  // measured rewards: each placement measured once
  const rewards::RewardSource* reward = nullptr;   // the search's: memo, else hardware
  search::SearchIdentity identity;

  std::FILE* log() const { return options.log; }
  const graph::Graph& forward() const { return setup->model.graph; }
  const cluster::Cluster& cluster() const { return setup->cluster; }
  int num_devices() const { return static_cast<int>(cluster().devices.size()); }
  bool real_rewards() const { return hardware->measured(); }
  // Every device is real: the hardware judges the found placement against the
  // best baseline before it is the result (real rewards, or sim ones checked).
  bool judged_on_hardware() const;

  // The placement file for `b`, found after `seconds` and `iterations` updates.
  placement::Placement PlacementOf(const search::BestPlacement& b, double seconds,
                                   int iterations) const;
  // Writes it to out_path, if given.
  graph::Status WritePlacementOf(const search::BestPlacement& b, double seconds,
                                 int iterations) const;
  // A found placement the hardware has not judged, to OUT.unverified beside
  // out_path, if given; its method says so with `why` ("stopped before the
  // hardware's verdict"); `say`: the log names the file.
  graph::Status WriteUnverified(const search::BestPlacement& b, double seconds, int iterations,
                                const std::string& why, bool say) const;
  // Removes a stale OUT.unverified once the hardware has judged.
  void RemoveUnverified() const;
  // The model with `device_of_node` as TensorFlow device strings, and the
  // device of each PyTorch module, to their paths, if given.
  graph::Status Export(const std::vector<int>& device_of_node, const std::string& method) const;
};

struct BaselinesRun {
  std::vector<refine::RefineStart> ran;     // the baselines that ran, with their step times
  std::optional<refine::RefineStart> best;  // the fastest of them
  graph::Status first_failure = graph::Status::Ok();
};

// A search's state past its inputs: the policy and its search, the baselines'
// results, the source the hill climb runs on, and what the updates write.
struct Run {
  std::unique_ptr<search::Search> search;
  bool resumed = false;
  // The hill climb runs on the simulator: with sim rewards the reward source
  // itself; with real ones a simulator on the devices' profile (null without
  // one: no climb), whose proposal is then measured (the simulator proposes,
  // the hardware decides). With a Recalibration, that simulator is remade on
  // the refitted profile before the climb.
  std::unique_ptr<sim::Profile> refitted_profile;
  std::unique_ptr<rewards::RewardSource> profile_sim;
  const rewards::RewardSource* climb_on = nullptr;
  BaselinesRun baselines;
  std::unique_ptr<search::ParameterServer> ps;
  std::ofstream csv;
  std::vector<CurvePoint> curve;

  // The search's best so far (or `b`) to out_path; when the hardware will
  // judge it, out_path holds the best baseline (what an undecided verdict
  // keeps) and the best so far waits in OUT.unverified, so that a search
  // killed outright leaves no unjudged placement as its result.
  graph::Status WriteBest(const Session& s) const;
  graph::Status WriteBest(const Session& s, const search::BestPlacement& b, double seconds,
                          int iterations) const;
};

// Every baseline for the devices (planner/baselines/baselines.h), evaluated on `reward`,
// printed and offered to `search`; after a signal, no more once one ran.
BaselinesRun RunBaselines(const Session& s, const rewards::RewardSource& reward,
                          const sim::Simulator* costs, search::Search* search);

// Through the search and the hill climb, in the order the options ask (with
// climb-first the climb goes first, from the baselines, until it stalls; the
// policy then starts from its result and the climb gets whatever time the
// policy leaves). Returns the best placement found; a signal ends each phase
// early.
graph::Result<search::BestPlacement> SearchPhases(const Session& s, Run& run);

}  // namespace planner::job
