#include "workers/worker.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <list>
#include <memory>
#include <optional>
#include <thread>

#include "cluster/devices.h"
#include "planner/sources/registry.h"
#include "sim/profile.h"
#include "sim/timeline.h"
#include "wire/model.h"
#include "wire/socket.h"
#include "wire/timeline.h"

namespace workers {

namespace {

using Clock = std::chrono::steady_clock;

// What an Evaluate request may ask of real devices: `planner search --steps`
// takes 1..10000 timed steps; its warm-up is 2.
constexpr int kMaxWarmup = 1000;
constexpr int kMaxSteps = 10000;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The host's measurement lock (flock), held for the object's lifetime: one
// `real` measurement per host. Closing the file releases it.
class HostLock {
 public:
  // Waits for the lock, trying every 50 ms, so that a stop (`*stop` nonzero)
  // ends the wait: another worker on the host may measure for minutes.
  static graph::Result<std::unique_ptr<HostLock>> Acquire(const std::string& path,
                                                          const volatile std::sig_atomic_t* stop) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
      return graph::Status(graph::StatusCode::kIoError, "cannot open the measurement lock " + path +
                                                            ": " + std::strerror(errno));
    }
    auto lock = std::unique_ptr<HostLock>(new HostLock(fd));
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        return graph::Status(graph::StatusCode::kIoError, "cannot take the measurement lock " +
                                                              path + ": " + std::strerror(errno));
      }
      if (stop && *stop) {
        return graph::Status(graph::StatusCode::kUnavailable,
                             "stopped while another process held the measurement lock " + path);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return lock;
  }
  ~HostLock() { ::close(fd_); }
  HostLock(const HostLock&) = delete;
  HostLock& operator=(const HostLock&) = delete;

 private:
  explicit HostLock(int fd) : fd_(fd) {}
  int fd_;
};

// A model the worker was sent, rebuilt, with the reward sources made for it.
struct CachedModel {
  std::string digest;
  std::unique_ptr<wire::RebuiltModel> model;
  std::unique_ptr<planner::rewards::RewardSource> sim, real;
  int real_warmup = -1, real_steps = -1;  // what `real` was made with
};

// Evaluates requests against the worker's devices. Used by one thread at a time.
class Evaluator {
 public:
  // `stop`: a wait for the host's measurement lock ends when it is set.
  Evaluator(const WorkerOptions& o, cluster::Cluster c, std::optional<sim::Profile> p,
            const volatile std::sig_atomic_t* stop)
      : o_(o), cluster_(std::move(c)), profile_(std::move(p)), stop_(stop) {}

  // A Result or, when the model is neither cached nor sent, a NeedModel.
  wire::pb::Envelope Handle(const wire::pb::Evaluate& request) {
    const auto start = Clock::now();
    wire::pb::Envelope reply;
    CachedModel* m = Find(request);
    if (!m && !request.has_model()) {
      reply.mutable_need_model()->set_request(request.request());
      return reply;
    }
    wire::pb::Result& r = *reply.mutable_result();
    r.set_request(request.request());
    graph::Status st = graph::Status::Ok();
    planner::rewards::Evaluation e;
    sim::StepStats stats;
    try {
      if (!m) {
        auto added = Add(request);
        st = added.status();
        if (added.ok()) m = *added;
      }
      if (st.ok()) st = CheckPlacement(request, *m->model);
      if (st.ok()) e = Evaluate(request, *m, &st, request.want_timeline() ? &stats : nullptr);
    } catch (const std::exception& ex) {
      st = graph::Status(graph::StatusCode::kInternal,
                         std::string("evaluation threw: ") + ex.what());
    }
    if (st.ok()) st = e.status;
    r.set_code(static_cast<int>(st.code()));
    r.set_message(st.message());
    r.set_step_s(e.step_s);
    r.set_estimated_ops(e.estimated_ops);
    r.set_evaluation_s(SecondsSince(start));
    if (st.ok() && request.want_timeline()) wire::TimelineToWire(stats, r.mutable_timeline());
    return reply;
  }

