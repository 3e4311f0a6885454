// `planner ps`: the parameter server, until SIGINT or SIGTERM.
#include <csignal>
#include <iostream>

#include "controllers/ps.h"
#include "frontend/args.h"
#include "frontend/stop_signals.h"

namespace controllers {

namespace {

const frontend::CommandSpec kSpec{
    "ps",
    "--bind ENDPOINT [--checkpoint FILE] [--staleness N] [--checkpoint-every DURATION]\n"
    "       [--key FILE --client-key FILE...]",
    "Holds one policy's parameters and optimizer state for the searches that join it\n"
    "(planner search ... --ps ENDPOINT): applies the gradients they push asynchronously and\n"
    "answers with the latest parameters (docs/fleet.md). A gradient computed more than N\n"
    "versions ago is dropped and counted. FILE is restored on start when it exists and\n"
    "written atomically every DURATION and on SIGINT/SIGTERM. With CURVE keys (planner\n"
    "fleet keygen) every connection is encrypted and only the controllers whose public keys\n"
    "are given get in; without them ENDPOINT must be on this host.",
    {},
    {{"--bind", "ENDPOINT", "where searches connect, e.g. tcp://127.0.0.1:5556"},
     {"--checkpoint", "FILE", "the state's file: restored when present, written as it goes"},
     {"--staleness", "N", "versions a gradient may lag and still be applied (default 16)"},
     {"--checkpoint-every", "DURATION", "time between checkpoints (default 10s)"},
     {"--key", "FILE", "CURVE: this server's key pair"},
     {"--client-key", "FILE",
      "CURVE: the public key of a controller it lets in (repeat for each; its search's "
      "--ps-key)"}}};

int Run(const frontend::Args& args) {
  PsOptions o;
  if (!args.Has("--bind")) return frontend::UsageError(kSpec, "--bind is required");
  o.bind = args.Get("--bind");
  o.checkpoint = args.Get("--checkpoint");
  if (!o.checkpoint.empty()) {  // written as it serves: refused now, not at every write
    if (graph::Status st = frontend::CheckOutputWritable("--checkpoint", o.checkpoint); !st.ok())
      return frontend::CommandError(kSpec, st);
  }
  if (args.Has("--staleness")) {
    auto n = frontend::ParseIntInRange("--staleness", args.Get("--staleness"), 0, 1 << 30);
    if (!n.ok()) return frontend::UsageError(kSpec, n.status());
    o.staleness = static_cast<int>(*n);
  }
  if (args.Has("--checkpoint-every")) {
    auto s = frontend::ParseDurationSeconds("--checkpoint-every", args.Get("--checkpoint-every"));
    if (!s.ok()) return frontend::UsageError(kSpec, s.status());
    o.checkpoint_every_s = *s;
    if (o.checkpoint.empty()) {  // refused, not silently ignored
      return frontend::UsageError(kSpec, "--checkpoint-every needs --checkpoint FILE");
    }
  }
  o.key_file = args.Get("--key");
  o.client_key_files = args.GetAll("--client-key");
  frontend::StopOnSignals stop;
  graph::Status st = ServeParameters(o, frontend::StopOnSignals::flag());
  if (!st.ok()) return frontend::CommandError(kSpec, st);
  return 0;
}

}  // namespace

int PsCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

}  // namespace controllers
