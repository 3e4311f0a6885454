#include "planner/rewards/batch_pool.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace planner::rewards {
namespace {

// One batch: its indices are handed out by `next`, so a thread that finishes
// early takes more.
struct Batch {
  size_t n = 0;
  const std::function<void(size_t)>* work = nullptr;
  std::atomic<size_t> next{0};
  std::mutex error_mu;
  std::exception_ptr error;

  void Drain() {
    for (size_t j; (j = next.fetch_add(1)) < n;) {
      try {
        (*work)(j);
      } catch (...) {
        std::lock_guard<std::mutex> l(error_mu);
        if (!error) error = std::current_exception();
        next.store(n);  // skip the rest
      }
    }
  }
};

class Pool {
 public:
  static Pool& Instance() {
    // Never destroyed: its threads wait on its members until the process ends.
    static Pool* const pool = new Pool(std::max(1u, std::thread::hardware_concurrency()) - 1);
    return *pool;
  }

  // Runs `batch` on the caller and up to helpers of the pool's threads; false
  // (having run nothing) when another batch has the pool.
  bool TryRun(Batch* batch, size_t helpers) {
    if (forked_) return false;
    bool idle = false;
    if (!busy_.compare_exchange_strong(idle, true)) return false;
    {
      std::lock_guard<std::mutex> l(mu_);
      batch_ = batch;
      wanted_ = std::min(helpers, helpers_);
      active_ = wanted_;
      ++generation_;
    }
    wake_.notify_all();
    batch->Drain();
    std::unique_lock<std::mutex> l(mu_);
    done_.wait(l, [&] { return active_ == 0; });
    batch_ = nullptr;
    busy_.store(false);
    return true;
  }

 private:
  explicit Pool(size_t helpers) : helpers_(helpers) {
    for (size_t i = 0; i < helpers; ++i) std::thread([this, i] { Serve(i); }).detach();
    // A child of fork() has none of these threads: its batches run on threads
    // of their own.
    ::pthread_atfork(nullptr, nullptr, [] { Instance().forked_ = true; });
  }

  // Thread i helps with each batch that wants more than i helpers. A batch
  // ends only when every helper it wanted has finished it, so no wanted
  // helper misses a generation.
  void Serve(size_t i) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      wake_.wait(l, [&] { return generation_ != seen; });
      seen = generation_;
      if (i >= wanted_) continue;
      Batch* batch = batch_;
      l.unlock();
      batch->Drain();
      l.lock();
      if (--active_ == 0) done_.notify_one();
    }
  }

  // Set by the caller whose batch has the pool (a flag, not a mutex: the
  // owner itself may start a batch from inside its work).
  std::atomic<bool> busy_{false};
  std::mutex mu_;  // guards what follows
  std::condition_variable wake_, done_;
  uint64_t generation_ = 0;
  Batch* batch_ = nullptr;
  size_t wanted_ = 0, active_ = 0;
  const size_t helpers_;
  bool forked_ = false;  // set in a child of fork(), before it runs anything
};

}  // namespace

void RunBatch(size_t n, size_t threads, const std::function<void(size_t)>& work) {
  Batch batch;
  batch.n = n;
  batch.work = &work;
  if (threads <= 1 || n <= 1) {
    batch.Drain();
  } else if (!Pool::Instance().TryRun(&batch, std::min(threads, n) - 1)) {
    std::vector<std::thread> own;  // the pool is busy: threads of this batch's own
    for (size_t t = 1; t < std::min(threads, n); ++t) own.emplace_back([&] { batch.Drain(); });
    batch.Drain();
    for (std::thread& t : own) t.join();
  }
  if (batch.error) std::rethrow_exception(batch.error);
}

}  // namespace planner::rewards
