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
//
// CudaDevice (device_cuda.cc, compiled only against a CUDA LibTorch): one
// worker that launches kernels on its GPU's default stream, so that every copy
// from or to the GPU, whichever thread makes it, is ordered after the kernels
// before it, and a block the caching allocator hands out again is reused in
// stream order. A build whose LibTorch has no CUDA refuses cuda devices.
// Thread safety: Schedule may be called from any thread.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

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
  // Where tensors of ops placed here live.
  virtual c10::Device torch_device() const = 0;
  // Called by a worker after a kernel, before the op's clock stops. A cpu
  // kernel is done when it returns; a GPU runs kernels asynchronously, and a
  // cuda device waits for them here only with `sync: op` (cluster/devices.h).
  // Fails when the device reports an error.
  virtual graph::Status WaitForKernels() { return graph::Status::Ok(); }
  // Returns once every kernel launched on the device has run: the executor
  // calls it when a step's last op is done, before the step's clock stops.
  virtual graph::Status Synchronize() { return graph::Status::Ok(); }

  // Kernel times, on devices whose kernels run asynchronously (a GPU; the
  // others keep these defaults and time nothing). With timing on, the
  // executor calls StartTiming on its own thread before a step's first op;
  // the worker brackets each op's kernels with BeginKernels and EndKernels;
  // after Synchronize, KernelSpans gives each token's (start, end) on the
  // device, in seconds since StartTiming's mark. `hold_s` > 0: BeginKernels
  // first waits for the device's earlier kernels, then holds it back that
  // long (a spinning kernel), so that the op's launches have queued when its
  // kernels start and its span is theirs alone, not its launches' (what
  // `planner profile` does).
  virtual graph::Status StartTiming(double hold_s) {
    (void)hold_s;
    return graph::Status::Ok();
  }
  virtual int BeginKernels() { return -1; }  // a token, or -1: not timed
  virtual void EndKernels(int token) { (void)token; }
  virtual graph::Status KernelSpans(std::vector<std::pair<double, double>>* spans) {
    spans->clear();
    return graph::Status::Ok();
  }
  // Bytes its allocator held at most since ResetPeakMemory (LibTorch's
  // caching allocator on a GPU); -1 where the device keeps no such figure.
  virtual int64_t PeakMemory() { return -1; }
  virtual void ResetPeakMemory() {}

  // CUDA graphs (a cuda device; the others refuse). Called by the executor's
  // thread between steps, never during one. BeginCapture waits for the
  // device's earlier work, then records every kernel its worker launches,
  // without running them, until EndCapture makes them one graph (or says why
  // the device could not: an op that waited for the GPU, say). Replay runs the
  // graph once, ordered after the calling thread's earlier work on the device.
  // Tensors made during the capture live in the graph's own memory pool,
  // which replays write again; DropGraph frees the graph and its pool.
  virtual graph::Status BeginCapture() {
    return graph::Unimplemented("device '" + spec().name + "' has no CUDA graphs");
  }
  virtual graph::Status EndCapture() { return BeginCapture(); }
  virtual graph::Status Replay() { return BeginCapture(); }
  virtual void DropGraph() {}
};

// Creates the device `spec` describes, or says why this build cannot. A cuda
// device's spec() has its memory capacity filled in from the device when
// `spec` gives none.
// `source` (the devices file, when known) prefixes its errors, which name the
// device: "configs/x.yaml: device 'cpu9' owns core 99 but this host has 2".
graph::Result<std::unique_ptr<Device>> MakeDevice(const cluster::DeviceSpec& spec,
                                                  const std::string& source = "");

// The CUDA devices this process can use: 0 where this build's LibTorch has no
// CUDA, or the host none.
int CudaDeviceCount();

}  // namespace runtime
