#include "frontend/stop_signals.h"

#include <gtest/gtest.h>

#include <csignal>

namespace frontend {
namespace {

// The first SIGINT or SIGTERM is a request the command reads; its exit status
// then says which signal stopped it, as a shell's would; a failure stays one.
TEST(StopOnSignals, TheFirstSignalIsARequestAndTheExitStatusNamesIt) {
  {
    StopOnSignals stop;
    EXPECT_FALSE(StopOnSignals::requested());
    EXPECT_EQ(ExitCodeAfterStop(0), 0);
    std::raise(SIGTERM);
    EXPECT_TRUE(StopOnSignals::requested());
    EXPECT_EQ(ExitCodeAfterStop(0), 128 + SIGTERM);
    EXPECT_EQ(ExitCodeAfterStop(1), 1);
  }
  EXPECT_TRUE(StopOnSignals::requested());  // it stays set for the exit status
  StopOnSignals again;                      // a new one clears it
  EXPECT_FALSE(StopOnSignals::requested());
  std::raise(SIGINT);
  EXPECT_EQ(ExitCodeAfterStop(0), 128 + SIGINT);
}

// A second ^C ends a command stuck in a long unit of work; it waited on.
TEST(StopOnSignals, ASecondSignalEndsTheProcess) {
  EXPECT_EXIT(
      {
        StopOnSignals stop;
        std::raise(SIGINT);
        std::raise(SIGINT);
        std::exit(0);  // reached only if the second signal was caught too
      },
      ::testing::KilledBySignal(SIGINT), "");
}

}  // namespace
}  // namespace frontend
