// A training step's timeline, as the executor records it and the simulator
// predicts it: every op and transfer with its device and times, per-device busy
// time and peak memory; and its export as Chrome trace-event JSON.
// Value types; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"

namespace sim {

struct OpRecord {
  graph::NodeId node;
  int device;
  double start_us, end_us;  // since the step started
  int64_t bytes = 0;        // bytes its outputs newly occupy (views of an input: none)
  // On a device that runs kernels asynchronously (a GPU, `sync: step`), when
  // timed: its kernels' span on the device, since the step started (the span
  // above is then its launch on the host); -1 when not timed.
  double kernel_start_us = -1, kernel_end_us = -1;
};

struct TransferRecord {
  graph::NodeId from_node;  // producer of the tensor
  int src_device, dst_device;
  int64_t bytes;
  double start_us, end_us;
};

struct StepStats {
  double seconds = 0;
  std::vector<OpRecord> ops;
  std::vector<TransferRecord> transfers;
  std::vector<int64_t> peak_bytes;  // per device: parameters plus live tensors
  std::vector<double> busy_us;      // per device: time spent in kernels and transfers
  // Per device: host time its worker spent timing kernels (Executor's kernel
  // timing), which falls between its ops; empty when not timed.
  std::vector<double> timing_us;
  // The step replayed a captured CUDA graph (Executor::graph_note): it has its
  // time and peak bytes, but no op or transfer records and no busy time.
  bool replayed = false;
};

// One op of a step's critical path, and what it waited for last.
struct CriticalOp {
  graph::NodeId node;
  int device = 0;
  double start_us = 0, end_us = 0;
  double ready_us = 0;             // when its last input was there (0 for none)
  bool waited_for_device = false;  // started after its inputs were there: its device was busy
  bool input_transferred = false;  // the input it waited for came from another device
};

// The chain of ops that set the step's length, latest first: from the op that
// ended last, each link goes to what its op waited for last, the op before it on
// its device when it started later than its inputs were there, else the producer
// of the input (data or control) that arrived last. Nodes without a record (state,
// feeds, NoOps: they take no time) are passed through to their own inputs. `g` is
// the graph the records' node ids refer to. Empty when the step has no ops.
std::vector<CriticalOp> CriticalPath(const graph::Graph& g, const StepStats& step);

// One line: "critical path: N ops (Q of them queued for their busy device):
// cpu0 X ms, gpu0 Y ms, between them Z ms", the path's kernel time per device
// and the gaps between its ops (transfers, latency, dispatch); the parts add up
// to the path's length, the step's end.
std::string CriticalPathSummary(const cluster::Cluster& c, const std::vector<CriticalOp>& path);

// The step as Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev): one
// process, one row per device (more where a device ran ops at the same time),
// ops and transfers as complete events in microseconds. Op names and types are
// read from `g`, the graph the records' node ids refer to.
std::string ChromeTrace(const graph::Graph& g, const cluster::Cluster& c, const StepStats& step);

}  // namespace sim
