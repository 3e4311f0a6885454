// The cuda backend of runtime::Device (device.h). Compiled only where LibTorch
// has CUDA (PLANNER_CUDA): the CPU build never needs CUDA's headers.
#include <ATen/Parallel.h>
#include <ATen/cuda/CUDAGraph.h>
#include <ATen/cuda/Sleep.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/device.h"
#include "runtime/device_backends.h"
#include "runtime/torch_status.h"

namespace runtime {

namespace {

// A CUDA event that records times, destroyed with its owner.
class Event {
 public:
  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  cudaError_t Create() { return e_ ? cudaSuccess : cudaEventCreate(&e_); }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

graph::Status CudaStatus(cudaError_t err, const std::string& what) {
  if (err == cudaSuccess) return graph::Status::Ok();
  cudaGetLastError();  // not sticky: clear it, so that LibTorch's next check does not see it
  return graph::Internal(what + ": " + cudaGetErrorString(err));
}

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
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, spec_.cuda_index) == cudaSuccess) {
      clock_hz_ = 1e3 * khz;
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
    return Catching([this] { return "device '" + spec_.name + "'"; },
                    [this] { Stream().synchronize(); });
  }

  graph::Status StartTiming(double hold_s) override {
    c10::cuda::CUDAGuard guard(Index());
    next_token_ = 0;
    record_error_ = graph::Status::Ok();
    hold_cycles_ = static_cast<int64_t>(hold_s * clock_hz_);
    GRAPH_RETURN_IF_ERROR(CudaStatus(start_.Create(), What("an event")));
    return CudaStatus(cudaEventRecord(start_.get(), Stream().stream()), What("an event"));
  }

  // On the worker only (one per device), so the events need no lock.
  int BeginKernels() override {
    const int token = next_token_++;
    while (static_cast<int>(events_.size()) < 2 * (token + 1)) {
      events_.push_back(std::make_unique<Event>());
    }
    if (hold_cycles_ > 0 && record_error_.ok()) {
      // The GPU is idle first, so that launches never fill its queue and wait.
      record_error_ = Catching([this] { return What("a hold"); },
                               [this] {
                                 Stream().synchronize();
                                 at::cuda::sleep(hold_cycles_);
                               });
    }
    Record(*events_[2 * token]);
    return token;
  }

  void EndKernels(int token) override {
    if (token >= 0) Record(*events_[2 * token + 1]);
  }

  graph::Status KernelSpans(std::vector<std::pair<double, double>>* spans) override {
    spans->clear();
    GRAPH_RETURN_IF_ERROR(record_error_);
    for (int t = 0; t < next_token_; ++t) {
      float begin_ms = 0, end_ms = 0;
      GRAPH_RETURN_IF_ERROR(CudaStatus(
          cudaEventElapsedTime(&begin_ms, start_.get(), events_[2 * t]->get()), What("a span")));
      GRAPH_RETURN_IF_ERROR(CudaStatus(
          cudaEventElapsedTime(&end_ms, start_.get(), events_[2 * t + 1]->get()), What("a span")));
      spans->push_back({begin_ms / 1e3, std::max(begin_ms, end_ms) / 1e3});
    }
    return graph::Status::Ok();
  }

  int64_t PeakMemory() override {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(Index());
    return stats.reserved_bytes[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)]
        .peak;
  }

  void ResetPeakMemory() override { c10::cuda::CUDACachingAllocator::resetPeakStats(Index()); }

  // A capture records what the worker launches, so it begins and ends there:
  // the worker's current stream becomes a side stream for it (a capture
  // cannot use the default stream), and the kernels of the ops scheduled
  // between BeginCapture and EndCapture go to that stream.
  graph::Status BeginCapture() override {
    return OnWorker([this] {
      graph::Status st =
          Catching([this] { return What("a CUDA graph's capture"); },
                   [this] {
                     c10::cuda::CUDAGuard guard(Index());
                     Stream().synchronize();  // the feeds' copies are done
                     graph_ = std::make_unique<at::cuda::CUDAGraph>();
                     c10::cuda::setCurrentCUDAStream(c10::cuda::getStreamFromPool(false, Index()));
                     graph_->capture_begin();
                   });
      if (!st.ok()) Abandon();
      return st;
    });
  }

  graph::Status EndCapture() override {
    return OnWorker([this] {
      if (!graph_) return graph::Internal(What("no CUDA graph is being captured"));
      graph::Status st = Catching([this] { return What("a CUDA graph's capture"); },
                                  [this] {
                                    c10::cuda::CUDAGuard guard(Index());
                                    graph_->capture_end();
                                  });
      c10::cuda::setCurrentCUDAStream(Stream());
      if (!st.ok()) {
        Abandon();
        return st;
      }
      // The eager steps' cached blocks: the graph's pool holds what replays need.
      c10::cuda::CUDACachingAllocator::emptyCache();
      return st;
    });
  }

  graph::Status Replay() override {
    if (!graph_) return graph::Internal(What("no CUDA graph was captured"));
    return Catching([this] { return What("a CUDA graph's replay"); },
                    [this] {
                      c10::cuda::CUDAGuard guard(Index());
                      graph_->replay();
                    });
  }

  void DropGraph() override { graph_.reset(); }

 private:
  c10::DeviceIndex Index() const { return static_cast<c10::DeviceIndex>(spec_.cuda_index); }
  c10::cuda::CUDAStream Stream() const { return c10::cuda::getDefaultCUDAStream(Index()); }
  std::string What(const char* what) const { return "device '" + spec_.name + "': " + what; }

  // An event on the default stream; the first failure is kept for KernelSpans.
  void Record(Event& e) {
    cudaError_t err = cudaSuccess;
    if (!e.get()) {
      c10::cuda::CUDAGuard guard(Index());  // an event belongs to the current device
      err = e.Create();
    }
    if (err == cudaSuccess) err = cudaEventRecord(e.get(), Stream().stream());
    if (err != cudaSuccess && record_error_.ok()) record_error_ = CudaStatus(err, What("an event"));
  }

  // Runs `fn` on the worker, after the work queued before it, and waits.
  graph::Status OnWorker(std::function<graph::Status()> fn) {
    std::promise<graph::Status> done;
    std::future<graph::Status> result = done.get_future();
    Schedule([&] { done.set_value(fn()); });
    return result.get();
  }

  // After a failed capture: the worker back on the default stream, the CUDA
  // error LibTorch's next check would see cleared, the graph gone.
  void Abandon() {
    c10::cuda::setCurrentCUDAStream(Stream());
    cudaGetLastError();
    graph_.reset();
  }

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
  double clock_hz_ = 0;      // the SM clock, for a hold's cycles
  int64_t hold_cycles_ = 0;  // before each timed op's kernels
  // Kernel timing: StartTiming's mark, and two events per token. Written on the
  // worker during a step, read by the step's thread after Synchronize.
  Event start_;
  std::vector<std::unique_ptr<Event>> events_;
  int next_token_ = 0;
  graph::Status record_error_;
  // The step's CUDA graph: made on the worker, replayed and dropped by the
  // executor's thread, never at the same time (device.h).
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
  std::thread worker_;
};

}  // namespace

graph::Result<std::unique_ptr<Device>> MakeCudaDevice(const cluster::DeviceSpec& spec) {
  auto d = std::make_unique<CudaDevice>(spec);
  GRAPH_RETURN_IF_ERROR(d->Start());
  return std::unique_ptr<Device>(std::move(d));
}

// c10's count is 0 when the driver or the devices are missing; it does not throw.
int CudaDeviceCount() { return static_cast<int>(c10::cuda::device_count()); }

}  // namespace runtime
