#include "planner/search/scope_groups.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

namespace planner::search {

// The name-scope tree: a node per scope path and per op name; `own` holds the
// ops whose name is this path. Children in the order their first op appears in
// topological order.
struct ScopeGrouping::Tree {
  struct Scope {
    std::vector<int> children, own;
    int64_t count = 0;  // ops in this subtree
  };
  std::vector<Scope> scopes{Scope{}};  // [0]: the root

  std::vector<graph::NodeId> topological;  // the ops in topological order
  std::vector<int> position;               // [op] its place in it

  explicit Tree(const graph::Graph& g) : topological(g.topological_order()), position(g.size(), 0) {
    for (size_t p = 0; p < topological.size(); ++p) position[topological[p]] = static_cast<int>(p);
    std::vector<std::unordered_map<std::string, int>> child_of(1);
    for (graph::NodeId id : topological) {
      const std::string& name = g.node(id).name;
      int at = 0;
      ++scopes[0].count;
      for (size_t start = 0;;) {
        const size_t slash = name.find('/', start);
        const std::string part =
            name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        const auto [it, fresh] = child_of[at].emplace(part, static_cast<int>(scopes.size()));
        const int next = it->second;
        if (fresh) {
          scopes[at].children.push_back(next);
          scopes.emplace_back();
          child_of.emplace_back();
        }
        at = next;
        ++scopes[at].count;
        if (slash == std::string::npos) break;
        start = slash + 1;
      }
      scopes[at].own.push_back(id);
    }
  }
};

namespace {

using ScopeTree = ScopeGrouping::Tree;

// A group while the grouping forms: the ops under children [lo, hi) of a
// scope, and the scope's own ops when `own`.
struct Unit {
  int scope = 0;
  size_t lo = 0, hi = 0;
  bool own = true;
};

class Grouping {
 public:
  Grouping(const ScopeTree& tree, int max_groups) : tree_(tree), max_(std::max(1, max_groups)) {}

