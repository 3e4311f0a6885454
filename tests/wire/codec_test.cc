#include "wire/codec.h"

#include <gtest/gtest.h>

#include <random>

namespace wire {
namespace {

pb::Envelope Heartbeat() {
  pb::Envelope e;
  e.mutable_heartbeat()->set_busy(true);
  return e;
}

TEST(Codec, EncodedEnvelopeDecodesWithTheVersionSet) {
  auto e = Decode(Encode(Heartbeat()));
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->version(), kProtocolVersion);
  EXPECT_TRUE(e->heartbeat().busy());
  EXPECT_STREQ(BodyName(*e), "heartbeat");
}

TEST(Codec, OversizedMessageIsRefusedBeforeParsing) {
  const std::string bytes = Encode(Heartbeat());
  auto e = Decode(bytes, bytes.size() - 1);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("over the limit"), std::string::npos);
}

TEST(Codec, OtherProtocolVersionIsRefusedNamingBoth) {
  pb::Envelope e = Heartbeat();
  e.set_version(kProtocolVersion + 1);
  auto d = Decode(e.SerializeAsString());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("version " + std::to_string(kProtocolVersion + 1)),
            std::string::npos);
}

TEST(Codec, EnvelopeWithoutBodyIsRefused) {
  pb::Envelope e;
  auto d = Decode(Encode(e));
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("no body"), std::string::npos);
}

TEST(Codec, RandomBytesNeverCrashAndRarelyPass) {
  std::mt19937 gen(7);
  int refused = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string bytes(gen() % 200, '\0');
    for (char& c : bytes) c = static_cast<char>(gen());
    auto d = Decode(bytes, 150);
    if (!d.ok()) {
      ++refused;
      EXPECT_EQ(d.status().message().find('\n'), std::string::npos);
    }
  }
  EXPECT_GT(refused, 4900);
}

// Every cut short is refused in one line: the body is one length-delimited
// field after the version, so a prefix ends inside it or before it. The empty
// frame was said to speak "protocol version 0".
TEST(Codec, EveryTruncatedMessageIsRefusedInOneLine) {
  pb::Envelope e;
  e.mutable_evaluate()->set_request(9);
  e.mutable_evaluate()->set_model_digest("0123456789abcdef");
  for (int i = 0; i < 100; ++i) e.mutable_evaluate()->add_device(i % 3);
  const std::string bytes = Encode(e);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto d = Decode(bytes.substr(0, n));
    ASSERT_FALSE(d.ok()) << n << " of " << bytes.size() << " bytes decoded";
    EXPECT_EQ(d.status().message().find('\n'), std::string::npos) << d.status().message();
    EXPECT_EQ(d.status().message().find("protocol version 0"), std::string::npos)
        << d.status().message();
  }
  EXPECT_EQ(Decode("").status().message(),
            "message of 0 bytes is not a fleet envelope (it has no protocol version)");
  auto whole = Decode(bytes);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  EXPECT_EQ(whole->evaluate().request(), 9u);
  EXPECT_EQ(whole->evaluate().device_size(), 100);
}

}  // namespace
}  // namespace wire
