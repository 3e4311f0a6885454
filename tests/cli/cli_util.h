// Helpers of the tests that run the real `planner` binary: run it with
// arguments, capturing exit code, stdout and stderr; locate models and configs.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include "tests/scratch_dir.h"

namespace planner::testing {

struct RunResult {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline RunResult Planner(const std::string& args) {
  // ctest runs test cases as parallel processes: capture files are per process.
  std::string dir = planner_test::ScratchDir() + "/cli_" + std::to_string(::getpid());
  std::string out = dir + "_out", err = dir + "_err";
  // Profiles made by search and baseline go to a per-process cache in the
  // scratch directory, never to the user's.
  std::string cmd = "PLANNER_CACHE_DIR=" + dir + "_cache " + std::string(PLANNER_BIN) + " " + args +
                    " >" + out + " 2>" + err;
  int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = Slurp(out);
  r.err = Slurp(err);
  return r;
}

inline std::string Model(const std::string& name) {
  return std::string(PLANNER_MODELS_DIR) + "/" + name + ".json";
}

inline std::string Config(const std::string& name) {
  return std::string(PLANNER_CONFIGS_DIR) + "/" + name + ".yaml";
}

inline int Lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

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

// `sig` `delay_ms` after `text` first appears in `log`.
inline int SignalAfterPrinted(const std::string& cmd, const std::string& log,
                              const std::string& text, int wait_ms, int delay_ms, int sig) {
  return SignalWhen(
      cmd, log, [&] { return Slurp(log).find(text) != std::string::npos; }, wait_ms, delay_ms, sig);
}

}  // namespace planner::testing
