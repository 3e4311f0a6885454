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
  PsClient(std::unique_ptr<wire::Context> ctx, wire::Socket socket, double timeout_s)
      : ctx_(std::move(ctx)), socket_(std::move(socket)), timeout_s_(timeout_s) {}

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
  double timeout_s_;
  planner::search::PolicyLayout layout_;
  uint64_t sequence_ = 0;
  int64_t pushes_ = 0, applied_ = 0, stale_ = 0;
};

graph::Result<std::unique_ptr<planner::search::ParameterServer>> Connect(
    const std::string& endpoint, double timeout_s) {
  auto ctx = std::make_unique<wire::Context>();
  wire::SocketOptions o;
  char host[128] = {};
  ::gethostname(host, sizeof host - 1);
  o.routing_id = std::string(host) + ":" + std::to_string(::getpid());
  o.immediate = true;
  GRAPH_ASSIGN_OR_RETURN(wire::Socket s,
                         wire::Socket::Connect(*ctx, wire::SocketKind::kDealer, endpoint, o));
  return std::unique_ptr<planner::search::ParameterServer>(
      std::make_unique<PsClient>(std::move(ctx), std::move(s), timeout_s));
}

}  // namespace

void RegisterParameterServerClient() { planner::search::RegisterParameterServer(Connect); }

}  // namespace controllers
