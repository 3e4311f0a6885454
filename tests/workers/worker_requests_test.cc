// A real `planner worker` process answering a controller played by the test
// over a ROUTER socket on loopback: requests whose numbers no controller of
// ours sends are refused in the result, and the worker goes on serving; the
// host's measurement lock neither holds a stopped worker nor fails silently.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <optional>
#include <string>
#include <tuple>

#include "graph/models.h"
#include "processes.h"
#include "tests/cli/cli_util.h"
#include "wire/codec.h"
#include "wire/model.h"
#include "wire/socket.h"

namespace planner::testing {
namespace {

using Clock = std::chrono::steady_clock;

// The next message of `kind` from the worker, skipping heartbeats; nullopt
// after `seconds`.
std::optional<wire::pb::Envelope> Next(wire::Socket& s, wire::pb::Envelope::BodyCase kind,
                                       std::string* peer, double seconds) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    auto got = s.Receive(100);
    if (!got.ok() || !*got || (**got).size() < 2) continue;
    auto e = wire::Decode((**got)[1]);
    if (!e.ok() || e->body_case() != kind) continue;
    *peer = (**got)[0];
    return *e;
  }
  return std::nullopt;
}

// A worker started with `flags`, registered with the test's ROUTER at `router`;
// its routing id in `peer`.
pid_t StartRegistered(Processes& p, wire::Socket& router, const std::string& flags,
                      const std::string& log, std::string* peer) {
  const pid_t w = p.Start(std::string(PLANNER_BIN) + " worker --devices " + Config("local-2cpu") +
                              " --connect " + router.endpoint() + " --name probe " + flags,
                          planner_test::ScratchDir() + "/" + log);
  if (!Next(router, wire::pb::Envelope::kHello, peer, 30)) return -1;
  wire::pb::Envelope welcome;
  welcome.mutable_welcome()->set_heartbeat_ms(100);
  if (!router.Send({*peer, wire::Encode(welcome)}).ok()) return -1;
  return w;
}

// A `real` Evaluate of `model` with device i % 2 for op i.
wire::pb::Envelope RealRequest(const graph::Graph& model, const wire::WireModel& wired,
                               uint64_t request, int warmup, int steps) {
  wire::pb::Envelope e;
  wire::pb::Evaluate& ev = *e.mutable_evaluate();
  ev.set_request(request);
  ev.set_model_digest(wired.digest());
  *ev.mutable_model() = wired.message();
  for (int i = 0; i < model.size(); ++i) ev.add_device(i % 2);
  ev.set_mode(wire::pb::REAL);
  ev.set_warmup(warmup);
  ev.set_steps(steps);
  return e;
}

TEST(WorkerRequests, ANegativeWarmupOrEndlessStepsAreRefusedAndTheWorkerServesOn) {
  wire::Context ctx;
  auto router = wire::Socket::Bind(ctx, wire::SocketKind::kRouter, "tcp://127.0.0.1:*", {});
  ASSERT_TRUE(router.ok()) << router.status().message();
  Processes p;
  std::string peer;
  // Its own measurement lock: not the host's, which a worker of another test
  // run alongside may hold.
  const pid_t w =
      StartRegistered(p, *router, "--measure-lock " + planner_test::ScratchDir() + "/measure.lock",
                      "worker_requests.log", &peer);
  ASSERT_NE(w, -1) << "no Hello";

  auto built = graph::BuildTwoBranch({4, {16, 16}, 1});
  ASSERT_TRUE(built.ok()) << built.status().message();
  const graph::Graph& model = *built;
  const wire::WireModel wired(model, {}, {});
  uint64_t request = 0;
  // warm-up, timed steps -> whether the worker should measure
  const std::vector<std::tuple<int, int, bool>> asks = {
      {-5, 1, false}, {2, INT_MAX, false}, {2, 0, false}, {1, 1, true}};
  for (const auto& [warmup, steps, served] : asks) {
    ASSERT_TRUE(
        router->Send({peer, wire::Encode(RealRequest(model, wired, ++request, warmup, steps))})
            .ok());
    auto result = Next(*router, wire::pb::Envelope::kResult, &peer, 60);
    ASSERT_TRUE(result) << "no result for warm-up " << warmup << ", steps " << steps;
    EXPECT_EQ(result->result().request(), request);
    if (served) {
      EXPECT_EQ(result->result().code(), 0) << result->result().message();
      EXPECT_GT(result->result().step_s(), 0);
    } else {
      EXPECT_NE(result->result().code(), 0) << warmup << ", " << steps;
      EXPECT_NE(
          result->result().message().find("request asks " + std::to_string(warmup) +
                                          " warm-up and " + std::to_string(steps) + " timed steps"),
          std::string::npos)
          << result->result().message();
    }
  }
  p.Signal(w, SIGTERM);
  EXPECT_EQ(p.Wait(w, 10), 128 + SIGTERM);
}

