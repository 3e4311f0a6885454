#include "runtime/threads.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>

#include <cassert>

namespace runtime {

void SetKernelThreads(int n) {
  assert(n >= 1);
  at::set_num_threads(n);
  // Looked up at run time: the BLAS behind libblas.so.3 is chosen by Debian's
  // alternatives, and only OpenBLAS has these.
  using SetThreads = void (*)(int);
  if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    fn(n);
  }
}

int OpenBlasThreads() {
  using GetThreads = int (*)();
  auto fn = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return fn ? fn() : 0;
}

}  // namespace runtime
