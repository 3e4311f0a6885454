// Each rank's own devices, when several ranks on one host share a devices
// file. A devices file describes one rank's devices; `trainer launch` starts
// its ranks on one host with LOCAL_RANK and LOCAL_WORLD_SIZE set, as torchrun
// does, and a rank started that way takes the file's devices shifted past the
// ranks before it: local rank r's cpu cores by r x (the file's highest core +
// 1) and its cuda indices by r x (the highest index + 1), so that rank 1 of
// two on a 4-GPU host with `index: 0, 1` runs on GPUs 2 and 3, as a PyTorch
// script picks cuda:LOCAL_RANK. Where the host has too few cores or GPUs for
// every rank's copy, every rank keeps the file as it is (the ranks then share
// its devices, as they all did before) and the note says why.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <string>

#include "cluster/devices.h"

namespace trainer {

struct HostSize {
  int cores = 1;         // the host's cpu cores (ids 0 .. cores - 1)
  int cuda_devices = 0;  // CUDA devices LibTorch sees
};

// The host this process runs on: std::thread::hardware_concurrency() cores
// and runtime::CudaDeviceCount() GPUs.
HostSize ThisHost();

// Local rank `local_rank` of `local_world` ranks on `host`: its copy of
// `file`'s devices (`file` itself at local rank 0, or where the host lacks
// room). `note` (may be null) gets one line for the user, naming the file
// (Cluster::source): how the ranks' devices were spread, or why they share
// them; empty with one local rank.
cluster::Cluster DevicesOfLocalRank(const cluster::Cluster& file, int local_rank, int local_world,
                                    HostSize host, std::string* note);

}  // namespace trainer
