// easgd: synchronous elastic averaging with a centre variable every rank keeps
// a copy of (all ranks apply the same all-reduced sum, so the copies agree).
#include <ATen/ATen.h>

#include <memory>

#include "trainer/strategy.h"

namespace trainer {
namespace {

class EasgdStrategy : public Strategy {
 public:
  EasgdStrategy(const StrategyOptions& o, ProcessGroup* pg, Replica* replica, double alpha)
      : Strategy(pg, replica), period_(o.period), alpha_(alpha) {}
  // The centre starts as the ranks' mean: their common model on a fresh start,
  // and one centre for all when each resumed its own replica (the centre is
  // not checkpointed).
  graph::Status Init() {
    centre_ = FlattenParameters(*replica_);
    GRAPH_RETURN_IF_ERROR(pg_->AllReduce(centre_));
    centre_.div_(pg_->world_size());
    return graph::Status::Ok();
  }
  graph::Status AfterUpdate(int64_t step, CommTimes* t) override {
    if ((step + 1) % period_ != 0) return graph::Status::Ok();
    double start = ProcessGroup::Now();
    at::Tensor x = FlattenParameters(*replica_);
    at::Tensor d = (x - centre_).mul_(alpha_);  // the elastic force on this rank
    UnflattenParameters(x - d, replica_);
    GRAPH_RETURN_IF_ERROR(pg_->AllReduce(d));
    centre_.add_(d);
    if (t) {  // nothing to overlap with: all of it is exposed
      t->comm_s += ProcessGroup::Now() - start;
      t->exposed_s = t->comm_s;
    }
    return graph::Status::Ok();
  }
  std::vector<at::Tensor> EvaluatedParameters() const override {
    std::vector<at::Tensor> p;
    int64_t at = 0;
    for (int i = 0; i < replica_->num_parameters(); ++i) {
      at::Tensor live = replica_->parameter(i);
      p.push_back(centre_.narrow(0, at, live.numel()).view(live.sizes()));
      at += live.numel();
    }
    return p;
  }

 private:
  int period_;
  double alpha_;
  at::Tensor centre_;
};

}  // namespace

graph::Result<std::unique_ptr<Strategy>> MakeEasgdStrategy(const StrategyOptions& o,
                                                           ProcessGroup* pg, Replica* replica) {
  double alpha = o.alpha > 0 ? o.alpha : 0.9 / pg->world_size();
  if (alpha * pg->world_size() >= 1.0 + 1e-9 || o.period < 1) {
    return graph::InvalidArgument(
        "easgd needs period >= 1 and alpha x ranks < 1 (the centre's update is then a "
        "contraction); "
        "got period " +
        std::to_string(o.period) + ", alpha " + std::to_string(alpha));
  }
  auto s = std::make_unique<EasgdStrategy>(o, pg, replica, alpha);
  GRAPH_RETURN_IF_ERROR(s->Init());
  return std::unique_ptr<Strategy>(std::move(s));
}

}  // namespace trainer
