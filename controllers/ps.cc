#include "controllers/ps.h"

#include <google/protobuf/stubs/logging.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "graph/digest.h"
#include "graph/file_util.h"
#include "runtime/flush_denormals.h"
#include "wire/codec.h"
#include "wire/socket.h"

namespace controllers {

namespace {

// Adam's constants: torch::optim::AdamOptions' defaults, which the in-process
// search uses.
constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}

// The element count of `shape`, or -1 for a negative dimension or more than
// 2^31 elements (a peer's shape is never trusted to multiply safely).
int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > (int64_t{1} << 31) / d)) return -1;
    n *= d;
  }
  return n;
}

using WireTensors = google::protobuf::RepeatedPtrField<wire::pb::Tensor>;

std::vector<PolicyTensor> Tensors(const std::vector<std::string>& names,
                                  const std::vector<std::vector<int64_t>>& shapes,
                                  const std::vector<std::vector<float>>& values) {
  std::vector<PolicyTensor> out;
  for (size_t i = 0; i < values.size(); ++i) out.push_back({names[i], shapes[i], values[i]});
  return out;
}

// The protocol's tensors and ours, both ways (the server's socket, the checkpoint).
std::vector<PolicyTensor> FromWire(const WireTensors& ts) {
  std::vector<PolicyTensor> out;
  for (const wire::pb::Tensor& t : ts) {
    out.push_back(
        {t.name(), {t.shape().begin(), t.shape().end()}, {t.values().begin(), t.values().end()}});
  }
  return out;
}

void ToWire(const std::vector<PolicyTensor>& ts, WireTensors* out) {
  for (const PolicyTensor& t : ts) {
    wire::pb::Tensor* w = out->Add();
    w->set_name(t.name);
    w->mutable_shape()->Add(t.shape.begin(), t.shape.end());
    w->mutable_values()->Add(t.values.begin(), t.values.end());
  }
}

JoinRequest FromWire(const wire::pb::Join& j) {
  return {j.identity(), j.optimizer(), FromWire(j.parameters())};
}

PushRequest FromWire(const wire::pb::Push& p) {
  return {p.version(), p.sequence(), p.learning_rate(), FromWire(p.gradient())};
}

wire::pb::Parameters ToWire(const ParametersReply& r) {
  wire::pb::Parameters p;
  p.set_version(r.version);
  ToWire(r.parameters, p.mutable_parameters());
  p.set_applied(r.applied);
  p.set_staleness(r.staleness);
  return p;
}

std::vector<std::vector<float>> Values(const std::vector<PolicyTensor>& ts) {
  std::vector<std::vector<float>> v;
  for (const PolicyTensor& t : ts) v.push_back(t.values);
  return v;
}

// Ok when `ts` has exactly the names and shapes given, with values to match.
graph::Status SameShapes(const std::vector<PolicyTensor>& ts, const std::vector<std::string>& names,
                         const std::vector<std::vector<int64_t>>& shapes, const std::string& what) {
  if (ts.size() != names.size()) {
    return graph::InvalidArgument(what + " has " + std::to_string(ts.size()) +
                                  " tensors, the policy " + std::to_string(names.size()));
  }
  for (size_t i = 0; i < ts.size(); ++i) {
    if (ts[i].name != names[i] || ts[i].shape != shapes[i]) {
      return graph::InvalidArgument(what + "'s tensor " + std::to_string(i) + " is " + ts[i].name +
                                    " " + ShapeText(ts[i].shape) + ", the policy's " + names[i] +
                                    " " + ShapeText(shapes[i]));
    }
    const int64_t n = Elements(ts[i].shape);
    if (n < 0 || static_cast<int64_t>(ts[i].values.size()) != n) {
      return graph::InvalidArgument(what + "'s tensor " + ts[i].name + " has " +
                                    std::to_string(ts[i].values.size()) + " values for shape " +
                                    ShapeText(ts[i].shape));
    }
  }
  return graph::Status::Ok();
}

// A policy's values are finite: one NaN or infinity spreads to every search
// that pulls it.
graph::Status AllFinite(const std::vector<PolicyTensor>& ts, const std::string& what) {
  for (const PolicyTensor& t : ts) {
    for (float x : t.values) {
      if (!std::isfinite(x)) {
        return graph::InvalidArgument(what + ": " + t.name + " has non-finite values");
      }
    }
  }
  return graph::Status::Ok();
}

}  // namespace

