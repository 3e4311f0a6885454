#include "controllers/fleet_up.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <thread>

#include "cluster/devices.h"
#include "controllers/fleet_config.h"
#include "controllers/fleet_verdict.h"
#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "frontend/stop_signals.h"
#include "graph/file_util.h"
#include "placement/placement.h"
#include "wire/socket.h"

namespace controllers {

namespace {

const frontend::CommandSpec kSpec{
    "fleet up",
    "local:CxW MODEL DEVICES [--mode sim|real] [--worker-devices DEVICES] [-o PLACEMENT]\n"
    "       [--dir RUN_DIR] [--measure-lock FILE] [-- SEARCH FLAGS...]",
    "Starts a fleet on this machine: a parameter server, C controllers (planner search\n"
    "--reward fleet --ps, seeds 1..C, each given the SEARCH FLAGS after --) and W workers\n"
    "for each, as processes on loopback. Prints a progress line per controller, stops every\n"
    "process when the controllers finish or on SIGINT/SIGTERM, and writes the best\n"
    "controller's placement to PLACEMENT. Logs, fleet files and placements stay in RUN_DIR.",
    {"SHAPE", "MODEL", "DEVICES"},
    {{"--mode", "MODE", "sim (default): workers simulate; real: workers run the placements"},
     {"--worker-devices", "DEVICES", "the workers' devices file (default DEVICES)"},
     {"-o", "PLACEMENT", "write the best controller's placement here"},
     {"--dir", "RUN_DIR", "where logs and files go (default planner-fleet-PID in /tmp)"},
     {"--measure-lock", "FILE",
      "with --mode real: the workers' measurement lock (default theirs, "
      "/tmp/planner-measure.lock, which every measurement on this host shares)"}}};

using Clock = std::chrono::steady_clock;

int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

struct Child {
  std::string what;  // "ps", "controller 1", "worker 1.2"
  std::string log;
  pid_t pid = -1;
  std::optional<int> exit_code;  // once reaped; -1: killed by a signal...
  int signal = 0;                // ...this one
  bool stopped = false;          // we sent it SIGTERM (Stop)

  // Ended with a failure: not exit 0, nor the 128 + SIGTERM of one we stopped
  // (it wrote its files and said so; frontend::ExitCodeAfterStop).
  bool Failed() const { return *exit_code != 0 && !(stopped && *exit_code == 128 + SIGTERM); }

