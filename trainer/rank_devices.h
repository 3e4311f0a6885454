// Each rank's own devices, when several ranks on one host share a devices
// file. A devices file describes one rank's devices; `trainer launch` starts
// its ranks on one host with LOCAL_RANK and LOCAL_WORLD_SIZE set, as torchrun
// does, and a rank started that way takes the file's devices shifted past the
// ranks before it: local rank r's cpu cores by r x (the file's highest core +
// 1) and its cuda indices by r x (the highest index + 1), so that rank 1 of two
// on a 4-GPU host with `index: 0, 1` runs on GPUs 2 and 3, as a PyTorch script
// picks cuda:LOCAL_RANK. Cores and GPUs are spread apart from each other: where
// this process may not run on every rank's copy of the cores (its affinity:
// taskset, a container's cpuset), the ranks share the file's cores as written,
// and where the host has too few GPUs for every copy, they share its GPUs;
// the note says which.
//
// Pure functions of their arguments, but ThisHost, which asks the system;
// thread-safe.
#pragma once

#include <string>
#include <vector>

#include "cluster/devices.h"

namespace trainer {

struct HostSize {
  std::vector<int> cores;  // the cpu cores this process may run on, ascending
  int cuda_devices = 0;    // the CUDA devices LibTorch sees
};

// The host as this process sees it: the cores of its affinity mask and, only
// where `file` has a cuda device (counting them starts CUDA),
// runtime::CudaDeviceCount().
HostSize ThisHost(const cluster::Cluster& file);

// Local rank `local_rank` of `local_world` ranks on `host`: its copy of
// `file`'s devices (`file` itself at local rank 0, or where the host lacks
// room). `note` (may be null) gets one line for the user, naming the file
// (Cluster::source): how the ranks' devices were spread, or why they share
// them; empty with one local rank, or a file with neither cores nor GPUs.
cluster::Cluster DevicesOfLocalRank(const cluster::Cluster& file, int local_rank, int local_world,
                                    const HostSize& host, std::string* note);

}  // namespace trainer