 private:
  CachedModel* Find(const wire::pb::Evaluate& request) {
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
      if (it->digest != request.model_digest()) continue;
      cache_.splice(cache_.begin(), cache_, it);  // most recently used first
      return &cache_.front();
    }
    return nullptr;
  }

  graph::Result<CachedModel*> Add(const wire::pb::Evaluate& request) {
    if (wire::WireModelDigest(request.model()) != request.model_digest()) {
      return graph::InvalidArgument("the model sent does not match its digest " +
                                    request.model_digest());
    }
    GRAPH_ASSIGN_OR_RETURN(wire::RebuiltModel rebuilt,
                           wire::ModelFromWire(request.model(), "the controller"));
    CachedModel m;
    m.digest = request.model_digest();
    m.model = std::make_unique<wire::RebuiltModel>(std::move(rebuilt));
    cache_.push_front(std::move(m));
    while (static_cast<int>(cache_.size()) > o_.cached_models) cache_.pop_back();
    return &cache_.front();
  }

  graph::Status CheckPlacement(const wire::pb::Evaluate& request, const wire::RebuiltModel& m) {
    // Forward nodes only, or one more device for each gradient op placed apart.
    const int forward = m.forward.size(), apart = static_cast<int>(m.apart.size());
    if (request.device_size() != forward && request.device_size() != forward + apart) {
      return graph::InvalidArgument(
          "placement has " + std::to_string(request.device_size()) + " entries, the model " +
          std::to_string(forward) + " forward nodes" +
          (apart ? " and " + std::to_string(apart) + " gradient ops placed apart" : ""));
    }
    const int devices = static_cast<int>(cluster_.devices.size());
    for (int d : request.device()) {
      if (d < 0 || d >= devices) {
        return graph::InvalidArgument("placement names device " + std::to_string(d) + " of " +
                                      std::to_string(devices) + " (" + cluster_.source + ")");
      }
    }
    return graph::Status::Ok();
  }

  // With `stats`, the step's timeline too.
  planner::rewards::Evaluation Evaluate(const wire::pb::Evaluate& request, CachedModel& m,
                                        graph::Status* st, sim::StepStats* stats) {
    const bool real = request.mode() == wire::pb::REAL;
    if (!real && request.mode() != wire::pb::SIM) {
      *st = graph::InvalidArgument("request names no evaluation mode");
      return {};
    }
    // A peer's numbers, not ours: a negative warm-up measured no step, and
    // billions of steps would hold the host's measurement lock for ever.
    if (real && (request.warmup() < 0 || request.warmup() > kMaxWarmup || request.steps() < 1 ||
                 request.steps() > kMaxSteps)) {
      *st = graph::InvalidArgument("request asks " + std::to_string(request.warmup()) +
                                   " warm-up and " + std::to_string(request.steps()) +
                                   " timed steps (0.." + std::to_string(kMaxWarmup) + " and 1.." +
                                   std::to_string(kMaxSteps) + " are served)");
      return {};
    }
    std::unique_ptr<planner::rewards::RewardSource>& source = real ? m.real : m.sim;
    if (real && (m.real_warmup != request.warmup() || m.real_steps != request.steps())) {
      source.reset();
    }
    if (!source) {
      planner::rewards::RewardContext c{&m.model->forward, &m.model->training,
                                        &cluster_,         profile_ ? &*profile_ : nullptr,
                                        request.warmup(),  std::max(1, request.steps())};
      c.apart = m.model->apart;
      auto made = planner::sources::MakeRewardSource(real ? "real" : "sim", c);
      if (!made.ok()) {
        *st = made.status();
        return {};
      }
      source = std::move(*made);
      if (real) m.real_warmup = request.warmup(), m.real_steps = request.steps();
    }
    const std::vector<int> placement(request.device().begin(), request.device().end());
    std::unique_ptr<HostLock> lock;
    if (real) {
      auto held = HostLock::Acquire(o_.measure_lock, stop_);
      if (!held.ok()) {
        *st = held.status();
        return {};
      }
      lock = std::move(*held);
    }
    return stats ? source->Timeline(placement, stats) : source->Evaluate(placement);
  }

  const WorkerOptions& o_;
  cluster::Cluster cluster_;
  std::optional<sim::Profile> profile_;
  std::list<CachedModel> cache_;
  const volatile std::sig_atomic_t* stop_;
};

// The worker's side of the conversation: registration, heartbeats, and one
// evaluation at a time on a thread that hands its reply back over inproc.
class Worker {
 public:
  Worker(const WorkerOptions& o, wire::Socket controller, wire::Socket done_rx,
         wire::Socket done_tx, Evaluator evaluator, wire::pb::Hello hello)
      : o_(o),
        controller_(std::move(controller)),
        done_rx_(std::move(done_rx)),
        done_tx_(std::move(done_tx)),
        evaluator_(std::move(evaluator)),
        hello_(std::move(hello)),
        heartbeat_ms_(o.heartbeat_ms) {}

  ~Worker() {
    if (job_.joinable()) job_.join();
  }

