// `planner worker`: serves a controller until SIGINT or SIGTERM.
#include <algorithm>
#include <csignal>
#include <iostream>

#include "frontend/args.h"
#include "frontend/stop_signals.h"
#include "workers/worker.h"

namespace workers {

namespace {

const frontend::CommandSpec kSpec{
    "worker",
    "--devices DEVICES (--connect ENDPOINT | --bind ENDPOINT) [--name NAME] [--profile PROFILE] "
    "[--cached-models N]\n"
    "       [--max-message-mb N] [--measure-lock FILE] [--key WORKER.key --server-key "
    "CONTROLLER.pub]",
    "Evaluates the placements a search's controller sends (planner search --reward fleet):\n"
    "on the simulator with this worker's profile, or on the devices of DEVICES by running\n"
    "training steps (docs/fleet.md). Registers at ENDPOINT, heartbeats, and serves until\n"
    "SIGINT or SIGTERM; a controller that goes away is waited for.",
    {},
    {{"--devices", "DEVICES", "the devices this worker owns (devices.yaml)"},
     {"--connect", "ENDPOINT", "the controller's endpoint, e.g. tcp://127.0.0.1:5555"},
     {"--bind", "ENDPOINT",
      "or listen here for the controller (its fleet.yaml lists it under connect)"},
     {"--name", "NAME", "this worker's name in the controller's logs (default HOST:PID)"},
     {"--profile", "PROFILE", "op and link costs for sim evaluations of real devices"},
     {"--cached-models", "N", "models kept between requests (default 4)"},
     {"--max-message-mb", "N", "largest message accepted, in MiB (default 256)"},
     {"--measure-lock", "FILE",
      "held while measuring on real devices; workers sharing devices share it (default "
      "/tmp/planner-measure.lock)"},
     {"--key", "FILE", "CURVE: this worker's key pair (planner fleet keygen)"},
     {"--server-key", "FILE", "CURVE: the controller's public key"}}};

int Run(const frontend::Args& args) {
  WorkerOptions o;
  o.devices_path = args.Get("--devices");
  o.connect = args.Get("--connect");
  o.bind = args.Get("--bind");
  if (o.devices_path.empty() || o.connect.empty() == o.bind.empty()) {
    return frontend::UsageError(kSpec, "--devices and one of --connect and --bind are required");
  }
  o.name = args.Get("--name");
  // The name goes into the controller's one-line log messages.
  if (o.name.size() > 128 ||
      std::any_of(o.name.begin(), o.name.end(),
                  [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; })) {
    return frontend::UsageError(
        kSpec, "--name must be at most 128 printable characters (it goes into log lines)");
  }
  o.profile_path = args.Get("--profile");
  if (args.Has("--cached-models")) {
    auto n = frontend::ParseIntInRange("--cached-models", args.Get("--cached-models"), 1, 1024);
    if (!n.ok()) return frontend::UsageError(kSpec, n.status());
    o.cached_models = static_cast<int>(*n);
  }
  if (args.Has("--max-message-mb")) {
    auto n = frontend::ParseIntInRange("--max-message-mb", args.Get("--max-message-mb"), 1, 65536);
    if (!n.ok()) return frontend::UsageError(kSpec, n.status());
    o.max_message_bytes = static_cast<size_t>(*n) << 20;
  }
  if (args.Has("--measure-lock")) {
    o.measure_lock = args.Get("--measure-lock");
    if (o.measure_lock.empty()) return frontend::UsageError(kSpec, "--measure-lock needs a file");
  }
  if (args.Has("--key") != args.Has("--server-key")) {
    return frontend::UsageError(kSpec, "--key and --server-key go together");
  }
  if (args.Has("--key")) {
    auto keys = wire::ReadKeyFile(args.Get("--key"), true);
    if (!keys.ok()) return frontend::CommandError(kSpec, keys.status());
    auto server = wire::ReadKeyFile(args.Get("--server-key"), false);
    if (!server.ok()) return frontend::CommandError(kSpec, server.status());
    o.keys = *keys;
    o.server_public_key = server->public_key;
  }
  if (!o.bind.empty() && !wire::OnThisHost(o.bind) && !o.keys) {
    std::cerr << frontend::MessagePrefix(kSpec) << "--bind " << o.bind
              << " is not on this host: a worker on a network needs --key and --server-key\n";
    return 2;
  }
  frontend::StopOnSignals stop;
  graph::Status st = RunWorker(o, frontend::StopOnSignals::flag());
  if (!st.ok()) return frontend::CommandError(kSpec, st);
  return 0;
}

}  // namespace

int WorkerCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

}  // namespace workers
