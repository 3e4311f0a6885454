// The dispatcher against fake workers (threads speaking the wire protocol), so
// each fault is staged exactly: a worker that goes silent holding a placement,
// one that answers after its placement went elsewhere, one that forgets
// models, one with other devices, and peers that send garbage.
#include "controllers/dispatcher.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include "tests/processes.h"
#include "wire/codec.h"

namespace controllers {
namespace {

using planner::testing::SendRawBytes;

using Clock = std::chrono::steady_clock;

const std::vector<ExpectedDevice> kDevices = {{"gpu0", "sim"}, {"gpu1", "sim"}};

// A worker's step time for a placement: a function of it, so a wrong pairing shows.
double StepOf(const google::protobuf::RepeatedField<int32_t>& device) {
  double s = 1;
  for (int i = 0; i < device.size(); ++i) s += 0.001 * (i + 1) * device[i];
  return s;
}
double StepOf(const std::vector<int>& p) {
  google::protobuf::RepeatedField<int32_t> f(p.begin(), p.end());
  return StepOf(f);
}

struct Behaviour {
  bool silent_after_first = false;  // stops heartbeating and answering at its first placement
  int late_answer_ms = -1;          // ...then answers it anyway after this long (>= 0)
  bool forgets_models = false;      // every request without a model gets NeedModel
  int busy_replies = 0;             // the first this many requests are answered "busy"
  bool nan_steps = false;           // reports NaN step times
  std::vector<ExpectedDevice> devices = kDevices;
  std::optional<wire::CurveKeys> keys;  // CURVE client: its key pair
  std::string server_key;               // and the controller's public key
};

class FakeWorker {
 public:
  FakeWorker(const std::string& endpoint, const std::string& name, Behaviour b)
      : b_(std::move(b)),
        busy_left_(b_.busy_replies),
        thread_([this, endpoint, name] { Serve(endpoint, name); }) {}
  ~FakeWorker() {
    stop_ = true;
    thread_.join();
  }
  int evaluations() const { return evaluations_; }
  int busy_left() const { return busy_left_; }  // "busy" answers still to give
  std::string refused() const {
    std::lock_guard<std::mutex> l(mu_);
    return refused_;
  }

 private:
  void Serve(const std::string& endpoint, const std::string& name) {
    wire::Context ctx;
    wire::SocketOptions o;
    o.routing_id = name;
    o.curve_client = b_.keys;
    o.curve_server_public_key = b_.server_key;
    auto s = wire::Socket::Connect(ctx, wire::SocketKind::kDealer, endpoint, o);
    ASSERT_TRUE(s.ok());
    wire::pb::Envelope hello;
    hello.mutable_hello()->set_name(name);
    for (const ExpectedDevice& d : b_.devices) {
      auto* w = hello.mutable_hello()->add_devices();
      w->set_name(d.name);
      w->set_kind(d.kind);
    }
    (void)s->Send({wire::Encode(hello)});
    bool silent = false;
    auto last_beat = Clock::now();
    std::optional<std::pair<Clock::time_point, wire::pb::Envelope>> late;
    while (!stop_) {
      if (!silent && Clock::now() - last_beat > std::chrono::milliseconds(20)) {
        wire::pb::Envelope beat;
        beat.mutable_heartbeat();
        (void)s->Send({wire::Encode(beat)});
        last_beat = Clock::now();
      }
      if (late && Clock::now() >= late->first) {
        (void)s->Send({wire::Encode(late->second)});
        late.reset();
      }
      auto got = s->Receive(5);
      if (!got.ok() || !*got) continue;
      auto e = wire::Decode((**got)[0]);
      if (!e.ok()) continue;
      if (e->has_refuse()) {
        std::lock_guard<std::mutex> l(mu_);
        refused_ = e->refuse().reason();
      }
      if (!e->has_evaluate() || silent) continue;
      const wire::pb::Evaluate& ev = e->evaluate();
      wire::pb::Envelope reply;
      if (b_.forgets_models && !ev.has_model()) {
        reply.mutable_need_model()->set_request(ev.request());
        (void)s->Send({wire::Encode(reply)});
        continue;
      }
      if (busy_left_ > 0) {
        --busy_left_;
        reply.mutable_result()->set_request(ev.request());
        reply.mutable_result()->set_busy(true);
        (void)s->Send({wire::Encode(reply)});
        continue;
      }
      ++evaluations_;
      reply.mutable_result()->set_request(ev.request());
      reply.mutable_result()->set_step_s(b_.nan_steps ? std::nan("") : StepOf(ev.device()));
      if (b_.silent_after_first) {
        silent = true;
        if (b_.late_answer_ms >= 0) {
          late.emplace(Clock::now() + std::chrono::milliseconds(b_.late_answer_ms), reply);
        }
        continue;
      }
      (void)s->Send({wire::Encode(reply)});
    }
  }

