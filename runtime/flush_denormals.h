// Flushes denormal floats to zero on the calling thread while the guard lives
// (x86's FTZ and DAZ bits of MXCSR: denormal results become zero, denormal
// inputs read as zero), then restores the thread's previous mode. TensorFlow's
// executor threads run this way (its port::ScopedFlushDenormal).
//
// Why: the policy's softmaxed attention weights and the gradients through them
// underflow into denormals, and every arithmetic operation on one costs the CPU
// a microcode assist of about a hundred cycles. On NMT-8 (build/bench/search_update)
// one policy update took 1.15 s with them and 0.68-0.70 s flushed (2026-11-25,
// docs/search.md). Results differ from IEEE arithmetic's only where a value's
// magnitude is below 1.2e-38.
//
// Contract: affects only the thread that constructs it (worker threads of a
// thread pool keep their own mode); guards nest. A no-op where the target is
// not x86 with SSE. Thread safety: per thread by construction.
#pragma once

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define RUNTIME_HAS_MXCSR 1
#endif

namespace runtime {

class ScopedFlushDenormals {
 public:
#ifdef RUNTIME_HAS_MXCSR
  static constexpr unsigned kFlushToZero = 0x8000;     // FTZ: denormal results -> 0
  static constexpr unsigned kDenormalsAreZero = 0x40;  // DAZ: denormal inputs read as 0
  ScopedFlushDenormals() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ | kFlushToZero | kDenormalsAreZero);
  }
  ~ScopedFlushDenormals() { _mm_setcsr(saved_); }
#else
  ScopedFlushDenormals() = default;
#endif
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
#ifdef RUNTIME_HAS_MXCSR
  unsigned saved_;
#endif
};

}  // namespace runtime
