// Where a search's policy updates go when several searches train one policy,
// as the paper's controllers do through a parameter server (docs/fleet.md):
// instead of stepping its own optimizer, the search hands each clipped
// gradient, with the parameter version it was computed at and the learning
// rate of its schedule, to the server, and continues from the parameters the
// server answers with. controllers/ps_client.h implements it over ZeroMQ; it
// is made through ConnectParameterServer, which `planner`'s main registers
// from the layer above this one.
//
// Values are flat floats per parameter, in the policy's named_parameters()
// order. Thread safety: one search uses one server object at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/status.h"

namespace planner::search {

struct PolicyParameters {
  int64_t version = 0;  // gradients the server has applied to the policy
  std::vector<std::vector<float>> values;
  bool applied = false;   // Push: the gradient was applied (false: too stale)
  int64_t staleness = 0;  // Push: versions between the gradient's and the server's
};

struct PolicyLayout {
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> shapes;
};

class ParameterServer {
 public:
  virtual ~ParameterServer() = default;
  // Joins the policy named `identity` (model, devices and policy options):
  // the server keeps `initial` when it holds no policy, else answers with its
  // own; another identity, optimizer or layout is refused with the reason.
  virtual graph::Result<PolicyParameters> Join(const std::string& identity,
                                               const std::string& optimizer,
                                               const PolicyLayout& layout,
                                               const std::vector<std::vector<float>>& initial) = 0;
  // kNotFound: the server holds no policy any more (restarted without a
  // checkpoint): join again.
  virtual graph::Result<PolicyParameters> Push(int64_t version, double learning_rate,
                                               const std::vector<std::vector<float>>& gradient) = 0;
  // One line: the server's endpoint, pushes, how many were applied.
  virtual std::string Summary() const = 0;
};

// Where the server is and how to reach it.
struct ParameterServerAddress {
  std::string endpoint;   // e.g. tcp://127.0.0.1:5556; empty: no server
  double timeout_s = 60;  // a request without an answer this long fails
  // CURVE (ZeroMQ's encryption and authentication; docs/fleet.md, "Security"):
  // this search's key pair and the server's public key, as key files
  // (`planner fleet keygen`); all empty: none, which a server off this host
  // does not accept.
  std::string key_file;
  std::string server_key_file;
};

using ParameterServerFactory =
    graph::Result<std::unique_ptr<ParameterServer>> (*)(const ParameterServerAddress& address);
// Called once by `planner`'s main, before any command runs.
void RegisterParameterServer(ParameterServerFactory connect);
// A client of the server at `address`; an error when none is registered, and
// for an address it cannot use (a key file that is not one, an endpoint off
// this host without keys).
graph::Result<std::unique_ptr<ParameterServer>> ConnectParameterServer(
    const ParameterServerAddress& address);

}  // namespace planner::search
