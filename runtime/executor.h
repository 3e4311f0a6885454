// The dataflow executor: runs a placed graph on real devices the way TensorFlow's
// executor does. Each device has its own workers; an op is scheduled on its
// device when all its inputs (data and control) are done; a data edge between
// devices becomes a transfer (a copy into the consumer's device, recorded on the
// timeline); parameters live on the device of their node; a step ends when every
// node has run and every GPU has run the kernels its ops launched. Per-device memory is accounted
// from output sizes (views of an input count nothing) and freed after a tensor's last consumer;
// exceeding a device's capacity ends the step as out-of-memory, naming device and bytes.
//
// The graph runs as rewritten by RewriteForExecution (rewrite.h): same node ids
// and names, cheaper ops.
//
// Ownership: copies the graph (rewritten) and the cluster.
// Thread safety: one Run at a time. During a step, the devices' workers share
// its state through atomic counts and per-device records (executor.cc).
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "runtime/device.h"
#include "sim/timeline.h"

namespace runtime {

class Executor {
 public:
  // `device_of_node[i]` indexes cluster.devices. Fails before anything runs when
  // an op has no kernel (all listed) or a device cannot be created here.
  static graph::Result<std::unique_ptr<Executor>> Create(const graph::Graph& g,
                                                         const cluster::Cluster& cluster,
                                                         std::vector<int> device_of_node);
  ~Executor();

  graph::Status Run(const std::map<std::string, at::Tensor>& feeds,
                    const std::vector<std::string>& fetches, std::vector<at::Tensor>* results,
                    sim::StepStats* stats = nullptr);

  // A parameter's or constant's value, on its node's device.
  at::Tensor state(const std::string& node) const;
  // The graph as it runs: node ids and names are the given graph's.
  const graph::Graph& graph() const { return g_; }
  // Stores `value` on the node's device (a copy when it is elsewhere).
  void set_state(const std::string& node, at::Tensor value);

  // Called on the thread that finished node `id`, with its outputs, before the
  // step can end; for nodes that ran without error only. What a data-parallel
  // trainer uses to start reducing a gradient while the backward pass goes on.
  // It runs on a device's worker, so it must be quick and must not call Run. Set
  // it between steps; an empty function removes it.
  using NodeDoneHook = std::function<void(graph::NodeId, const std::vector<at::Tensor>&)>;
  void set_node_done_hook(NodeDoneHook hook) { node_done_ = std::move(hook); }

  // With timing on, ops on devices that run kernels asynchronously (a GPU)
  // get their kernels' span on the device in their OpRecord (kernel_start_us,
  // kernel_end_us), from events around each op (runtime/device.h); `hold_s`
  // holds each op's kernels back that long, so that its launches have queued
  // when they start and the span is the kernels' alone (the step then takes
  // that much longer per op). Off by default: the events cost each op a few
  // microseconds, which fall between the ops' spans on the host.
  void set_kernel_timing(bool on, double hold_s = 0) {
    time_kernels_ = on;
    hold_s_ = hold_s;
  }
  // With copy timing on, a copy to or from a GPU first waits for the GPU's
  // queue (the kernels and copies queued before it), and its TransferRecord
  // starts after that wait: the record is the copy alone, what `planner
  // profile` fits the links between a cpu and a GPU to. Off by default: a
  // step's copies then wait inside their records, as LibTorch's blocking copy
  // does, and the staging of a copy onto the GPU overlaps the GPU's queue.
  void set_copy_timing(bool on) { time_copies_ = on; }
  // Per device (-1: not created here, or it keeps no figure): the bytes its
  // allocator held at most since ResetPeakMemory (a GPU's caching allocator).
  std::vector<int64_t> PeakMemory() const;
  void ResetPeakMemory();

  // CUDA graphs (docs/runtime.md, "CUDA graphs"). When every op is placed on
  // one cuda device with `graphs: on`, and neither kernel timing nor a
  // node-done hook is set, a step whose feeds (names, shapes, dtypes) and
  // fetches are the step before it's is captured as a CUDA graph, and later
  // steps with those feeds and fetches replay it: feeds are copied into the
  // captured step's inputs, fetches are copies of its outputs, and the stats
  // have no per-op records (StepStats::replayed). Other feeds or fetches, or a
  // set_state, make the next such pair capture again. A capture the device
  // refuses (an op that reads a GPU value on the host, say) runs that step as
  // before and leaves graphs off for this executor. Says why graphs are off
  // where the devices asked for them; empty otherwise.
  const std::string& graph_note() const { return graph_note_; }

