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

namespace runtime {

struct OpRecord {
  graph::NodeId node;
  int device;
  double start_us, end_us;  // since the step started
  int64_t bytes = 0;        // bytes its outputs newly occupy (views of an input: none)
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
};

// The step as Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev): one
// process, one row per device (more where a device ran ops at the same time),
// ops and transfers as complete events in microseconds. Op names and types are
// read from `g`, the graph the records' node ids refer to.
std::string ChromeTrace(const graph::Graph& g, const cluster::Cluster& c, const StepStats& step);

}  // namespace runtime
