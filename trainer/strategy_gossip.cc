// gossip: pairwise model averaging with a random peer each step.
#include <ATen/ATen.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "trainer/strategy.h"

namespace trainer {
namespace {

class GossipStrategy : public Strategy {
 public:
  GossipStrategy(const StrategyOptions& o, ProcessGroup* pg, Replica* replica)
      : Strategy(pg, replica), mix_(o.mix), seed_(o.seed) {}
  graph::Status AfterUpdate(int64_t step, CommTimes* t) override {
    int peer = Peer(step);
    if (peer < 0) return graph::Status::Ok();
    double start = ProcessGroup::Now();
    at::Tensor x = FlattenParameters(*replica_);
    at::Tensor theirs = at::empty_like(x);
    GRAPH_RETURN_IF_ERROR(pg_->Exchange(peer, x, theirs));
    UnflattenParameters(x.mul_(1 - mix_).add_(theirs, mix_), replica_);
    if (t) {  // nothing to overlap with: all of it is exposed
      t->comm_s += ProcessGroup::Now() - start;
      t->exposed_s = t->comm_s;
    }
    return graph::Status::Ok();
  }

 private:
  // This rank's partner in step `step`'s pairing, or -1; every rank draws the
  // same permutation from (seed, step) and pairs neighbours in it.
  int Peer(int64_t step) const {
    std::vector<int> perm(pg_->world_size());
    std::iota(perm.begin(), perm.end(), 0);
    std::mt19937_64 rng(seed_ * 1000003 + static_cast<uint64_t>(step));
    for (size_t i = perm.size(); i > 1; --i) {  // Fisher-Yates: portable, unlike std::shuffle
      std::swap(perm[i - 1], perm[rng() % i]);
    }
    for (size_t i = 0; i + 1 < perm.size(); i += 2) {
      if (perm[i] == pg_->rank()) return perm[i + 1];
      if (perm[i + 1] == pg_->rank()) return perm[i];
    }
    return -1;
  }
  double mix_;
  uint64_t seed_;
};

}  // namespace

std::unique_ptr<Strategy> MakeGossipStrategy(const StrategyOptions& o, ProcessGroup* pg,
                                             Replica* replica) {
  return std::make_unique<GossipStrategy>(o, pg, replica);
}

}  // namespace trainer
