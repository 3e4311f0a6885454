#include <ATen/Parallel.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/adaptive_mutex.h"
#include "runtime/device.h"
#include "runtime/device_backends.h"
#include "runtime/flush_denormals.h"

namespace runtime {

namespace {

// A hint to the core that this thread spins (frees its pipeline for the sibling).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

class CpuDevice : public Device {
 public:
  explicit CpuDevice(cluster::DeviceSpec spec) : spec_(std::move(spec)) {}
  ~CpuDevice() override {
    {
      std::lock_guard<AdaptiveMutex> l(mu_);
      stop_ = true;
    }
    polling_ = false;
    cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  graph::Status Start() {
    long online = ::sysconf(_SC_NPROCESSORS_ONLN);
    for (int core : spec_.cores) {
      if (core >= online) {
        return graph::InvalidArgument("device '" + spec_.name + "' owns core " +
                                      std::to_string(core) + " but this host has " +
                                      std::to_string(online));
      }
    }
    for (int i = 0; i < spec_.threads; ++i) {
      workers_.emplace_back([this] { Loop(); });
      cpu_set_t set;
      CPU_ZERO(&set);
      for (int core : spec_.cores) CPU_SET(core, &set);
      if (pthread_setaffinity_np(workers_.back().native_handle(), sizeof(set), &set) != 0) {
        return graph::Internal("device '" + spec_.name + "': cannot pin its threads to its cores");
      }
    }
    return graph::Status::Ok();
  }

  const cluster::DeviceSpec& spec() const override { return spec_; }

  void Schedule(std::function<void()> fn) override {
    bool wake = false;
    {
      std::lock_guard<AdaptiveMutex> l(mu_);
      queue_.push_back(std::move(fn));
      queued_.store(queue_.size(), std::memory_order_release);
      wake = sleepers_ > 0;
    }
    if (wake) cv_.notify_one();  // a futex wake: only for a worker that sleeps
  }

  void SetPolling(bool on) override { polling_.store(on, std::memory_order_release); }

  c10::Device torch_device() const override { return c10::Device(c10::kCPU); }

 private:
  void Loop() {
    // Kernels run with denormals flushed to zero, as on TensorFlow's threads
    // (runtime/flush_denormals.h); threads this one starts (an OpenMP team)
    // inherit the mode.
    const ScopedFlushDenormals flush;
    // OpenMP's thread count is per thread: without this, kernels on this worker
    // would fork the default team (one per host core), all pinned to our cores.
    at::init_num_threads();
    for (;;) {
      Poll();
      std::function<void()> fn;
      {
        std::unique_lock<AdaptiveMutex> l(mu_);
        ++sleepers_;
        cv_.wait(l, [this] { return stop_ || !queue_.empty(); });
        --sleepers_;
        if (queue_.empty()) return;  // stopping
        fn = std::move(queue_.front());
        queue_.pop_front();
        queued_.store(queue_.size(), std::memory_order_release);
      }
      fn();
    }
  }

  // Polls for work for up to spec_.spin_s before the worker sleeps (device.h).
  void Poll() {
    if (spec_.spin_s <= 0 || !polling_.load(std::memory_order_acquire) ||
        queued_.load(std::memory_order_acquire) > 0) {
      return;
    }
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(spec_.spin_s));
    while (queued_.load(std::memory_order_acquire) == 0 &&
           polling_.load(std::memory_order_acquire)) {
      for (int i = 0; i < 64; ++i) CpuRelax();
      if (std::chrono::steady_clock::now() >= until) return;
    }
  }

  cluster::DeviceSpec spec_;
  std::atomic<size_t> queued_{0};  // queue_.size(), read without the lock while polling
  std::atomic<bool> polling_{false};
  int sleepers_ = 0;  // workers waiting on cv_
  AdaptiveMutex mu_;
  std::condition_variable_any cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace

graph::Result<std::unique_ptr<Device>> MakeCpuDevice(const cluster::DeviceSpec& spec) {
  auto d = std::make_unique<CpuDevice>(spec);
  GRAPH_RETURN_IF_ERROR(d->Start());
  return std::unique_ptr<Device>(std::move(d));
}

}  // namespace runtime
