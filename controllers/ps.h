// The parameter server (docs/fleet.md): one policy's parameters and optimizer
// state, shared by the searches ("controllers") that join it. A controller
// pushes the gradient it computed at some parameter version; the server
// applies it (Adam or SGD, at the learning rate the controller's schedule
// gives) unless it is staler than the bound (computed more than `staleness`
// versions ago), in which case it is dropped and counted, and answers with
// the parameters to continue from. A push re-sent after a lost reply is
// recognised by its sequence number and applied once. The state is
// checkpointed atomically and restored on start.
//
// ParameterState speaks plain structs (below); ServeParameters translates the
// protocol's messages (wire/proto/fleet.proto) to and from them at its socket.
//
// Thread safety: ParameterState is a value used by one thread; ServeParameters
// owns its socket and state.
#pragma once

#include <csignal>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/status.h"

namespace controllers {

struct PsOptions {
  std::string bind = "tcp://127.0.0.1:5556";
  std::string checkpoint;          // empty: none
  int staleness = 16;              // versions a gradient may lag and still be applied
  double checkpoint_every_s = 10;  // and on SIGINT/SIGTERM
  int max_message_mb = 256;
  // CURVE (docs/fleet.md, "Security"): the server's key pair file and the
  // public key files of the controllers it lets in (`planner fleet keygen`);
  // both or neither. Without them the server binds only on this host.
  std::string key_file;
  std::vector<std::string> client_key_files;
};

struct PsCounters {
  int64_t applied = 0;  // gradients applied
  int64_t stale = 0;    // dropped as staler than the bound
  int64_t repeats = 0;  // re-sent pushes answered without applying them again
};

// One tensor of the policy: its name, shape and values (row-major).
struct PolicyTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

// A controller joins with its policy's parameters and optimizer.
struct JoinRequest {
  std::string identity;   // the model, devices and policy shape
  std::string optimizer;  // "adam" or "sgd"
  std::vector<PolicyTensor> parameters;
};

// A controller's gradient, computed at parameter `version`.
struct PushRequest {
  int64_t version = 0;
  uint64_t sequence = 0;  // per controller, increasing; 0: not sequenced
  double learning_rate = 0;
  std::vector<PolicyTensor> gradient;
};

// The server's parameters, after a push: whether it was applied and how stale it was.
struct ParametersReply {
  int64_t version = 0;
  std::vector<PolicyTensor> parameters;
  bool applied = false;
  int64_t staleness = 0;
};

class ParameterState {
 public:
  // Adopts `join`'s parameters when the state has none; refuses a join of
  // another identity, optimizer or parameter shapes, naming the difference.
  // `controller`'s push sequence starts afresh (a restarted controller may
  // reuse its routing id).
  graph::Status Join(const JoinRequest& join, const std::string& controller = "");
  // Applies the push (or not: stale, repeated); the answer is the current
  // parameters. An error when the gradient's shapes differ from the
  // parameters', when its values or rate are not finite or the update would
  // leave a parameter non-finite (nothing is changed then), kNotFound when no
  // policy is held yet.
  graph::Result<ParametersReply> Push(const PushRequest& push, const std::string& controller);
  ParametersReply Current() const;
  bool empty() const { return params_.empty(); }
  int64_t version() const { return version_; }
  const PsCounters& counters() const { return counters_; }
  const std::string& identity() const { return identity_; }
  void set_staleness_bound(int versions) { staleness_bound_ = versions; }

  graph::Status Save(const std::string& path) const;
  static graph::Result<ParameterState> Load(const std::string& path);

 private:
  graph::Status JoinPolicy(const JoinRequest& join);
  graph::Status Apply(const PushRequest& push);

  std::string identity_, optimizer_;
  std::vector<std::string> names_;
  std::vector<std::vector<int64_t>> shapes_;
  std::vector<std::vector<float>> params_, m_, v_;  // m_, v_: Adam's moments
  int64_t version_ = 0, adam_step_ = 0;
  std::map<std::string, uint64_t> last_sequence_;
  PsCounters counters_;
  int staleness_bound_ = 16;
};

// Serves until `*stop`, checkpointing as the options say; restores the
// checkpoint file when it exists. With keys, a controller whose key is not
// listed is refused during ZeroMQ's handshake (one line names it) and never
// reaches the policy.
graph::Status ServeParameters(const PsOptions& options, const volatile std::sig_atomic_t* stop);

// `planner ps`: the command-line front end of ServeParameters.
int PsCommand(int argc, char** argv);

}  // namespace controllers
