#include "controllers/dispatcher.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <optional>

#include "frontend/stop_signals.h"
#include "wire/codec.h"
#include "wire/timeline.h"

namespace controllers {

namespace {

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// A peer's text for a log line: control characters become '?'.
std::string Printable(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return text;
}

}  // namespace

// What one Run is doing: the placements, which are still waiting, and their outcomes.
struct Dispatcher::RunState {
  const wire::WireModel* model = nullptr;
  std::string digest;
  wire::pb::Mode mode = wire::pb::SIM;
  int warmup = 0, steps = 0;
  bool want_timeline = false;
  const std::vector<std::vector<int>>* placements = nullptr;
  std::deque<int> pending;
  std::vector<Outcome> outcomes;
  std::vector<bool> done;
  std::vector<int> attempts;
  int remaining = 0;
  Clock::time_point start;
  std::optional<Clock::time_point> stopped_at;  // when a stop signal was first seen
};

graph::Result<std::unique_ptr<Dispatcher>> Dispatcher::Bind(const FleetOptions& options,
                                                            std::vector<ExpectedDevice> devices) {
  auto ctx = std::make_unique<wire::Context>();
  wire::SocketOptions so;
  so.max_message_bytes = static_cast<size_t>(options.max_message_mb) << 20;
  so.linger_ms = 200;  // the Bye to each worker on the way out
  std::unique_ptr<wire::Authenticator> auth;
  if (options.server_keys) {
    auto started = wire::Authenticator::Start(*ctx, options.client_keys, "fleet: ");
    if (!started.ok()) return started.status().WithContext(options.source);
    auth = std::move(*started);
    so.curve_server = options.server_keys;
  }
  auto socket = wire::Socket::Bind(*ctx, wire::SocketKind::kRouter, options.bind, so);
  if (!socket.ok()) return socket.status().WithContext(options.source);
  // Handshakes that fail (keys that do not match, one side without keys) and
  // listening workers that do not answer, which ZeroMQ keeps to itself.
  wire::ConnectionLogOptions lo;
  lo.prefix = "fleet: ";
  lo.peer = "a worker";
  lo.self = "this controller";
  lo.curve_server = options.server_keys.has_value();
  lo.connects = false;  // listening workers' failures are said; it waits for others
  lo.log_disconnected = false;  // a worker's loss is the dispatcher's to say
  auto log = wire::ConnectionLog::Start(*ctx, *socket, lo);
  if (!log.ok()) return log.status().WithContext(options.source);
  for (const std::string& worker : options.connect) {
    if (graph::Status st = socket->AlsoConnect(worker); !st.ok()) {
      return st.WithContext(options.source);
    }
  }
  return std::unique_ptr<Dispatcher>(new Dispatcher(options, std::move(devices), std::move(ctx),
                                                    std::move(auth), std::move(*socket),
                                                    std::move(*log)));
}

Dispatcher::Dispatcher(FleetOptions options, std::vector<ExpectedDevice> devices,
                       std::unique_ptr<wire::Context> ctx,
                       std::unique_ptr<wire::Authenticator> auth, wire::Socket socket,
                       std::unique_ptr<wire::ConnectionLog> connection_log)
    : o_(std::move(options)),
      devices_(std::move(devices)),
      ctx_(std::move(ctx)),
      auth_(std::move(auth)),
      socket_(std::move(socket)),
      connection_log_(std::move(connection_log)) {}

Dispatcher::~Dispatcher() {
  wire::pb::Envelope bye;
  bye.mutable_bye();
  for (const auto& [peer, w] : workers_) (void)Send(peer, bye);
}

graph::Status Dispatcher::WaitForWorkers(int n) {
  const auto start = Clock::now();
  int shown = -1;
  while (registered() < n) {
    if (frontend::StopOnSignals::requested()) {
      return graph::Status(
          graph::StatusCode::kUnavailable,
          o_.source + ": stopped by a signal while waiting for workers at " + endpoint());
    }
    if (Seconds(Clock::now() - start) > o_.register_timeout_s) {
      std::string where = endpoint();  // where workers connect, or those it connects to
      if (!o_.connect.empty()) {
        where.clear();
        for (const std::string& w : o_.connect) where += (where.empty() ? "" : ", ") + w;
      }
      char within[32];
      std::snprintf(within, sizeof within, "%g", o_.register_timeout_s);
      return graph::Status(
          graph::StatusCode::kUnavailable,
          o_.source + ": " + std::to_string(registered()) + " of " + std::to_string(n) +
              " workers registered at " + where + " within " + within + " s" +
              (last_refusal_.empty() ? "" : " (the last refused: " + last_refusal_ + ")"));
    }
    if (registered() != shown) {
      shown = registered();
      std::printf("fleet: %d of %d workers registered at %s\n", shown, n, endpoint().c_str());
      std::fflush(stdout);
    }
    Pump(100, nullptr);
  }
  std::printf("fleet: %d workers registered at %s\n", registered(), endpoint().c_str());
  std::fflush(stdout);
  return graph::Status::Ok();
}

std::vector<Outcome> Dispatcher::Run(const wire::WireModel& model, EvalMode mode, int warmup,
                                     int steps, const std::vector<std::vector<int>>& placements,
                                     bool want_timeline) {
  RunState run;
  run.want_timeline = want_timeline;
  run.model = &model;
  run.digest = model.digest();
  run.mode = mode == EvalMode::kReal ? wire::pb::REAL : wire::pb::SIM;
  run.warmup = warmup;
  run.steps = steps;
  run.placements = &placements;
  const int n = static_cast<int>(placements.size());
  for (int j = 0; j < n; ++j) run.pending.push_back(j);
  run.outcomes.resize(n);
  run.done.assign(n, false);
  run.attempts.assign(n, 0);
  run.remaining = n;
  run.start = Clock::now();
  counters_.requests += n;
  Pump(0, &run);  // what arrived between runs: heartbeats, hellos
  while (run.remaining > 0) {
    // A signal: nothing more is sent, and what was sent has stop_wait_s to
    // answer (it waited for every placement, each up to evaluation_s, and
    // `fleet up` killed the controller before it wrote its files).
    const bool stopped = frontend::StopOnSignals::requested();
    if (stopped && !workers_.empty() && Stopping(&run)) break;
    Assign(&run);
    // With no worker left, a signal ends the wait for one (the search stops
    // after this update); else register_timeout_s does.
    if (workers_.empty() && (stopped || Seconds(Clock::now() - std::max(empty_since_, run.start)) >
                                            o_.register_timeout_s)) {
      char within[32];
      std::snprintf(within, sizeof within, "%g", o_.register_timeout_s);
      for (int j : run.pending) {
        run.outcomes[j].status = graph::Status(
            graph::StatusCode::kUnavailable,
            stopped ? "stopped by a signal with no fleet worker at " + endpoint()
                    : "no fleet worker registered at " + endpoint() + " for " + within + " s");
        run.done[j] = true;
        --run.remaining;
      }
      run.pending.clear();
      break;
    }
    Pump(std::min(50, std::max(1, o_.heartbeat_ms)), &run);
    CheckSilence(&run);
  }
  counters_.outcomes += n;
  for (const Outcome& o : run.outcomes) {
    if (o.status.code() == graph::StatusCode::kUnavailable) ++counters_.unavailable;
  }
  return std::move(run.outcomes);
}

bool Dispatcher::Stopping(RunState* run) {
  const auto now = Clock::now();
  if (!run->stopped_at) run->stopped_at = now;
  for (int j : run->pending) {  // a worker lost after the signal requeues its placement
    run->outcomes[j].status = graph::Status(graph::StatusCode::kUnavailable,
                                            "stopped by a signal before a fleet worker took it");
    run->done[j] = true;
    --run->remaining;
  }
  run->pending.clear();
  if (run->remaining == 0) return true;
  if (Seconds(now - *run->stopped_at) <= o_.stop_wait_s) return false;
  char within[32];
  std::snprintf(within, sizeof within, "%g", o_.stop_wait_s);
  for (auto& [peer, w] : workers_) {
    if (w.job < 0) continue;
    run->outcomes[w.job].status =
        graph::Status(graph::StatusCode::kUnavailable, "stopped by a signal: worker " + w.name +
                                                           " did not answer within stop_wait_s (" +
                                                           within + " s)");
    run->done[w.job] = true;
    --run->remaining;
    w.job = -1;
    w.busy_elsewhere = true;  // still evaluating it
  }
  return true;
}

void Dispatcher::Pump(int timeout_ms, RunState* run) {
  int wait = timeout_ms;
  for (;;) {
    auto got = socket_.Receive(wait);
    wait = 0;
    if (!got.ok()) {
      std::fprintf(stderr, "fleet: %s\n", got.status().message().c_str());
      return;
    }
    if (!*got) return;
    const wire::Frames& frames = **got;
    const std::string peer = frames.empty() ? std::string() : frames[0];
    if (frames.size() != 2) {
      Drop(peer, "a message of " + std::to_string(frames.size()) + " frames");
      continue;
    }
    auto e = wire::Decode(frames[1], static_cast<size_t>(o_.max_message_mb) << 20);
    if (!e.ok()) {
      Drop(peer, e.status().message());
      continue;
    }
    Handle(peer, *e, run);
  }
}

void Dispatcher::Handle(const std::string& peer, const wire::pb::Envelope& e, RunState* run) {
  auto it = workers_.find(peer);
  if (it != workers_.end()) it->second.last_seen = Clock::now();
  switch (e.body_case()) {
    case wire::pb::Envelope::kHello:
      return OnHello(peer, e.hello(), run);
    case wire::pb::Envelope::kResult:
      return OnResult(peer, e.result(), run);
    case wire::pb::Envelope::kBye:
      if (it != workers_.end()) Lose(peer, "said bye", run);
      return;
    case wire::pb::Envelope::kHeartbeat:
      if (it != workers_.end()) {
        if (it->second.job < 0) it->second.busy_elsewhere = e.heartbeat().busy();
        return;
      }
      break;  // a worker we do not know (we restarted, or lost it): register again
    case wire::pb::Envelope::kNeedModel: {
      if (it == workers_.end() || !run || it->second.job < 0 ||
          it->second.request != e.need_model().request()) {
        ++counters_.late;
        return;
      }
      it->second.models.erase(run->digest);
      SendJob(peer, it->second, it->second.job, true, run);
      return;
    }
    default:
      Drop(peer, std::string("an unexpected '") + wire::BodyName(e) + "' message");
      return;
  }
  wire::pb::Envelope again;
  again.mutable_reregister();
  (void)Send(peer, again);
}

void Dispatcher::OnHello(const std::string& peer, const wire::pb::Hello& hello, RunState* run) {
  std::string problem;
  if (hello.devices_size() != static_cast<int>(devices_.size())) {
    problem = "it has " + std::to_string(hello.devices_size()) + " devices, the search " +
              std::to_string(devices_.size());
  }
  for (int i = 0; problem.empty() && i < hello.devices_size(); ++i) {
    if (hello.devices(i).name() != devices_[i].name ||
        hello.devices(i).kind() != devices_[i].kind) {
      problem = "its device " + std::to_string(i) + " is '" + hello.devices(i).name() + "' (" +
                hello.devices(i).kind() + "), the search's '" + devices_[i].name + "' (" +
                devices_[i].kind + ")";
    }
  }
  wire::pb::Envelope reply;
  if (!problem.empty()) {
    reply.mutable_refuse()->set_reason(problem);
    last_refusal_ = "worker " + Printable(hello.name()) + ": " + Printable(problem);
    std::fprintf(stderr, "fleet: refused %s\n", last_refusal_.c_str());
    (void)Send(peer, reply);
    return;
  }
  auto it = workers_.find(peer);
  if (it != workers_.end() && it->second.job >= 0) {
    // It restarted with the placement we sent it: that one is lost.
    Lose(peer, "registered again", run);
  }
  Worker& w = workers_[peer];
  if (w.name.empty()) {
    std::printf("fleet: worker %s registered (%s, pid %d)\n", Printable(hello.name()).c_str(),
                Printable(hello.host()).c_str(), hello.pid());
    std::fflush(stdout);
  }
  w.name = Printable(hello.name());
  w.last_seen = Clock::now();
  w.busy_elsewhere = hello.busy();
  reply.mutable_welcome()->set_heartbeat_ms(o_.heartbeat_ms);
  (void)Send(peer, reply);
}

void Dispatcher::OnResult(const std::string& peer, const wire::pb::Result& r, RunState* run) {
  auto it = workers_.find(peer);
  if (it == workers_.end() || !run || it->second.job < 0 || it->second.request != r.request()) {
    ++counters_.late;
    if (it == workers_.end()) {
      wire::pb::Envelope again;
      again.mutable_reregister();
      (void)Send(peer, again);
    }
    return;
  }
  Worker& w = it->second;
  const int job = w.job;
  w.job = -1;
  if (r.busy()) {
    // Still on a placement we gave up waiting for: this one goes elsewhere,
    // without counting as an attempt, and the worker waits until it says it is free.
    w.busy_elsewhere = true;
    --run->attempts[job];
    run->pending.push_front(job);
    return;
  }
  w.models.insert(run->digest);
  Outcome& out = run->outcomes[job];
  const int code = r.code();
  if (code < 0 || code > static_cast<int>(graph::StatusCode::kInternal)) {
    out.status = graph::Status(graph::StatusCode::kInternal,
                               "worker " + w.name + " sent status code " + std::to_string(code));
  } else if (code == 0 && !(std::isfinite(r.step_s()) && r.step_s() > 0)) {
    out.status =
        graph::Status(graph::StatusCode::kInternal,
                      "worker " + w.name + " sent step time " + std::to_string(r.step_s()));
  } else {
    out.status = graph::Status(static_cast<graph::StatusCode>(code), r.message());
  }
  out.step_s = r.step_s();
  out.estimated_ops = r.estimated_ops();
  out.evaluation_s = r.evaluation_s();
  out.round_trip_s = Seconds(Clock::now() - w.sent_at);
  if (run->want_timeline) out.timeline = wire::TimelineFromWire(r.timeline());
  run->done[job] = true;
  --run->remaining;
}

void Dispatcher::Assign(RunState* run) {
  for (auto& [peer, w] : workers_) {
    if (run->pending.empty()) return;
    if (w.job >= 0 || w.busy_elsewhere) continue;
    const int job = run->pending.front();
    run->pending.pop_front();
    ++run->attempts[job];
    if (!SendJob(peer, w, job, !w.models.count(run->digest), run)) return;  // `w` was lost
  }
}

bool Dispatcher::SendJob(const std::string& peer, Worker& w, int job, bool with_model,
                         RunState* run) {
  wire::pb::Envelope e;
  wire::pb::Evaluate& ev = *e.mutable_evaluate();
  w.job = job;
  w.request = next_request_++;
  w.sent_at = Clock::now();
  ev.set_request(w.request);
  ev.set_model_digest(run->digest);
  if (with_model) *ev.mutable_model() = run->model->message();
  const std::vector<int>& p = (*run->placements)[job];
  ev.mutable_device()->Add(p.begin(), p.end());
  ev.set_mode(run->mode);
  ev.set_warmup(run->warmup);
  ev.set_steps(run->steps);
  ev.set_want_timeline(run->want_timeline);
  ++counters_.sends;
  if (graph::Status st = Send(peer, e); !st.ok()) {
    Lose(peer, "could not be sent to (" + st.message() + ")", run);
    return false;
  }
  return true;
}

void Dispatcher::CheckSilence(RunState* run) {
  const auto now = Clock::now();
  std::vector<std::pair<std::string, std::string>> lost;
  for (const auto& [peer, w] : workers_) {
    if (w.job < 0) continue;
    const double silent = Seconds(now - std::max(w.last_seen, run->start));
    const double running = Seconds(now - w.sent_at);
    char why[160];
    if (silent > o_.silence_s) {
      std::snprintf(why, sizeof why, "silent for %.1f s", silent);
    } else if (running > o_.evaluation_s) {
      std::snprintf(why, sizeof why, "past the evaluation limit (%.0f s)", o_.evaluation_s);
    } else {
      continue;
    }
    lost.emplace_back(peer, why);
  }
  for (const auto& [peer, why] : lost) Lose(peer, why, run);
}

void Dispatcher::Lose(const std::string& peer, const std::string& why, RunState* run) {
  auto it = workers_.find(peer);
  if (it == workers_.end()) return;
  const int job = it->second.job;
  std::fprintf(stderr, "fleet: worker %s %s%s\n", it->second.name.c_str(), why.c_str(),
               job >= 0 ? ": its placement goes to another worker" : "");
  if (job >= 0) ++counters_.workers_lost;
  workers_.erase(it);
  if (workers_.empty()) empty_since_ = Clock::now();
  if (job >= 0 && run) Requeue(job, run);
}

void Dispatcher::Requeue(int job, RunState* run) {
  if (run->done[job]) return;
  if (run->attempts[job] >= o_.max_attempts) {
    run->outcomes[job].status =
        graph::Status(graph::StatusCode::kUnavailable,
                      "no answer from the " + std::to_string(run->attempts[job]) +
                          " fleet workers the placement was sent to");
    run->done[job] = true;
    --run->remaining;
    return;
  }
  ++counters_.resent;
  run->pending.push_front(job);
}

graph::Status Dispatcher::Send(const std::string& peer, const wire::pb::Envelope& e) {
  return socket_.Send({peer, wire::Encode(e)});
}

void Dispatcher::Drop(const std::string& peer, const std::string& what) {
  ++counters_.malformed;
  std::fprintf(stderr, "fleet: dropped %s from %s\n", what.c_str(), PeerName(peer).c_str());
}

std::string Dispatcher::PeerName(const std::string& peer) const {
  auto it = workers_.find(peer);
  if (it != workers_.end()) return "worker " + it->second.name;
  return "peer " + wire::PrintableId(peer);
}

}  // namespace controllers
