// The controller's side of the fleet (docs/fleet.md): a ROUTER socket that
// workers register with, and the dispatch of placements to them. Each
// placement goes to one idle worker at a time (load balancing by idleness: a
// worker has at most one placement in flight; idle workers are taken in a fixed
// order, by routing id, so placements sent one at a time, as the hardware's
// verdict sends its paired rounds, are all measured by the same worker while it
// lives); a worker that stops
// heartbeating while it holds one (killed, stopped, cut off) or that exceeds
// the evaluation limit is presumed lost and the placement is sent to another,
// up to max_attempts workers. Every placement of a Run gets exactly one
// outcome: a result that arrives after its placement was re-sent is dropped
// and counted, never returned twice.
//
// Ownership: owns its ZeroMQ context and socket. Thread safety: one thread at
// a time (callers serialise; FleetReward does).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "controllers/fleet_config.h"
#include "graph/status.h"
#include "sim/timeline.h"
#include "wire/model.h"
#include "wire/socket.h"

namespace wire::pb {
class Envelope;
class Hello;
class Result;
}  // namespace wire::pb

namespace controllers {

// How workers evaluate a placement: simulate it on their devices' profile, or
// run it on their devices.
enum class EvalMode { kSim, kReal };

struct Outcome {
  graph::Status status;     // the worker's verdict, or kUnavailable when no worker answered
  double step_s = 0;        // when ok
  int estimated_ops = 0;    // sim: ops timed by the roofline
  double evaluation_s = 0;  // the worker's own time on it
  double round_trip_s = 0;  // from the last send to the result
  sim::StepStats timeline;  // when asked for and ok (a peer's node and device ids: unchecked)
};

struct DispatchCounters {
  int64_t requests = 0;      // placements asked for
  int64_t outcomes = 0;      // outcomes returned: equals requests after every Run
  int64_t unavailable = 0;   // of them, kUnavailable: no worker answered (no result at all)
  int64_t sends = 0;         // Evaluate messages sent, re-sends included
  int64_t resent = 0;        // placements sent again after their worker was lost
  int64_t late = 0;          // results dropped: their placement was already decided
  int64_t malformed = 0;     // messages dropped as malformed, oversized or of another version
  int64_t workers_lost = 0;  // workers presumed gone with a placement
};

// A device the fleet's workers must all have, in order.
struct ExpectedDevice {
  std::string name, kind;
};

class Dispatcher {
 public:
  static graph::Result<std::unique_ptr<Dispatcher>> Bind(const FleetOptions& options,
                                                         std::vector<ExpectedDevice> devices);
  ~Dispatcher();  // says Bye to every worker
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Waits until `n` workers have registered, or fails after the options'
  // register_timeout_s naming the endpoint and how many came.
  graph::Status WaitForWorkers(int n);

  // One outcome per placement, in order; with `want_timeline`, each step's
  // timeline too.
  std::vector<Outcome> Run(const wire::WireModel& model, EvalMode mode, int warmup, int steps,
                           const std::vector<std::vector<int>>& placements,
                           bool want_timeline = false);

  const DispatchCounters& counters() const { return counters_; }
  int registered() const { return static_cast<int>(workers_.size()); }
  const std::string& endpoint() const { return socket_.endpoint(); }

 private:
  using Clock = std::chrono::steady_clock;
  struct Worker {
    std::string name;
    Clock::time_point last_seen;
    std::set<std::string> models;  // digests it was sent
    int job = -1;                  // the placement in flight, or -1
    bool busy_elsewhere = false;   // evaluating one we no longer wait for: not idle
    uint64_t request = 0;
    Clock::time_point sent_at;
  };
  struct RunState;

  Dispatcher(FleetOptions options, std::vector<ExpectedDevice> devices,
             std::unique_ptr<wire::Context> ctx, std::unique_ptr<wire::Authenticator> auth,
             wire::Socket socket, std::unique_ptr<wire::ConnectionLog> connection_log);
  // Reads every message waiting (up to `timeout_ms` for the first).
  void Pump(int timeout_ms, RunState* run);
  void Handle(const std::string& peer, const wire::pb::Envelope& e, RunState* run);
  void OnHello(const std::string& peer, const wire::pb::Hello& hello, RunState* run);
  void OnResult(const std::string& peer, const wire::pb::Result& result, RunState* run);
  void Assign(RunState* run);
  // After a stop signal: the placements not yet sent fail (kUnavailable), and
  // once stop_wait_s has passed, those in flight too. True once none is left.
  bool Stopping(RunState* run);
  bool SendJob(const std::string& peer, Worker& w, int job, bool with_model, RunState* run);
  void CheckSilence(RunState* run);
  void Lose(const std::string& peer, const std::string& why, RunState* run);
  void Requeue(int job, RunState* run);
  graph::Status Send(const std::string& peer, const wire::pb::Envelope& e);
  void Drop(const std::string& peer, const std::string& what);
  std::string PeerName(const std::string& peer) const;

  FleetOptions o_;
  std::vector<ExpectedDevice> devices_;
  std::unique_ptr<wire::Context> ctx_;
  std::unique_ptr<wire::Authenticator> auth_;  // CURVE's allowed keys, or null
  wire::Socket socket_;
  std::unique_ptr<wire::ConnectionLog> connection_log_;  // goes before socket_
  std::map<std::string, Worker> workers_;  // by routing id
  uint64_t next_request_ = 1;
  std::string last_refusal_;                      // "worker NAME: why", for WaitForWorkers' error
  Clock::time_point empty_since_ = Clock::now();  // when the last worker went
  DispatchCounters counters_;
};

}  // namespace controllers
