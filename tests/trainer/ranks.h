// Ranks as threads of one test process, each with its own real c10d process
// group on loopback (ProcessGroupGloo over TCP): what the unit tests of
// collectives use; the command tests run real processes.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <thread>
#include <vector>

#include "processes.h"
#include "trainer/process_group.h"

namespace trainer::testing {

// Runs fn(rank's group) on `world` threads at once and joins them; a rank that
// cannot connect fails the test.
inline void RunRanks(int world, const std::function<void(ProcessGroup&)>& fn,
                     double timeout_s = 30) {
  const int port = planner::testing::FreePort();
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([=, &fn] {
      Rendezvous rv;
      rv.master_port = port;
      rv.rank = r;
      rv.world_size = world;
      rv.timeout_s = timeout_s;
      auto pg = ProcessGroup::Connect(rv);
      ASSERT_TRUE(pg.ok()) << pg.status().message();
      fn(**pg);
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace trainer::testing
