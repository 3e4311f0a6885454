// fleet.yaml: how a search's controller meets its workers (docs/fleet.md).
//
//   bind: tcp://127.0.0.1:5555   # where workers connect (planner worker --connect)
//   connect: [tcp://w1:5560]     # workers that listen (planner worker --bind) to reach
//   mode: sim                    # what workers do with a placement: sim | real
//   workers: 2                   # registered workers to wait for before the search starts
//   register_timeout_s: 60       # how long to wait for them
//   heartbeat_ms: 500            # the workers' heartbeat interval (sent in Welcome)
//   silence_s: 3                 # a busy worker unheard this long is presumed gone
//   evaluation_s: 600            # one evaluation's limit, heartbeats or not
//   max_attempts: 3              # workers one placement is sent to before it fails
//   max_message_mb: 256          # largest message either side accepts
//   server_key: controller.key   # CURVE: this controller's key pair (planner fleet keygen)
//   client_keys: [w1.pub, w2.pub]  # CURVE: the workers' public keys it lets in
//
// Every key is optional; key file paths are relative to the fleet file. A
// `bind` off this host (not loopback tcp, ipc or inproc) needs both CURVE
// settings: a fleet never takes work from unauthenticated peers on a network.
// Thread safety: value types and a free function.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "graph/status.h"
#include "wire/socket.h"

namespace controllers {

struct FleetOptions {
  std::string source;  // the file, for messages
  std::string bind = "tcp://127.0.0.1:5555";
  std::vector<std::string> connect;  // endpoints of workers started with --bind
  std::string mode = "sim";
  int workers = 1;
  double register_timeout_s = 60;
  int heartbeat_ms = 500;
  double silence_s = 3;
  double evaluation_s = 600;
  // After SIGINT/SIGTERM, how long the placements already sent may still
  // answer (the rest are not sent); `fleet up` gives a controller 30 s in all.
  double stop_wait_s = 10;
  int max_attempts = 3;
  int max_message_mb = 256;
  std::optional<wire::CurveKeys> server_keys;  // CURVE: set with client_keys
  std::vector<std::string> client_keys;        // Z85 public keys of the workers let in
};

graph::Result<FleetOptions> ReadFleetFile(const std::string& path);

graph::Result<FleetOptions> ParseFleetYaml(const std::string& text, const std::string& source);

// `planner search`'s flags that go with measured rewards only (steps per
// measurement, and the verdict's rounds and level): refused for a fleet
// whose workers simulate, by `planner search` and by `planner fleet up`.
inline constexpr std::array<const char*, 4> kMeasuredRunFlags = {"--steps", "--baseline-rounds",
                                                                 "--rounds", "--significance"};

}  // namespace controllers
