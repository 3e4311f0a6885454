#include "trainer/rank_devices.h"

#include <algorithm>
#include <thread>

#include "runtime/device.h"

namespace trainer {

HostSize ThisHost() {
  HostSize h;
  h.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  h.cuda_devices = runtime::CudaDeviceCount();
  return h;
}

cluster::Cluster DevicesOfLocalRank(const cluster::Cluster& file, int local_rank, int local_world,
                                    HostSize host, std::string* note) {
  const std::string& source = file.source;
  if (note) note->clear();
  if (local_world <= 1) return file;
  // What one rank's copy spans: the file's highest core and index, plus one.
  int core_span = 0, cuda_span = 0;
  for (const cluster::DeviceSpec& d : file.devices) {
    if (d.kind == cluster::DeviceKind::kCpu && !d.cores.empty()) {
      core_span = std::max(core_span, d.cores.back() + 1);
    }
    if (d.kind == cluster::DeviceKind::kCuda) cuda_span = std::max(cuda_span, d.cuda_index + 1);
  }
  const int cores_needed = core_span * local_world, gpus_needed = cuda_span * local_world;
  std::string lacking;
  if (cores_needed > host.cores) {
    lacking = std::to_string(cores_needed) + " cores, this host has " + std::to_string(host.cores);
  } else if (gpus_needed > host.cuda_devices) {
    lacking = std::to_string(gpus_needed) + " CUDA devices, this host has " +
              std::to_string(host.cuda_devices);
  }
  if (!lacking.empty()) {
    if (note) {
      *note = "the " + std::to_string(local_world) + " ranks share the devices of " + source +
              ": a copy for each would need " + lacking;
    }
    return file;
  }
  if (note) {
    *note = "each of the " + std::to_string(local_world) + " ranks runs on its own copy of " +
            source + "'s devices: local rank r's";
    if (core_span > 0) *note += " cores + " + std::to_string(core_span) + "r";
    if (core_span > 0 && cuda_span > 0) *note += ",";
    if (cuda_span > 0) *note += " cuda indices + " + std::to_string(cuda_span) + "r";
  }
  cluster::Cluster mine = file;
  for (cluster::DeviceSpec& d : mine.devices) {
    for (int& core : d.cores) core += local_rank * core_span;
    if (d.kind == cluster::DeviceKind::kCuda) d.cuda_index += local_rank * cuda_span;
  }
  return mine;
}

}  // namespace trainer