graph::Status ParameterState::Join(const JoinRequest& join, const std::string& controller) {
  GRAPH_RETURN_IF_ERROR(JoinPolicy(join));
  last_sequence_.erase(controller);
  return graph::Status::Ok();
}

graph::Status ParameterState::JoinPolicy(const JoinRequest& join) {
  if (join.optimizer != "adam" && join.optimizer != "sgd") {
    return graph::InvalidArgument("optimizer '" + join.optimizer + "' is not adam or sgd");
  }
  if (!empty()) {
    if (join.identity != identity_) {
      return graph::InvalidArgument("the server holds the policy of " + identity_ + ", not of " +
                                    join.identity);
    }
    if (join.optimizer != optimizer_) {
      return graph::InvalidArgument("the server applies " + optimizer_ + ", not " + join.optimizer);
    }
    return SameShapes(join.parameters, names_, shapes_, "the joining policy");
  }
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> shapes;
  for (const PolicyTensor& t : join.parameters) {
    names.push_back(t.name);
    shapes.push_back(t.shape);
  }
  if (names.empty()) return graph::InvalidArgument("the joining policy has no parameters");
  GRAPH_RETURN_IF_ERROR(SameShapes(join.parameters, names, shapes, "the joining policy"));
  GRAPH_RETURN_IF_ERROR(AllFinite(join.parameters, "the joining policy"));
  identity_ = join.identity;
  optimizer_ = join.optimizer;
  names_ = std::move(names);
  shapes_ = std::move(shapes);
  params_ = Values(join.parameters);
  m_.assign(params_.size(), {});
  v_.assign(params_.size(), {});
  for (size_t i = 0; i < params_.size(); ++i) {
    m_[i].assign(params_[i].size(), 0.f);
    v_[i].assign(params_[i].size(), 0.f);
  }
  return graph::Status::Ok();
}

graph::Result<ParametersReply> ParameterState::Push(const PushRequest& push,
                                                    const std::string& controller) {
  if (empty())
    return graph::NotFound(
        "the server holds no policy (it restarted without a checkpoint?): join again");
  GRAPH_RETURN_IF_ERROR(SameShapes(push.gradient, names_, shapes_, "the gradient"));
  if (!(push.learning_rate >= 0) || !std::isfinite(push.learning_rate)) {
    return graph::InvalidArgument("learning rate " + std::to_string(push.learning_rate));
  }
  GRAPH_RETURN_IF_ERROR(AllFinite(push.gradient, "the gradient"));
  uint64_t& last = last_sequence_[controller];
  // Compared before subtracting: a peer's version may be anything.
  const int64_t staleness =
      push.version > version_ || push.version < 0 ? -1 : version_ - push.version;
  bool applied = false;
  if (push.sequence != 0 && push.sequence <= last) {
    ++counters_.repeats;
  } else if (staleness > staleness_bound_ || staleness < 0) {
    last = push.sequence;
    ++counters_.stale;
  } else {
    GRAPH_RETURN_IF_ERROR(Apply(push));
    last = push.sequence;
    applied = true;
  }
  ParametersReply p = Current();
  p.applied = applied;
  p.staleness = staleness;
  return p;
}

graph::Status ParameterState::Apply(const PushRequest& push) {
  // As the searches' own optimizer steps run (planner::search::Search::Step).
  // Checked before anything is written: an update that would leave a value
  // non-finite (a finite but huge rate) is refused whole, and the held policy
  // stays as it was. Each value is computed twice rather than the policy copied.
  const runtime::ScopedFlushDenormals flush;
  const double lr = push.learning_rate;
  const bool sgd = optimizer_ == "sgd";
  const int64_t adam_step = adam_step_ + 1;
  // torch::optim::Adam's update (no weight decay, no amsgrad).
  const double c1 = 1 - std::pow(kBeta1, adam_step), c2 = 1 - std::pow(kBeta2, adam_step);
  const double step = lr / c1, sqrt_c2 = std::sqrt(c2);
  struct Updated {
    float p, m, v;
  };
  auto update = [&](size_t i, size_t k) -> Updated {
    const float g = push.gradient[i].values[k];
    if (sgd) return {params_[i][k] - static_cast<float>(lr * g), m_[i][k], v_[i][k]};
    const auto m = static_cast<float>(kBeta1 * m_[i][k] + (1 - kBeta1) * g);
    const auto v = static_cast<float>(kBeta2 * v_[i][k] + (1 - kBeta2) * g * g);
    return {params_[i][k] - static_cast<float>(step * m / (std::sqrt(v) / sqrt_c2 + kEps)), m, v};
  };
  for (size_t i = 0; i < params_.size(); ++i) {
    for (size_t k = 0; k < params_[i].size(); ++k) {
      const Updated u = update(i, k);
      if (!std::isfinite(u.p) || !std::isfinite(u.v)) {
        return graph::InvalidArgument("the update (learning rate " + std::to_string(lr) +
                                      ") would make " + names_[i] + " non-finite");
      }
    }
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    for (size_t k = 0; k < params_[i].size(); ++k) {
      const Updated u = update(i, k);
      params_[i][k] = u.p;
      m_[i][k] = u.m;
      v_[i][k] = u.v;
    }
  }
  if (!sgd) adam_step_ = adam_step;
  ++version_;
  ++counters_.applied;
  return graph::Status::Ok();
}

