// Devices that execute kernels. A device owns worker threads and runs one op per
// thread at a time; the executor decides what runs where and when.
//
// CpuDevice: `threads` workers pinned to the device's cores (cluster::DeviceSpec),
// so two 1-core devices on one host really run side by side. Kernels run
// single-threaded inside a worker (the executor sets ATen's intra-op pool to one
// thread): ATen's pool is process-wide and cannot be split between devices.
// CUDA devices need a CUDA build of LibTorch and are refused by this build.
// Thread safety: Schedule may be called from any thread.
#pragma once

#include <functional>
#include <memory>

#include "cluster/devices.h"
#include "graph/status.h"

namespace runtime {

class Device {
 public:
  virtual ~Device() = default;
  virtual const cluster::DeviceSpec& spec() const = 0;
  // Runs `fn` on one of the device's workers, in submission order per worker.
  virtual void Schedule(std::function<void()> fn) = 0;
};

// Creates the device `spec` describes, or says why this build cannot.
graph::Result<std::unique_ptr<Device>> MakeDevice(const cluster::DeviceSpec& spec);

}  // namespace runtime
