#include "trainer/strategy.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <mutex>
#include <string>

#include "lenet.h"
#include "ranks.h"

namespace trainer {
namespace {

using testing::LenetBatch;
using testing::LenetReplica;
using testing::RunRanks;

// One sync step on the rank's half of 16 examples, with small buckets so that
// several all-reduces overlap the backward pass.
void SyncStep(ProcessGroup& pg, Replica* replica, std::vector<at::Tensor>* gradients) {
  StrategyOptions o;
  o.buckets = {8 * 1024, 32 * 1024, true};
  auto s = MakeStrategy(o, &pg, replica);
  ASSERT_TRUE(s.ok());
  s.value()->Start();
  ASSERT_TRUE(replica
                  ->Compute(
                      LenetBatch(8 * pg.rank(), 8),
                      [&](int p, const at::Tensor& g) { s.value()->OnGradient(p, g); }, gradients,
                      nullptr, nullptr)
                  .ok());
  CommTimes t;
  ASSERT_TRUE(s.value()->Reduce(ProcessGroup::Now(), gradients, &t).ok());
  EXPECT_GT(t.buckets, 1);
  ASSERT_TRUE(replica->Update(*gradients).ok());
}

TEST(StrategyTest, TwoRankSyncStepEqualsOneRankStepOnTheConcatenatedBatch) {
  auto one = LenetReplica(16);
  std::vector<at::Tensor> want;
  ASSERT_TRUE(one->Compute(LenetBatch(0, 16), nullptr, &want, nullptr, nullptr).ok());
  ASSERT_TRUE(one->Update(want).ok());
  std::mutex mu;
  std::vector<std::vector<at::Tensor>> got(2), params(2);
  RunRanks(2, [&](ProcessGroup& pg) {
    auto replica = LenetReplica(8);
    std::vector<at::Tensor> g;
    SyncStep(pg, replica.get(), &g);
    std::lock_guard<std::mutex> l(mu);
    for (auto& t : g) got[pg.rank()].push_back(t.clone());
    for (int i = 0; i < replica->num_parameters(); ++i) {
      params[pg.rank()].push_back(replica->parameter(i).clone());
    }
  });
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(got[r].size(), want.size());
    for (size_t p = 0; p < want.size(); ++p) {
      EXPECT_TRUE(at::allclose(got[r][p], want[p], 1e-4, 1e-6))
          << "rank " << r << " gradient " << p;
      EXPECT_TRUE(at::allclose(params[r][p], one->parameter(p), 1e-5, 1e-7))
          << "rank " << r << " parameter " << p;
    }
  }
}

// async with one compute group is synchronous SGD: one step on two ranks equals
// one rank's step on the concatenated batch.
TEST(StrategyTest, AsyncWithOneGroupIsSynchronous) {
  auto one = LenetReplica(16);
  std::vector<at::Tensor> g;
  ASSERT_TRUE(one->Compute(LenetBatch(0, 16), nullptr, &g, nullptr, nullptr).ok());
  ASSERT_TRUE(one->Update(g).ok());
  std::mutex mu;
  std::vector<at::Tensor> after(2);
  RunRanks(2, [&](ProcessGroup& pg) {
    auto replica = LenetReplica(8);
    StrategyOptions o;
    o.name = "async";
    o.groups = 1;
    auto s = MakeStrategy(o, &pg, replica.get());
    ASSERT_TRUE(s.ok()) << s.status().message();
    std::vector<at::Tensor> grads;
    s.value()->Start();
    ASSERT_TRUE(replica
                    ->Compute(
                        LenetBatch(8 * pg.rank(), 8),
                        [&](int p, const at::Tensor& t) { s.value()->OnGradient(p, t); }, &grads,
                        nullptr, nullptr)
                    .ok());
    ASSERT_TRUE(s.value()->Reduce(ProcessGroup::Now(), &grads, nullptr).ok());
    ASSERT_TRUE(replica->Update(grads).ok());
    ASSERT_TRUE(s.value()->AfterUpdate(0, nullptr).ok());
    ASSERT_TRUE(s.value()->Finish().ok());
    std::lock_guard<std::mutex> l(mu);
    after[pg.rank()] = FlattenParameters(*replica);
  });
  EXPECT_TRUE(at::allclose(after[0], FlattenParameters(*one), 1e-5, 1e-7));
  EXPECT_TRUE(at::allclose(after[1], after[0]));
}

// Fully asynchronous: the server adds each group's change to the central model,
// so the group that pushed last holds the start plus both changes.
TEST(StrategyTest, AsyncServerAddsEveryGroupsChange) {
  at::Tensor start = FlattenParameters(*LenetReplica(8, "sgd"));
  std::vector<at::Tensor> change(2);
  for (int r = 0; r < 2; ++r) {
    auto alone = LenetReplica(8, "sgd");
    std::vector<at::Tensor> g;
    ASSERT_TRUE(alone->Compute(LenetBatch(8 * r, 8), nullptr, &g, nullptr, nullptr).ok());
    ASSERT_TRUE(alone->Update(g).ok());
    change[r] = FlattenParameters(*alone) - start;
  }
  std::mutex mu;
  std::vector<at::Tensor> after(2);
  RunRanks(2, [&](ProcessGroup& pg) {
    auto replica = LenetReplica(8, "sgd");
    StrategyOptions o;
    o.name = "async";  // groups 0: one per rank
    auto s = MakeStrategy(o, &pg, replica.get());
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_FALSE(s.value()->overlaps());  // a group of one reduces nothing
    std::vector<at::Tensor> grads;
    ASSERT_TRUE(
        replica->Compute(LenetBatch(8 * pg.rank(), 8), nullptr, &grads, nullptr, nullptr).ok());
    ASSERT_TRUE(replica->Update(grads).ok());
    ASSERT_TRUE(s.value()->AfterUpdate(0, nullptr).ok());
    ASSERT_TRUE(s.value()->Finish().ok());
    std::lock_guard<std::mutex> l(mu);
    after[pg.rank()] = FlattenParameters(*replica);
  });
  at::Tensor both = start + change[0] + change[1];
  bool first_then_second = at::allclose(after[0], start + change[0], 1e-5, 1e-6) &&
                           at::allclose(after[1], both, 1e-5, 1e-6);
  bool second_then_first = at::allclose(after[1], start + change[1], 1e-5, 1e-6) &&
                           at::allclose(after[0], both, 1e-5, 1e-6);
  EXPECT_TRUE(first_then_second || second_then_first);
}

// Groups of more than one rank but fewer groups than ranks: the server hears
// from the other group's first rank, 2 of 4. It waited for "done" from rank 1,
// which never sends, and every run failed at its end on the timeout.
TEST(StrategyTest, AsyncServerHearsTheOtherGroupsFirstRankWhateverItsNumber) {
  at::Tensor start = FlattenParameters(*LenetReplica(8, "sgd"));
  std::mutex mu;
  std::vector<at::Tensor> after(4);
  std::vector<std::string> finished(4);
  RunRanks(
      4,
      [&](ProcessGroup& pg) {
        auto replica = LenetReplica(8, "sgd");
        StrategyOptions o;
        o.name = "async";
        o.groups = 2;  // ranks 0-1 and 2-3
        auto s = MakeStrategy(o, &pg, replica.get());
        ASSERT_TRUE(s.ok()) << s.status().message();
        for (int64_t step = 0; step < 2; ++step) {
          std::vector<at::Tensor> grads;
          s.value()->Start();
          ASSERT_TRUE(replica
                          ->Compute(
                              LenetBatch(8 * pg.rank(), 8),
                              [&](int p, const at::Tensor& t) { s.value()->OnGradient(p, t); },
                              &grads, nullptr, nullptr)
                          .ok());
          ASSERT_TRUE(s.value()->Reduce(ProcessGroup::Now(), &grads, nullptr).ok());
          ASSERT_TRUE(replica->Update(grads).ok());
          graph::Status st = s.value()->AfterUpdate(step, nullptr);
          ASSERT_TRUE(st.ok()) << st.message();
        }
        graph::Status done = s.value()->Finish();
        std::lock_guard<std::mutex> l(mu);
        finished[pg.rank()] = done.ok() ? "ok" : done.message();
        after[pg.rank()] = FlattenParameters(*replica);
      },
      5);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(finished[r], "ok") << "rank " << r;
  // Each group's ranks hold the same model, and it moved from the start.
  EXPECT_TRUE(at::allclose(after[0], after[1]));
  EXPECT_TRUE(at::allclose(after[2], after[3]));
  EXPECT_FALSE(at::allclose(after[0], start));
}

TEST(StrategyTest, AsyncRefusesMoreGroupsThanRanks) {
  RunRanks(1, [&](ProcessGroup& pg) {
    auto replica = LenetReplica(8);
    StrategyOptions o;
    o.name = "async";
    o.groups = 2;
    auto s = MakeStrategy(o, &pg, replica.get());
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find("2 compute groups for 1 ranks"), std::string::npos);
  });
}

