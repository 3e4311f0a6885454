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

#include "graph/file_util.h"
#include "graph/graphdef.h"
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

// A GraphDef (text) whose two parallel 1024x1024 MatMuls `a` and `b` are
// colocated (b's _class "loc:@a"), as TensorFlow's own graphs bind ops;
// written to `path`, which it returns. A placement that splits them across two
// GPUs is otherwise the fastest, so a method that ignored the binding would.
inline std::string WriteColocatedModel(const std::string& path) {
  const std::string f = " attr { key: 'T' value { type: DT_FLOAT } }";
  const std::string w =
      " op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value {"
      " tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1024 } dim { size: 1024 } }"
      " float_val: 0.5 } } } }\n";
  std::ofstream(path)
      << "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }"
         " attr { key: 'shape' value { shape { dim { size: 1024 } dim { size: 1024 } } } } }\n"
      << "node { name: 'wa'" << w << "node { name: 'wb'" << w
      << "node { name: 'a' op: 'MatMul' input: 'x' input: 'wa'" << f << " }\n"
      << "node { name: 'b' op: 'MatMul' input: 'x' input: 'wb'" << f
      << " attr { key: '_class' value { list { s: 'loc:@a' } } } }\n"
      << "node { name: 's' op: 'Add' input: 'a' input: 'b'" << f << " }\n";
  return path;
}

// The device `op` is given in the binary GraphDef `pb` (as --export-graphdef
// writes it); "" when the file or op is missing.
inline std::string ExportedDevice(const std::string& pb, const std::string& op) {
  auto bytes = graph::ReadFile(pb);
  if (!bytes.ok()) return "";
  auto g = graph::ParseBinaryGraphDef(*bytes, pb);
  if (!g.ok() || g->Find(op) < 0) return "";
  return g->node(g->Find(op)).requested_device;
}

// The device of `op` in placement file `text` ("" when it is not there).
inline std::string PlacedOn(const std::string& text, const std::string& op) {
  const std::string key = "\n  " + op + ": ";
  const size_t at = text.find(key);
  if (at == std::string::npos) return "";
  const size_t from = at + key.size();
  return text.substr(from, text.find('\n', from) - from);
}

}  // namespace planner::testing
