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
// Thread safety: ParameterState is a value used by one thread; ServeParameters
// owns its socket and state.
#pragma once

#include <csignal>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/status.h"

// ParameterState answers the protocol's own messages (wire/proto/fleet.proto);
// their definitions come with wire/codec.h, where the messages are decoded.
namespace wire::pb {
class Join;
class Push;
class Parameters;
}  // namespace wire::pb

namespace controllers {

struct PsOptions {
  std::string bind = "tcp://127.0.0.1:5556";
  std::string checkpoint;          // empty: none
  int staleness = 16;              // versions a gradient may lag and still be applied
  double checkpoint_every_s = 10;  // and on SIGINT/SIGTERM
  int max_message_mb = 256;
};

struct PsCounters {
  int64_t applied = 0;  // gradients applied
  int64_t stale = 0;    // dropped as staler than the bound
  int64_t repeats = 0;  // re-sent pushes answered without applying them again
};

class ParameterState {
 public:
  // Adopts `join`'s parameters when the state has none; refuses a join of
  // another identity, optimizer or parameter shapes, naming the difference.
  // `controller`'s push sequence starts afresh (a restarted controller may
  // reuse its routing id).
  graph::Status Join(const wire::pb::Join& join, const std::string& controller = "");
  // Applies the push (or not: stale, repeated); the answer is the current
  // parameters. An error when the gradient's shapes differ from the
  // parameters', kNotFound when no policy is held yet.
  graph::Result<wire::pb::Parameters> Push(const wire::pb::Push& push,
                                           const std::string& controller);
  wire::pb::Parameters Current() const;
  bool empty() const { return params_.empty(); }
  int64_t version() const { return version_; }
  const PsCounters& counters() const { return counters_; }
  const std::string& identity() const { return identity_; }
  void set_staleness_bound(int versions) { staleness_bound_ = versions; }

  graph::Status Save(const std::string& path) const;
  static graph::Result<ParameterState> Load(const std::string& path);

 private:
  graph::Status JoinPolicy(const wire::pb::Join& join);
  void Apply(const wire::pb::Push& push);

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
// checkpoint file when it exists.
graph::Status ServeParameters(const PsOptions& options, const volatile std::sig_atomic_t* stop);

// `planner ps`: the command-line front end of ServeParameters.
int PsCommand(int argc, char** argv);

}  // namespace controllers
