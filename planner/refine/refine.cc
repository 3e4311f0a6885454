#include "planner/refine/refine.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <unordered_map>

#include "placement/colocation.h"
#include "placement/placement.h"
#include "sim/simulator.h"
#include "sim/timeline.h"

namespace planner::refine {

namespace {

// Splits the run of sibling units [lo, hi) in halves, quarters, ... down to
// runs of two, appending each run (their nodes together) to `out`.
void AppendSiblingRuns(const std::vector<std::vector<graph::NodeId>>& siblings,
                       const std::vector<int>& children, size_t lo, size_t hi,
                       std::vector<std::vector<graph::NodeId>>& out) {
  if (hi - lo < 4) return;  // runs of two or three are not split
  const size_t mid = lo + (hi - lo) / 2;
  for (auto [a, b] : {std::pair{lo, mid}, std::pair{mid, hi}}) {
    if (b - a < 2) continue;
    std::vector<graph::NodeId> run;
    for (size_t c = a; c < b; ++c) {
      const std::vector<graph::NodeId>& unit = siblings[children[c]];
      run.insert(run.end(), unit.begin(), unit.end());
    }
    out.push_back(std::move(run));
    AppendSiblingRuns(siblings, children, a, b, out);
  }
}

// Every name-scope prefix is a unit ("decoder", "decoder/cell_1",
// "decoder/cell_1/t_5"), coarse ones first, each in topological order. With
// `sibling_runs`, before each level's scopes come the runs of them that share
// a parent (halves, quarters, ... of the parent's children, in topological
// order: "decoder/cell_1/t_0..t_15"), counted in *runs.
std::vector<std::vector<graph::NodeId>> NameScopeUnits(const graph::Graph& forward,
                                                       bool sibling_runs, int* runs) {
  std::vector<std::vector<std::vector<graph::NodeId>>> by_depth;
  std::vector<std::vector<std::vector<int>>> children;  // [depth][unit]: its sub-scopes' indices
  std::unordered_map<std::string, std::pair<int, int>> unit_of_scope;  // (depth, index)
  for (graph::NodeId id : forward.topological_order()) {
    const std::string& name = forward.node(id).name;
    std::vector<std::string> scopes;
    for (size_t slash = name.find('/'); slash != std::string::npos;
         slash = name.find('/', slash + 1)) {
      scopes.push_back(name.substr(0, slash));
    }
    if (scopes.empty()) scopes.push_back(name);
    int parent = -1;
    for (size_t depth = 0; depth < scopes.size(); ++depth) {
      if (by_depth.size() <= depth) {
        by_depth.emplace_back();
        children.emplace_back();
      }
      auto [it, fresh] = unit_of_scope.emplace(
          scopes[depth],
          std::make_pair(static_cast<int>(depth), static_cast<int>(by_depth[depth].size())));
      if (fresh) {
        by_depth[depth].emplace_back();
        children[depth].emplace_back();
        if (parent >= 0) children[depth - 1][parent].push_back(it->second.second);
      }
      by_depth[depth][it->second.second].push_back(id);
      parent = it->second.second;
    }
  }
  std::vector<std::vector<graph::NodeId>> units;
  *runs = 0;
  for (size_t depth = 0; depth < by_depth.size(); ++depth) {
    if (sibling_runs && depth > 0) {
      const size_t before = units.size();
      for (const std::vector<int>& kids : children[depth - 1]) {
        AppendSiblingRuns(by_depth[depth], kids, 0, kids.size(), units);
      }
      *runs += static_cast<int>(units.size() - before);
    }
    for (auto& unit : by_depth[depth]) units.push_back(std::move(unit));
  }
  return units;
}

// For each node, the units that hold it.
std::vector<std::vector<int>> UnitsOfNode(const std::vector<std::vector<graph::NodeId>>& units,
                                          size_t num_nodes) {
  std::vector<std::vector<int>> out(num_nodes);
  for (size_t u = 0; u < units.size(); ++u) {
    for (graph::NodeId id : units[u]) out[id].push_back(static_cast<int>(u));
  }
  return out;
}

// For each node, the nodes it shares an edge with (data or control, either way).
std::vector<std::vector<graph::NodeId>> Neighbours(const graph::Graph& g) {
  std::vector<std::vector<graph::NodeId>> out(g.size());
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    auto link = [&](graph::NodeId other) {
      out[id].push_back(other);
      out[other].push_back(id);
    };
    for (const graph::TensorRef& in : g.node(id).inputs) link(in.node);
    for (graph::NodeId in : g.node(id).control_inputs) link(in);
  }
  return out;
}

// [executed node] the placed slot whose device it takes: its forward node's
// (`source`), or forward.size() + k for apart[k]; -1: device 0.
std::vector<graph::NodeId> SlotOfExecuted(std::vector<graph::NodeId> source,
                                          const std::vector<graph::NodeId>& apart,
                                          int forward_size) {
  for (size_t k = 0; k < apart.size(); ++k) {
    source[apart[k]] = forward_size + static_cast<graph::NodeId>(k);
  }
  return source;
}

// Neighbours of the forward graph, and of each apart slot: the slots of the
// executed nodes it reads from (the op it follows among them, or its inputs')
// and of those that read it (the gradients' sums, the updates), either way: a
// move of either changes the transfers between them.
std::vector<std::vector<graph::NodeId>> PlacedNeighbours(const graph::Graph& forward,
                                                         const graph::Graph& executed,
                                                         const std::vector<graph::NodeId>& slot,
                                                         const std::vector<graph::NodeId>& apart) {
  std::vector<std::vector<graph::NodeId>> out = Neighbours(forward);
  out.resize(forward.size() + apart.size());
  std::vector<std::vector<graph::NodeId>> near(apart.size());
  std::vector<int> apart_index(executed.size(), -1);
  for (size_t k = 0; k < apart.size(); ++k) apart_index[apart[k]] = static_cast<int>(k);
  // One pass over every edge: a slot's inputs, and the nodes that read a slot.
  for (graph::NodeId id = 0; id < executed.size(); ++id) {
    const graph::Node& node = executed.node(id);
    auto edge = [&](graph::NodeId from) {
      if (apart_index[id] >= 0) near[apart_index[id]].push_back(slot[from]);
      if (apart_index[from] >= 0) near[apart_index[from]].push_back(slot[id]);
    };
    for (const graph::TensorRef& in : node.inputs) edge(in.node);
    for (graph::NodeId in : node.control_inputs) edge(in);
  }
  for (size_t k = 0; k < apart.size(); ++k) {
    const graph::NodeId me = slot[apart[k]];
    for (graph::NodeId n : near[k]) {
      if (n < 0 || n == me) continue;
      out[me].push_back(n);
      out[n].push_back(me);
    }
  }
  return out;
}

// Each apart slot as a unit of its own, first (they are few, and the heaviest
// ops), then the name-scope units.
std::vector<std::vector<graph::NodeId>> WithApartUnits(
    std::vector<std::vector<graph::NodeId>> units, int forward_size, size_t apart) {
  std::vector<std::vector<graph::NodeId>> out;
  out.reserve(apart + units.size());
  for (size_t k = 0; k < apart; ++k) {
    out.push_back({forward_size + static_cast<graph::NodeId>(k)});
  }
  for (auto& unit : units) out.push_back(std::move(unit));
  return out;
}

// One Refine: the sweeps over units and critical-path ops, then the kicks.
class Climber {
 public:
  Climber(const graph::Graph& forward, int num_devices, const rewards::RewardSource& reward,
          const RefineOptions& options, const volatile std::sig_atomic_t* stop)
      : forward_(forward),
        num_devices_(num_devices),
        reward_(reward),
        options_(options),
        stop_(stop),
        t0_(Clock::now()),
        apart_(reward.apart()),
        placed_(forward.size() + static_cast<int>(apart_.size())),
        roots_(placement::ColocationRoots(forward)),
        units_(WithApartUnits(placement::ClosedUnderColocation(
                                  roots_, NameScopeUnits(forward, options.sibling_runs, &runs_)),
                              forward.size(), apart_.size())),
        units_of_node_(UnitsOfNode(units_, placed_)),
        executed_(reward.executed_graph()),
        source_(placement::ForwardSourceOfNode(executed_, forward)),
        slot_(SlotOfExecuted(source_, apart_, forward.size())),
        neighbours_(PlacedNeighbours(forward, executed_, slot_, apart_)) {}