  Behaviour b_;
  std::atomic<int> busy_left_;
  std::atomic<bool> stop_{false};
  std::atomic<int> evaluations_{0};
  mutable std::mutex mu_;
  std::string refused_;
  std::thread thread_;
};

FleetOptions Fast() {
  FleetOptions o;
  o.source = "test fleet";
  o.bind = "tcp://127.0.0.1:*";
  o.heartbeat_ms = 20;
  o.silence_s = 0.3;
  o.register_timeout_s = 5;
  return o;
}

std::vector<std::vector<int>> Placements(int n) {
  std::vector<std::vector<int>> p;
  for (int j = 0; j < n; ++j) p.push_back({j % 2, (j / 2) % 2, (j / 4) % 2, j % 3 == 0});
  return p;
}

wire::WireModel SomeModel() {
  wire::pb::Model m;
  m.set_graphdef("graph bytes");
  m.set_batch(1);
  return wire::WireModel(m);
}

std::vector<Outcome> RunAll(Dispatcher& d, const std::vector<std::vector<int>>& p) {
  return d.Run(SomeModel(), EvalMode::kSim, 0, 1, p);
}

void ExpectAnswered(const std::vector<Outcome>& got, const std::vector<std::vector<int>>& p) {
  ASSERT_EQ(got.size(), p.size());
  for (size_t j = 0; j < p.size(); ++j) {
    ASSERT_TRUE(got[j].status.ok()) << j << ": " << got[j].status.message();
    EXPECT_DOUBLE_EQ(got[j].step_s, StepOf(p[j])) << j;
  }
}

TEST(Dispatcher, EveryPlacementGetsExactlyOneOutcomeSpreadOverTheWorkers) {
  auto d = Dispatcher::Bind(Fast(), kDevices);
  ASSERT_TRUE(d.ok()) << d.status().message();
  FakeWorker a((*d)->endpoint(), "a", {}), b((*d)->endpoint(), "b", {});
  ASSERT_TRUE((*d)->WaitForWorkers(2).ok());
  const auto p = Placements(40);
  ExpectAnswered(RunAll(**d, p), p);
  const DispatchCounters& n = (*d)->counters();
  EXPECT_EQ(n.requests, 40);
  EXPECT_EQ(n.outcomes, 40);
  EXPECT_EQ(n.unavailable, 0);
  EXPECT_EQ(n.sends, 40);
  EXPECT_EQ(n.resent, 0);
  EXPECT_GT(a.evaluations(), 0);
  EXPECT_GT(b.evaluations(), 0);
  EXPECT_EQ(a.evaluations() + b.evaluations(), 40);
}

TEST(Dispatcher, PlacementOfASilentWorkerGoesToAnotherAndItsLateAnswerIsDropped) {
  auto d = Dispatcher::Bind(Fast(), kDevices);
  ASSERT_TRUE(d.ok());
  Behaviour stalls;
  stalls.silent_after_first = true;
  stalls.late_answer_ms = 600;
  FakeWorker bad((*d)->endpoint(), "stalls", stalls);
  ASSERT_TRUE((*d)->WaitForWorkers(1).ok());
  FakeWorker good((*d)->endpoint(), "good", {});
  ASSERT_TRUE((*d)->WaitForWorkers(2).ok());
  const auto p = Placements(10);
  ExpectAnswered(RunAll(**d, p), p);
  EXPECT_EQ((*d)->counters().workers_lost, 1);
  EXPECT_EQ((*d)->counters().resent, 1);
  EXPECT_EQ((*d)->registered(), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  const auto q = Placements(3);
  ExpectAnswered(RunAll(**d, q), q);  // the late answer arrives during this run
  EXPECT_EQ((*d)->counters().late, 1);
  EXPECT_EQ((*d)->counters().outcomes, 13);
}

TEST(Dispatcher, WorkerThatForgetsModelsIsSentTheModelAgain) {
  auto d = Dispatcher::Bind(Fast(), kDevices);
  ASSERT_TRUE(d.ok());
  Behaviour forgets;
  forgets.forgets_models = true;
  FakeWorker w((*d)->endpoint(), "forgets", forgets);
  ASSERT_TRUE((*d)->WaitForWorkers(1).ok());
  const auto p = Placements(5);
  ExpectAnswered(RunAll(**d, p), p);
  EXPECT_EQ((*d)->counters().resent, 0);
  EXPECT_GT((*d)->counters().sends, 5);  // the model went again with requests 2..5
}

TEST(Dispatcher, BusyAnswerSendsThePlacementElsewhereWithoutUsingAnAttempt) {
  FleetOptions o = Fast();
  o.max_attempts = 1;
  auto d = Dispatcher::Bind(o, kDevices);
  ASSERT_TRUE(d.ok());
  Behaviour busy;
  busy.busy_replies = 3;
  FakeWorker a((*d)->endpoint(), "a-busy", busy);  // first in the fixed order
  FakeWorker b((*d)->endpoint(), "b", {});
  ASSERT_TRUE((*d)->WaitForWorkers(2).ok());
  const auto p = Placements(12);
  ExpectAnswered(RunAll(**d, p), p);
  // At least one: after a busy answer the worker gets nothing until a
  // heartbeat says it is free, and b may take the rest meanwhile.
  EXPECT_LT(a.busy_left(), busy.busy_replies) << "no busy answer was given";
  EXPECT_EQ((*d)->counters().resent, 0);
  EXPECT_EQ(a.evaluations() + b.evaluations(), 12);
}

TEST(Dispatcher, NonFiniteStepTimeIsAnErrorNamingTheWorker) {
  auto d = Dispatcher::Bind(Fast(), kDevices);
  ASSERT_TRUE(d.ok());
  Behaviour nan;
  nan.nan_steps = true;
  FakeWorker w((*d)->endpoint(), "liar", nan);
  ASSERT_TRUE((*d)->WaitForWorkers(1).ok());
  auto got = RunAll(**d, Placements(2));
  ASSERT_EQ(got.size(), 2u);
  for (const Outcome& out : got) {
    EXPECT_EQ(out.status.code(), graph::StatusCode::kInternal);
    EXPECT_NE(out.status.message().find("liar"), std::string::npos) << out.status.message();
  }
}

TEST(Dispatcher, PlacementNoWorkerAnswersFailsAfterMaxAttempts) {
  FleetOptions o = Fast();
  o.max_attempts = 2;
  auto d = Dispatcher::Bind(o, kDevices);
  ASSERT_TRUE(d.ok());
  Behaviour stalls;
  stalls.silent_after_first = true;
  FakeWorker a((*d)->endpoint(), "a", stalls), b((*d)->endpoint(), "b", stalls);
  ASSERT_TRUE((*d)->WaitForWorkers(2).ok());
  auto got = RunAll(**d, Placements(1));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status.code(), graph::StatusCode::kUnavailable);
  EXPECT_NE(got[0].status.message().find("2 fleet workers"), std::string::npos)
      << got[0].status.message();
}

TEST(Dispatcher, WorkerWithOtherDevicesIsRefusedWithTheReason) {
  FleetOptions o = Fast();
  o.register_timeout_s = 0.5;
  auto d = Dispatcher::Bind(o, kDevices);
  ASSERT_TRUE(d.ok());
  Behaviour other;
  other.devices = {{"gpu0", "sim"}, {"gpu7", "sim"}};
  FakeWorker w((*d)->endpoint(), "other", other);
  graph::Status st = (*d)->WaitForWorkers(1);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("0 of 1 workers registered"), std::string::npos) << st.message();
  EXPECT_NE(w.refused().find("gpu7"), std::string::npos) << w.refused();
  // The search's error says why, not only the log's lines before it.
  EXPECT_NE(st.message().find(" within 0.5 s (the last refused: worker other: its device 1 is "
                              "'gpu7' (sim)"),
            std::string::npos)
      << st.message();
}

TEST(Dispatcher, RunWithoutWorkersFailsEachPlacementAfterTheRegisterTimeout) {
  FleetOptions o = Fast();
  o.register_timeout_s = 0.2;
  auto d = Dispatcher::Bind(o, kDevices);
  ASSERT_TRUE(d.ok());
  auto got = RunAll(**d, Placements(3));
  ASSERT_EQ(got.size(), 3u);
  for (const Outcome& out : got) {
    EXPECT_EQ(out.status.code(), graph::StatusCode::kUnavailable);
    EXPECT_NE(out.status.message().find((*d)->endpoint()), std::string::npos);
  }
  EXPECT_EQ((*d)->counters().outcomes, 3);
  EXPECT_EQ((*d)->counters().unavailable, 3);
}

TEST(Dispatcher, WorkerWithoutAnAllowedCurveKeyGetsNothing) {
  auto server = wire::GenerateCurveKeys(), friendly = wire::GenerateCurveKeys(),
       stranger = wire::GenerateCurveKeys();
  ASSERT_TRUE(server.ok() && friendly.ok() && stranger.ok());
  FleetOptions o = Fast();
  o.register_timeout_s = 1;
  o.server_keys = *server;
  o.client_keys = {friendly->public_key};
  auto d = Dispatcher::Bind(o, kDevices);
  ASSERT_TRUE(d.ok()) << d.status().message();
  Behaviour bad;
  bad.keys = *stranger;
  bad.server_key = server->public_key;
  FakeWorker intruder((*d)->endpoint(), "intruder", bad);
  FakeWorker plain((*d)->endpoint(), "plain", {});
  EXPECT_FALSE((*d)->WaitForWorkers(1).ok());
  Behaviour good;
  good.keys = *friendly;
  good.server_key = server->public_key;
  FakeWorker member((*d)->endpoint(), "member", good);
  ASSERT_TRUE((*d)->WaitForWorkers(1).ok());
  const auto p = Placements(4);
  ExpectAnswered(RunAll(**d, p), p);
  EXPECT_EQ(member.evaluations(), 4);
  EXPECT_EQ(intruder.evaluations() + plain.evaluations(), 0);
  EXPECT_EQ((*d)->registered(), 1);
}

TEST(Dispatcher, GarbageFromAnyPeerCrashesNothingAndIsCounted) {
  auto d = Dispatcher::Bind(Fast(), kDevices);
  ASSERT_TRUE(d.ok());
  const std::string& ep = (*d)->endpoint();
  const int port = std::stoi(ep.substr(ep.rfind(':') + 1));
  std::mt19937 gen(3);
  auto random_bytes = [&](size_t n) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(gen());
    return s;
  };
  for (int i = 0; i < 20; ++i) SendRawBytes(port, random_bytes(1 + gen() % 4096));
  // A peer that speaks ZeroMQ but not our protocol.
  wire::Context ctx;
  auto rogue = wire::Socket::Connect(ctx, wire::SocketKind::kDealer, ep);
  ASSERT_TRUE(rogue.ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(rogue->Send({random_bytes(gen() % 300)}).ok());
  wire::pb::Envelope old;
  old.mutable_heartbeat();
  old.set_version(wire::kProtocolVersion + 7);
  ASSERT_TRUE(rogue->Send({old.SerializeAsString()}).ok());
  ASSERT_TRUE(rogue->Send({"three", "frames", "here"}).ok());
  wire::pb::Envelope wrong_way;
  wrong_way.mutable_evaluate()->set_request(1);
  ASSERT_TRUE(rogue->Send({wire::Encode(wrong_way)}).ok());
  wire::pb::Envelope stray;
  stray.mutable_result()->set_request(12345);
  ASSERT_TRUE(rogue->Send({wire::Encode(stray)}).ok());

  FakeWorker good(ep, "good", {});
  ASSERT_TRUE((*d)->WaitForWorkers(1).ok());
  const auto p = Placements(6);
  ExpectAnswered(RunAll(**d, p), p);
  // The rogue's connection is made in the background and may deliver after
  // the run (it failed so under load): read what comes, a run of none at a time.
  for (int i = 0; i < 100 && ((*d)->counters().late < 1 || (*d)->counters().malformed < 10); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    RunAll(**d, {});
  }
  EXPECT_GE((*d)->counters().malformed, 10);
  EXPECT_EQ((*d)->counters().late, 1);  // the stray result
  EXPECT_EQ((*d)->counters().outcomes, 6);
}

}  // namespace
}  // namespace controllers