ParametersReply ParameterState::Current() const {
  ParametersReply p;
  p.version = version_;
  p.parameters = Tensors(names_, shapes_, params_);
  return p;
}

namespace {

// The digest of a checkpoint's tensors (PsCheckpoint.tensor_digest): over
// their bytes, not the message's, whose map may serialize in any order.
std::string TensorDigest(const wire::pb::PsCheckpoint& c) {
  std::string bytes;
  for (const auto* list : {&c.parameters(), &c.adam_m(), &c.adam_v()}) {
    for (const wire::pb::Tensor& t : *list) {
      bytes += t.name() + '\0';
      for (int64_t d : t.shape()) bytes.append(reinterpret_cast<const char*>(&d), sizeof d);
      bytes.append(reinterpret_cast<const char*>(t.values().data()),
                   sizeof(float) * static_cast<size_t>(t.values_size()));
      bytes += '\0';
    }
  }
  return graph::Fnv1a64Hex(bytes);
}

// PsCheckpoint's layout is the same in protocol versions 1 and 2.
constexpr uint32_t kOldestCheckpointVersion = 1;

}  // namespace

graph::Status ParameterState::Save(const std::string& path) const {
  wire::pb::PsCheckpoint c;
  c.set_version(wire::kProtocolVersion);
  c.set_identity(identity_);
  c.set_optimizer(optimizer_);
  c.set_parameters_version(version_);
  c.set_adam_step(adam_step_);
  ToWire(Tensors(names_, shapes_, params_), c.mutable_parameters());
  ToWire(Tensors(names_, shapes_, m_), c.mutable_adam_m());
  ToWire(Tensors(names_, shapes_, v_), c.mutable_adam_v());
  for (const auto& [controller, seq] : last_sequence_)
    (*c.mutable_last_sequence())[controller] = seq;
  c.set_applied(counters_.applied);
  c.set_stale(counters_.stale);
  c.set_tensor_digest(TensorDigest(c));
  return graph::WriteFileAtomic(path, c.SerializeAsString());
}

graph::Result<ParameterState> ParameterState::Load(const std::string& path) {
  GRAPH_ASSIGN_OR_RETURN(std::string bytes, graph::ReadFile(path));
  wire::pb::PsCheckpoint c;
  const google::protobuf::LogSilencer quiet;  // the error below says it, once
  // An empty file parses, as every field's default: version 0.
  if (!c.ParseFromString(bytes) || c.version() == 0) {
    return graph::InvalidArgument(path + ": not a parameter server checkpoint");
  }
  if (c.version() < kOldestCheckpointVersion || c.version() > wire::kProtocolVersion) {
    return graph::InvalidArgument(path + ": checkpoint of protocol version " +
                                  std::to_string(c.version()) + ", this build reads " +
                                  std::to_string(kOldestCheckpointVersion) + " to " +
                                  std::to_string(wire::kProtocolVersion));
  }
  if (!c.tensor_digest().empty() && c.tensor_digest() != TensorDigest(c)) {
    return graph::InvalidArgument(path +
                                  ": a corrupt checkpoint (its tensors do not match "
                                  "their digest)");
  }
  ParameterState s;
  const JoinRequest join{c.identity(), c.optimizer(), FromWire(c.parameters())};
  if (graph::Status st = s.JoinPolicy(join); !st.ok()) return st.WithContext(path);
  const std::vector<PolicyTensor> m = FromWire(c.adam_m()), v = FromWire(c.adam_v());
  GRAPH_RETURN_IF_ERROR(SameShapes(m, s.names_, s.shapes_, path + ": Adam's m"));
  GRAPH_RETURN_IF_ERROR(SameShapes(v, s.names_, s.shapes_, path + ": Adam's v"));
  GRAPH_RETURN_IF_ERROR(AllFinite(m, path + ": Adam's m"));
  GRAPH_RETURN_IF_ERROR(AllFinite(v, path + ": Adam's v"));
  s.m_ = Values(m);
  s.v_ = Values(v);
  s.version_ = c.parameters_version();
  s.adam_step_ = c.adam_step();
  for (const auto& [controller, seq] : c.last_sequence()) s.last_sequence_[controller] = seq;
  s.counters_.applied = c.applied();
  s.counters_.stale = c.stale();
  return s;
}

