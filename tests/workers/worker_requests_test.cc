// A real `planner worker` process answering a controller played by the test
// over a ROUTER socket on loopback: requests whose numbers no controller of
// ours sends are refused in the result, and the worker goes on serving.
#include <gtest/gtest.h>

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

TEST(WorkerRequests, ANegativeWarmupOrEndlessStepsAreRefusedAndTheWorkerServesOn) {
  wire::Context ctx;
  auto router = wire::Socket::Bind(ctx, wire::SocketKind::kRouter, "tcp://127.0.0.1:*", {});
  ASSERT_TRUE(router.ok()) << router.status().message();
  Processes p;
  const pid_t w = p.Start(std::string(PLANNER_BIN) + " worker --devices " + Config("local-2cpu") +
                              " --connect " + router->endpoint() + " --name probe",
                          planner_test::ScratchDir() + "/worker_requests.log");
  std::string peer;
  ASSERT_TRUE(Next(*router, wire::pb::Envelope::kHello, &peer, 30)) << "no Hello";
  wire::pb::Envelope welcome;
  welcome.mutable_welcome()->set_heartbeat_ms(100);
  ASSERT_TRUE(router->Send({peer, wire::Encode(welcome)}).ok());

  auto built = graph::BuildTwoBranch({4, {16, 16}, 1});
  ASSERT_TRUE(built.ok()) << built.status().message();
  const graph::Graph& model = *built;
  const wire::WireModel wired(model, {}, {});
  uint64_t request = 0;
  // warm-up, timed steps -> whether the worker should measure
  const std::vector<std::tuple<int, int, bool>> asks = {
      {-5, 1, false}, {2, INT_MAX, false}, {2, 0, false}, {1, 1, true}};
  for (const auto& [warmup, steps, served] : asks) {
    wire::pb::Envelope e;
    wire::pb::Evaluate& ev = *e.mutable_evaluate();
    ev.set_request(++request);
    ev.set_model_digest(wired.digest());
    *ev.mutable_model() = wired.message();
    for (int i = 0; i < model.size(); ++i) ev.add_device(i % 2);
    ev.set_mode(wire::pb::REAL);
    ev.set_warmup(warmup);
    ev.set_steps(steps);
    ASSERT_TRUE(router->Send({peer, wire::Encode(e)}).ok());
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

}  // namespace
}  // namespace planner::testing