  // `start` places the forward graph, or also the apart slots.
  RefineResult Run(const std::vector<int>& start, double start_s) {
    r_ = RefineResult{placement::Colocated(roots_, Placed(start)), start_s,
                      static_cast<int>(units_.size()), runs_};
    r_.apart = static_cast<int>(apart_.size());
    if (!options_.start_converged) {
      Climb(r_.device_of_node, r_.step_s, AllAwake(), /*verify=*/true);
    }
    kicks_gained_s_ = Elapsed();
    gained_to_s_ = r_.step_s;
    Kicks();
    r_.seconds = Elapsed();
    return r_;
  }

 private:
  using Clock = std::chrono::steady_clock;
  // stall_s counts once the sweeps have converged: from the first kick, or
  // the last that gained at least kStallGain (relative; gains down to
  // rounding do not count).
  static constexpr double kStallGain = 1e-6;
  // How many times fruitless kicks double their units (3 -> 48 by default).
  static constexpr int kKickDoublings = 4;

  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }

  // A placement of the forward graph with the apart slots on the devices their
  // ops follow; one that has them already as it is.
  std::vector<int> Placed(const std::vector<int>& device_of_node) const {
    if (static_cast<int>(device_of_node.size()) == placed_) return device_of_node;
    assert(static_cast<int>(device_of_node.size()) == forward_.size());
    return placement::WithApart(source_, apart_, device_of_node);
  }