  // "exit 1", "killed by signal 9 (Killed)".
  std::string HowItEnded() const {
    if (signal)
      return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    return "exit " + std::to_string(exit_code.value_or(0));
  }
  void Ended(int status) {
    exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (WIFSIGNALED(status)) signal = WTERMSIG(status);
  }
};

// Runs this program with `args`, its output in `log`; it gets SIGTERM when we die.
graph::Result<pid_t> Spawn(const std::vector<std::string>& args, const std::string& log) {
  const pid_t parent = ::getpid();
  std::fflush(nullptr);  // else the child writes our buffered lines again when it exits
  const pid_t pid = ::fork();
  if (pid < 0) return graph::IoError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);  // the parent died before prctl
    ::setpgid(0, 0);                        // our SIGINT from the terminal is not theirs
    std::FILE* out = std::freopen(log.c_str(), "w", stdout);
    if (!out || ::dup2(::fileno(stdout), 2) < 0) ::_exit(126);
    std::vector<char*> argv;
    std::string self = "/proc/self/exe";
    argv.push_back(self.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv("/proc/self/exe", argv.data());
    ::_exit(127);
  }
  return pid;
}

void Reap(std::vector<Child>& children) {
  for (Child& c : children) {
    if (c.exit_code || c.pid < 0) continue;
    int status = 0;
    if (::waitpid(c.pid, &status, WNOHANG) == c.pid) c.Ended(status);
  }
}

// SIGTERM, then SIGKILL after `grace_s` for any still running.
void Stop(std::vector<Child*> children, double grace_s) {
  for (Child* c : children) {
    if (!c->exit_code) ::kill(c->pid, SIGCONT), ::kill(c->pid, SIGTERM), c->stopped = true;
  }
  const auto end = Clock::now() + std::chrono::duration<double>(grace_s);
  while (Clock::now() < end) {
    bool running = false;
    for (Child* c : children) {
      if (c->exit_code) continue;
      int status = 0;
      if (::waitpid(c->pid, &status, WNOHANG) == c->pid) {
        c->Ended(status);
      } else {
        running = true;
      }
    }
    if (!running) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (Child* c : children) {
    if (c->exit_code) continue;
    ::kill(c->pid, SIGKILL);
    int status = 0;
    ::waitpid(c->pid, &status, 0);
    c->Ended(status);
  }
}

// The last line of the log at `path` that starts with one of `prefixes`.
std::string LastLineOf(const std::string& path, std::initializer_list<const char*> prefixes) {
  std::ifstream f(path);
  std::string line, last;
  while (std::getline(f, line)) {
    for (const char* prefix : prefixes) {
      if (line.rfind(prefix, 0) == 0) last = line;
    }
  }
  return last;
}

graph::Status ParseShape(const std::string& shape, int* c, int* w) {
  const std::string bad = "SHAPE must be local:CxW with 1 <= C, W <= 64, not '" + shape + "'";
  if (shape.rfind("local:", 0) != 0) return graph::InvalidArgument(bad);
  const size_t x = shape.find('x', 6);
  if (x == std::string::npos) return graph::InvalidArgument(bad);
  auto cs = frontend::ParseIntInRange("SHAPE", shape.substr(6, x - 6), 1, 64);
  auto ws = frontend::ParseIntInRange("SHAPE", shape.substr(x + 1), 1, 64);
  if (!cs.ok() || !ws.ok()) return graph::InvalidArgument(bad);
  *c = static_cast<int>(*cs);
  *w = static_cast<int>(*ws);
  return graph::Status::Ok();
}

struct Plan {
  int controllers = 1, workers = 1;
  std::string model, devices, worker_devices, mode = "sim", dir, out;
  std::string measure_lock;               // the workers' --measure-lock; "" for theirs
  std::vector<std::string> search_flags;  // after --
};

// Starts the server, the workers and the controllers; their children in `all`.
graph::Status StartFleet(const Plan& plan, std::vector<Child>* all) {
  const int ps_port = FreePort();
  if (ps_port < 0) return graph::IoError("no free loopback port for the parameter server");
  const std::string ps = "tcp://127.0.0.1:" + std::to_string(ps_port);
  auto add = [&](const std::string& what, const std::string& log,
                 const std::vector<std::string>& args) -> graph::Status {
    GRAPH_ASSIGN_OR_RETURN(pid_t pid, Spawn(args, log));
    all->push_back({what, log, pid, std::nullopt});
    return graph::Status::Ok();
  };
  GRAPH_RETURN_IF_ERROR(
      add("ps", plan.dir + "/ps.log", {"ps", "--bind", ps, "--checkpoint", plan.dir + "/ps.ckpt"}));
  for (int i = 1; i <= plan.controllers; ++i) {
    const int port = FreePort();
    if (port < 0)
      return graph::IoError("no free loopback port for controller " + std::to_string(i));
    const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(port);
    const std::string fleet = plan.dir + "/fleet-" + std::to_string(i) + ".yaml";
    GRAPH_RETURN_IF_ERROR(
        graph::WriteFileAtomic(fleet, "bind: " + endpoint + "\nmode: " + plan.mode +
                                          "\nworkers: " + std::to_string(plan.workers) + "\n"));
    for (int j = 1; j <= plan.workers; ++j) {
      const std::string name = "c" + std::to_string(i) + "w" + std::to_string(j);
      std::vector<std::string> worker = {
          "worker", "--devices", plan.worker_devices, "--connect", endpoint, "--name", name};
      if (!plan.measure_lock.empty()) {
        worker.insert(worker.end(), {"--measure-lock", plan.measure_lock});
      }
      GRAPH_RETURN_IF_ERROR(add("worker " + name, plan.dir + "/worker-" + name + ".log", worker));
    }
    std::vector<std::string> args = {"search",
                                     plan.model,
                                     plan.devices,
                                     "--reward",
                                     "fleet",
                                     "--fleet",
                                     fleet,
                                     "--ps",
                                     ps,
                                     "--seed",
                                     std::to_string(i),
                                     "-o",
                                     plan.dir + "/controller-" + std::to_string(i) + ".yaml"};
    args.insert(args.end(), plan.search_flags.begin(), plan.search_flags.end());
    GRAPH_RETURN_IF_ERROR(add("controller " + std::to_string(i),
                              plan.dir + "/controller-" + std::to_string(i) + ".log", args));
  }
  return graph::Status::Ok();
}

// A line per controller whose state changed since `shown` (one string per
// controller, updated): its last progress line (an update, the policy's end, the
// climb's start), or how it ended. A controller climbing for minutes prints
// nothing new, where the same update line used to repeat every 5 s.
void PrintProgress(const std::vector<Child*>& controllers, std::vector<std::string>* shown) {
  constexpr size_t kWidth = 160;
  shown->resize(controllers.size());
  for (size_t i = 0; i < controllers.size(); ++i) {
    const Child* c = controllers[i];
    std::string state;
    if (c->exit_code) {
      state = c->Failed()          ? "failed (" + c->HowItEnded() + ")"
              : *c->exit_code == 0 ? "done"
                                   : "stopped";
    } else {
      state = LastLineOf(c->log, {"fleet: ", "update ", "policy search: ", "refine: "});
      if (state.empty()) state = "starting";
      if (state.size() > kWidth) state = state.substr(0, kWidth - 3) + "...";
    }
    if (state == (*shown)[i]) continue;
    (*shown)[i] = state;
    std::printf("  %s: %s\n", c->what.c_str(), state.c_str());
  }
  std::fflush(stdout);
}

// The fastest placement the controllers wrote, copied to plan.out; the
// controllers' result lines printed.
int Finish(const Plan& plan, const std::vector<Child*>& controllers) {
  int code = 0;
  std::optional<std::pair<double, std::string>> best;
  for (const Child* c : controllers) {
    const std::string found = LastLineOf(c->log, {"  best found"});
    std::printf("%s: %s\n", c->what.c_str(),
                !found.empty() ? found.c_str() + 2
                : !c->Failed() ? "no result (see its log)"
                               : ("failed (" + c->HowItEnded() +
                                  "): its best so far, if it wrote one, is kept")
                                     .c_str());
    // A controller that failed said why in one line: say it here, not only in its log.
    const std::string why = LastLineOf(c->log, {"planner search: "});
    if (c->Failed() && !why.empty()) {
      std::fprintf(stderr, "planner fleet up: %s failed: %s\n", c->what.c_str(),
                   why.c_str() + std::strlen("planner search: "));
    }
    if (c->Failed()) code = 1;
    // "controller 3" wrote controller-3.yaml (StartFleet).
    const std::string path =
        plan.dir + "/controller-" + c->what.substr(c->what.find(' ') + 1) + ".yaml";
    auto p = placement::ReadPlacement(path);
    if (!p.ok()) continue;
    const std::optional<double> s = p->measured_step_s ? p->measured_step_s : p->simulated_step_s;
    if (s && (!best || *s < best->first)) best = {{*s, path}};
  }
  if (best && !plan.out.empty()) {
    auto bytes = graph::ReadFile(best->second);
    graph::Status st = bytes.ok() ? graph::WriteFileAtomic(plan.out, *bytes) : bytes.status();
    if (!st.ok()) return frontend::CommandError(kSpec, st);
    std::printf("placement: %s (from %s)\n", plan.out.c_str(), best->second.c_str());
  }
  std::printf("logs: %s\n", plan.dir.c_str());
  return code;
}

// A run directory of an earlier fleet: its server would restore that run's
// policy (of another model, perhaps), and a controller that failed before
// writing would leave that run's placement to be taken for this one's.
graph::Status CheckRunDirIsNew(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> old;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name == "ps.ckpt" ||
        (name.rfind("controller-", 0) == 0 && name.find(".yaml") != std::string::npos)) {
      old.push_back(name);
    }
  }
  if (old.empty()) return graph::Status::Ok();
  std::sort(old.begin(), old.end());
  std::string names;
  for (size_t i = 0; i < old.size() && i < 3; ++i) names += (i ? ", " : "") + old[i];
  if (old.size() > 3) names += " and " + std::to_string(old.size() - 3) + " more";
  return graph::InvalidArgument(dir + ": --dir holds an earlier fleet's files (" + names +
                                "): give a new --dir, or remove them");
}

