// What the `planner search` command tests share (search_command_test.cc,
// search_signals_test.cc): scratch paths, a small model and policy, and a
// search run in the background that is sent a signal (cli_util.h's SignalWhen).
#pragma once

#include <signal.h>
#include <unistd.h>

#include <string>

#include "tests/cli/cli_util.h"
#include "tests/scratch_dir.h"

namespace planner::testing {

inline std::string Temp(const std::string& name) {
  return planner_test::ScratchDir() + "/search_" + std::to_string(::getpid()) + "_" + name;
}

// A small RNNLM from the zoo, written once per test process.
inline std::string SmallRnnlm() {
  static const std::string path = [] {
    std::string p = Temp("rnnlm.pb");
    RunResult r =
        Planner("zoo rnnlm --batch 4 --layers 2 --hidden 32 --vocab 100 --steps 3 -o " + p);
    EXPECT_EQ(r.code, 0) << r.err;
    return p;
  }();
  return path;
}

// A small policy: the same algorithm at a size that runs in milliseconds per update.
inline const std::string kSmallConfig =
    " --config " + std::string(PLANNER_CONFIGS_DIR) + "/../tests/planner/search_small.yaml";
inline const std::string kFast = " --iterations 6 --refine 1s" + kSmallConfig;

// `sig` half a second after `out` is first written.
inline int TermAfterFirstWrite(const std::string& cmd, const std::string& out,
                               const std::string& log, int wait_ms, int sig = SIGTERM) {
  return SignalWhen(
      cmd, log, [&] { return !Slurp(out).empty(); }, wait_ms, 500, sig);
}

}  // namespace planner::testing