  // The smallest threshold whose splits fit, then runs with the groups left.
  std::vector<Unit> Run() {
    int64_t lo = 0, hi = tree_.scopes[0].count;  // Split(hi) is one group: it fits
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (Split(mid).size() <= static_cast<size_t>(max_)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    std::vector<Unit> units = Split(hi);
    SplitIntoRuns(&units);
    return units;
  }

 private:
  Unit Whole(int scope) const { return Unit{scope, 0, tree_.scopes[scope].children.size(), true}; }

  int64_t Size(const Unit& u) const {
    const ScopeTree::Scope& s = tree_.scopes[u.scope];
    int64_t n = u.own ? static_cast<int64_t>(s.own.size()) : 0;
    for (size_t c = u.lo; c < u.hi; ++c) n += tree_.scopes[s.children[c]].count;
    return n;
  }

  // Every scope of more than `threshold` ops split into its children (and its
  // own ops), recursively; the rest whole.
  std::vector<Unit> Split(int64_t threshold) const {
    std::vector<Unit> units;
    std::vector<int> stack{0};
    while (!stack.empty()) {
      const int scope = stack.back();
      stack.pop_back();
      const ScopeTree::Scope& s = tree_.scopes[scope];
      if (s.count <= threshold || s.children.empty()) {
        units.push_back(Whole(scope));
        continue;
      }
      if (!s.own.empty()) units.push_back(Unit{scope, 0, 0, true});
      stack.insert(stack.end(), s.children.rbegin(), s.children.rend());
    }
    return units;
  }

  // The groups left go to the largest whole scopes with children (those of at
  // least half the largest's ops), shared equally: each splits into its
  // children if its share allows, else into that many runs of consecutive
  // children (a layer's time steps in a few runs), balanced by ops.
  void SplitIntoRuns(std::vector<Unit>* units) const {
    std::vector<size_t> largest;
    int64_t top = 0;
    for (size_t i = 0; i < units->size(); ++i) {
      const Unit& u = (*units)[i];
      if (tree_.scopes[u.scope].children.size() < 2 || u.hi == 0) continue;
      top = std::max(top, Size(u));
      largest.push_back(i);
    }
    largest.erase(std::remove_if(largest.begin(), largest.end(),
                                 [&](size_t i) { return 2 * Size((*units)[i]) < top; }),
                  largest.end());
    const size_t left = static_cast<size_t>(max_) - units->size();
    if (largest.empty() || left < largest.size()) return;
    const size_t share = left / largest.size();
    std::vector<Unit> out;
    for (size_t i = 0; i < units->size(); ++i) {
      if (std::find(largest.begin(), largest.end(), i) == largest.end()) {
        out.push_back((*units)[i]);
        continue;
      }
      const int scope = (*units)[i].scope;
      const ScopeTree::Scope& s = tree_.scopes[scope];
      if (!s.own.empty()) out.push_back(Unit{scope, 0, 0, true});
      const size_t runs = std::min(s.children.size(), share + (s.own.empty() ? 1 : 0));
      if (runs < 2) {
        out.push_back(Unit{scope, 0, s.children.size(), false});
        continue;
      }
      const double total = static_cast<double>(Size(Unit{scope, 0, s.children.size(), false}));
      double before = 0;
      size_t run_lo = 0, run = 0;
      for (size_t c = 0; c < s.children.size(); ++c) {
        const double n = static_cast<double>(tree_.scopes[s.children[c]].count);
        // Each child joins the run its middle falls in.
        const size_t r = std::min(runs - 1, static_cast<size_t>((before + n / 2) * runs / total));
        if (r != run && c > run_lo) {
          out.push_back(Unit{scope, run_lo, c, false});
          run_lo = c;
        }
        run = r;
        before += n;
      }
      out.push_back(Unit{scope, run_lo, s.children.size(), false});
    }
    *units = std::move(out);
  }

  const ScopeTree& tree_;
  const int max_;
};

void CollectOps(const ScopeTree& tree, int scope, std::vector<int>* ops) {
  const ScopeTree::Scope& s = tree.scopes[scope];
  ops->insert(ops->end(), s.own.begin(), s.own.end());
  for (int c : s.children) CollectOps(tree, c, ops);
}

// Units as a grouping: ids by each unit's first op in topological order.
std::vector<int> Number(const ScopeTree& tree, const std::vector<Unit>& units) {
  std::vector<std::pair<int, std::vector<int>>> groups;  // (first position, ops)
  for (const Unit& u : units) {
    std::vector<int> ops;
    const ScopeTree::Scope& s = tree.scopes[u.scope];
    if (u.own) ops = s.own;
    for (size_t c = u.lo; c < u.hi; ++c) CollectOps(tree, s.children[c], &ops);
    if (ops.empty()) continue;
    int first = std::numeric_limits<int>::max();
    for (int op : ops) first = std::min(first, tree.position[op]);
    groups.emplace_back(first, std::move(ops));
  }
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> group_of(tree.position.size(), 0);
  for (size_t g = 0; g < groups.size(); ++g) {
    for (int op : groups[g].second) group_of[op] = static_cast<int>(g);
  }
  return group_of;
}

// How many groups a grouping has (ids 0..G-1, as Number numbers them).
int Count(const std::vector<int>& groups) {
  return groups.empty() ? 0 : *std::max_element(groups.begin(), groups.end()) + 1;
}

// `groups` with each group cut by device, numbered as Number does.
std::vector<int> SplitByDevice(const ScopeTree& tree, const std::vector<int>& groups,
                               const std::vector<int>& device_of_op, int* count) {
  std::map<std::pair<int, int>, int> id;  // (group, device) -> new id, by first op
  std::vector<int> out(groups.size(), 0);
  for (graph::NodeId op : tree.topological) {
    out[op] = id.emplace(std::make_pair(groups[op], device_of_op[op]), static_cast<int>(id.size()))
                  .first->second;
  }
  *count = static_cast<int>(id.size());
  return out;
}

}  // namespace

ScopeGrouping::ScopeGrouping(const graph::Graph& forward)
    : tree_(std::make_unique<const Tree>(forward)) {}

ScopeGrouping::~ScopeGrouping() = default;

std::vector<int> ScopeGrouping::Groups(int max_groups) const {
  return Number(*tree_, Grouping(*tree_, max_groups).Run());
}

std::pair<int, std::vector<int>> ScopeGrouping::Follow(int max_groups,
                                                       const std::vector<int>& device_of_op) const {
  assert(device_of_op.size() == tree_->position.size());
  // From max_groups down, each try's scopes scaled by how far its split
  // missed, until one fits (the counts are not monotone in c, so no
  // bisection); if even one group cut by device does not fit, the placement
  // cannot be followed (0 scope groups).
  const int cap = std::max(1, max_groups);
  for (int c = cap;;) {
    const std::vector<int> scopes = Groups(c);
    int count = 0;
    std::vector<int> split = SplitByDevice(*tree_, scopes, device_of_op, &count);
    if (count <= cap) return {Count(scopes), std::move(split)};
    if (c == 1) return {0, {}};
    c = std::max(1, std::min(c - 1, static_cast<int>(static_cast<int64_t>(c) * cap / count)));
  }
}

std::vector<int> ScopeGrouping::GroupsFollowing(int max_groups,
                                                const std::vector<int>& device_of_op) const {
  if (device_of_op.empty()) return Groups(max_groups);
  auto [scopes, split] = Follow(max_groups, device_of_op);
  return scopes > 0 ? std::move(split) : Groups(max_groups);  // unfollowable: the scopes alone
}

int ScopeGrouping::ScopesFollowing(int max_groups, const std::vector<int>& device_of_op) const {
  if (device_of_op.empty()) return Count(Groups(max_groups));
  return Follow(max_groups, device_of_op).first;
}

std::vector<int> ScopeGroups(const graph::Graph& forward, int max_groups) {
  return ScopeGrouping(forward).Groups(max_groups);
}

}  // namespace planner::search