  bool OutOfTime() {
    if (options_.stall_s > 0 && kicks_gained_s_ &&
        Elapsed() - *kicks_gained_s_ >= options_.stall_s) {
      r_.stalled = Elapsed() < options_.budget_s;
      return true;
    }
    return Elapsed() >= options_.budget_s || (stop_ && *stop_);
  }

  // Moves `unit` to whichever other device makes (current, current_s) fastest,
  // if any does; true when it moved. `*answered` is false when a move came
  // back kUnavailable (no fleet worker answered): trying it again may gain.
  bool TryUnit(const std::vector<graph::NodeId>& unit, std::vector<int>& current, double& current_s,
               bool* answered) {
    std::vector<int> targets;
    for (int d = 0; d < num_devices_; ++d) {
      bool all_there = true;
      for (graph::NodeId id : unit) all_there &= current[id] == d;
      if (!all_there) targets.push_back(d);
    }
    std::vector<std::vector<int>> candidates(targets.size(), current);
    for (size_t j = 0; j < targets.size(); ++j) {
      for (graph::NodeId id : unit) candidates[j][id] = targets[j];
    }
    // Only a move faster than current_s by the margin below can be kept.
    const double keep_below_s = current_s * (1 - 1e-9);
    const std::vector<rewards::Evaluation> results = reward_.EvaluateBatchBelow(
        candidates, options_.cutoff ? keep_below_s : std::numeric_limits<double>::infinity());
    r_.evaluated += static_cast<int>(targets.size());
    *answered = true;
    for (const rewards::Evaluation& e : results) {
      r_.cut_off += e.cut_off;
      *answered &= e.status.code() != graph::StatusCode::kUnavailable;
    }
    int best = -1;
    for (size_t j = 0; j < targets.size(); ++j) {
      if (results[j].status.ok() && results[j].step_s < keep_below_s &&
          (best < 0 || results[j].step_s < results[best].step_s)) {
        best = static_cast<int>(j);
      }
    }
    if (best < 0) return false;
    current = std::move(candidates[best]);
    current_s = results[best].step_s;
    ++r_.kept;
    ++version_;
    return true;
  }

  // True when the unit marked `tried_at` was tried at the placement the climb
  // holds now (RefineOptions::skip_repeats); counted.
  bool Repeat(int64_t tried_at) {
    if (!options_.skip_repeats || tried_at != version_) return false;
    ++r_.repeats_skipped;
    return true;
  }

  // Single forward ops where the critical path of (current) waits: one that
  // queued for its busy device, and each end of an input from another device
  // (with the ops colocated with it).
  // Scopes move an op only with all its neighbours.
  std::vector<std::vector<graph::NodeId>> CriticalUnits(const std::vector<int>& current) const {
    std::vector<std::vector<graph::NodeId>> out;
    sim::StepStats step;
    if (!reward_.Timeline(current, &step).status.ok()) return out;
    const std::vector<sim::CriticalOp> path = sim::CriticalPath(executed_, step);
    std::vector<char> added(placed_, 0);
    auto add = [&](graph::NodeId executed_node) {
      const graph::NodeId f = slot_[executed_node];
      if (f >= 0 && !added[f]) {
        added[f] = 1;
        out.push_back({f});
      }
    };
    for (size_t k = 0; k < path.size(); ++k) {  // latest first
      if (path[k].waited_for_device) add(path[k].node);
      if (path[k].input_transferred) {
        add(path[k].node);
        if (k + 1 < path.size()) add(path[k + 1].node);
      }
    }
    return placement::ClosedUnderColocation(roots_, std::move(out));
  }

