#include "controllers/fleet_config.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "graph/file_util.h"

namespace controllers {
namespace {

TEST(FleetConfig, EmptyFileGivesTheDefaults) {
  auto o = ParseFleetYaml("", "fleet.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->bind, "tcp://127.0.0.1:5555");
  EXPECT_EQ(o->mode, "sim");
  EXPECT_EQ(o->workers, 1);
  EXPECT_EQ(o->max_attempts, 3);
}

TEST(FleetConfig, EveryKeyIsRead) {
  auto o = ParseFleetYaml(
      "bind: ipc:///tmp/fleet\nmode: real\nworkers: 4\nregister_timeout_s: 9\n"
      "heartbeat_ms: 250\nsilence_s: 1.5\nevaluation_s: 60\nmax_attempts: 5\n"
      "max_message_mb: 64\n",
      "fleet.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->bind, "ipc:///tmp/fleet");
  EXPECT_EQ(o->mode, "real");
  EXPECT_EQ(o->workers, 4);
  EXPECT_DOUBLE_EQ(o->register_timeout_s, 9);
  EXPECT_EQ(o->heartbeat_ms, 250);
  EXPECT_DOUBLE_EQ(o->silence_s, 1.5);
  EXPECT_DOUBLE_EQ(o->evaluation_s, 60);
  EXPECT_EQ(o->max_attempts, 5);
  EXPECT_EQ(o->max_message_mb, 64);
}

TEST(FleetConfig, UnknownKeyIsAnErrorNamingFileAndLine) {
  auto o = ParseFleetYaml("workers: 2\nworkerz: 3\n", "fleet.yaml");
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("fleet.yaml:2: 'workerz'"), std::string::npos);
}

TEST(FleetConfig, OutOfRangeOrFractionalCountsAreErrors) {
  EXPECT_FALSE(ParseFleetYaml("workers: 0\n", "f").ok());
  EXPECT_FALSE(ParseFleetYaml("workers: 1.5\n", "f").ok());
  EXPECT_FALSE(ParseFleetYaml("silence_s: -1\n", "f").ok());
  EXPECT_FALSE(ParseFleetYaml("heartbeat_ms: many\n", "f").ok());
}

TEST(FleetConfig, WorkersToConnectToAreListedAndMustBeLocalWithoutKeys) {
  auto o = ParseFleetYaml("connect: [tcp://127.0.0.1:6001, ipc:///tmp/w2]\n", "f");
  ASSERT_TRUE(o.ok()) << o.status().message();
  ASSERT_EQ(o->connect.size(), 2u);
  EXPECT_EQ(o->connect[1], "ipc:///tmp/w2");
  auto remote = ParseFleetYaml("connect: [tcp://10.0.0.7:6001]\n", "f");
  ASSERT_FALSE(remote.ok());
  EXPECT_NE(remote.status().message().find("10.0.0.7"), std::string::npos);
  EXPECT_FALSE(ParseFleetYaml("connect: tcp://127.0.0.1:6001\n", "f").ok());
}

TEST(FleetConfig, SilenceShorterThanTwoHeartbeatsIsRefused) {
  auto o = ParseFleetYaml("heartbeat_ms: 5000\n", "f");  // silence_s defaults to 3
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("two heartbeats"), std::string::npos);
  EXPECT_TRUE(ParseFleetYaml("heartbeat_ms: 5000\nsilence_s: 10\n", "f").ok());
}

TEST(FleetConfig, UnknownModeIsAnError) {
  auto o = ParseFleetYaml("mode: remote\n", "f");
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("sim or real"), std::string::npos);
}

TEST(FleetConfig, CurveKeysAreReadRelativeToTheFleetFile) {
  const std::string dir = ::testing::TempDir() + "/fleet_keys";
  std::filesystem::create_directories(dir);
  auto server = wire::GenerateCurveKeys(), worker = wire::GenerateCurveKeys();
  ASSERT_TRUE(server.ok() && worker.ok());
  ASSERT_TRUE(graph::WriteFileAtomic(dir + "/c.key", wire::KeyFileText(*server, true)).ok());
  ASSERT_TRUE(graph::WriteFileAtomic(dir + "/w.pub", wire::KeyFileText(*worker, false)).ok());
  auto o = ParseFleetYaml("bind: tcp://0.0.0.0:5555\nserver_key: c.key\nclient_keys: [w.pub]\n",
                          dir + "/fleet.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->server_keys->secret_key, server->secret_key);
  ASSERT_EQ(o->client_keys.size(), 1u);
  EXPECT_EQ(o->client_keys[0], worker->public_key);
  EXPECT_FALSE(ParseFleetYaml("server_key: c.key\n", dir + "/fleet.yaml").ok());
  EXPECT_FALSE(
      ParseFleetYaml("client_keys: [c.key, missing.pub]\nserver_key: c.key\n", dir + "/fleet.yaml")
          .ok());
}

TEST(FleetConfig, BindOffThisHostIsRefusedWithoutKeys) {
  auto o = ParseFleetYaml("bind: tcp://0.0.0.0:5555\n", "fleet.yaml");
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("CURVE"), std::string::npos);
}

TEST(FleetConfig, MalformedYamlIsAnErrorNamingTheFile) {
  auto o = ParseFleetYaml("workers: [1, 2\n", "fleet.yaml");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message().rfind("fleet.yaml:", 0), 0u);
}

TEST(FleetConfig, ShippedExampleParses) {
  auto o = ReadFleetFile(std::string(PLANNER_CONFIGS_DIR) + "/fleet.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->workers, 2);
}

TEST(FleetConfig, MissingFileIsAnError) {
  EXPECT_FALSE(ReadFleetFile("/nonexistent/fleet.yaml").ok());
}

}  // namespace
}  // namespace controllers
