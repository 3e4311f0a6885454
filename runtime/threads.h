// The process-wide thread pools behind LibTorch's kernels: ATen's intra-op pool
// and, where LibTorch's BLAS is OpenBLAS (Debian's libopenblas0-pthread), the
// pool OpenBLAS keeps for its matrix products. at::set_num_threads does not
// reach the latter, whose idle threads spin (sched_yield) and take cores from
// whatever else runs: the executor's device workers, the simulator's threads.
// Thread safety: process-wide settings; call them before starting the work
// they are meant for, not while kernels run.
#pragma once

namespace runtime {

// Sets both pools to `n` threads (n >= 1).
void SetKernelThreads(int n);

// OpenBLAS's current thread count, or 0 where LibTorch's BLAS is not OpenBLAS.
int OpenBlasThreads();

}  // namespace runtime