  // What a focused climb tries next: units, and single forward ops of the
  // critical path; a zero is asleep (don't-look bits).
  struct Awake {
    std::vector<char> units;
    std::vector<char> nodes;
  };
  Awake AllAwake() const {
    return {std::vector<char>(units_.size(), 1), std::vector<char>(placed_, 1)};
  }

  // Wakes every unit holding a node of `unit` or one next to it in the graph,
  // and those nodes: a move changes the transfers and queues around it.
  void Wake(const std::vector<graph::NodeId>& unit, Awake& awake) const {
    auto wake = [&](graph::NodeId id) {
      awake.nodes[id] = 1;
      for (int u : units_of_node_[id]) awake.units[u] = 1;
    };
    for (graph::NodeId id : unit) {
      wake(id);
      for (graph::NodeId n : neighbours_[id]) wake(n);
    }
  }

  // Tries the units awake in order; true when one moved.
  bool SweepUnits(std::vector<int>& current, double& current_s, Awake& awake) {
    bool improved = false;
    for (size_t u = 0; u < units_.size() && !OutOfTime(); ++u) {
      if (!awake.units[u]) continue;
      bool answered = true;
      if (!Repeat(unit_tried_at_[u]) && TryUnit(units_[u], current, current_s, &answered)) {
        improved = true;
        if (options_.focused_sweeps) Wake(units_[u], awake);
        continue;
      }
      if (answered) unit_tried_at_[u] = version_;
      if (options_.focused_sweeps) awake.units[u] = 0;
    }
    return improved;
  }

  // Tries the critical path's ops awake; true when one moved.
  bool SweepCriticalPath(std::vector<int>& current, double& current_s, Awake& awake) {
    bool improved = false;
    for (const std::vector<graph::NodeId>& unit : CriticalUnits(current)) {
      if (OutOfTime()) break;
      if (!awake.nodes[unit[0]]) continue;
      // unit[0] names the unit: the op, or its colocation group's first.
      const bool repeat = Repeat(op_tried_at_[unit[0]]);
      if (!repeat) ++r_.critical_tried;
      bool answered = true;
      if (!repeat && TryUnit(unit, current, current_s, &answered)) {
        ++r_.critical_kept;
        improved = true;
        if (options_.focused_sweeps) Wake(unit, awake);
        continue;
      }
      if (answered) op_tried_at_[unit[0]] = version_;
      if (options_.focused_sweeps) awake.nodes[unit[0]] = 0;
    }
    return improved;
  }

  static bool Every(const std::vector<char>& v) {
    return std::all_of(v.begin(), v.end(), [](char a) { return a != 0; });
  }

  // Sweeps over the units from (current, current_s), then over the critical
  // path's ops when the units keep nothing, until neither keeps anything.
  // With focused_sweeps a sweep tries only what is awake: a unit or op that
  // keeps nothing sleeps until a move next to it is kept. With `verify` (the
  // first climb), every unit is tried again before the critical path is, and
  // every op of the path before the climb ends, so that it ends where no
  // single move gains, as a climb of full sweeps does.
  void Climb(std::vector<int>& current, double& current_s, Awake awake, bool verify) {
    ++version_;                  // another placement: no unit has been tried at it
    bool units_checked = false;  // every unit tried since the last move kept
    while (!OutOfTime()) {
      ++r_.sweeps;
      const bool every_unit = Every(awake.units);
      if (SweepUnits(current, current_s, awake)) {
        units_checked = false;
        continue;
      }
      if (OutOfTime()) break;
      units_checked |= every_unit;
      if (verify && !units_checked) {
        awake.units.assign(units_.size(), 1);
        continue;
      }
      if (!options_.critical_path) break;
      const bool every_op = Every(awake.nodes);
      if (SweepCriticalPath(current, current_s, awake)) {
        units_checked = false;
        continue;
      }
      if (!verify || every_op || OutOfTime()) break;
      awake.nodes.assign(placed_, 1);
    }
  }