// Two replicas whose models differ by a known offset.
std::unique_ptr<Replica> Shifted(int rank) {
  auto r = LenetReplica(8, "sgd");
  for (int i = 0; i < r->num_parameters(); ++i) r->parameter(i).add_(rank == 0 ? 1.0 : -3.0);
  return r;
}

TEST(StrategyTest, EasgdMovesReplicasAndCentreByTheElasticForce) {
  auto base = LenetReplica(8, "sgd");
  at::Tensor c = FlattenParameters(*base);  // the centre starts at the replica's model
  std::mutex mu;
  std::vector<at::Tensor> after(2), centre(2);
  RunRanks(2, [&](ProcessGroup& pg) {
    auto replica = LenetReplica(8, "sgd");
    StrategyOptions o;
    o.name = "easgd";
    o.alpha = 0.25;
    auto s = MakeStrategy(o, &pg, replica.get());
    ASSERT_TRUE(s.ok()) << s.status().message();
    for (int i = 0; i < replica->num_parameters(); ++i) {
      replica->parameter(i).add_(pg.rank() == 0 ? 1.0 : -3.0);
    }
    ASSERT_TRUE(s.value()->AfterUpdate(0, nullptr).ok());
    std::lock_guard<std::mutex> l(mu);
    after[pg.rank()] = FlattenParameters(*replica);
    std::vector<at::Tensor> ev = s.value()->EvaluatedParameters(), flat;
    for (auto& t : ev) flat.push_back(t.reshape({-1}));
    centre[pg.rank()] = at::cat(flat);
  });
  // x_i - alpha (x_i - c): offsets +1 and -3 shrink by 3/4; c moves by alpha (1 - 3).
  EXPECT_TRUE(at::allclose(after[0], c + 0.75, 1e-5, 1e-5));
  EXPECT_TRUE(at::allclose(after[1], c - 2.25, 1e-5, 1e-5));
  EXPECT_TRUE(at::allclose(centre[0], c - 0.5, 1e-5, 1e-5));
  EXPECT_TRUE(at::allclose(centre[1], centre[0]));
}

