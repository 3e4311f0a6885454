#include "runtime/threads.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

namespace runtime {
namespace {

TEST(SetKernelThreadsTest, SetsAtenAndOpenBlasPools) {
  for (int n : {2, 1}) {
    SetKernelThreads(n);
    EXPECT_EQ(at::get_num_threads(), n);
    // Debian's LibTorch multiplies matrices with OpenBLAS (scripts/setup.sh
    // installs libopenblas0-pthread); elsewhere there is no second pool.
    const int blas = OpenBlasThreads();
    if (blas != 0) EXPECT_EQ(blas, n);
  }
}

}  // namespace
}  // namespace runtime
