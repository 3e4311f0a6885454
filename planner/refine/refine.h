// Local search after the policy: a hill climb over the model's name scopes on
// a deterministic reward source (the simulator).
//
// The REINFORCE search samples whole placements and rarely finds the structured
// splits (a layer here, a time step there) that pay on a machine with fast
// links; a hill climb from the best placement found supplies them cheaply. The
// units it moves are the model's name scopes, in topological order of their
// first node;
// a move puts every node of one unit on one other device, and is kept when the
// step is faster. Units are every scope prefix, coarse ones first ("decoder",
// then "decoder/cell_1", then "decoder/cell_1/t_5"); a node without a scope is
// its own unit. With sibling_runs (planner search's default), runs of
// consecutive sibling scopes are units too (the halves, quarters, ... of
// "decoder/cell_1"'s time steps): a run of time steps on another device can
// pay where no single step's move does. When a sweep over them keeps nothing,
// single ops of the step's critical path (sim::CriticalPath) are tried where
// it waits: an op that queued for its busy device, and each end of an input
// from another device. A
// scope moves an op only with all its neighbours: a reshape queued behind a long
// kernel of its own scope cannot leave it otherwise. Sweeps repeat until neither
// keeps anything; by default a sweep after the first tries only the units and
// ops next to a move kept since (don't-look bits, as in 2-opt for the
// travelling salesman: on the NMT models a full sweep tries thousands of
// moves to keep a few), and the first climb tries everything once more
// before it ends (a unit or op already tried at the placement the climb holds,
// with no move kept since, is not simulated again). Then, while
// time is left, the climb restarts from the best placement with a few random
// units moved to random devices (a kick: iterated local search; a kick's climb
// starts around the units it moved), and a climb that ends faster than the
// best becomes the best; after `patience` kicks in a row found nothing, kicks
// move twice as many units, four times at most, and `patience` more end them;
// with `stall_s`, they end once they have not improved the best for that long
// (the search then gives the policy the time left: --order climb-first). Its
// result is reported apart from the policy's (method "search+refine").
//
// Thread safety: Refine evaluates one unit's candidate moves on several threads
// when the reward source is concurrent; the caller's flag `stop` is read between
// units.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "planner/rewards/reward.h"

