// The devices a placement may use, as read from a devices.yaml file (format and
// error messages: docs/devices.md).
//
// Loading validates everything later stages rely on, so they need not re-check:
// names are unique, cpu devices own disjoint cores, cuda indices are distinct,
// sim devices carry the figures a simulator needs and a link to every other
// device. Expected failures come back as a Status whose one-line message names
// the file, the line where known, and the problem.
// Ownership: Cluster is a plain value that owns all its data; pointers returned by
// Find() live as long as the Cluster is not modified.
// Thread safety: loading shares no state; a const Cluster may be read from many
// threads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/status.h"

namespace cluster {

enum class DeviceKind { kCpu, kCuda, kSim };

// "cpu", "cuda" or "sim": the spelling used in devices.yaml.
const char* DeviceKindName(DeviceKind kind);

struct LinkSpec {
  double bandwidth_bytes_per_s = 0;
  double latency_s = 0;
};

struct DeviceSpec {
  std::string name;
  DeviceKind kind = DeviceKind::kCpu;
  std::vector<int> cores;  // cpu: host cores this device owns (pinned), ascending
  int threads = 1;         // cpu: intra-op threads, 1..cores.size()
  // cpu: seconds an idle worker polls its queue before it sleeps (docs/devices.md, `spin`)
  double spin_s = 200e-6;
  int cuda_index = -1;  // cuda: CUDA device ordinal
  // cuda: wait for each op's kernels before the next (`sync: op`), so that the
  // timeline holds each op's GPU time, at the cost of a launch the GPU cannot
  // overlap; else (`sync: step`) kernels queue and the step waits for them at
  // its end, and an op's span on the timeline is its launch.
  bool sync_each_op = false;
  // cuda (`graphs: on`): a step whose every op runs on this device is captured
  // as a CUDA graph once and replayed after (docs/runtime.md, "CUDA graphs"),
  // so that launching its kernels costs the host one call instead of one per op.
  bool cuda_graphs = false;
  // cuda (`host_copies: pinned`): a copy off this GPU lands in page-locked host
  // memory from LibTorch's caching host allocator, reused once freed; else
  // (`pageable`) in a fresh pageable tensor, as Tensor::to makes it, which from
  // 32 MiB up faults its pages in on every copy (docs/runtime.md, "CUDA devices").
  bool pinned_host_copies = false;
  std::string simulates;                   // sim: "cpu" or "gpu", the kind of device being modelled
  std::optional<int64_t> memory_bytes;     // capacity; absent means unbounded
  std::optional<double> peak_flops;        // FLOP/s (fp32); always set for sim
  std::optional<double> memory_bandwidth;  // bytes/s; always set for sim
  // The device number in TfDeviceString, assigned by the loader because it depends
  // on the other devices: cpu-like devices (cpu, sim of cpu) count 0,1,... in file
  // order; cuda devices use their index; sim gpus count on from the highest cuda
  // index + 1, so no two devices in one file share a TensorFlow name.
  int tf_ordinal = 0;

  // True for cpu devices and sims of a cpu: they appear to TensorFlow as CPU:n.
  bool IsCpuLike() const;
  // "/job:localhost/replica:0/task:<task>/device:GPU:1" style, for NodeDef.device.
  std::string TfDeviceString(int task = 0) const;
};

struct Cluster {
  std::string source;               // the file (or name) it was parsed from
  std::string digest;               // FNV-1a 64 of the file bytes, 16 lowercase hex digits
  // FNV-1a 64 of what a placement depends on: each device's name, kind, cores,
  // threads, index, figures and memory, and the links; not how the executor
  // runs them (sync, graphs, host_copies, spin), comments or layout. A placement
  // file records it, so that it still fits the file with `graphs: on` set.
  std::string placement_digest;
  std::vector<DeviceSpec> devices;  // in file order
  std::optional<LinkSpec> default_link;
  // Explicit links keyed by (lower index, higher index); a link is symmetric.
  std::map<std::pair<int, int>, LinkSpec> links;

  // nullptr if no device has this name.
  const DeviceSpec* Find(const std::string& name) const;
  // -1 if no device has this name.
  int IndexOf(const std::string& name) const;
  // The explicit link between devices a and b (either order), else default_link,
  // else nullopt: a transfer over a link the file leaves open must be measured.
  std::optional<LinkSpec> Link(int a, int b) const;
  // True when swapping devices a and b in any placement cannot change what the
  // simulator predicts for it: both are sims of the same kind with the same
  // figures and memory, and each has the same link to every third device. Real
  // devices never are (a profile or the host can tell them apart).
  bool Interchangeable(int a, int b) const;
};

// What of `d`'s definition the times measured on it depend on, in words, such
// as "cpu, cores 0-1, threads 2" or "cuda 0, sync step, host copies pageable"
// ("sim of gpu" for a sim): a profile records it per device, so that a profile
// is not applied to another device of the same name. Leaves out what only
// schedules ops (spin, graphs).
std::string TimingDefinition(const DeviceSpec& d);

// Parses devices.yaml text; source_name prefixes every error message and becomes
// Cluster::source.
graph::Result<Cluster> ParseDevicesYaml(const std::string& text, const std::string& source_name);

// Reads and parses a file. NotFound if it does not exist, IoError if it cannot be
// read, InvalidArgument for anything wrong inside it.
graph::Result<Cluster> LoadDevicesFile(const std::string& path);

}  // namespace cluster