 private:
  struct Step;
  // A captured step: what its graph reads and writes, for its replays.
  struct Captured {
    std::string key;                          // StepKey of the feeds and fetches
    std::map<std::string, at::Tensor> feeds;  // the graph's inputs, on the device
    std::vector<at::Tensor> fetches;          // its outputs, written by each replay
    std::vector<int64_t> peak_bytes;          // the captured step's accounting
  };
  // A step run op by op; with `capture`, its kernels are recorded as a graph
  // and run by one replay, and `capture` gets the graph's inputs and outputs.
  graph::Status RunStep(const std::map<std::string, at::Tensor>& feeds,
                        const std::vector<std::string>& fetches, std::vector<at::Tensor>* results,
                        sim::StepStats* stats, Captured* capture);
  // Run with graphs: replays, captures or runs op by op (executor_graphs.cc).
  graph::Status RunWithGraphs(const std::map<std::string, at::Tensor>& feeds,
                              const std::vector<std::string>& fetches,
                              std::vector<at::Tensor>* results, sim::StepStats* stats);
  graph::Status Replay(const std::map<std::string, at::Tensor>& feeds,
                       std::vector<at::Tensor>* results, sim::StepStats* stats);
  // The one cuda device every op is on when it asks for graphs, else -1 with
  // graph_note_ saying why not (when a device asked).
  void ChooseGraphDevice();
  void DropCapture();
  Executor(const graph::Graph& g, const cluster::Cluster& c, std::vector<int> device_of_node);
  void Dispatch(Step* step, graph::NodeId id);
  void Execute(Step* step, graph::NodeId id);
  void Finish(Step* step, graph::NodeId id, std::vector<at::Tensor> outputs, graph::Status st);
  // Stores a finished node's outputs and accounts their memory (fails when out of it).
  graph::Status Keep(Step* step, graph::NodeId id, std::vector<at::Tensor> outputs);
  // `in`'s value on device `dev`: copied there once per step, then reused.
  at::Tensor InputOnDevice(Step* step, const graph::TensorRef& in, int dev, at::Tensor value);
  // One consumer has read `t`: the last one frees it and its copies.
  void Release(Step* step, const graph::TensorRef& t);
  void Fail(Step* step, graph::Status st);
  // `t` on device `dev`'s memory: itself when it is there, else a copy.
  at::Tensor OnDevice(at::Tensor t, int dev) const;
  // A dispatched node (or Run) is done with the step; the last one ends it.
  void Leave(Step* step);
  void InitCounts(Step* step, const std::vector<graph::TensorRef>& fetches) const;
  void Collect(Step* step, sim::StepStats* stats) const;
  // The kernel spans of the step's timed ops, after the devices synchronized.
  graph::Status CollectKernelSpans(Step* step);
  // Keeps a host copy of state node `id` when it is an integer constant on a GPU.
  void KeepHostCopy(graph::NodeId id);

  graph::Graph g_;
  cluster::Cluster cluster_;
  std::vector<int> device_of_node_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::unordered_map<graph::NodeId, at::Tensor> state_;
  // Host copies of the integer constants placed on GPUs, given to their
  // consumers' kernels as KernelContext::host_inputs (runtime/kernel.h).
  std::unordered_map<graph::NodeId, at::Tensor> host_state_;
  bool time_kernels_ = false;
  bool time_copies_ = false;
  double hold_s_ = 0;
  std::vector<std::vector<std::pair<graph::NodeId, int>>> consumers_;  // (consumer, input slot)
  std::vector<std::vector<graph::NodeId>> control_consumers_;
  std::vector<std::vector<int>> copy_devices_;  // devices other than its own that read a node
  NodeDoneHook node_done_;
  // CUDA graphs: the device they run on (-1: none), the last step's StepKey
  // while no graph is kept, the graph's step, and why graphs are off.
  int graph_device_ = -1;
  std::string last_key_;
  std::optional<Captured> captured_;
  std::string graph_note_;
};

}  // namespace runtime
