// Profiles: measured costs on real devices, what `planner profile` writes and
// the simulator reads. Per device: the mean time of every op signature
// (graph/signature.h) and the bytes its outputs newly occupy (views occupy none),
// and the executor's per-op dispatch time; per ordered device pair: a link fit
// (latency + bytes / bandwidth). Keyed by device name, so a profile serves every
// model run on the same devices file; each device's definition is recorded
// with it, so that it is not applied to a device of that name defined
// otherwise (the definition does not name the hardware: two hosts' cpu0 on
// core 0 look alike).
//
// A GPU's op times are its kernels' spans on the device (CUDA events), and
// each signature also gets the host time its launch keeps the device's worker
// busy: under `sync: step` the two overlap, and the simulator runs them as a
// pipeline (sim/simulator.h).
//
// File: tab-separated text, one record per line (docs/file-formats.md); v1
// files (no spread, poll or notify), v2 files (no cold), v3 files (no host
// or launch) and v4 files (no device) are read too.
// Thread safety: value types and free functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cluster/devices.h"
#include "graph/status.h"

namespace sim {

struct OpTiming {
  double seconds = 0;        // mean kernel time (samples over 3x the median left out)
  int64_t output_bytes = 0;  // bytes its outputs newly occupy
  int samples = 0;
  double spread = 0;  // median absolute deviation of the samples over their median (0: unknown)
};

struct LinkFit {
  double latency_s = 0;
  double bandwidth_bytes_per_s = 0;
  int samples = 0;
};

struct Profile {
  // device -> what of its definition the times were measured on
  // (cluster::TimingDefinition); absent in profiles made before 2026-12-01
  std::map<std::string, std::string> definitions;
  // device -> signature -> timing
  std::map<std::string, std::map<std::string, OpTiming>> ops;
  // device -> seconds the executor spends per scheduled op outside its kernel
  std::map<std::string, double> dispatch_s;
  // device -> the same while another cpu device of the host is awake in the
  // step (running an op or polling for one); dispatch_s when absent
  std::map<std::string, double> dispatch_shared_s;
  // device -> seconds more per op outside kernels, in a step with ops on
  // several cpu devices, for each cross-device edge per op of the device (its
  // ops' inputs from and consumers on other devices, over its ops): the
  // executor's shared bookkeeping contends in proportion to that traffic. In
  // such steps dispatch_s + this x edges per op replaces dispatch_shared_s.
  std::map<std::string, double> dispatch_cross_s;
  // device -> factor on its kernel times while another cpu device of the same
  // host is awake in the step; 1 when absent
  std::map<std::string, double> slowdown;
  // device -> seconds from another device handing it an op to its sleeping
  // worker starting it (a thread wake-up)
  std::map<std::string, double> wakeup_s;
  // device -> the same for a worker still polling its queue (runtime/device.h)
  std::map<std::string, double> poll_s;
  // device -> seconds the handing worker spends waking that device's sleeping
  // worker (a futex wake), before it goes on with its own queue
  std::map<std::string, double> notify_s;
  // device -> what a kernel takes beyond its time alone (and the slowdown) in
  // a step with ops on several cpu devices, by how long its device was idle
  // before it: (idle seconds below which the extra applies, extra seconds),
  // ascending. Kernels after an idle spell start cold (caches, predictors, a
  // halted vCPU); see ProfileBuilder::Finish.
  std::map<std::string, std::vector<std::pair<double, double>>> cold_s;
  // The same two figures from a step whose cpu devices each ran a whole copy
  // of the graph at once (independent streams, no cross-device edge): what a
  // coarse split's kernels pay, where slowdown and cold_s, measured with ops
  // alternating between the cpus, are what a fine-grained split's pay. Absent
  // unless profiled with ProfileOptions::parallel_step. With both, the
  // simulator takes, per device, the point between them that its cross-device
  // edges per op set: parallel at none, alternating at `shared_cross`'s.
  std::map<std::string, double> parallel_slowdown;
  std::map<std::string, std::vector<std::pair<double, double>>> parallel_cold_s;
  // device -> cross-device edges per op of its ops in the steps slowdown and
  // cold_s were measured on (the alternating step's: about 1.8 on age)
  std::map<std::string, double> shared_cross;
  // (src, dst); (gpu, gpu): copies within one GPU's memory
  std::map<std::pair<std::string, std::string>, LinkFit> links;
  // device -> signature -> host seconds an op's launch keeps the worker busy,
  // for devices whose kernels run asynchronously (a GPU); `ops` then holds the
  // kernels' time on the device
  std::map<std::string, std::map<std::string, double>> host_s;
  // device -> host seconds to launch one small kernel (a GPU's launch overhead)
  std::map<std::string, double> launch_s;

  const OpTiming* Find(const std::string& device, const std::string& signature) const;
  // Forgets everything measured on `device`, its links included.
  void Erase(const std::string& device);
  // The host seconds of an op of `signature` on `device`, or -1 when not profiled.
  double HostSeconds(const std::string& device, const std::string& signature) const;
  const LinkFit* Link(const std::string& src, const std::string& dst) const;
};

// " 0-5 us +1.50 us, ..., over 200 us +7.10 us": a device's cold_s bins.
std::string DescribeColdBins(const std::vector<std::pair<double, double>>& bins);

// "NAME (profiled as X; here Y)" when `profile` recorded `d`'s name under
// another definition than `d`'s; "" when the same or none is recorded.
std::string Redefinition(const Profile& profile, const cluster::DeviceSpec& d);

// The devices of `c` that `profile` holds entries for under the same name but
// measured on another definition ("cpu0 (profiled as cpu, cores 0, threads 1;
// here sim of cpu)"), in file order; devices without a recorded definition
// (older profiles) pass.
std::vector<std::string> RedefinedDevices(const Profile& profile, const cluster::Cluster& c);

// An error naming `profile_path`, `c`'s file and the first redefined device
// when there is one: a profile applied by name to another device gives
// another device's times.
graph::Status CheckProfileFits(const Profile& profile, const std::string& profile_path,
                               const cluster::Cluster& c);

// A missing file is NotFound (callers start an empty profile); anything
// malformed is InvalidArgument naming the file and line.
graph::Result<Profile> ReadProfile(const std::string& path);
graph::Status WriteProfile(const std::string& path, const Profile& p);  // atomically

}  // namespace sim
