// fleet.yaml: how a search's controller meets its workers (docs/fleet.md).
//
//   bind: tcp://127.0.0.1:5555   # where workers connect (planner worker --connect)
//   mode: sim                    # what workers do with a placement: sim | real
//   workers: 2                   # registered workers to wait for before the search starts
//   register_timeout_s: 60       # how long to wait for them
//   heartbeat_ms: 500            # the workers' heartbeat interval (sent in Welcome)
//   silence_s: 3                 # a busy worker unheard this long is presumed gone
//   evaluation_s: 600            # one evaluation's limit, heartbeats or not
//   max_attempts: 3              # workers one placement is sent to before it fails
//   max_message_mb: 256          # largest message either side accepts
//
// Every key is optional. Until CURVE keys are supported, `bind` must be on this
// host (loopback tcp or ipc): a fleet must not take unauthenticated work from
// the network.
// Thread safety: value types and a free function.
#pragma once

#include <string>

#include "graph/status.h"

namespace controllers {

struct FleetOptions {
  std::string source;  // the file, for messages
  std::string bind = "tcp://127.0.0.1:5555";
  std::string mode = "sim";
  int workers = 1;
  double register_timeout_s = 60;
  int heartbeat_ms = 500;
  double silence_s = 3;
  double evaluation_s = 600;
  int max_attempts = 3;
  int max_message_mb = 256;
};

graph::Result<FleetOptions> ReadFleetFile(const std::string& path);
graph::Result<FleetOptions> ParseFleetYaml(const std::string& text, const std::string& source);

}  // namespace controllers
