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
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "frontend/args.h"
#include "trainer/commands.h"
#include "trainer/process_group.h"

namespace trainer {
namespace {

const frontend::CommandSpec kSpec{
    "launch",
    "--nproc N [--port P] [--grace DURATION] train MODEL [train's flags]",
    "Starts N ranks of `trainer train` on this host (MASTER_ADDR=127.0.0.1, MASTER_PORT=P or\n"
    "a free port, RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE) and waits for them. With\n"
    "--devices, each rank runs on its own copy of the file's cores and GPUs where the host\n"
    "has room for every copy (docs/trainer.md). When a rank fails, the others have\n"
    "--grace to stop by themselves before they are killed.",
    {},
    {{"--nproc", "N", "ranks to start, 1 to 256 (required)"},
     {"--port", "P", "MASTER_PORT (default: a free loopback port)"},
     {"--grace", "DURATION",
      "how long the others may take to stop after a rank fails (default 90s; 90, 2m, 500ms)"}},
    "trainer",
    /*command_follows=*/true};

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

int Run(const frontend::Args& args, const std::string& self) {
  if (!args.Has("--nproc")) return frontend::UsageError(kSpec, "--nproc N is required");
  auto nproc = frontend::ParseIntInRange("--nproc", args.Get("--nproc"), 1, 256);
  if (!nproc.ok()) return frontend::UsageError(kSpec, nproc.status());
  const int world = static_cast<int>(*nproc);
  int64_t port = 0;
  if (args.Has("--port")) {
    auto v = frontend::ParseIntInRange("--port", args.Get("--port"), 1, 65535);
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    port = *v;
  }
  double grace = 90;
  if (args.Has("--grace")) {
    auto v = frontend::ParseDurationSeconds("--grace", args.Get("--grace"));
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    grace = *v;
  }
  if (args.positional().empty() || args.positional()[0] != "train") {
    return frontend::UsageError(kSpec, "the command to run, train ..., is missing");
  }
  // Its usage errors once, here, before any rank starts (each rank printed
  // them, and launch said a rank had failed).
  std::vector<std::string> train(args.positional().begin() + 1, args.positional().end());
  std::vector<char*> train_argv;
  for (std::string& a : train) train_argv.push_back(a.data());
  train_argv.push_back(nullptr);
  if (int code = CheckTrainCommand(static_cast<int>(train.size()), train_argv.data()); code != 0) {
    return code < 0 ? 0 : code;
  }
  if (port == 0) {
    port = FreeLoopbackPort();
  } else if (!PortFreeOnThisHost(port)) {
    // Else rank 0 cannot serve the store, and rank 1 is blamed first for
    // not joining (another trainer run on that port, say).
    return frontend::UsageError(kSpec, "--port " + std::to_string(port) +
                                           " is in use on this host: choose another, or leave "
                                           "--port out for a free one");
  }
  std::vector<std::string> child_args{self};
  for (const std::string& a : args.positional()) child_args.push_back(a);
  std::vector<pid_t> pids(world, -1);
  // Before the first fork, so that a ^C while starting ranks is passed on, not
  // lost with the launcher (exec gives the ranks the default actions back).
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  const pid_t launcher = getpid();
  for (int r = 0; r < world; ++r) {
    pid_t pid = fork();
    if (pid < 0) {
      std::cerr << frontend::MessagePrefix(kSpec) << "cannot start rank " << r << ": "
                << std::strerror(errno) << "\n";
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
      setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(world).c_str(), 1);
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
  int running = world, failures = 0;
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline = Clock::time_point::max();
  bool forwarded = false, killed = false;
  while (running > 0) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      int rank = -1;
      for (int r = 0; r < world; ++r) {
        if (pids[r] == pid) rank = r, pids[r] = -1;
      }
      --running;
      // A rank that ended by the signal launch got (^C reaches the whole
      // process group at once, or launch passed it on) did what it was told.
      const bool told = g_signal && ((WIFSIGNALED(status) && WTERMSIG(status) == g_signal) ||
                                      (WIFEXITED(status) && WEXITSTATUS(status) == 128 + g_signal));
      if (rank >= 0 && !told && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        if (failures++ == 0 && !killed) {
          std::cerr << frontend::MessagePrefix(kSpec) << "rank " << rank << " (pid " << pid << ") "
                    << Describe(status) << "\n";
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
      std::cerr << frontend::MessagePrefix(kSpec) << running << " rank(s) still running " << grace
                << " s after the first failure: killing them\n";
      for (pid_t p : pids) {
        if (p > 0) kill(p, SIGKILL);
      }
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (g_signal && failures == 0) {
    std::cerr << frontend::MessagePrefix(kSpec) << "stopped by " << (g_signal == SIGINT ? "SIGINT" : "SIGTERM")
              << ": passed on to the ranks, which have stopped\n";
    return 128 + g_signal;  // as a shell reports a command a signal ended
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int LaunchCommand(int argc, char** argv, const std::string& self) {
  return frontend::RunCommand(kSpec, argc, argv,
                              [&self](const frontend::Args& args) { return Run(args, self); });
}

}  // namespace trainer
