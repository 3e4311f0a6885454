// A mutex that spins briefly before it sleeps (glibc's adaptive pthread mutex).
// The executor's critical sections last tens of nanoseconds, and the threads
// that meet on them are device workers pinned to different cores: with a plain
// std::mutex a collision puts the loser to sleep in the kernel and makes the
// holder pay a futex wake on unlock, microseconds for a few loads and stores.
// Measured before the executor's step state went lock-free: with this mutex in
// place of std::mutex on the device queues and the step's one lock, a random split
// of facemesh-attention over two 1-core cpus ran 0.89x as long (0.81-0.91, 5
// rounds alternated with the old build, 2026-11-25).
// BasicLockable (std::lock_guard, std::unique_lock; std::condition_variable_any).
// Where the C library has no adaptive type (not glibc), a plain pthread mutex.
// Thread safety: a mutex.
#pragma once

#include <pthread.h>

namespace runtime {

class AdaptiveMutex {
 public:
  AdaptiveMutex() {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    pthread_mutex_init(&mu_, &attr);
    pthread_mutexattr_destroy(&attr);
  }
  ~AdaptiveMutex() { pthread_mutex_destroy(&mu_); }
  AdaptiveMutex(const AdaptiveMutex&) = delete;
  AdaptiveMutex& operator=(const AdaptiveMutex&) = delete;

  void lock() { pthread_mutex_lock(&mu_); }
  void unlock() { pthread_mutex_unlock(&mu_); }
  bool try_lock() { return pthread_mutex_trylock(&mu_) == 0; }

 private:
  pthread_mutex_t mu_;
};

}  // namespace runtime
