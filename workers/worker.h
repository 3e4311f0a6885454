// A fleet worker (docs/fleet.md): a process beside the devices it owns that
// evaluates the placements a controller sends it and replies with their step
// times. It registers with its devices, heartbeats (busy or not) so the
// controller can tell a slow evaluation from a dead or stopped worker, caches
// the models it is sent by digest (a bounded number), and answers every
// request with a result: out of memory and every other failure of a placement
// are results, never a crash. One evaluation runs at a time, on a thread of
// its own, while the main thread keeps heartbeating; `real` evaluations also
// take a host-wide lock file, so two workers on one host never measure at once.
//
// Thread safety: RunWorker owns everything it makes; `stop` is read between
// messages (a signal handler may set it).
#pragma once

#include <csignal>
#include <cstddef>
#include <optional>
#include <string>

#include "graph/status.h"
#include "wire/codec.h"
#include "wire/socket.h"

namespace workers {

struct WorkerOptions {
  std::string devices_path;  // the devices this worker owns (devices.yaml)
  std::string connect;       // the controller's endpoint, e.g. tcp://10.0.0.1:5555
  std::string bind;          // or where the controller connects to (fleet.yaml `connect`)
  std::string name;          // in the controller's logs; default HOST:PID
  std::string profile_path;  // sim evaluations of real devices: their op costs
  int heartbeat_ms = 1000;   // until the controller's Welcome names its own
  int cached_models = 4;     // models kept, least recently used dropped first
  size_t max_message_bytes = wire::kDefaultMaxMessageBytes;
  // Held while a `real` evaluation measures: shared by the workers of a host.
  std::string measure_lock = "/tmp/planner-measure.lock";
  // CURVE: this worker's key pair and the controller's public key (both or neither).
  std::optional<wire::CurveKeys> keys;
  std::string server_public_key;
};

// Serves until `*stop` becomes nonzero, then says Bye. Returns the error that
// ends it early (the devices file, the endpoint).
graph::Status RunWorker(const WorkerOptions& options, const volatile std::sig_atomic_t* stop);

// `planner worker`: the command-line front end of RunWorker.
int WorkerCommand(int argc, char** argv);

}  // namespace workers
