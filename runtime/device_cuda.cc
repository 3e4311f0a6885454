// The cuda backend of runtime::Device (device.h). Compiled only where LibTorch
// has CUDA (PLANNER_CUDA): the CPU build never needs CUDA's headers.
#include <ATen/Parallel.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/device.h"
#include "runtime/device_backends.h"
#include "runtime/torch_status.h"

namespace runtime {

namespace {

class CudaDevice : public Device {
 public:
  explicit CudaDevice(cluster::DeviceSpec spec) : spec_(std::move(spec)) {}
  ~CudaDevice() override {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  graph::Status Start() {
    const int count = static_cast<int>(c10::cuda::device_count());
    if (spec_.cuda_index >= count) {
      return graph::InvalidArgument("device '" + spec_.name + "' is cuda index " +
                                    std::to_string(spec_.cuda_index) + ", but this host has " +
                                    std::to_string(count) + " CUDA device(s)");
    }
    if (!spec_.memory_bytes) {
      cudaDeviceProp prop;
      const cudaError_t err = cudaGetDeviceProperties(&prop, spec_.cuda_index);
      if (err != cudaSuccess) {
        return graph::Internal("device '" + spec_.name +
                               "': cannot read its memory size: " + cudaGetErrorString(err));
      }
      spec_.memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    }
    worker_ = std::thread([this] { Loop(); });
    return graph::Status::Ok();
  }

  const cluster::DeviceSpec& spec() const override { return spec_; }

  void Schedule(std::function<void()> fn) override {
    {
      std::lock_guard<std::mutex> l(mu_);
      queue_.push_back(std::move(fn));
    }
    cv_.notify_one();
  }

  // No poll loop of ours: the worker waits for work on a condition variable,
  // and for the GPU inside the CUDA driver (which spins or yields by its own
  // schedule, cudaDeviceScheduleAuto).
  void SetPolling(bool) override {}

  c10::Device torch_device() const override {
    return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(spec_.cuda_index));
  }

  graph::Status WaitForKernels() override {
    return spec_.sync_each_op ? Synchronize() : graph::Status::Ok();
  }

  graph::Status Synchronize() override {
    return Catching(
        [this] { return "device '" + spec_.name + "'"; },
        [this] {
          c10::cuda::getDefaultCUDAStream(static_cast<c10::DeviceIndex>(spec_.cuda_index))
              .synchronize();
        });
  }

 private:
  void Loop() {
    // Host-side work of its ops (a kernel that reads a shape) stays on one
    // thread, as on the cpu devices' workers, instead of forking OpenMP's
    // default team.
    at::init_num_threads();
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [this] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping
        fn = std::move(queue_.front());
        queue_.pop_front();
      }
      fn();
    }
  }

  cluster::DeviceSpec spec_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace

graph::Result<std::unique_ptr<Device>> MakeCudaDevice(const cluster::DeviceSpec& spec) {
  auto d = std::make_unique<CudaDevice>(spec);
  GRAPH_RETURN_IF_ERROR(d->Start());
  return std::unique_ptr<Device>(std::move(d));
}

}  // namespace runtime
