// planner/rewards/batch_pool.h: every index runs once whoever calls, callers
// that find the pool busy (another thread's batch, or one started inside a
// batch's work) still finish, and a work's exception reaches its caller.
#include "planner/rewards/batch_pool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace planner::rewards {
namespace {

// How often each index of a batch of n ran, on `threads` threads.
std::vector<int> Counts(size_t n, size_t threads) {
  std::vector<std::atomic<int>> ran(n);
  RunBatch(n, threads, [&](size_t j) { ran[j].fetch_add(1); });
  std::vector<int> counts;
  for (auto& c : ran) counts.push_back(c.load());
  return counts;
}

TEST(BatchPoolTest, EveryIndexRunsExactlyOnceWhateverTheThreads) {
  for (size_t threads : {1, 2, 3, 8, 64}) {
    for (size_t n : {0, 1, 2, 7, 1000}) {
      EXPECT_EQ(Counts(n, threads), std::vector<int>(n, 1)) << n << " on " << threads;
    }
  }
}

TEST(BatchPoolTest, CallersOnManyThreadsAtOnceEachFinishTheirOwnBatch) {
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int c = 0; c < 6; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 50; ++round) {
        const size_t n = 1 + static_cast<size_t>((c * 7 + round) % 40);
        if (Counts(n, 4) != std::vector<int>(n, 1)) wrong.fetch_add(1);
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(BatchPoolTest, ABatchStartedInsideABatchsWorkDoesNotDeadlock) {
  std::vector<std::vector<int>> inner(8);
  RunBatch(inner.size(), 4, [&](size_t j) { inner[j] = Counts(j + 5, 4); });
  for (size_t j = 0; j < inner.size(); ++j) EXPECT_EQ(inner[j], std::vector<int>(j + 5, 1));
}

TEST(BatchPoolTest, AWorksExceptionReachesTheCallerAndThePoolServesOn) {
  EXPECT_THROW(RunBatch(100, 4,
                        [](size_t j) {
                          if (j == 37) throw std::runtime_error("index 37");
                        }),
               std::runtime_error);
  EXPECT_EQ(Counts(100, 4), std::vector<int>(100, 1));  // the pool is not left waiting
}

// A child of fork() has none of the pool's threads: a batch waiting for them
// would wait for ever.
TEST(BatchPoolTest, AForkedChildRunsItsBatchesWithoutThePoolsThreads) {
  ASSERT_EQ(Counts(100, 4), std::vector<int>(100, 1));  // the pool exists
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::alarm(20);  // a wait for ever ends the child by SIGALRM
    ::_exit(Counts(100, 4) == std::vector<int>(100, 1) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace planner::rewards
