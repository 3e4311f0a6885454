// sync: gradients averaged by the bucketed, overlapping all-reduce (reducer.h).
#include "trainer/strategy.h"

namespace trainer {
namespace {

class SyncStrategy : public Strategy {
 public:
  SyncStrategy(const StrategyOptions& o, ProcessGroup* pg, Replica* replica)
      : Strategy(pg, replica), reducer_(pg, Elements(*replica), o.buckets) {}
  bool overlaps() const override { return true; }
  void Start() override { reducer_.Start(); }
  void OnGradient(int param, const at::Tensor& gradient) override {
    reducer_.OnGradient(param, gradient);
  }
  graph::Status Reduce(double backward_end_s, std::vector<at::Tensor>* gradients,
                       CommTimes* t) override {
    GRAPH_RETURN_IF_ERROR(reducer_.Finish(backward_end_s, gradients, t));
    for (int i = 0; i < replica_->num_parameters(); ++i) {  // flat views, shaped as the parameter
      (*gradients)[i] = (*gradients)[i].view(replica_->parameter(i).sizes());
    }
    return graph::Status::Ok();
  }

 private:
  static std::vector<int64_t> Elements(const Replica& r) {
    std::vector<int64_t> e;
    for (int i = 0; i < r.num_parameters(); ++i) e.push_back(r.parameter(i).numel());
    return e;
  }
  Reducer reducer_;
};

}  // namespace

std::unique_ptr<Strategy> MakeSyncStrategy(const StrategyOptions& o, ProcessGroup* pg,
                                           Replica* replica) {
  return std::make_unique<SyncStrategy>(o, pg, replica);
}

}  // namespace trainer