namespace planner::refine {

struct RefineOptions {
  double budget_s = 60;       // wall-clock seconds at most
  int kicks = 1 << 30;        // restarts from a kicked best at most (0: the climb alone)...
  int patience = 500;         // ...doubling kick_units after this many in a row found nothing
                              // faster, four times at most, then ending after as many more
  int kick_units = 3;         // units a kick moves at first
  bool critical_path = true;  // also try single ops of the critical path (false: scopes only)
  // Sweeps after the first try only the units and critical-path ops next to
  // a move kept since (don't-look bits); the first climb tries every unit once
  // more before it turns to the critical path, and every op of the path
  // before it ends; a kick's climb starts around the units it moved. False:
  // every sweep tries every unit, every op of the path.
  bool focused_sweeps = true;
  // Also units of consecutive sibling scopes: the halves, quarters, ... (down
  // to runs of two) of each scope's sub-scopes in topological order, tried
  // before the sub-scopes one by one ("decoder/cell_1/t_0" to "t_15" as one).
  bool sibling_runs = false;
  // Evaluates a unit's moves with the incumbent's time as the source's cutoff
  // (RewardSource::EvaluateBatchBelow): the simulator stops a move once it
  // cannot be faster, and the climb keeps what it would have kept. False:
  // every move simulated to its end (for measuring the difference).
  bool cutoff = true;
  // A unit (or critical-path op) tried since the last move kept is not tried
  // again: its moves from the same placement would be evaluated again to the
  // same times (the source is deterministic), and the climb keeps what it
  // would have kept. One whose moves came back kUnavailable (a fleet with no
  // worker answering) is tried again. Until 2026-12-02 the first climb's
  // verifying sweeps tried them all again. False: tried again (for measuring
  // the difference: bench/climb_speed --compare repeats).
  bool skip_repeats = true;
  double stall_s = 0;  // seconds of kicks without a better best (by 1 ppm) that end it (0: never)
  uint64_t seed = 1;   // of the kicks' choices
  // A climb resumed (--order climb-first, after the policy): the start is an
  // earlier climb's result, which had made `first_kick` kicks with this seed;
  // the sweeps from it are skipped and the kicks go on where they stopped, so
  // that a resumed climb makes the kicks one run straight through would have.
  int first_kick = 0;
  bool start_converged = false;
  // Where a kick moves its units (the default search: the policy's samples).
  // Given, each kick asks it for a placement of the forward graph, with the
  // kick's index, and moves `kick_units` units, drawn without repeats from
  // those whose nodes it places elsewhere than the best, onto its devices;
  // unset (or a placement of another size, or one that differs from the best
  // nowhere): random units onto random devices. Called on the climb's thread.
  std::function<std::vector<int>(uint64_t kick)> kick_placement;
};

struct RefineResult {
  // Of the forward graph, then, when the reward source has RewardSource::apart,
  // one device for each of those gradient ops.
  std::vector<int> device_of_node;
  double step_s = 0;
  int units = 0;           // units moved as one...
  int runs = 0;            // ...of which runs of sibling scopes (RefineOptions::sibling_runs)
  int apart = 0;           // ...and single gradient ops (RewardSource::apart); the rest scopes
  int evaluated = 0;       // candidate placements evaluated...
  int cut_off = 0;         // ...of which the source stopped early (RefineOptions::cutoff)
  int repeats_skipped = 0;  // units and ops not tried again (RefineOptions::skip_repeats)
  int kept = 0;            // moves kept
  int critical_tried = 0;  // single ops of the critical path tried...
  int critical_kept = 0;   // ...and moved
  int sweeps = 0;          // full passes over the units (the last may be partial)
  int kicks = 0;           // restarts from a kicked best
  int kicks_kept = 0;      // of which ended faster than the best before them
  int kicks_guided = 0;    // of which moved units onto RefineOptions::kick_placement's
  double seconds = 0;
  bool stalled = false;  // ended by stall_s, with time left
};

// Starts from `start` (which ran in `start_s` seconds per step): a placement of
// the forward graph, whose gradients follow their ops, or one that places the
// reward source's apart gradient ops too. When the source has them, each is a
// unit of the climb, tried before the scopes.
RefineResult Refine(const graph::Graph& forward, int num_devices,
                    const rewards::RewardSource& reward, const std::vector<int>& start,
                    double start_s, const RefineOptions& options,
                    const volatile std::sig_atomic_t* stop);

// A placement to climb from, and its step time.
struct RefineStart {
  std::string method;               // what produced it ("search", "expert", "etf")
  std::vector<int> device_of_node;  // of the forward graph
  double step_s = 0;
};

struct MultiStartResult {
  RefineResult refine;  // counters summed over every climb; seconds in all
  int chosen = 0;       // index of the start the result grew from
};

// The best of several starts is not always the best to climb from: a climb
// over name scopes goes far from a placement made of whole scopes (a layer per
// GPU) and little from one scattered op by op, even a faster one. So each start
// gets a climb of budget_s / (2 x starts) (no kicks, no stall_s), and the best
// result of those goes on with Refine for the rest of the budget. One start:
// Refine.
MultiStartResult RefineFromStarts(const graph::Graph& forward, int num_devices,
                                  const rewards::RewardSource& reward,
                                  const std::vector<RefineStart>& starts,
                                  const RefineOptions& options,
                                  const volatile std::sig_atomic_t* stop);

// The gradient ops a search may place apart from the op they differentiate
// (RewardContext::apart; planner search --gradients heavy): nodes that `sim`'s
// training graph adds to `forward`, that follow a forward op running a kernel
// (a gradient, not a parameter's update or accumulator), and whose kernel on
// its fastest device takes at least `fraction` of the simulator's dependency
// bound. In id order. Why: the heaviest gradients (a softmax's two gradient
// MatMuls, each as long as its forward MatMul) otherwise queue on one device.
std::vector<graph::NodeId> HeavyGradientOps(const sim::Simulator& sim, const graph::Graph& forward,
                                            int num_devices, double fraction);

}  // namespace planner::refine
