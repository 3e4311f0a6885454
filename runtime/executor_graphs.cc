// The executor's CUDA graphs (executor.h, docs/runtime.md "CUDA graphs"): which
// steps are captured, and the replays. The capture itself is a step run op by
// op (Executor::RunStep) between the device's BeginCapture and EndCapture.
#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>

#include "runtime/executor.h"
#include "runtime/torch_status.h"

namespace runtime {

namespace {

// What a graph is good for: the same fetches, and feeds of the same names,
// dtypes and shapes (a replay writes the same memory with the same kernels).
std::string StepKey(const std::map<std::string, at::Tensor>& feeds,
                    const std::vector<std::string>& fetches) {
  std::string key;
  for (const std::string& f : fetches) key += f + ";";
  key += "|";
  for (const auto& [name, t] : feeds) {
    key += name + ":" + std::string(c10::toString(t.scalar_type()));
    for (int64_t d : t.sizes()) key += "," + std::to_string(d);
    key += ";";
  }
  return key;
}

}  // namespace

void Executor::ChooseGraphDevice() {
  std::vector<int> used;
  for (int d : device_of_node_) {
    if (std::find(used.begin(), used.end(), d) == used.end()) used.push_back(d);
  }
  bool asked = false;
  for (const cluster::DeviceSpec& spec : cluster_.devices) asked |= spec.cuda_graphs;
  if (!asked) return;
  if (used.size() != 1 || !cluster_.devices[used[0]].cuda_graphs) {
    std::string names;
    for (int d : used) names += (names.empty() ? "" : ", ") + cluster_.devices[d].name;
    graph_note_ =
        "CUDA graphs are off: a step is captured only when every op runs on one cuda "
        "device with graphs: on, and this placement uses " +
        std::to_string(used.size()) + " device(s): " + names;
    return;
  }
  graph_device_ = used[0];
}

void Executor::DropCapture() {
  if (!captured_) return;
  captured_.reset();
  if (graph_device_ >= 0) devices_[graph_device_]->DropGraph();
}

graph::Status Executor::RunWithGraphs(const std::map<std::string, at::Tensor>& feeds,
                                      const std::vector<std::string>& fetches,
                                      std::vector<at::Tensor>* results, sim::StepStats* stats) {
  std::string key = StepKey(feeds, fetches);
  if (captured_ && captured_->key == key) return Replay(feeds, results, stats);
  DropCapture();
  // The first step of a kind runs op by op: the allocator, the libraries'
  // handles and their workspaces warm up outside the capture.
  if (key != last_key_) {
    last_key_ = std::move(key);
    return RunStep(feeds, fetches, results, stats, nullptr);
  }
  Captured capture;
  capture.key = std::move(key);
  graph::Status st = RunStep(feeds, fetches, results, stats, &capture);
  if (!st.ok()) {
    // A capture runs no kernel, so a failure before the replay left the
    // parameters as they were: the step runs again op by op, where a real
    // error (out of memory, a kernel's) shows itself. (An error the GPU
    // reports from the replay itself is sticky and fails that run too.)
    graph_note_ = "CUDA graphs are off: the capture failed: " + st.message();
    devices_[graph_device_]->DropGraph();
    graph_device_ = -1;
    last_key_.clear();
    return RunStep(feeds, fetches, results, stats, nullptr);
  }
  capture.fetches = *results;
  // A replay writes the outputs again: the caller gets copies.
  st = Catching([] { return std::string("copying the fetches of a CUDA graph"); },
                [&] {
                  for (at::Tensor& r : *results) r = r.clone();
                });
  captured_ = std::move(capture);
  return st;
}

graph::Status Executor::Replay(const std::map<std::string, at::Tensor>& feeds,
                               std::vector<at::Tensor>* results, sim::StepStats* stats) {
  Device& device = *devices_[graph_device_];
  // As for a step run op by op, the feeds are on the device before the clock starts.
  GRAPH_RETURN_IF_ERROR(Catching([&] { return "feeds to device '" + device.spec().name + "'"; },
                                 [&] {
                                   for (const auto& [name, t] : feeds)
                                     captured_->feeds.at(name).copy_(t);
                                 }));
  const auto t0 = std::chrono::steady_clock::now();
  graph::Status st = device.Replay();
  if (st.ok()) {
    st = Catching([&] { return "fetches from device '" + device.spec().name + "'"; },
                  [&] {
                    results->clear();
                    for (const at::Tensor& f : captured_->fetches) results->push_back(f.clone());
                  });
  }
  graph::Status synced = device.Synchronize();
  if (st.ok()) st = std::move(synced);
  if (!st.ok()) return st;
  if (stats) {
    *stats = sim::StepStats();
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stats->peak_bytes = captured_->peak_bytes;
    stats->busy_us.assign(devices_.size(), 0);
    stats->replayed = true;
  }
  return graph::Status::Ok();
}

}  // namespace runtime