namespace {

class Server {
 public:
  Server(const PsOptions& o, ParameterState state, wire::Socket socket)
      : o_(o), state_(std::move(state)), socket_(std::move(socket)) {}

  graph::Status Serve(const volatile std::sig_atomic_t* stop) {
    using Clock = std::chrono::steady_clock;
    auto last_save = Clock::now();
    int64_t saved_version = state_.version();
    while (!*stop) {
      auto got = socket_.Receive(200);
      if (!got.ok()) return got.status();
      if (*got) Handle(**got);
      if (!o_.checkpoint.empty() && state_.version() != saved_version &&
          std::chrono::duration<double>(Clock::now() - last_save).count() >=
              o_.checkpoint_every_s) {
        // A failed write (a full disk) is said and tried again next time; only
        // the last one, on stopping, is an error.
        if (graph::Status st = state_.Save(o_.checkpoint); !st.ok()) {
          std::fprintf(stderr, "ps: checkpoint not written: %s\n", st.message().c_str());
        } else {
          saved_version = state_.version();
        }
        last_save = Clock::now();
      }
    }
    if (!o_.checkpoint.empty() && !state_.empty())
      GRAPH_RETURN_IF_ERROR(state_.Save(o_.checkpoint));
    const PsCounters& n = state_.counters();
    std::printf(
        "ps: stopped at version %lld (%lld gradients applied, %lld stale dropped, %lld repeats)\n",
        static_cast<long long>(state_.version()), static_cast<long long>(n.applied),
        static_cast<long long>(n.stale), static_cast<long long>(n.repeats));
    return graph::Status::Ok();
  }

 private:
  void Handle(const wire::Frames& frames) {
    const std::string peer = frames.empty() ? "" : frames[0];
    if (frames.size() != 2)
      return Drop(peer, "a message of " + std::to_string(frames.size()) + " frames");
    auto e = wire::Decode(frames[1], static_cast<size_t>(o_.max_message_mb) << 20);
    if (!e.ok()) return Drop(peer, e.status().message());
    wire::pb::Envelope reply;
    auto refuse = [&](const graph::Status& st, uint64_t sequence) {
      reply.mutable_refuse()->set_reason(st.message());
      reply.mutable_refuse()->set_code(static_cast<int>(st.code()));
      reply.mutable_refuse()->set_sequence(sequence);
    };
    if (e->has_join()) {
      const bool was_empty = state_.empty();
      graph::Status st = state_.Join(FromWire(e->join()), peer);
      if (!st.ok()) {
        std::fprintf(stderr, "ps: refused controller %s: %s\n", wire::PrintableId(peer).c_str(),
                     st.message().c_str());
        refuse(st, e->join().sequence());
      } else {
        joined_.insert(peer);
        std::printf("ps: controller %s joined %s (version %lld)\n", wire::PrintableId(peer).c_str(),
                    was_empty ? "with the first parameters" : "the held policy",
                    static_cast<long long>(state_.version()));
        std::fflush(stdout);
        *reply.mutable_parameters() = ToWire(state_.Current());
        reply.mutable_parameters()->set_sequence(e->join().sequence());
      }
    } else if ((e->has_push() || e->has_pull()) && !joined_.count(peer)) {
      // Only a peer that joined (naming the policy it trains) may change or
      // read it: a stray peer's push could poison every search's policy. A
      // controller that joined before this server restarted joins again on
      // kNotFound (planner::search::Search).
      refuse(graph::NotFound("controller " + wire::PrintableId(peer) +
                             " has not joined this server: join first"),
             e->has_push() ? e->push().sequence() : e->pull().sequence());
    } else if (e->has_push()) {
      auto p = state_.Push(FromWire(e->push()), peer);
      if (!p.ok()) {
        refuse(p.status(), e->push().sequence());
      } else {
        *reply.mutable_parameters() = ToWire(*p);
        reply.mutable_parameters()->set_sequence(e->push().sequence());
      }
    } else if (e->has_pull()) {
      if (state_.empty()) {
        refuse(graph::NotFound("the server holds no policy: join first"), e->pull().sequence());
      } else {
        *reply.mutable_parameters() = ToWire(state_.Current());
        reply.mutable_parameters()->set_sequence(e->pull().sequence());
      }
    } else {
      return Drop(peer, std::string("an unexpected '") + wire::BodyName(*e) + "' message");
    }
    if (graph::Status st = socket_.Send({peer, wire::Encode(reply)}); !st.ok()) {
      std::fprintf(stderr, "ps: no reply to %s: %s\n", wire::PrintableId(peer).c_str(),
                   st.message().c_str());
    }
  }

