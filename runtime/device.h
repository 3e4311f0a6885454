// Devices that execute kernels. A device owns worker threads and runs one op per
// thread at a time; the executor decides what runs where and when.
//
// CpuDevice: `threads` workers pinned to the device's cores (cluster::DeviceSpec),
// so two 1-core devices on one host really run side by side. An idle worker
// polls its queue for the spec's spin time before it sleeps, while polling is
// on (see SetPolling), as TensorFlow's (Eigen's) thread pools spin before they
// park: waking a sleeping worker costs the op that wakes it a futex wake-up on
// both sides, and on a virtual machine a sleeping worker's core may be halted
// and handed to another guest, so the kernels after it start cold. Kernels run
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
  // While on, a worker that runs out of work polls its queue for the device's
  // spin time before it sleeps; off (the default), it sleeps at once. The
  // executor turns it on for a step only, so that the idle workers of one
  // executor do not spin on cores another executor's step is using.
  virtual void SetPolling(bool on) = 0;
};

// Creates the device `spec` describes, or says why this build cannot.
graph::Result<std::unique_ptr<Device>> MakeDevice(const cluster::DeviceSpec& spec);

}  // namespace runtime