// A worker started with --measure-lock lock_path_, registered with the test's
// ROUTER and sent one `real` request (StartAndRequest); Result waits for its
// answer.
class WorkerMeasurementLock : public ::testing::Test {
 protected:
  void StartAndRequest(const std::string& log) {
    auto bound = wire::Socket::Bind(ctx_, wire::SocketKind::kRouter, "tcp://127.0.0.1:*", {});
    ASSERT_TRUE(bound.ok()) << bound.status().message();
    router_.emplace(std::move(*bound));
    worker_ = StartRegistered(p_, *router_, "--measure-lock " + lock_path_, log, &peer_);
    ASSERT_NE(worker_, -1) << "no Hello";
    auto built = graph::BuildTwoBranch({4, {16, 16}, 1});
    ASSERT_TRUE(built.ok()) << built.status().message();
    const wire::WireModel wired(*built, {}, {});
    ASSERT_TRUE(router_->Send({peer_, wire::Encode(RealRequest(*built, wired, 1, 1, 1))}).ok());
  }
  std::optional<wire::pb::Envelope> Result(double seconds) {
    return Next(*router_, wire::pb::Envelope::kResult, &peer_, seconds);
  }
  int Stop() {
    p_.Signal(worker_, SIGTERM);
    return p_.Wait(worker_, 10);
  }

  std::string lock_path_ = planner_test::ScratchDir() + "/held-measure.lock";
  wire::Context ctx_;
  std::optional<wire::Socket> router_;
  Processes p_;
  std::string peer_;
  pid_t worker_ = -1;
};

// Another process holding the host's measurement lock kept a stopped worker
// waiting for it without end (a blocking flock).
TEST_F(WorkerMeasurementLock, AStoppedWorkerWaitingForItAnswersAndGoes) {
  const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT, 0666);
  ASSERT_GE(fd, 0) << lock_path_;
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);  // the other worker, measuring
  StartAndRequest("worker_lock_wait.log");
  EXPECT_FALSE(Result(1.5)) << "measured while another process held the lock";
  p_.Signal(worker_, SIGTERM);
  auto result = Result(10);
  ASSERT_TRUE(result) << "no result after the stop";
  EXPECT_EQ(result->result().code(), static_cast<int>(graph::StatusCode::kUnavailable));
  EXPECT_NE(result->result().message().find("held the measurement lock " + lock_path_),
            std::string::npos)
      << result->result().message();
  EXPECT_EQ(p_.Wait(worker_, 10), 128 + SIGTERM);
  ::close(fd);
}

TEST_F(WorkerMeasurementLock, OneThatCannotBeOpenedFailsTheMeasurementNamingIt) {
  lock_path_ = planner_test::ScratchDir() + "/no-such-dir/measure.lock";
  StartAndRequest("worker_lock_open.log");
  auto result = Result(30);
  ASSERT_TRUE(result) << "no result";
  EXPECT_EQ(result->result().code(), static_cast<int>(graph::StatusCode::kIoError));
  EXPECT_NE(result->result().message().find("cannot open the measurement lock " + lock_path_ +
                                            ": No such file or directory"),
            std::string::npos)
      << result->result().message();
  EXPECT_EQ(Stop(), 128 + SIGTERM);
}

}  // namespace
}  // namespace planner::testing
