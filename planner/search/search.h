// The search: REINFORCE on the Hierarchical Planner's policy (planner/search/policy.h),
// as published (Mirhoseini et al., ICLR 2018, section 2, with TensorFlow's
// grappler/hierarchical_controller.py where the paper is silent).
//
// One Step samples m groupings and k device assignments of each, asks the
// reward source for each placement's step time, and updates the policy on
// cost = sqrt(step time) (a failed placement costs sqrt(failing_step_s)): as
// published, one REINFORCE step on the cost minus an exponential moving average
// baseline, with Adam and global-norm gradient clipping; or, by
// SearchOptions::update and ::advantage, PPO's clipped surrogate on costs
// standardised per update (docs/search.md says why). The best placement seen (baselines offered by
// the caller included) is kept. Save/Load checkpoint everything a resumed search needs: the policy,
// Adam's state, the baseline, the random generator, the best placement and the
// caller's identification of the model, devices and reward.
//
// Ownership: owns the policy (LibTorch, hidden here). Thread safety: none; Step
// may spread a concurrent reward source's evaluations over threads itself.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/status.h"
#include "planner/rewards/reward.h"
#include "planner/search/parameter_server.h"
#include "planner/search/scope_groups.h"
#include "planner/search/search_options.h"

namespace planner::search {

struct SearchIteration {
  // ok, or a failure of the policy itself (LibTorch refused an update, e.g. on
  // non-finite values): the search cannot go on, and the rest is unset.
  graph::Status status;
  int iteration = 0;                             // policy updates done, this one included
  std::vector<std::vector<int>> placements;      // [m x k][forward node, apart slot] -> device
  std::vector<rewards::Evaluation> evaluations;  // [m x k]
  double mean_cost = 0;                          // mean sqrt(seconds) of the m x k placements
  double baseline = 0;                           // the moving average after this update
  double learning_rate = 0;
  double grad_norm = 0;   // the gradient's global L2 norm before clipping
  bool improved = false;  // a sample beat the best so far
};

struct BestPlacement {
  std::string method;  // "search", or the baseline's ("single:gpu0", "expert")
  double step_s = 0;   // its reward source's step time
  // Of the forward graph; after a climb with the reward source's apart
  // gradient ops (Search::AllowApart), one device more for each of them.
  std::vector<int> device_of_node;
  int iteration = 0;      // the update that found it (0: a baseline)
  double found_at_s = 0;  // search time when it was found
};

// What a checkpoint was made for; a resume must match it.
struct SearchIdentity {
  std::string model_digest;
  std::string devices_digest;
  std::string reward;  // "sim" or "real"
};

struct WarmStartResult {
  graph::Status status;  // ok, or LibTorch refused a step (the search cannot go on)
  int grouper_steps = 0, placer_steps = 0;   // Adam steps taken (the Grouper's: none when
                                             // the groups are name scopes: places_scopes)
  double grouper_loss = 0, placer_loss = 0;  // the last cross-entropies, nats per decision
  double grouper_s = 0, placer_s = 0;        // seconds each network's fit took
};

class Search {
 public:
  // `forward` has shapes inferred; placements index `num_devices` devices.
  static graph::Result<std::unique_ptr<Search>> Create(const graph::Graph& forward, int num_devices,
                                                       const SearchOptions& o, uint64_t seed);
  ~Search();

  SearchIteration Step(const rewards::RewardSource& reward);

  // Trains the policy by cross-entropy to propose `device_of_node` (a grouping
  // that follows it, HierarchicalPolicy::GroupsFollowing, and its devices),
  // the Grouper and the Placer each for SearchOptions::warm_start_steps at most,
  // stopping once its loss is below warm_start_loss. REINFORCE then explores
  // around that placement. Its time
  // counts in elapsed_s(); a checkpoint keeps its effect.
  WarmStartResult WarmStart(const std::vector<int>& device_of_node);

  // With SearchOptions::grouper "auto", before WarmStart and the first update:
  // name scopes as the groups when `device_of_node` (the best baseline) cut
  // into scopes keeps enough of them, else the learned Grouper
  // (HierarchicalPolicy::ChooseGrouper). A checkpoint keeps the choice.
  GrouperChoice ChooseGrouper(const std::vector<int>& device_of_node);
  bool places_scopes() const;

  // From now on every policy update goes through `server` (not owned; it
  // must outlive the search), joined first under `identity`: the search
  // continues from the server's parameters when it holds a policy, else the
  // server takes this one's. The local optimizer is then unused.
  graph::Status UseParameterServer(ParameterServer* server, const std::string& identity);
  // The server's parameter version the policy holds (0 without a server), and
  // how many of this search's gradients it applied and dropped as stale.
  int64_t parameter_version() const;
  int64_t gradients_applied() const;
  int64_t gradients_stale() const;

  // One placement of the forward graph (and of the apart slots, AllowApart)
  // drawn from the policy as it is now (one
  // grouping, one device per group, no exploration noise, no gradient), with
  // a generator of its own seeded by `seed`: the search's own draws are
  // untouched. Deterministic in `seed` and the policy's parameters. Empty when
  // LibTorch refused (a caller then does without).
  std::vector<int> SamplePlacement(uint64_t seed);

  // Placements may also place gradient ops apart from their op
  // (rewards::RewardSource::apart), one device each after the forward graph's:
  // `follows[k]` is the forward node apart slot k's op takes its device from
  // when colocated (placement::ForwardSourceOfNode; -1: none). The policy then
  // samples a device for each slot too (HierarchicalPolicyImpl::PlaceApart),
  // and placements offered may hold them (the hill climb's do). The policy's
  // incumbent features see the forward part. A checkpoint keeps the count, and
  // Load refuses one made with another. Once, before Load and the first Step;
  // empty: none.
  void AllowApart(const std::vector<int>& follows);

  // Keeps `device_of_node` as the best if it is faster than the best so far.
  bool Offer(const std::string& method, const std::vector<int>& device_of_node,
             const rewards::Evaluation& e, int iteration);
  const std::optional<BestPlacement>& best() const;
  int iterations() const;
  double elapsed_s() const;  // time spent in Step, accumulated over resumed runs

  // Atomic write of a checkpoint; Load refuses one of another model, devices
  // file, reward source or policy shape, naming what differs.
  graph::Status Save(const std::string& path, const SearchIdentity& id) const;
  graph::Status Load(const std::string& path, const SearchIdentity& id);

 private:
  struct Impl;
  explicit Search(std::unique_ptr<Impl> impl);
  SearchIteration StepOrThrow(const rewards::RewardSource& reward);
  WarmStartResult WarmStartOrThrow(const std::vector<int>& device_of_node);
  graph::Status LoadOrThrow(const std::string& path, const SearchIdentity& id);
  std::unique_ptr<Impl> impl_;
};

}  // namespace planner::search