  void Drop(const std::string& peer, const std::string& what) {
    std::fprintf(stderr, "ps: dropped %s from %s\n", what.c_str(), wire::PrintableId(peer).c_str());
  }

  const PsOptions& o_;
  ParameterState state_;
  std::set<std::string> joined_;  // peers whose Join was accepted since this server started
  wire::Socket socket_;
};

}  // namespace

graph::Status ServeParameters(const PsOptions& o, const volatile std::sig_atomic_t* stop) {
  if (o.bind.find("://") == std::string::npos) {
    return graph::InvalidArgument("--bind " + o.bind +
                                  " is not an endpoint (tcp://127.0.0.1:PORT, ipc://PATH)");
  }
  if (o.key_file.empty() != o.client_key_files.empty()) {
    return graph::InvalidArgument(
        o.key_file.empty() ? "--client-key needs --key (the server's key pair)"
                           : "--key needs --client-key (the public key of each controller it "
                             "lets in)");
  }
  if (!wire::OnThisHost(o.bind) && o.key_file.empty()) {
    return graph::InvalidArgument("--bind " + o.bind +
                                  " is not on this host: a parameter server on a network needs "
                                  "--key and --client-key (CURVE; planner fleet keygen)");
  }
  std::optional<wire::CurveKeys> keys;
  std::vector<std::string> allowed;
  if (!o.key_file.empty()) {
    GRAPH_ASSIGN_OR_RETURN(keys, wire::ReadKeyFile(o.key_file, true));
    for (const std::string& f : o.client_key_files) {
      GRAPH_ASSIGN_OR_RETURN(wire::CurveKeys client, wire::ReadKeyFile(f, false));
      allowed.push_back(client.public_key);
    }
  }
  ParameterState state;
  if (!o.checkpoint.empty() && graph::ReadFile(o.checkpoint).ok()) {
    GRAPH_ASSIGN_OR_RETURN(state, ParameterState::Load(o.checkpoint));
    std::printf("ps: restored %s: version %lld\n", o.checkpoint.c_str(),
                static_cast<long long>(state.version()));
  }
  state.set_staleness_bound(o.staleness);
  wire::Context ctx;
  wire::SocketOptions so;
  so.max_message_bytes = static_cast<size_t>(o.max_message_mb) << 20;
  std::unique_ptr<wire::Authenticator> auth;  // before the bind, as ZeroMQ asks
  if (keys) {
    GRAPH_ASSIGN_OR_RETURN(auth, wire::Authenticator::Start(ctx, allowed, "ps: "));
    so.curve_server = keys;
  }
  GRAPH_ASSIGN_OR_RETURN(wire::Socket socket,
                         wire::Socket::Bind(ctx, wire::SocketKind::kRouter, o.bind, so));
  // Handshakes that fail for other reasons than a refused key (a controller
  // without keys, or with another server key), which ZeroMQ keeps to itself.
  wire::ConnectionLogOptions lo;
  lo.prefix = "ps: ";
  lo.peer = "a controller";
  lo.self = "this parameter server";
  lo.connects = false;
  lo.curve_server = keys.has_value();
  lo.log_disconnected = false;  // controllers come and go
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<wire::ConnectionLog> log,
                         wire::ConnectionLog::Start(ctx, socket, lo));
  const std::string curve =
      keys ? " (CURVE: " + std::to_string(allowed.size()) + " controller keys let in)" : "";
  std::printf("ps: serving at %s%s\n", socket.endpoint().c_str(), curve.c_str());
  std::fflush(stdout);
  Server server(o, std::move(state), std::move(socket));
  graph::Status served = server.Serve(stop);
  log.reset();  // before the socket it watches goes with `server`
  return served;
}

}  // namespace controllers
