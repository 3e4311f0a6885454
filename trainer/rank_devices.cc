#include "trainer/rank_devices.h"

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <set>

#include "runtime/device.h"

namespace trainer {
namespace {

// "0-3,6": ascending cores as ranges.
std::string CoreList(const std::vector<int>& cores) {
  std::string s;
  for (size_t i = 0; i < cores.size();) {
    size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + std::to_string(cores[i]);
    if (j > i) s += "-" + std::to_string(cores[j]);
    i = j + 1;
  }
  return s.empty() ? "none" : s;
}

bool HasCuda(const cluster::Cluster& file) {
  return std::any_of(file.devices.begin(), file.devices.end(), [](const cluster::DeviceSpec& d) {
    return d.kind == cluster::DeviceKind::kCuda;
  });
}

}  // namespace

HostSize ThisHost(const cluster::Cluster& file) {
  HostSize h;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) h.cores.push_back(c);
    }
  }
  if (HasCuda(file)) h.cuda_devices = runtime::CudaDeviceCount();
  return h;
}

cluster::Cluster DevicesOfLocalRank(const cluster::Cluster& file, int local_rank, int local_world,
                                    const HostSize& host, std::string* note) {
  if (note) note->clear();
  // What one rank's copy spans: the file's highest core and index, plus one.
  int64_t core_span = 0, cuda_span = 0;
  for (const cluster::DeviceSpec& d : file.devices) {
    if (d.kind == cluster::DeviceKind::kCpu && !d.cores.empty()) {
      core_span = std::max<int64_t>(core_span, d.cores.back() + 1);
    }
    if (d.kind == cluster::DeviceKind::kCuda) {
      cuda_span = std::max<int64_t>(cuda_span, d.cuda_index + 1);
    }
  }
  if (local_world <= 1 || (core_span == 0 && cuda_span == 0)) return file;
  // Every rank's copy of every core among those this process may run on.
  const std::set<int> allowed(host.cores.begin(), host.cores.end());
  bool spread_cores = core_span > 0;
  int64_t top_core = 0;
  for (const cluster::DeviceSpec& d : file.devices) {
    for (int core : d.cores) {
      const int64_t last = core + (local_world - 1) * core_span;
      top_core = std::max(top_core, last);
      for (int64_t c = core; spread_cores && c <= last; c += core_span) {
        spread_cores = c < INT32_MAX && allowed.count(static_cast<int>(c));
      }
    }
  }
  const int64_t gpus_needed = cuda_span * local_world;
  const bool spread_gpus = cuda_span > 0 && gpus_needed <= host.cuda_devices;

  if (note) {
    const std::string ranks = std::to_string(local_world) + " ranks on this host";
    std::vector<std::string> spread, shared;
    if (spread_cores) spread.push_back("cores + " + std::to_string(core_span) + "r");
    if (spread_gpus) spread.push_back("cuda indices + " + std::to_string(cuda_span) + "r");
    if (core_span > 0 && !spread_cores) {
      shared.push_back("cores up to " + std::to_string(top_core) +
                       ", and this process may run on " + CoreList(host.cores));
    }
    if (cuda_span > 0 && !spread_gpus) {
      shared.push_back(std::to_string(gpus_needed) + " CUDA devices, and this host has " +
                       std::to_string(host.cuda_devices));
    }
    auto join = [](const std::vector<std::string>& v, const char* sep) {
      std::string s;
      for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
      return s;
    };
    if (!spread.empty()) {
      *note = "each of the " + ranks + " runs on its own copy of " + file.source +
              "'s devices: local rank r's " + join(spread, ", ");
    }
    if (!shared.empty()) {
      *note += std::string(note->empty() ? "the " + ranks + " share the devices of " + file.source
                                         : "; they share the rest") +
               ": a copy for each would need " + join(shared, "; and ");
    }
  }
  cluster::Cluster mine = file;
  for (cluster::DeviceSpec& d : mine.devices) {
    if (spread_cores) {
      for (int& core : d.cores) core += static_cast<int>(local_rank * core_span);
    }
    if (spread_gpus && d.kind == cluster::DeviceKind::kCuda) {
      d.cuda_index += static_cast<int>(local_rank * cuda_span);
    }
  }
  return mine;
}

}  // namespace trainer
