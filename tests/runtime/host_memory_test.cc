#include "runtime/host_memory.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <thread>

namespace runtime {
namespace {

long MinorFaults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

// Page faults of allocating and writing `bytes`, then freeing them.
long FaultsOfABlock(size_t bytes) {
  const long before = MinorFaults();
  void* p = std::malloc(bytes);
  EXPECT_NE(p, nullptr);
  std::memset(p, 1, bytes);
  asm volatile("" : : "r"(p) : "memory");  // the writes happen: no dead-store elimination
  std::free(p);
  return MinorFaults() - before;
}

TEST(HostMemoryTest, ABlockFreedAndAllocatedAgainReusesItsPages) {
  ASSERT_TRUE(KeepFreedMemory());
  EXPECT_TRUE(KeepFreedMemory());  // idempotent
  // A fresh thread has an arena of its own, as the executor's workers do.
  long first = 0, again = 0;
  std::thread([&] {
    const size_t bytes = 24 << 20;  // 6,144 pages of 4 KiB
    first = FaultsOfABlock(bytes);
    again = FaultsOfABlock(bytes);
  }).join();
  EXPECT_GT(first, 1000) << "the first use of the block's pages faults them in";
  EXPECT_LT(again, 100) << "the block came back with fresh pages (first use: " << first << ")";
}

}  // namespace
}  // namespace runtime
