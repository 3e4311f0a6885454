// sync: gradients averaged by the bucketed, overlapping all-reduce (reducer.h).
#include "trainer/strategy.h"

namespace trainer {
namespace {

class SyncStrategy : public Strategy {
 public:
  SyncStrategy(const StrategyOptions& o, ProcessGroup* pg, Replica* replica)
      : Strategy(pg, replica), reducer_(pg, ParameterShapes(*replica), o.buckets) {}
  bool overlaps() const override { return true; }
  void Start() override { reducer_.Start(); }
  void OnGradient(int param, const at::Tensor& gradient) override {
    reducer_.OnGradient(param, gradient);
  }
  graph::Status Reduce(double backward_end_s, std::vector<at::Tensor>* gradients,
                       CommTimes* t) override {
    return reducer_.Finish(backward_end_s, gradients, t);
  }

 private:
  Reducer reducer_;
};

}  // namespace

std::unique_ptr<Strategy> MakeSyncStrategy(const StrategyOptions& o, ProcessGroup* pg,
                                           Replica* replica) {
  return std::make_unique<SyncStrategy>(o, pg, replica);
}

}  // namespace trainer