  // `connection_log`: a failure ZeroMQ will not retry ends the worker with it.
  graph::Status Serve(const volatile std::sig_atomic_t* stop,
                      const wire::ConnectionLog& connection_log) {
    auto next_beat = Clock::now();
    stop_ = stop;
    bool said_stopping = false;
    // After a stop, it serves on while an evaluation runs: heartbeats, so that
    // the controller does not take it for gone and send the placement again,
    // and the result, which it dropped; a new placement is answered busy.
    while (!*stop || busy_) {
      if (*stop && !said_stopping) {
        std::printf("worker %s: stopping after its current evaluation\n", hello_.name().c_str());
        std::fflush(stdout);
        said_stopping = true;
      }
      if (std::string final = connection_log.Final(); !final.empty()) {
        if (job_.joinable()) job_.join();
        return graph::Status(graph::StatusCode::kUnavailable, final);
      }
      if (Clock::now() >= next_beat) {
        Beat();
        next_beat = Clock::now() + std::chrono::milliseconds(heartbeat_ms_);
      }
      const int wait_ms = static_cast<int>(std::max<int64_t>(
          0,
          std::chrono::duration_cast<std::chrono::milliseconds>(next_beat - Clock::now()).count()));
      GRAPH_ASSIGN_OR_RETURN(std::vector<bool> ready,
                             wire::Poll({&controller_, &done_rx_}, wait_ms));
      if (ready[1]) ForwardResult();
      if (ready[0]) GRAPH_RETURN_IF_ERROR(FromController());
    }
    if (job_.joinable()) job_.join();
    wire::pb::Envelope bye;
    bye.mutable_bye();
    (void)controller_.Send({wire::Encode(bye)});
    return graph::Status::Ok();
  }

 private:
  void Beat() {
    wire::pb::Envelope e;
    if (registered_) {
      e.mutable_heartbeat()->set_busy(busy_);
    } else {
      *e.mutable_hello() = hello_;
      e.mutable_hello()->set_busy(busy_);
    }
    (void)controller_.Send({wire::Encode(e)});  // a full queue: the next beat says it
  }

  void ForwardResult() {
    auto got = done_rx_.Receive(0);
    if (!got.ok() || !*got) return;
    if (job_.joinable()) job_.join();
    busy_ = false;
    if (graph::Status st = controller_.Send(**got); !st.ok()) {
      std::fprintf(stderr, "worker %s: a result was not sent: %s\n", hello_.name().c_str(),
                   st.message().c_str());
    }
  }

  graph::Status FromController() {
    GRAPH_ASSIGN_OR_RETURN(std::optional<wire::Frames> frames, controller_.Receive(0));
    if (!frames) return graph::Status::Ok();
    if (frames->size() != 1)
      return Drop("a message of " + std::to_string(frames->size()) + " frames");
    auto e = wire::Decode(frames->front(), o_.max_message_bytes);
    if (!e.ok()) return Drop(e.status().message());
    switch (e->body_case()) {
      case wire::pb::Envelope::kWelcome:
        if (!registered_) {
          std::printf("worker %s: registered (%s)\n", hello_.name().c_str(),
                      controller_.endpoint().c_str());
          std::fflush(stdout);
        }
        registered_ = true;
        if (e->welcome().heartbeat_ms() > 0) heartbeat_ms_ = e->welcome().heartbeat_ms();
        break;
      case wire::pb::Envelope::kRefuse:
        std::fprintf(stderr, "worker %s: %s refused it: %s\n", hello_.name().c_str(),
                     controller_.endpoint().c_str(), e->refuse().reason().c_str());
        registered_ = false;
        break;
      case wire::pb::Envelope::kReregister:
      case wire::pb::Envelope::kBye:
        registered_ = false;  // says Hello at the next beat
        break;
      case wire::pb::Envelope::kEvaluate:
        Start(std::move(*e->mutable_evaluate()));
        break;
      default:
        return Drop(std::string("an unexpected '") + wire::BodyName(*e) + "' message");
    }
    return graph::Status::Ok();
  }

  void Start(wire::pb::Evaluate request) {
    if (busy_ || (stop_ && *stop_)) {  // busy: the controller sends it elsewhere
      wire::pb::Envelope reply;
      reply.mutable_result()->set_request(request.request());
      reply.mutable_result()->set_busy(true);
      (void)controller_.Send({wire::Encode(reply)});
      return;
    }
    busy_ = true;
    // The thread alone uses evaluator_ and done_tx_ until it is joined.
    job_ = std::thread([this, request = std::move(request)] {
      (void)done_tx_.Send({wire::Encode(evaluator_.Handle(request))});
    });
  }

