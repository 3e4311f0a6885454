// controllers/ps.h's server over its socket: garbage on its port crashes
// nothing, and a controller that joins afterwards is served.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>
#include <random>
#include <thread>

#include "controllers/ps.h"
#include "graph/file_util.h"
#include "tests/processes.h"
#include "tests/scratch_dir.h"
#include "wire/codec.h"
#include "wire/socket.h"

namespace controllers {
namespace {

using planner::testing::FreePort;
using planner::testing::SendRawBytes;

TEST(PsServer, GarbageOnItsPortCrashesNothingAndAJoinIsServed) {
  const int port = FreePort();
  PsOptions o;
  o.bind = "tcp://127.0.0.1:" + std::to_string(port);
  volatile std::sig_atomic_t stop = 0;
  graph::Status served = graph::Status::Ok();
  std::thread server([&] { served = ServeParameters(o, &stop); });
  std::mt19937 gen(9);
  auto random_bytes = [&](size_t n) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(gen());
    return s;
  };
  wire::Context ctx;
  auto client = wire::Socket::Connect(ctx, wire::SocketKind::kDealer, o.bind);
  ASSERT_TRUE(client.ok());
  for (int i = 0; i < 20; ++i) {
    SendRawBytes(port, random_bytes(1 + gen() % 4096));
    ASSERT_TRUE(client->Send({random_bytes(gen() % 500)}).ok());
  }
  wire::pb::Envelope push;  // a push before any join: refused, not applied
  push.mutable_push()->set_sequence(3);
  ASSERT_TRUE(client->Send({wire::Encode(push)}).ok());
  wire::pb::Envelope join;
  join.mutable_join()->set_identity("test");
  join.mutable_join()->set_optimizer("sgd");
  join.mutable_join()->set_sequence(4);
  wire::pb::Tensor* t = join.mutable_join()->add_parameters();
  t->set_name("w");
  t->add_shape(1);
  t->add_values(2.5f);
  ASSERT_TRUE(client->Send({wire::Encode(join)}).ok());
  bool refused = false, joined = false;
  for (int i = 0; i < 50 && !joined; ++i) {
    auto got = client->Receive(100);
    ASSERT_TRUE(got.ok());
    if (!*got) continue;
    auto e = wire::Decode((**got)[0]);
    ASSERT_TRUE(e.ok());
    if (e->has_refuse() && e->refuse().sequence() == 3) {
      refused = true;
      EXPECT_EQ(e->refuse().code(), static_cast<int>(graph::StatusCode::kNotFound));
    }
    if (e->has_parameters() && e->parameters().sequence() == 4) {
      joined = true;
      EXPECT_EQ(e->parameters().parameters(0).values(0), 2.5f);
    }
  }
  EXPECT_TRUE(refused);
  EXPECT_TRUE(joined);
  stop = 1;
  server.join();
  EXPECT_TRUE(served.ok()) << served.message();
}

// Any peer on the port could push to (or read) the policy without joining:
// a stray one poisoned every search's parameters.
TEST(PsServer, OnlyAPeerThatJoinedMayPushOrPull) {
  const int port = FreePort();
  PsOptions o;
  o.bind = "tcp://127.0.0.1:" + std::to_string(port);
  volatile std::sig_atomic_t stop = 0;
  std::thread server([&] { (void)ServeParameters(o, &stop); });
  wire::Context ctx;
  auto member = wire::Socket::Connect(ctx, wire::SocketKind::kDealer, o.bind);
  auto stranger = wire::Socket::Connect(ctx, wire::SocketKind::kDealer, o.bind);
  ASSERT_TRUE(member.ok() && stranger.ok());
  // The answer to the message with `sequence`, from `socket`.
  auto answer = [](wire::Socket& socket, uint64_t sequence) -> std::optional<wire::pb::Envelope> {
    for (int i = 0; i < 50; ++i) {
      auto got = socket.Receive(100);
      if (!got.ok() || !*got) continue;
      auto e = wire::Decode((**got)[0]);
      if (!e.ok()) continue;
      if ((e->has_refuse() && e->refuse().sequence() == sequence) ||
          (e->has_parameters() && e->parameters().sequence() == sequence)) {
        return *e;
      }
    }
    return std::nullopt;
  };
  wire::pb::Envelope join;
  join.mutable_join()->set_identity("test");
  join.mutable_join()->set_optimizer("sgd");
  join.mutable_join()->set_sequence(1);
  wire::pb::Tensor* t = join.mutable_join()->add_parameters();
  t->set_name("w");
  t->add_shape(1);
  t->add_values(2.5f);
  ASSERT_TRUE(member->Send({wire::Encode(join)}).ok());
  ASSERT_TRUE(answer(*member, 1).has_value());
  wire::pb::Envelope push;
  push.mutable_push()->set_sequence(2);
  push.mutable_push()->set_learning_rate(1);
  wire::pb::Tensor* g = push.mutable_push()->add_gradient();
  g->set_name("w");
  g->add_shape(1);
  g->add_values(1000.f);
  wire::pb::Envelope pull;
  pull.mutable_pull()->set_sequence(3);
  for (const wire::pb::Envelope* e : {&push, &pull}) {
    ASSERT_TRUE(stranger->Send({wire::Encode(*e)}).ok());
    const uint64_t sequence = e->has_push() ? 2 : 3;
    auto refused = answer(*stranger, sequence);
    ASSERT_TRUE(refused && refused->has_refuse()) << sequence;
    EXPECT_EQ(refused->refuse().code(), static_cast<int>(graph::StatusCode::kNotFound));
    EXPECT_NE(refused->refuse().reason().find("has not joined this server: join first"),
              std::string::npos)
        << refused->refuse().reason();
  }
  wire::pb::Envelope member_pull = pull;
  member_pull.mutable_pull()->set_sequence(4);
  ASSERT_TRUE(member->Send({wire::Encode(member_pull)}).ok());
  auto held = answer(*member, 4);
  ASSERT_TRUE(held && held->has_parameters());
  EXPECT_EQ(held->parameters().parameters(0).values(0), 2.5f) << "the stranger's push was applied";
  stop = 1;
  server.join();
}

TEST(PsServer, BindingOffThisHostWithoutKeysIsRefused) {
  PsOptions o;
  o.bind = "tcp://0.0.0.0:5998";
  volatile std::sig_atomic_t stop = 1;
  EXPECT_EQ(ServeParameters(o, &stop).message(),
            "--bind tcp://0.0.0.0:5998 is not on this host: a parameter server on a network needs "
            "--key and --client-key (CURVE; planner fleet keygen)");
  // Not an endpoint at all: said so, not "not on this host".
  o.bind = "foo";
  EXPECT_EQ(ServeParameters(o, &stop).message(),
            "--bind foo is not an endpoint (tcp://127.0.0.1:PORT, ipc://PATH)");
}

TEST(PsServer, KeysComeInPairsAndABadKeyFileIsNamed) {
  PsOptions o;
  o.bind = "tcp://0.0.0.0:5998";
  volatile std::sig_atomic_t stop = 1;
  o.key_file = "ps.key";
  EXPECT_EQ(ServeParameters(o, &stop).message(),
            "--key needs --client-key (the public key of each controller it lets in)");
  o.key_file.clear();
  o.client_key_files = {"c.pub"};
  EXPECT_EQ(ServeParameters(o, &stop).message(),
            "--client-key needs --key (the server's key pair)");
  const std::string dir = planner_test::ScratchDir();
  const wire::CurveKeys keys = *wire::GenerateCurveKeys();
  ASSERT_TRUE(graph::WriteFileAtomic(dir + "/ps.key", wire::KeyFileText(keys, true)).ok());
  ASSERT_TRUE(graph::WriteFileAtomic(dir + "/ps.pub", wire::KeyFileText(keys, false)).ok());
  o.key_file = dir + "/ps.pub";  // a public key where the pair belongs
  o.client_key_files = {dir + "/ps.pub"};
  graph::Status st = ServeParameters(o, &stop);
  EXPECT_NE(st.message().find(dir + "/ps.pub: no valid 'secret:' key"), std::string::npos)
      << st.message();
  o.key_file = dir + "/ps.key";
  o.client_key_files = {dir + "/ps.pub", dir + "/missing.pub"};
  st = ServeParameters(o, &stop);
  EXPECT_NE(st.message().find(dir + "/missing.pub"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace controllers
