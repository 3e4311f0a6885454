// Where a predicted step departs from a measured one: the simulator's timeline
// of a placed step set against the executor's, op by op. Both are timelines of
// the same graph (the training graph as RewriteForExecution leaves it, which
// the executor and the simulator both run), so their ops align by node id.
//
// Each device's share of the step is split into what its worker did, in parts
// that add up to the step's length:
//   kernels   inside kernels;
//   copies    the executor's copies of inputs from another cpu device, made by
//             the consumer's worker before the kernel;
//   dispatch  gaps before an op that was already ready when the device's
//             previous op ended (the executor's turnaround between queued ops);
//   hand-off  gaps before an op whose last input came while the device was
//             idle: from that input being done to the op starting (a worker's
//             wake-up; for devices that send eagerly, the transfer too);
//   waiting   idle, nothing ready: waiting for other devices' ops;
//   tail      after the device's last op, until the step ended.
// An op's input is "done" when its producer's record ends; nodes without a
// record (state, feeds, NoOps) pass their inputs' times through.
//
// Value types and pure functions; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "sim/timeline.h"

namespace sim {

// One device's step, in microseconds.
struct DevicePhases {
  int ops = 0;
  double kernels_us = 0, copies_us = 0, dispatch_us = 0, handoff_us = 0, waiting_us = 0,
         tail_us = 0;
};

// An op as the two timelines have it (microseconds since the step started).
// wait: from its last input being done to its kernel starting (queueing,
// hand-off and copies).
struct OpAlignment {
  graph::NodeId node = -1;
  int device = 0;
  double measured_start_us = 0, predicted_start_us = 0;
  double measured_kernel_us = 0, predicted_kernel_us = 0;
  double measured_wait_us = 0, predicted_wait_us = 0;
};

struct OpTypeTimes {
  std::string op;
  int count = 0;
  double measured_us = 0, predicted_us = 0;  // kernel time summed over its ops
};

struct TimelineDiff {
  double measured_us = 0, predicted_us = 0;       // the steps' lengths
  std::vector<DevicePhases> measured, predicted;  // per device
  std::vector<OpTypeTimes> op_types;              // by |predicted - measured|, largest first
  int measured_transfers = 0, predicted_transfers = 0;
  double measured_transfer_us = 0, predicted_transfer_us = 0;
  // The first op, in measured start order, whose predicted start is off by
  // more than the threshold; absent when none is.
  std::optional<OpAlignment> first_departure;
  double threshold_us = 0;
  std::vector<OpAlignment> largest_kernel;  // by |kernel difference|, largest first
  std::vector<OpAlignment> largest_wait;    // by |wait difference|, largest first
  int unmatched_ops = 0;  // ops that only one timeline has (none when both ran the same placement)
};

struct TimelineDiffOptions {
  int top = 5;                    // entries in each "largest" list and op-type list
  double threshold_frac = 0.02;   // first departure: of the measured step...
  double threshold_min_us = 100;  // ...but at least this many microseconds
};

// `g`: the graph both timelines' node ids refer to; `c`: the devices they ran on.
TimelineDiff DiffTimelines(const graph::Graph& g, const cluster::Cluster& c,
                           const StepStats& measured, const StepStats& predicted,
                           const TimelineDiffOptions& options = {});

// An op in its device's timeline (microseconds since the step started): when its
// last input was done, when the device's previous op ended (0 for the first),
// and the consumer copies its worker made before its kernel. It queued when
// ready_us <= prev_end_us (its gap is the executor's turnaround), else it was
// handed to an idle worker (from ready_us to start_us - copies_us).
struct OpGap {
  graph::NodeId node = -1;
  int device = 0;
  double start_us = 0, end_us = 0, ready_us = 0, prev_end_us = 0, copies_us = 0;
};
// Every op of the step, by device and start.
std::vector<OpGap> OpGaps(const graph::Graph& g, const cluster::Cluster& c, const StepStats& step);

// Each device's parts for one timeline (what DiffTimelines reports per side).
std::vector<DevicePhases> SplitIntoPhases(const graph::Graph& g, const cluster::Cluster& c,
                                          const StepStats& step);

// The diff as text: a table of the per-device parts (measured / predicted, ms),
// the op types whose kernel time differs most, transfers, the first departure
// and the largest per-op differences.
std::string FormatTimelineDiff(const graph::Graph& g, const cluster::Cluster& c,
                               const TimelineDiff& d);

}  // namespace sim
