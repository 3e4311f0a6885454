// A fixed grouping of the forward graph's ops by name scope, for a Placer
// without a learned Grouper (SearchOptions::grouper "scopes").
//
// The placements that pay on the paper's models are made of whole scopes: a
// layer (cell) per GPU, an attention time step or a run of a layer's time steps
// on an idle device (the hill climb's results, docs/search.md). A learned
// Grouper's groups mix ops of many scopes, so its Placer cannot express them;
// these groups are the scopes themselves, as fine as `max_groups` allows.
//
// Contract: a grouping is one group id per node of `forward`, ids 0..G-1 with
// 1 <= G <= max(1, max_groups), every id used, numbered in the topological
// order of each group's first node. Deterministic. Thread safety: const
// methods may be called concurrently.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace planner::search {

class ScopeGrouping {
 public:
  // Copies the ops' name-scope tree and topological order.
  explicit ScopeGrouping(const graph::Graph& forward);
  ~ScopeGrouping();
  ScopeGrouping(const ScopeGrouping&) = delete;
  ScopeGrouping& operator=(const ScopeGrouping&) = delete;

  // Every scope of more than S ops split into its child scopes (an op named
  // like a scope, "a/b" beside "a/b/c", is a child of its own), recursively,
  // with the smallest S whose groups fit in max_groups; the groups left go to
  // the largest scopes still whole, each split into runs of consecutive
  // children (a layer's time steps in a few runs). A scope every op shares (a
  // TF.js wrapper) splits without cost.
  std::vector<int> Groups(int max_groups) const;

  // A grouping on which `device_of_op` is exactly expressible: Groups(c)
  // with each group split by device, for the first c from max_groups down
  // (each try scaled by how far the last missed) whose split fits; if none
  // does (more devices used than max_groups), Groups(max_groups). A placement
  // made of whole scopes keeps Groups(max_groups); one that scatters ops (a
  // list scheduler's) gets coarser scopes, cut by device. Empty
  // `device_of_op`: Groups(max_groups).
  std::vector<int> GroupsFollowing(int max_groups, const std::vector<int>& device_of_op) const;

  // How many scope groups GroupsFollowing keeps before cutting them by
  // device: Groups(max_groups)'s count for a placement of whole scopes (or an
  // empty one), fewer the more it scatters ops across scopes; 0 when no
  // grouping cut by device fits. What SearchOptions::grouper "auto" decides by.
  int ScopesFollowing(int max_groups, const std::vector<int>& device_of_op) const;

  struct Tree;  // the name-scope tree, opaque (scope_groups.cc)

 private:
  // (ScopesFollowing, GroupsFollowing's grouping); (0, {}) when none fits.
  std::pair<int, std::vector<int>> Follow(int max_groups,
                                          const std::vector<int>& device_of_op) const;

  std::unique_ptr<const Tree> tree_;
};

// What SearchOptions::grouper "auto" chose (Search::ChooseGrouper).
struct GrouperChoice {
  bool scopes = false;    // the name scopes are the groups; else the Grouper samples them
  int scopes_kept = 0;    // ScopesFollowing of the placement it chose by (auto only)
  int scopes_needed = 0;  // the least scopes_kept that chooses scopes (auto only)
  int groups = 0;         // num_groups
};

// ScopeGrouping(forward).Groups(max_groups).
std::vector<int> ScopeGroups(const graph::Graph& forward, int max_groups);

}  // namespace planner::search
