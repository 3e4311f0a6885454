// Helpers of the tests that run the real `planner` binary: run it with
// arguments, capturing exit code, stdout and stderr; locate models and configs.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace planner::testing
