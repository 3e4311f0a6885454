// The fleet's cost on loopback: for NMT-2 (zoo, small sizes, or --sizes
// paper-scale) on
// configs/k40-paper-2gpu.yaml with simulated rewards, batches of random
// placements are evaluated in process (the sim source, one thread per core)
// and by fleets of 1, 2 and 4 `planner worker` processes, interleaved round by
// round. Prints the fleet's overhead per sample (the controller's send to the
// result's arrival, minus the worker's own evaluation time: the wire, the
// queues and the scheduling), median and p99 (target median <= 5 ms), and
// samples per second for each contender with the spread over rounds.
//   fleet_bench [--configs DIR] [--batch N] [--rounds R] [--sizes S] [--planner PATH]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cluster/devices.h"
#include "controllers/dispatcher.h"
#include "frontend/args.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "graph/zoo.h"
#include "planner/sources/registry.h"
#include "wire/model.h"

namespace {

using Clock = std::chrono::steady_clock;

int Die(const graph::Status& st) { return std::fprintf(stderr, "%s\n", st.message().c_str()), 1; }

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

struct Fleet {
  std::unique_ptr<controllers::Dispatcher> dispatcher;
  std::vector<pid_t> workers;
  std::vector<double> samples_per_s;
  std::vector<double> overhead_s;
};

void StopWorkers(const std::vector<Fleet>& fleets) {
  for (const Fleet& f : fleets) {
    for (pid_t pid : f.workers) ::kill(pid, SIGTERM);
  }
  for (const Fleet& f : fleets) {
    for (pid_t pid : f.workers) ::waitpid(pid, nullptr, 0);
  }
}

pid_t StartWorker(const std::string& planner, const std::string& devices,
                  const std::string& endpoint) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::freopen("/dev/null", "w", stdout);
    ::execl(planner.c_str(), planner.c_str(), "worker", "--devices", devices.c_str(), "--connect",
            endpoint.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

}  // namespace

const frontend::CommandSpec kSpec{
    "fleet_bench",
    "[--configs DIR] [--batch N] [--rounds R] [--sizes S] [--planner PATH]",
    "The fleet's overhead per sample and samples per second on loopback, against evaluating\n"
    "in process, for fleets of 1, 2 and 4 workers, interleaved round by round.",
    {},
    {{"--configs", "DIR", "where k40-paper-2gpu.yaml is (default configs)"},
     {"--batch", "N", "placements per round (default 32)"},
     {"--rounds", "R", "rounds (default 5)"},
     {"--sizes", "S",
      "the zoo's NMT-2 sizes: small (default; the docs' figures) or paper-scale (the zoo's "
      "default)"},
     {"--planner", "PATH", "the planner executable the workers run (default: this build's)"}},
    /*program=*/""};

int main(int argc, char** argv) {
  const frontend::Args args = frontend::ParseProgramArgs(kSpec, argc, argv);
  const std::string configs = args.Get("--configs", "configs");
  const std::string planner = args.Get("--planner", PLANNER_BIN);
  frontend::TypedFlags flags(args);
  const int batch = flags.Int("--batch", 32, 1, 100000);
  const int rounds = flags.Int("--rounds", 5, 1, 10000);
  if (!flags.status().ok()) return frontend::UsageError(kSpec, flags.status());
  const std::string sizes = args.Get("--sizes", "small");
  if (sizes != "small" && sizes != "paper-scale") {
    return frontend::UsageError(kSpec, "--sizes must be small or paper-scale, got '" + sizes + "'");
  }
  const std::string devices = configs + "/k40-paper-2gpu.yaml";
  auto c = cluster::LoadDevicesFile(devices);
  if (!c.ok()) return Die(c.status());
  graph::ZooOptions zo;
  zo.layers = 2;
  zo.sizes = sizes;
  auto fwd = graph::BuildZooModel("nmt", zo);
  if (!fwd.ok()) return Die(fwd.status());
  graph::InferenceOptions inference;
  graph::InferShapes(*fwd, inference);
  graph::TrainingOptions training;
  auto t = graph::BuildTrainingGraph(*fwd, training, inference);
  if (!t.ok()) return Die(t.status());
  auto local = planner::sources::MakeRewardSource("sim", {&*fwd, &*t, &*c, nullptr});
  if (!local.ok()) return Die(local.status());
  const wire::WireModel model(*fwd, inference, training);

  std::vector<controllers::ExpectedDevice> expected;
  for (const cluster::DeviceSpec& d : c->devices) {
    expected.push_back({d.name, cluster::DeviceKindName(d.kind)});
  }
  std::vector<Fleet> fleets;
  for (int n : {1, 2, 4}) {
    controllers::FleetOptions o;
    o.bind = "tcp://127.0.0.1:*";
    o.source = "fleet_bench";
    auto d = controllers::Dispatcher::Bind(o, expected);
    if (!d.ok()) return Die(d.status());
    Fleet f;
    f.dispatcher = std::move(*d);
    for (int w = 0; w < n; ++w) {
      f.workers.push_back(StartWorker(planner, devices, f.dispatcher->endpoint()));
    }
    fleets.push_back(std::move(f));
  }
  for (Fleet& f : fleets) {
    if (graph::Status st = f.dispatcher->WaitForWorkers(static_cast<int>(f.workers.size()));
        !st.ok()) {
      StopWorkers(fleets);
      return Die(st);
    }
  }

  std::mt19937 gen(1);
  auto placements = [&] {
    std::vector<std::vector<int>> p(batch, std::vector<int>(fwd->size()));
    for (auto& one : p) {
      for (int& d : one) d = static_cast<int>(gen() % c->devices.size());
    }
    return p;
  };
  // Warm-up: each worker gets the model and each side its caches.
  for (Fleet& f : fleets) f.dispatcher->Run(model, controllers::EvalMode::kSim, 0, 1, placements());
  std::vector<double> in_process;
  for (int r = 0; r < rounds; ++r) {
    const auto p = placements();
    auto start = Clock::now();
    planner::rewards::EvaluateAll(**local, p);
    in_process.push_back(batch / std::chrono::duration<double>(Clock::now() - start).count());
    for (Fleet& f : fleets) {
      start = Clock::now();
      const std::vector<controllers::Outcome> got =
          f.dispatcher->Run(model, controllers::EvalMode::kSim, 0, 1, p);
      f.samples_per_s.push_back(batch /
                                std::chrono::duration<double>(Clock::now() - start).count());
      for (const controllers::Outcome& o : got) {
        if (o.status.ok()) f.overhead_s.push_back(o.round_trip_s - o.evaluation_s);
      }
    }
  }
  StopWorkers(fleets);

  std::printf(
      "fleet_bench: NMT-2 (%s) on %s, %d ops to place, batches of %d random placements, %d "
      "rounds interleaved, %u cores\n",
      sizes.c_str(), devices.c_str(), fwd->size(), batch, rounds,
      std::thread::hardware_concurrency());
  auto line = [](const char* what, const std::vector<double>& v) {
    std::printf("  %-12s %8.1f samples/s (median; rounds %.1f to %.1f)\n", what, Quantile(v, 0.5),
                *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
  };
  line("in process", in_process);
  for (const Fleet& f : fleets) {
    const std::string what =
        std::to_string(f.workers.size()) + " worker" + (f.workers.size() > 1 ? "s" : "");
    line(what.c_str(), f.samples_per_s);
  }
  for (const Fleet& f : fleets) {
    std::printf(
        "  overhead per sample, %zu worker(s): median %.3f ms, p99 %.3f ms (%zu samples; target "
        "median <= 5 ms)\n",
        f.workers.size(), 1e3 * Quantile(f.overhead_s, 0.5), 1e3 * Quantile(f.overhead_s, 0.99),
        f.overhead_s.size());
  }
  return 0;
}
