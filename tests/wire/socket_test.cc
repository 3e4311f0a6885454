#include "wire/socket.h"

#include <gtest/gtest.h>

namespace wire {
namespace {

TEST(Socket, RouterAndDealerExchangeMessagesByRoutingId) {
  Context ctx;
  auto router = Socket::Bind(ctx, SocketKind::kRouter, "inproc://router-dealer");
  ASSERT_TRUE(router.ok()) << router.status().message();
  SocketOptions o;
  o.routing_id = "w1";
  auto dealer = Socket::Connect(ctx, SocketKind::kDealer, "inproc://router-dealer", o);
  ASSERT_TRUE(dealer.ok()) << dealer.status().message();
  ASSERT_TRUE(dealer->Send({"ping"}).ok());
  auto got = router->Receive(2000);
  ASSERT_TRUE(got.ok() && *got);
  ASSERT_EQ((*got)->size(), 2u);
  EXPECT_EQ((**got)[0], "w1");
  EXPECT_EQ((**got)[1], "ping");
  ASSERT_TRUE(router->Send({"w1", "pong"}).ok());
  auto back = dealer->Receive(2000);
  ASSERT_TRUE(back.ok() && *back);
  EXPECT_EQ((**back)[0], "pong");
}

TEST(Socket, SendingToAnUnknownPeerIsUnavailable) {
  Context ctx;
  auto router = Socket::Bind(ctx, SocketKind::kRouter, "inproc://unknown-peer");
  ASSERT_TRUE(router.ok());
  graph::Status st = router->Send({"nobody", "hello"});
  EXPECT_EQ(st.code(), graph::StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("inproc://unknown-peer"), std::string::npos);
}

TEST(Socket, ReceiveTimesOutWithNothing) {
  Context ctx;
  auto router = Socket::Bind(ctx, SocketKind::kRouter, "inproc://quiet");
  ASSERT_TRUE(router.ok());
  auto got = router->Receive(10);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(*got);
}

TEST(Socket, BindingABadEndpointNamesIt) {
  Context ctx;
  auto s = Socket::Bind(ctx, SocketKind::kRouter, "tcp://256.1.1.1:1");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("tcp://256.1.1.1:1"), std::string::npos);
}

TEST(Socket, WildcardPortResolvesToTheBoundOne) {
  Context ctx;
  auto s = Socket::Bind(ctx, SocketKind::kRouter, "tcp://127.0.0.1:*");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->endpoint().find('*'), std::string::npos);
  EXPECT_EQ(s->endpoint().rfind("tcp://127.0.0.1:", 0), 0u);
}

TEST(Socket, OversizedMessageNeverArrives) {
  Context ctx;
  SocketOptions small;
  small.max_message_bytes = 100;
  auto router = Socket::Bind(ctx, SocketKind::kRouter, "tcp://127.0.0.1:*", small);
  ASSERT_TRUE(router.ok());
  auto dealer = Socket::Connect(ctx, SocketKind::kDealer, router->endpoint());
  ASSERT_TRUE(dealer.ok());
  ASSERT_TRUE(dealer->Send({std::string(1000, 'x')}).ok());
  auto got = router->Receive(300);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(*got);
}

TEST(Socket, PrintableIdShowsBinaryIdsInHex) {
  EXPECT_EQ(PrintableId("w1/42"), "w1/42");
  EXPECT_EQ(PrintableId(std::string("\x00\x01\xff", 3)), "0x0001ff");
}

}  // namespace
}  // namespace wire
