#include "controllers/ps_client.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "frontend/stop_signals.h"
#include "planner/search/parameter_server.h"
#include "wire/codec.h"
#include "wire/socket.h"

namespace controllers {

namespace {

using Clock = std::chrono::steady_clock;

class PsClient : public planner::search::ParameterServer {
 public:
  PsClient(std::unique_ptr<wire::Context> ctx, wire::Socket socket,
           std::unique_ptr<wire::ConnectionLog> log, double timeout_s)
      : ctx_(std::move(ctx)),
        socket_(std::move(socket)),
        log_(std::move(log)),
        timeout_s_(timeout_s) {}

  graph::Result<planner::search::PolicyParameters> Join(
      const std::string& identity, const std::string& optimizer,
      const planner::search::PolicyLayout& layout,
      const std::vector<std::vector<float>>& initial) override {
    wire::pb::Envelope e;
    wire::pb::Join& j = *e.mutable_join();
    j.set_identity(identity);
    j.set_optimizer(optimizer);
    j.set_sequence(++sequence_);
    AddTensors(layout, initial, j.mutable_parameters());
    layout_ = layout;
    return Ask(e, j.sequence());
  }

  graph::Result<planner::search::PolicyParameters> Push(
      int64_t version, double learning_rate,
      const std::vector<std::vector<float>>& gradient) override {
    wire::pb::Envelope e;
    wire::pb::Push& p = *e.mutable_push();
    p.set_version(version);
    p.set_learning_rate(learning_rate);
    p.set_sequence(++sequence_);
    AddTensors(layout_, gradient, p.mutable_gradient());
    ++pushes_;
    auto r = Ask(e, p.sequence());
    if (r.ok()) (r->applied ? applied_ : stale_) += 1;
    return r;
  }

  std::string Summary() const override {
    char b[256];
    std::snprintf(b, sizeof b, "ps: %s, %lld gradients pushed, %lld applied, %lld dropped as stale",
                  socket_.endpoint().c_str(), static_cast<long long>(pushes_),
                  static_cast<long long>(applied_), static_cast<long long>(stale_));
    return b;
  }

 private:
  static void AddTensors(const planner::search::PolicyLayout& layout,
                         const std::vector<std::vector<float>>& values,
                         google::protobuf::RepeatedPtrField<wire::pb::Tensor>* out) {
    for (size_t i = 0; i < values.size(); ++i) {
      wire::pb::Tensor* t = out->Add();
      if (i < layout.names.size()) {
        t->set_name(layout.names[i]);
        t->mutable_shape()->Add(layout.shapes[i].begin(), layout.shapes[i].end());
      }
      t->mutable_values()->Add(values[i].begin(), values[i].end());
    }
  }

  // Sends `e` and waits for the answer carrying `sequence`, sending again
  // every second without one, until the timeout.
  graph::Result<planner::search::PolicyParameters> Ask(const wire::pb::Envelope& e,
                                                       uint64_t sequence) {
    const std::string bytes = wire::Encode(e);
    const auto start = Clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    while (elapsed() < timeout_s_) {
      if (frontend::StopOnSignals::requested()) {
        return graph::Status(graph::StatusCode::kUnavailable,
                             "parameter server " + socket_.endpoint() +
                                 ": stopped by a signal while waiting for its answer");
      }
      if (std::string refused = log_->Final(); !refused.empty()) {
        return graph::Status(graph::StatusCode::kUnavailable,
                             "parameter server " + socket_.endpoint() + ": " + refused);
      }
      if (graph::Status st = socket_.Send({bytes});
          !st.ok() && st.code() != graph::StatusCode::kUnavailable) {
        return st;
      }
      const auto sent = Clock::now();
      while (std::chrono::duration<double>(Clock::now() - sent).count() < 1.0 &&
             elapsed() < timeout_s_) {
        auto got = socket_.Receive(100);
        if (!got.ok()) return got.status();
        if (!*got) continue;
        if ((*got)->size() != 1) continue;
        auto reply = wire::Decode((**got)[0]);
        if (!reply.ok()) {
          std::fprintf(stderr, "ps client: dropped %s from %s\n", reply.status().message().c_str(),
                       socket_.endpoint().c_str());
          continue;
        }
        if (reply->has_refuse() && reply->refuse().sequence() == sequence) {
          const int code = reply->refuse().code();
          const graph::StatusCode c =
              code > 0 && code <= static_cast<int>(graph::StatusCode::kInternal)
                  ? static_cast<graph::StatusCode>(code)
                  : graph::StatusCode::kInvalidArgument;
          return graph::Status(
              c, "parameter server " + socket_.endpoint() + ": " + reply->refuse().reason());
        }
        if (!reply->has_parameters() || reply->parameters().sequence() != sequence) continue;
        const wire::pb::Parameters& p = reply->parameters();
        planner::search::PolicyParameters out;
        out.version = p.version();
        out.applied = p.applied();
        out.staleness = p.staleness();
        for (const wire::pb::Tensor& t : p.parameters()) {
          out.values.emplace_back(t.values().begin(), t.values().end());
        }
        return out;
      }
    }
    return graph::Status(graph::StatusCode::kUnavailable,
                         "parameter server " + socket_.endpoint() + " did not answer within " +
                             std::to_string(static_cast<int>(timeout_s_)) + " s");
  }