  // Restarts from the best with `kick_units` random units moved, climbing
  // from each; after `patience` in a row found nothing faster, the kicks move
  // twice as many units, up to kKickDoublings times, and `patience` more in a
  // row at the most end them.
  void Kicks() {
    // 64 bits: a patience of 2^30 (no limit) times the doublings overflows an int.
    const int64_t patience = options_.patience;  // 0: no kicks
    int64_t fruitless = 0;
    while (r_.kicks < options_.kicks && fruitless < patience * (kKickDoublings + 1) &&
           num_devices_ > 1 && !units_.empty() && !OutOfTime()) {
      const int kick_units = options_.kick_units << static_cast<int>(fruitless / patience);
      // Each kick draws from its own generator, so a resumed climb can go on
      // with kick `first_kick` whatever the draws before it.
      const uint64_t kick = static_cast<uint64_t>(options_.first_kick) + r_.kicks;
      std::mt19937_64 rng(options_.seed + 0x9E3779B97F4A7C15ULL * (kick + 1));
      ++r_.kicks;
      std::vector<int> current = r_.device_of_node;
      std::vector<size_t> kicked;
      if (KickTowards(kick, kick_units, rng, current, kicked)) {
        ++r_.kicks_guided;
      } else {
        for (int k = 0; k < kick_units; ++k) {
          const size_t u = std::uniform_int_distribution<size_t>(0, units_.size() - 1)(rng);
          const int d = std::uniform_int_distribution<int>(0, num_devices_ - 1)(rng);
          for (graph::NodeId id : units_[u]) current[id] = d;
          kicked.push_back(u);
        }
      }
      const rewards::Evaluation e = reward_.Evaluate(current);
      ++r_.evaluated;
      ++fruitless;
      if (!e.status.ok()) continue;  // out of memory, say: kick again
      double current_s = e.step_s;
      // Focused: the sweeps start around the kicked units (every unit
      // otherwise).
      Awake awake = AllAwake();
      if (options_.focused_sweeps) {
        std::fill(awake.units.begin(), awake.units.end(), 0);
        std::fill(awake.nodes.begin(), awake.nodes.end(), 0);
        for (size_t u : kicked) Wake(units_[u], awake);
      }
      Climb(current, current_s, std::move(awake), /*verify=*/false);
      if (current_s < gained_to_s_ * (1 - kStallGain)) {
        kicks_gained_s_ = Elapsed();
        gained_to_s_ = current_s;
      }
      if (current_s < r_.step_s * (1 - 1e-9)) {
        r_.device_of_node = std::move(current);
        r_.step_s = current_s;
        ++r_.kicks_kept;
        fruitless = 0;
      }
    }
  }

  // A kick by options_.kick_placement: `kick_units` of the units it places
  // differently from `current` (the best), drawn without repeats (all of them
  // when fewer), take its devices. False when it is unset, fails or places
  // every unit as `current` does.
  bool KickTowards(uint64_t kick, int kick_units, std::mt19937_64& rng, std::vector<int>& current,
                   std::vector<size_t>& kicked) const {
    if (!options_.kick_placement) return false;
    std::vector<int> towards = options_.kick_placement(kick);
    if (towards.size() == static_cast<size_t>(forward_.size())) towards = Placed(towards);
    if (towards.size() != current.size()) return false;
    towards = placement::Colocated(roots_, std::move(towards));
    std::vector<size_t> differing;
    for (size_t u = 0; u < units_.size(); ++u) {
      for (graph::NodeId id : units_[u]) {
        if (towards[id] != current[id]) {
          differing.push_back(u);
          break;
        }
      }
    }
    if (differing.empty()) return false;
    std::shuffle(differing.begin(), differing.end(), rng);
    differing.resize(std::min(differing.size(), static_cast<size_t>(kick_units)));
    for (size_t u : differing) {
      for (graph::NodeId id : units_[u]) current[id] = towards[id];
    }
    kicked = std::move(differing);
    return true;
  }

  const graph::Graph& forward_;
  const int num_devices_;
  const rewards::RewardSource& reward_;
  const RefineOptions& options_;
  const volatile std::sig_atomic_t* stop_;
  const Clock::time_point t0_;
  int runs_ = 0;  // set by units_'s initialiser, so declared before it
  // RewardSource::apart: slot forward.size() + k of a placement is apart[k]'s device.
  const std::vector<graph::NodeId>& apart_;
  const int placed_;  // slots of a placement: the forward nodes, then the apart ones
  // placement::ColocationRoots of forward: units move colocated ops together,
  // and a placement the climb starts from or kicks towards is made to.
  const std::vector<graph::NodeId> roots_;
  const std::vector<std::vector<graph::NodeId>> units_;  // of slots
  const std::vector<std::vector<int>> units_of_node_;    // [slot]
  const graph::Graph& executed_;
  const std::vector<graph::NodeId> source_;  // [executed node] its forward node; -1: none
  const std::vector<graph::NodeId> slot_;    // [executed node] SlotOfExecuted
  const std::vector<std::vector<graph::NodeId>> neighbours_;  // [slot]
  RefineResult r_;
  // RefineOptions::skip_repeats: the placement the climb holds, counted up at
  // each climb's start and each move kept; [unit] and [critical unit's first
  // slot] the count at which each was last tried without a move kept.
  int64_t version_ = 0;
  std::vector<int64_t> unit_tried_at_ = std::vector<int64_t>(units_.size(), -1);
  std::vector<int64_t> op_tried_at_ = std::vector<int64_t>(placed_, -1);
  std::optional<double> kicks_gained_s_;  // set when the kicks start
  double gained_to_s_ = 0;
};

}  // namespace

