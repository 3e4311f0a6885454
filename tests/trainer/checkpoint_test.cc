#include "trainer/checkpoint.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "graph/digest.h"
#include "graph/file_util.h"
#include "tests/scratch_dir.h"

namespace trainer {
namespace {

using State = std::vector<std::pair<std::string, at::Tensor>>;

State MakeState(float v) {
  return {{"conv1/kernel", at::full({5, 5, 1, 6}, v)},
          {"train/conv1/kernel/Momentum", at::full({3}, -v)}};
}

std::string Dir() { return planner_test::ScratchDir(); }

TEST(CheckpointTest, RoundTripRestoresPositionAndTensorsInPlace) {
  std::string path = CheckpointPath(Dir(), 3);
  EXPECT_NE(path.find("rank-3.ckpt"), std::string::npos);
  ASSERT_TRUE(WriteCheckpoint(path, {1234, 2}, MakeState(1.5f)).ok());
  State s = MakeState(0);
  at::Tensor live = s[0].second;
  auto at = ReadCheckpoint(path, s);
  ASSERT_TRUE(at.ok()) << at.status().message();
  EXPECT_EQ(at->step, 1234);
  EXPECT_EQ(at->epoch, 2);
  EXPECT_EQ(live.min().item<float>(), 1.5f);  // the same tensor, written in place
  EXPECT_EQ(s[1].second.max().item<float>(), -1.5f);
}

TEST(CheckpointTest, TheBatchAndTheRanksAreKeptAndAVersionOneFileHasNone) {
  std::string path = Dir() + "/v2.ckpt";
  ASSERT_TRUE(WriteCheckpoint(path, {7, 1, 32, 4}, MakeState(1)).ok());
  State s = MakeState(0);
  auto at = ReadCheckpoint(path, s);
  ASSERT_TRUE(at.ok()) << at.status().message();
  EXPECT_EQ(at->batch, 32);
  EXPECT_EQ(at->world, 4);
  // Version 1, as written before 2026-11-30: no batch, no world.
  std::string v1 = "planner-trainer-checkpoint 1\n";
  auto put = [&](int64_t v) { v1.append(reinterpret_cast<const char*>(&v), 8); };
  put(7);
  put(1);
  put(2);
  for (const auto& [name, t] : MakeState(3)) {
    put(static_cast<int64_t>(name.size()));
    v1 += name;
    put(t.numel());
    v1.append(reinterpret_cast<const char*>(t.contiguous().data_ptr<float>()), t.numel() * 4);
  }
  v1 += graph::Fnv1a64Hex(v1);
  ASSERT_TRUE(graph::WriteFileAtomic(path, v1).ok());
  at = ReadCheckpoint(path, s);
  ASSERT_TRUE(at.ok()) << at.status().message();
  EXPECT_EQ(at->step, 7);
  EXPECT_EQ(at->batch, 0);
  EXPECT_EQ(s[0].second.max().item<float>(), 3);
}

TEST(CheckpointTest, CorruptOrTruncatedFilesAreRefusedAndChangeNothing) {
  std::string path = Dir() + "/corrupt.ckpt";
  ASSERT_TRUE(WriteCheckpoint(path, {10, 0}, MakeState(2)).ok());
  auto bytes = graph::ReadFile(path);
  ASSERT_TRUE(bytes.ok());
  std::string flipped = *bytes;
  flipped[flipped.size() / 2] ^= 0x40;
  std::string truncated = bytes->substr(0, bytes->size() - 40);
  for (const std::string& content : {flipped, truncated, std::string("hello")}) {
    ASSERT_TRUE(graph::WriteFileAtomic(path, content).ok());
    State s = MakeState(0);
    auto at = ReadCheckpoint(path, s);
    ASSERT_FALSE(at.ok());
    EXPECT_NE(at.status().message().find(path), std::string::npos) << at.status().message();
    EXPECT_EQ(s[0].second.abs().max().item<float>(), 0);
  }
}

TEST(CheckpointTest, ACheckpointOfAnotherModelNamesTheMismatch) {
  std::string path = Dir() + "/other.ckpt";
  ASSERT_TRUE(WriteCheckpoint(path, {1, 0}, MakeState(1)).ok());
  State bigger = MakeState(0);
  bigger[1].second = at::zeros({4});
  auto a = ReadCheckpoint(path, bigger);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("'train/conv1/kernel/Momentum' has 3 elements"),
            std::string::npos)
      << a.status().message();
  State extra = MakeState(0);
  extra.push_back({"fc1/bias", at::zeros({2})});
  auto b = ReadCheckpoint(path, extra);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("'fc1/bias' is missing"), std::string::npos);
  State fewer = MakeState(0);
  fewer.pop_back();
  auto c = ReadCheckpoint(path, fewer);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("which this model has not"), std::string::npos);
}

TEST(CheckpointTest, AMissingCheckpointIsAnErrorNamingTheFile) {
  State s = MakeState(0);
  auto at = ReadCheckpoint(Dir() + "/nowhere/rank-0.ckpt", s);
  ASSERT_FALSE(at.ok());
  EXPECT_NE(at.status().message().find("nowhere/rank-0.ckpt"), std::string::npos);
}

}  // namespace
}  // namespace trainer