  std::unique_ptr<wire::Context> ctx_;
  wire::Socket socket_;
  // Says a refused handshake (Final); declared after the socket it watches,
  // so that it goes first.
  std::unique_ptr<wire::ConnectionLog> log_;
  double timeout_s_;
  planner::search::PolicyLayout layout_;
  uint64_t sequence_ = 0;
  int64_t pushes_ = 0, applied_ = 0, stale_ = 0;
};

graph::Result<std::unique_ptr<planner::search::ParameterServer>> Connect(
    const planner::search::ParameterServerAddress& address) {
  GRAPH_RETURN_IF_ERROR(CheckParameterServerAddress(address));
  auto ctx = std::make_unique<wire::Context>();
  wire::SocketOptions o;
  char host[128] = {};
  ::gethostname(host, sizeof host - 1);
  o.routing_id = std::string(host) + ":" + std::to_string(::getpid());
  o.immediate = true;
  if (!address.key_file.empty()) {
    GRAPH_ASSIGN_OR_RETURN(o.curve_client, wire::ReadKeyFile(address.key_file, true));
    GRAPH_ASSIGN_OR_RETURN(wire::CurveKeys server,
                           wire::ReadKeyFile(address.server_key_file, false));
    o.curve_server_public_key = server.public_key;
  }
  GRAPH_ASSIGN_OR_RETURN(wire::Socket s,
                         wire::Socket::Open(*ctx, wire::SocketKind::kDealer, address.endpoint, o));
  // Watching from before the first handshake: a refusal is not retried, so
  // one missed would leave the search waiting for the timeout. The server's
  // restarts are expected (requests are re-sent), so lost connections and
  // retries are not said.
  wire::ConnectionLogOptions lo;
  lo.prefix = "ps client: ";
  lo.peer = "the parameter server";
  lo.self = "this search";
  if (o.curve_client) lo.own_public_key = o.curve_client->public_key;
  lo.log_retries = false;
  lo.log_disconnected = false;
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<wire::ConnectionLog> log,
                         wire::ConnectionLog::Start(*ctx, s, lo));
  GRAPH_RETURN_IF_ERROR(s.AlsoConnect(address.endpoint));
  return std::unique_ptr<planner::search::ParameterServer>(
      std::make_unique<PsClient>(std::move(ctx), std::move(s), std::move(log), address.timeout_s));
}

}  // namespace

graph::Status CheckParameterServerAddress(const planner::search::ParameterServerAddress& address) {
  if (address.key_file.empty() != address.server_key_file.empty()) {
    return graph::InvalidArgument("--ps-key and --ps-server-key go together");
  }
  if (address.key_file.empty() && !wire::OnThisHost(address.endpoint)) {
    return graph::InvalidArgument(
        "--ps " + address.endpoint +
        " is not on this host: a parameter server on a network needs --ps-key (this search's "
        "key pair) and --ps-server-key (the server's public key; planner fleet keygen)");
  }
  return graph::Status::Ok();
}

void RegisterParameterServerClient() { planner::search::RegisterParameterServer(Connect); }

}  // namespace controllers