// Replicas that start apart (each resumed its own checkpoint) share one centre:
// their mean, not each its own model.
TEST(StrategyTest, EasgdCentreStartsAsTheReplicasMeanOnEveryRank) {
  at::Tensor c = FlattenParameters(*LenetReplica(8, "sgd"));
  std::mutex mu;
  std::vector<at::Tensor> centre(2);
  RunRanks(2, [&](ProcessGroup& pg) {
    auto replica = Shifted(pg.rank());
    StrategyOptions o;
    o.name = "easgd";
    auto s = MakeStrategy(o, &pg, replica.get());
    ASSERT_TRUE(s.ok()) << s.status().message();
    std::vector<at::Tensor> flat;
    for (auto& t : s.value()->EvaluatedParameters()) flat.push_back(t.reshape({-1}));
    std::lock_guard<std::mutex> l(mu);
    centre[pg.rank()] = at::cat(flat);
  });
  EXPECT_TRUE(at::allclose(centre[0], c - 1.0, 1e-5, 1e-5));  // (+1 - 3) / 2
  EXPECT_TRUE(at::equal(centre[0], centre[1]));
}

TEST(StrategyTest, GossipWithHalfMixingAveragesThePair) {
  at::Tensor base = FlattenParameters(*LenetReplica(8, "sgd"));
  std::mutex mu;
  std::vector<at::Tensor> after(2);
  RunRanks(2, [&](ProcessGroup& pg) {
    auto replica = Shifted(pg.rank());
    StrategyOptions o;
    o.name = "gossip";
    auto s = MakeStrategy(o, &pg, replica.get());
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s.value()->AfterUpdate(0, nullptr).ok());
    std::lock_guard<std::mutex> l(mu);
    after[pg.rank()] = FlattenParameters(*replica);
  });
  EXPECT_TRUE(at::allclose(after[0], base - 1.0, 1e-5, 1e-5));
  EXPECT_TRUE(at::allclose(after[1], after[0]));
}

TEST(StrategyTest, UnknownStrategyIsRefusedWithTheKnownNames) {
  RunRanks(1, [&](ProcessGroup& pg) {
    auto replica = LenetReplica(8);
    StrategyOptions o;
    o.name = "allgather";
    auto s = MakeStrategy(o, &pg, replica.get());
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find("sync, async, easgd, gossip"), std::string::npos);
  });
}

TEST(StrategyTest, EasgdRefusesAnElasticRateThatDoesNotContract) {
  RunRanks(2, [&](ProcessGroup& pg) {
    auto replica = LenetReplica(8);
    StrategyOptions o;
    o.name = "easgd";
    o.alpha = 0.6;  // 2 ranks x 0.6 > 1
    EXPECT_FALSE(MakeStrategy(o, &pg, replica.get()).ok());
  });
}

}  // namespace
}  // namespace trainer
