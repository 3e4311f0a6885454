#include "trainer/reducer.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <random>

#include "ranks.h"

namespace trainer {
namespace {

using testing::RunRanks;

// Gradient sizes of a small network, in floats.
const std::vector<int64_t> kElements{150, 6, 2400, 16, 48000, 120, 10080, 84, 840, 10};

// Ranks are threads: LibTorch's default generator is shared, hence the lock.
std::vector<std::vector<int64_t>> Shapes() {
  std::vector<std::vector<int64_t>> s;
  for (int64_t n : kElements) s.push_back({n});
  return s;
}

std::vector<at::Tensor> RankGradients(int rank) {
  static std::mutex mu;
  std::lock_guard<std::mutex> l(mu);
  at::manual_seed(100 + rank);
  std::vector<at::Tensor> g;
  for (int64_t n : kElements) g.push_back(at::randn({n}));
  return g;
}

// Each rank hands its gradients to a reducer in its own shuffled order (as a
// multi-threaded backward pass would), some from a second thread.
std::vector<at::Tensor> Reduce(ProcessGroup& pg, BucketOptions opts, int steps = 1,
                               std::vector<std::vector<int>>* buckets = nullptr) {
  Reducer reducer(&pg, Shapes(), opts);
  std::vector<at::Tensor> out;
  for (int s = 0; s < steps; ++s) {
    std::vector<at::Tensor> g = RankGradients(pg.rank());
    std::vector<int> order(kElements.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(pg.rank() * 31 + s));
    reducer.Start();
    std::thread other([&] {
      for (size_t i = 0; i < order.size(); i += 2) reducer.OnGradient(order[i], g[order[i]]);
    });
    for (size_t i = 1; i < order.size(); i += 2) reducer.OnGradient(order[i], g[order[i]]);
    other.join();
    CommTimes t;
    graph::Status st = reducer.Finish(ProcessGroup::Now(), &out, &t);
    EXPECT_TRUE(st.ok()) << st.message();
    EXPECT_GE(t.comm_s, t.exposed_s);
    if (buckets && s == 0) *buckets = reducer.buckets();
  }
  for (auto& t : out) t = t.clone();
  return out;
}

TEST(ReducerTest, BucketedAverageEqualsTheUnbucketedAllReduce) {
  std::mutex mu;
  std::vector<std::vector<at::Tensor>> results(2);
  std::vector<std::vector<at::Tensor>> plain(2);
  RunRanks(2, [&](ProcessGroup& pg) {
    BucketOptions small{4096, 16384, true};
    auto bucketed = Reduce(pg, small, /*steps=*/2);  // the second step after the rebuild
    // Unbucketed: one all-reduce of everything, then / ranks.
    std::vector<at::Tensor> g = RankGradients(pg.rank());
    at::Tensor flat = at::cat(g);
    ASSERT_TRUE(pg.AllReduce(flat).ok());
    flat.div_(2);
    std::lock_guard<std::mutex> l(mu);
    results[pg.rank()] = bucketed;
    plain[pg.rank()] = flat.split_with_sizes(kElements);
  });
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(results[r].size(), kElements.size());
    for (size_t p = 0; p < kElements.size(); ++p) {
      EXPECT_TRUE(at::allclose(results[r][p], plain[r][p], 1e-6, 1e-6)) << "parameter " << p;
    }
  }
  // The average of the two ranks' own gradients.
  auto g0 = RankGradients(0), g1 = RankGradients(1);
  EXPECT_TRUE(at::allclose(results[0][4], (g0[4] + g1[4]) / 2, 1e-6, 1e-6));
}

TEST(ReducerTest, ATransposedGradientIsAveragedInItsOwnShape) {
  // An ONNX import's OIHW weight gets its gradient as a transposed view.
  auto base = [](int rank) { return at::arange(12, at::kFloat).view({4, 3}) * (rank + 1); };
  std::mutex mu;
  std::vector<at::Tensor> got(2);
  RunRanks(2, [&](ProcessGroup& pg) {
    Reducer reducer(&pg, {{3, 4}}, BucketOptions{});
    reducer.Start();
    at::Tensor g = base(pg.rank()).t();
    ASSERT_FALSE(g.is_contiguous());
    reducer.OnGradient(0, g);
    std::vector<at::Tensor> out;
    ASSERT_TRUE(reducer.Finish(ProcessGroup::Now(), &out, nullptr).ok());
    std::lock_guard<std::mutex> l(mu);
    got[pg.rank()] = out[0].clone();
  });
  const at::Tensor want = (base(0).t() + base(1).t()) / 2;
  for (const at::Tensor& t : got) EXPECT_TRUE(at::equal(t, want)) << t << " vs " << want;
}

TEST(ReducerTest, FirstBucketIsSmallAndBucketsRespectTheCap) {
  RunRanks(1, [&](ProcessGroup& pg) {
    Reducer r(&pg, Shapes(), {1024, 64 * 1024, true});
    auto buckets = r.buckets();
    ASSERT_GE(buckets.size(), 3u);
    // Reverse parameter order before the first step.
    EXPECT_EQ(buckets.front().front(), static_cast<int>(kElements.size()) - 1);
    int64_t first = 0;
    for (int p : buckets[0]) first += kElements[p] * 4;
    EXPECT_TRUE(first <= 1024 || buckets[0].size() == 1);
    for (const auto& b : buckets) {
      int64_t bytes = 0;
      for (int p : b) bytes += kElements[p] * 4;
      EXPECT_TRUE(bytes <= 64 * 1024 || b.size() == 1) << bytes;
    }
  });
}

TEST(ReducerTest, RebuiltBucketsFollowRankZerosReadyOrderOnEveryRank) {
  std::mutex mu;
  std::vector<std::vector<std::vector<int>>> after(2);
  RunRanks(2, [&](ProcessGroup& pg) {
    Reducer reducer(&pg, Shapes(), {4096, 16384, true});
    std::vector<at::Tensor> g = RankGradients(pg.rank()), out;
    std::vector<int> order(kElements.size());
    std::iota(order.begin(), order.end(), 0);  // forward order: not the initial guess
    if (pg.rank() == 1) std::reverse(order.begin(), order.end());
    reducer.Start();
    for (int p : order) reducer.OnGradient(p, g[p]);
    ASSERT_TRUE(reducer.Finish(ProcessGroup::Now(), &out, nullptr).ok());
    std::lock_guard<std::mutex> l(mu);
    after[pg.rank()] = reducer.buckets();
  });
  EXPECT_EQ(after[0], after[1]);
  EXPECT_EQ(after[0].front().front(), 0);  // rank 0 saw parameter 0 first
}

}  // namespace
}  // namespace trainer