int RunFleet(const Plan& plan) {
  std::vector<Child> all;
  all.reserve(1 + plan.controllers * (plan.workers + 1));
  frontend::StopOnSignals stop;
  graph::Status started = StartFleet(plan, &all);
  std::vector<Child*> controllers, rest;
  for (Child& c : all) (c.what.rfind("controller", 0) == 0 ? controllers : rest).push_back(&c);
  if (!started.ok()) {
    Stop(controllers, 10);
    Stop(rest, 10);
    return frontend::CommandError(kSpec, started);
  }
  std::printf("fleet: parameter server, %d controllers, %d workers each; logs in %s\n",
              plan.controllers, plan.workers, plan.dir.c_str());
  auto last_print = Clock::now();
  std::vector<std::string> shown;
  int code = 0;
  while (!frontend::StopOnSignals::requested()) {
    Reap(all);
    bool running = false;
    for (const Child* c : controllers) running |= !c->exit_code;
    if (!running) break;
    // Without the server every controller's next update waits out its timeout.
    if (const Child* ps = rest.front(); ps->exit_code) {
      const std::string why = LastLineOf(ps->log, {"planner ps: "});
      std::fprintf(stderr, "planner fleet up: the parameter server ended (%s)%s%s; stopping\n",
                   ps->HowItEnded().c_str(), why.empty() ? "" : ": ",
                   why.empty() ? "" : why.c_str() + std::strlen("planner ps: "));
      code = 1;
      break;
    }
    if (Clock::now() - last_print >= std::chrono::seconds(5)) {
      PrintProgress(controllers, &shown);
      last_print = Clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (frontend::StopOnSignals::requested()) std::printf("fleet: stopping on a signal\n");
  Stop(controllers, 30);  // they write their files on SIGTERM
  Stop(rest, 10);
  PrintProgress(controllers, &shown);
  return std::max(code, Finish(plan, controllers));
}

const frontend::CommandSpec kKeygenSpec{
    "fleet keygen",
    "NAME",
    "Writes a ZeroMQ CURVE key pair for a fleet member: NAME.key (public and secret key,\n"
    "readable by the owner only) and NAME.pub (the public key, to give to its peers). A\n"
    "controller's fleet.yaml names its own .key (server_key) and the workers' .pub files\n"
    "(client_keys); a worker takes its .key (--key) and the controller's .pub (--server-key).",
    {"NAME"},
    {}};

int Keygen(const frontend::Args& args) {
  const std::string name = args.positional()[0];
  // A new pair over an old one would cut off every peer holding the old .pub.
  for (const std::string& path : {name + ".key", name + ".pub"}) {
    std::error_code ec;  // an unreadable directory throws without it
    const bool exists = std::filesystem::exists(path, ec);
    if (ec) return frontend::CommandError(kKeygenSpec, graph::IoError(path + ": " + ec.message()));
    if (exists) {
      return frontend::CommandError(
          kKeygenSpec, graph::InvalidArgument(path + ": exists; a new key pair would cut off every "
                                                     "peer holding the old public key (remove it "
                                                     "first to replace it)"));
    }
  }
  auto keys = wire::GenerateCurveKeys();
  if (!keys.ok()) return frontend::CommandError(kKeygenSpec, keys.status());
  const mode_t old_mask = ::umask(077);  // the secret key's file is the owner's alone
  graph::Status st = graph::WriteFileAtomic(name + ".key", wire::KeyFileText(*keys, true));
  ::umask(old_mask);
  if (st.ok()) st = graph::WriteFileAtomic(name + ".pub", wire::KeyFileText(*keys, false));
  if (!st.ok()) return frontend::CommandError(kKeygenSpec, st);
  std::printf("key pair: %s.key (secret: keep it), %s.pub (public: %s)\n", name.c_str(),
              name.c_str(), keys->public_key.c_str());
  return 0;
}

}  // namespace

int FleetCommand(int argc, char** argv) {
  if (argc >= 1 && !std::strcmp(argv[0], "keygen")) {
    return frontend::RunCommand(kKeygenSpec, argc - 1, argv + 1, Keygen);
  }
  if (argc < 1 || std::strcmp(argv[0], "up") != 0) {
    if (argc >= 1 && (!std::strcmp(argv[0], "--help") || !std::strcmp(argv[0], "-h"))) {
      std::cout << frontend::HelpText(kSpec) << "\n" << frontend::HelpText(kKeygenSpec);
      return 0;
    }
    std::cerr << "planner fleet: the commands are 'fleet up' and 'fleet keygen' (see planner "
                 "fleet --help)\n";
    return 2;
  }
  Plan plan;
  int split = argc;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--")) {
      split = i;
      break;
    }
  }
  for (int i = split + 1; i < argc; ++i) plan.search_flags.push_back(argv[i]);
  int exit_code = 0;
  std::optional<frontend::Args> args =
      frontend::ParseCommandLine(kSpec, split - 1, argv + 1, &exit_code);
  if (!args) return exit_code;
  if (graph::Status st = ParseShape(args->positional()[0], &plan.controllers, &plan.workers);
      !st.ok()) {
    return frontend::UsageError(kSpec, st);
  }
  plan.model = args->positional()[1];
  plan.devices = args->positional()[2];
  plan.worker_devices = args->Get("--worker-devices", plan.devices);
  plan.mode = args->Get("--mode", "sim");
  if (plan.mode != "sim" && plan.mode != "real") {
    return frontend::UsageError(kSpec, "--mode must be sim or real, not '" + plan.mode + "'");
  }
  if (args->Has("--measure-lock")) {
    plan.measure_lock = args->Get("--measure-lock");
    if (plan.measure_lock.empty())
      return frontend::UsageError(kSpec, "--measure-lock needs a file");
    if (plan.mode != "real") {
      return frontend::UsageError(kSpec,
                                  "--measure-lock goes with --mode real (sim workers "
                                  "measure nothing)");
    }
  }
  // What fleet up sets for each controller itself, or what each must have
  // its own of: given after --, the last value would win for every controller
  // (one seed for all, placements where fleet up does not look for them, one
  // checkpoint file for all).
  for (const std::string& flag : plan.search_flags) {
    const std::string name = flag.substr(0, flag.find('='));
    for (const char* own : {"--reward", "--fleet", "--ps", "--ps-key", "--ps-server-key", "--seed",
                            "-o", "--checkpoint", "--resume"}) {
      if (name != own) continue;
      std::string why = "fleet up sets it for each controller";
      if (name == "--ps-key" || name == "--ps-server-key") {
        why = "fleet up's parameter server is its own, on loopback, without keys";
      } else if (name == "-o") {
        why = "fleet up writes each controller's placement in RUN_DIR (its own -o takes the best)";
      } else if (name == "--seed") {
        why = "fleet up gives controller i seed i";
      } else if (name == "--checkpoint" || name == "--resume") {
        why = "every controller would share one checkpoint file (each keeps its own in RUN_DIR)";
      }
      return frontend::UsageError(kSpec, name + " after --: " + why);
    }
    // The controllers would refuse them one by one, after the workers started.
    for (const char* measured : kMeasuredRunFlags) {
      if (name == measured && plan.mode == "sim") {
        return frontend::UsageError(
            kSpec, name +
                       " after --: it goes with measured rewards, and --mode sim's workers "
                       "simulate (--mode real measures)");
      }
    }
  }
  auto given = [&](const char* flag) {
    return std::any_of(plan.search_flags.begin(), plan.search_flags.end(),
                       [&](const std::string& f) { return f.substr(0, f.find('=')) == flag; });
  };
  if (given("--profile") && given("--profile-cache")) {  // each controller would refuse it
    return frontend::UsageError(kSpec,
                                "--profile-cache after --: with --profile's costs, no device is "
                                "profiled into a cache");
  }
  if (plan.mode == "real") {
    // Only measured rewards get the hardware's verdict (sim ones are predictions).
    std::string note;
    graph::Result<std::vector<std::string>> flags =
        BonferroniSearchFlags(plan.search_flags, plan.controllers, &note);
    if (!flags.ok()) return frontend::UsageError(kSpec, flags.status().message());
    plan.search_flags = std::move(*flags);
    if (!note.empty()) std::printf("%s\n", note.c_str());
  }
  plan.out = args->Get("-o");
  // The inputs first: a fleet that cannot start leaves no run directory behind.
  for (const std::string* path : {&plan.model, &plan.devices, &plan.worker_devices}) {
    if (graph::Status st = graph::CheckRegularFile(*path); !st.ok()) {
      return frontend::CommandError(kSpec, st);
    }
  }
  if (plan.mode == "real") {  // refused now, not by every placement of every update
    auto workers = cluster::LoadDevicesFile(plan.worker_devices);
    if (!workers.ok()) return frontend::CommandError(kSpec, workers.status());
    for (const cluster::DeviceSpec& d : workers->devices) {
      if (d.kind == cluster::DeviceKind::kSim) {
        return frontend::UsageError(kSpec,
                                    "--mode real runs the placements on the workers' "
                                    "devices, and " +
                                        plan.worker_devices + "'s '" + d.name +
                                        "' is a sim device (use --mode sim)");
      }
    }
  }
  plan.dir = args->Get("--dir", "/tmp/planner-fleet-" + std::to_string(::getpid()));
  if (graph::Status st = CheckRunDirIsNew(plan.dir); !st.ok()) {
    return frontend::CommandError(kSpec, st);
  }
  std::error_code ec;
  const bool made = std::filesystem::create_directories(plan.dir, ec);
  if (ec) return frontend::CommandError(kSpec, graph::IoError(plan.dir + ": " + ec.message()));
  if (!plan.out.empty()) {  // before the fleet's work, not after it (-o may be in RUN_DIR)
    if (graph::Status st =
            frontend::CheckOutputsBeforeWork({{"-o", plan.out}}, plan.model, plan.devices,
                                             {{"the workers' devices file", plan.worker_devices},
                                              {"the server's checkpoint", plan.dir + "/ps.ckpt"}});
        !st.ok()) {
      if (made) std::filesystem::remove(plan.dir, ec);  // made just now, and still empty
      return frontend::CommandError(kSpec, st);
    }
  }
  return RunFleet(plan);
}

}  // namespace controllers
