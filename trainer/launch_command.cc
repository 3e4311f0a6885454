// `trainer launch --nproc N [--port P] train MODEL ...`: starts N ranks of
// `trainer train` on this host, torchrun-style, and watches them: a rank that
// fails is named, the others get the time a collective takes to notice
// (they report the missing rank themselves), and then any still running are
// stopped, so that the launch never hangs.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "frontend/args.h"
#include "trainer/commands.h"
#include "trainer/process_group.h"

namespace trainer {
namespace {

constexpr char kName[] = "trainer launch: ";
constexpr char kUsage[] =
    "usage: trainer launch --nproc N [--port P] [--grace SECONDS] train MODEL [train's flags]\n"
    "Starts N ranks of `trainer train` on this host (MASTER_ADDR=127.0.0.1, MASTER_PORT=P or\n"
    "a free port, RANK, WORLD_SIZE) and waits for them. When a rank fails, the others have\n"
    "--grace seconds (default 90) to stop by themselves before they are killed.\n";

volatile sig_atomic_t g_signal = 0;
void OnSignal(int s) { g_signal = s; }

std::string Describe(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "stopped";
}

}  // namespace

int LaunchCommand(int argc, char** argv, const std::string& self) {
  int64_t nproc = 0, port = 0;
  double grace = 90;
  int i = 0;
  for (; i < argc && std::strcmp(argv[i], "train") != 0; i += 2) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") return std::cout << kUsage, 0;
    if (i + 1 >= argc) return std::cerr << kName << flag << " needs a value\n" << kUsage, 2;
    graph::Status st;
    if (flag == "--nproc") {
      auto v = planner::ParseIntInRange(flag, argv[i + 1], 1, 256);
      st = v.status();
      if (v.ok()) nproc = *v;
    } else if (flag == "--port") {
      auto v = planner::ParseIntInRange(flag, argv[i + 1], 1, 65535);
      st = v.status();
      if (v.ok()) port = *v;
    } else if (flag == "--grace") {
      auto v = planner::ParseDurationSeconds(flag, argv[i + 1]);
      st = v.status();
      if (v.ok()) grace = *v;
    } else {
      return std::cerr << kName << "unknown flag " << flag << "\n" << kUsage, 2;
    }
    if (!st.ok()) return std::cerr << kName << st.message() << "\n", 2;
  }
  if (nproc == 0) return std::cerr << kName << "--nproc N is required\n" << kUsage, 2;
  if (i >= argc) return std::cerr << kName << "the command to run, train ..., is missing\n", 2;
  if (port == 0) port = FreeLoopbackPort();
  std::vector<std::string> child_args{self};
  for (int k = i; k < argc; ++k) child_args.push_back(argv[k]);
  std::vector<pid_t> pids(nproc, -1);
  // Before the first fork, so that a ^C while starting ranks is passed on, not
  // lost with the launcher (exec gives the ranks the default actions back).
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  const pid_t launcher = getpid();
  for (int r = 0; r < nproc; ++r) {
    pid_t pid = fork();
    if (pid < 0) {
      std::cerr << kName << "cannot start rank " << r << ": " << std::strerror(errno) << "\n";
      for (pid_t p : pids) {
        if (p > 0) kill(p, SIGKILL);
      }
      return 1;
    }
    if (pid == 0) {
      // A launcher killed outright (SIGKILL, OOM) takes its ranks with it.
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != launcher) _exit(1);  // it died before prctl
      setenv("MASTER_ADDR", "127.0.0.1", 1);
      setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      setenv("RANK", std::to_string(r).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(nproc).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      std::vector<char*> cargv;
      for (std::string& a : child_args) cargv.push_back(a.data());
      cargv.push_back(nullptr);
      execv(self.c_str(), cargv.data());
      std::fprintf(stderr, "trainer launch: cannot run %s: %s\n", self.c_str(),
                   std::strerror(errno));
      _exit(127);
    }
    pids[r] = pid;
    std::fprintf(stderr, "trainer launch: rank %d is pid %d\n", r, static_cast<int>(pid));
  }
  int running = static_cast<int>(nproc), failures = 0;
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline = Clock::time_point::max();
  bool forwarded = false, killed = false;
  while (running > 0) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      int rank = -1;
      for (int r = 0; r < nproc; ++r) {
        if (pids[r] == pid) rank = r, pids[r] = -1;
      }
      --running;
      if (rank >= 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        if (failures++ == 0 && !killed) {
          std::cerr << kName << "rank " << rank << " (pid " << pid << ") " << Describe(status)
                    << "\n";
          deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(grace * 1000));
        }
      }
      continue;
    }
    if (g_signal && !forwarded) {  // pass ^C or a stop on to the ranks
      for (pid_t p : pids) {
        if (p > 0) kill(p, g_signal);
      }
      forwarded = true;
      deadline = std::min(deadline, Clock::now() + std::chrono::seconds(10));
    }
    if (Clock::now() > deadline && !killed) {
      std::cerr << kName << running << " rank(s) still running " << grace
                << " s after the first failure: killing them\n";
      for (pid_t p : pids) {
        if (p > 0) kill(p, SIGKILL);
      }
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return failures == 0 && !g_signal ? 0 : 1;
}

}  // namespace trainer