  graph::Status Drop(const std::string& what) {
    std::fprintf(stderr, "worker %s: dropped %s from %s\n", hello_.name().c_str(), what.c_str(),
                 controller_.endpoint().c_str());
    return graph::Status::Ok();
  }

  const WorkerOptions& o_;
  wire::Socket controller_;
  wire::Socket done_rx_, done_tx_;  // PAIR over inproc: the evaluation thread's reply
  Evaluator evaluator_;
  wire::pb::Hello hello_;
  int heartbeat_ms_;
  bool registered_ = false;
  bool busy_ = false;
  const volatile std::sig_atomic_t* stop_ = nullptr;
  std::thread job_;
};

std::string HostName() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "localhost";
  return host;
}

wire::pb::Hello MakeHello(const WorkerOptions& o, const cluster::Cluster& c) {
  wire::pb::Hello h;
  h.set_host(HostName());
  h.set_pid(static_cast<int>(::getpid()));
  h.set_name(o.name.empty() ? h.host() + ":" + std::to_string(h.pid()) : o.name);
  for (const cluster::DeviceSpec& d : c.devices) {
    wire::pb::Device* w = h.add_devices();
    w->set_name(d.name);
    w->set_kind(cluster::DeviceKindName(d.kind));
  }
  h.set_devices_digest(c.digest);
  return h;
}

}  // namespace

graph::Status RunWorker(const WorkerOptions& o, const volatile std::sig_atomic_t* stop) {
  GRAPH_ASSIGN_OR_RETURN(cluster::Cluster c, cluster::LoadDevicesFile(o.devices_path));
  if (c.devices.empty()) return graph::InvalidArgument(o.devices_path + ": no devices");
  std::optional<sim::Profile> profile;
  if (!o.profile_path.empty()) {
    GRAPH_ASSIGN_OR_RETURN(profile.emplace(), sim::ReadProfile(o.profile_path));
    GRAPH_RETURN_IF_ERROR(sim::CheckProfileFits(*profile, o.profile_path, c));
  }
  wire::pb::Hello hello = MakeHello(o, c);
  wire::Context ctx;
  wire::SocketOptions so;
  so.max_message_bytes = o.max_message_bytes;
  so.routing_id = hello.name() + "/" + std::to_string(hello.pid());
  so.curve_client = o.keys;
  so.linger_ms = 200;  // the Bye on the way out
  so.curve_server_public_key = o.server_public_key;
  auto opened = o.bind.empty() ? wire::Socket::Open(ctx, wire::SocketKind::kDealer, o.connect, so)
                               : wire::Socket::Bind(ctx, wire::SocketKind::kDealer, o.bind, so);
  if (!opened.ok()) return opened.status();
  wire::Socket controller = std::move(*opened);
  // What ZeroMQ does not tell the worker otherwise: a key the controller
  // refuses, keys that do not match, nothing listening, a connection lost.
  wire::ConnectionLogOptions lo;
  lo.prefix = "worker " + hello.name() + ": ";
  lo.peer = "the controller";
  lo.self = "this worker";
  if (o.keys) lo.own_public_key = o.keys->public_key;
  lo.connects = o.bind.empty();
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<wire::ConnectionLog> connection_log,
                         wire::ConnectionLog::Start(ctx, controller, lo));
  // Connected only now that the log watches: libzmq never retries a refused
  // handshake, so a refusal before the log started would leave the worker silent.
  if (o.bind.empty()) GRAPH_RETURN_IF_ERROR(controller.AlsoConnect(o.connect));
  if (!o.bind.empty()) {
    std::printf("worker %s: listening at %s\n", hello.name().c_str(),
                controller.endpoint().c_str());
    std::fflush(stdout);
  }
  const std::string done = "inproc://worker-done";
  GRAPH_ASSIGN_OR_RETURN(wire::Socket done_rx,
                         wire::Socket::Bind(ctx, wire::SocketKind::kPair, done));
  GRAPH_ASSIGN_OR_RETURN(wire::Socket done_tx,
                         wire::Socket::Connect(ctx, wire::SocketKind::kPair, done));
  Worker w(o, std::move(controller), std::move(done_rx), std::move(done_tx),
           Evaluator(o, std::move(c), std::move(profile), stop), std::move(hello));
  graph::Status served = w.Serve(stop, *connection_log);
  connection_log.reset();  // before the socket it watches goes with `w`
  return served;
}

}  // namespace workers
