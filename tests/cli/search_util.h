// What the `planner search` command tests share (search_command_test.cc,
// search_signals_test.cc): scratch paths, a small model and policy, and a
// search run in the background that is sent a signal.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

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

// Runs `cmd` through /bin/sh with stdout to `log` ("/dev/null" to drop it),
// and sends it `sig` `delay_ms` after `ready()` first holds (or after `wait_ms`
// without it); returns its wait status.
inline int SignalWhen(const std::string& cmd, const std::string& log,
                      const std::function<bool()>& ready, int wait_ms, int delay_ms, int sig) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (!std::freopen(log.c_str(), "w", stdout)) ::_exit(126);
    ::execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  for (int i = 0; i < wait_ms / 50 && !ready(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// `sig` half a second after `out` is first written.
inline int TermAfterFirstWrite(const std::string& cmd, const std::string& out,
                               const std::string& log, int wait_ms, int sig = SIGTERM) {
  return SignalWhen(
      cmd, log, [&] { return !Slurp(out).empty(); }, wait_ms, 500, sig);
}

// `sig` `delay_ms` after `text` first appears in `log`.
inline int SignalAfterPrinted(const std::string& cmd, const std::string& log,
                              const std::string& text, int wait_ms, int delay_ms, int sig) {
  return SignalWhen(
      cmd, log, [&] { return Slurp(log).find(text) != std::string::npos; }, wait_ms, delay_ms, sig);
}

}  // namespace planner::testing