RefineResult Refine(const graph::Graph& forward, int num_devices,
                    const rewards::RewardSource& reward, const std::vector<int>& start,
                    double start_s, const RefineOptions& options,
                    const volatile std::sig_atomic_t* stop) {
  return Climber(forward, num_devices, reward, options, stop).Run(start, start_s);
}

MultiStartResult RefineFromStarts(const graph::Graph& forward, int num_devices,
                                  const rewards::RewardSource& reward,
                                  const std::vector<RefineStart>& starts,
                                  const RefineOptions& options,
                                  const volatile std::sig_atomic_t* stop) {
  assert(!starts.empty());
  if (starts.size() == 1) {
    return {Refine(forward, num_devices, reward, starts[0].device_of_node, starts[0].step_s,
                   options, stop),
            0};
  }
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  RefineOptions trial = options;
  trial.kicks = 0;
  trial.stall_s = 0;
  trial.budget_s = options.budget_s / (2.0 * static_cast<double>(starts.size()));
  MultiStartResult out;
  RefineResult total;
  auto add = [&](const RefineResult& r) {
    total.units = r.units;
    total.runs = r.runs;
    total.evaluated += r.evaluated;
    total.cut_off += r.cut_off;
    total.repeats_skipped += r.repeats_skipped;
    total.kept += r.kept;
    total.critical_tried += r.critical_tried;
    total.critical_kept += r.critical_kept;
    total.sweeps += r.sweeps;
    total.kicks += r.kicks;
    total.kicks_kept += r.kicks_kept;
    total.kicks_guided += r.kicks_guided;
  };
  std::optional<RefineResult> best;
  for (size_t i = 0; i < starts.size(); ++i) {
    RefineResult r = Refine(forward, num_devices, reward, starts[i].device_of_node,
                            starts[i].step_s, trial, stop);
    add(r);
    if (!best || r.step_s < best->step_s) {
      best = std::move(r);
      out.chosen = static_cast<int>(i);
    }
  }
  RefineOptions rest = options;
  rest.budget_s =
      std::max(0.0, options.budget_s - std::chrono::duration<double>(Clock::now() - t0).count());
  RefineResult r =
      Refine(forward, num_devices, reward, best->device_of_node, best->step_s, rest, stop);
  add(r);
  total.apart = r.apart;
  total.device_of_node = std::move(r.device_of_node);
  total.step_s = r.step_s;
  total.stalled = r.stalled;
  total.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  out.refine = std::move(total);
  return out;
}

std::vector<graph::NodeId> HeavyGradientOps(const sim::Simulator& sim, const graph::Graph& forward,
                                            int num_devices, double fraction) {
  const graph::Graph& training = sim.graph();
  const std::vector<graph::NodeId> source = placement::ForwardSourceOfNode(training, forward);
  const double least_s = fraction * sim.DependencyBoundSeconds();
  std::vector<graph::NodeId> out;
  for (graph::NodeId id = 0; id < training.size(); ++id) {
    if (!sim.Scheduled(id) || !placement::MayRunApart(training, forward, source, id)) continue;
    // The op it differentiates runs a kernel (not its colocation root's: a
    // group's root may be a feed).
    const graph::NodeId op = training.Find(training.node(id).colocation[0]);
    if (op < 0 || !sim.Scheduled(op)) continue;
    double fastest = std::numeric_limits<double>::infinity();
    for (int d = 0; d < num_devices; ++d) {
      if (sim.OpSeconds(id, d) >= 0) fastest = std::min(fastest, sim.OpSeconds(id, d));
    }
    if (std::isfinite(fastest) && fastest >= least_s) out.push_back(id);
  }
  return out;
}

}  // namespace planner::refine
