#include "planner/reward_memo.h"

namespace planner {

Evaluation RememberingReward::Evaluate(const std::vector<int>& forward_device) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = seen_.find(forward_device);
    if (it != seen_.end()) {
      ++repeats_;
      return it->second;
    }
  }
  Evaluation e = inner_.Evaluate(forward_device);
  std::lock_guard<std::mutex> lock(mu_);
  return seen_.emplace(forward_device, e).first->second;
}

int RememberingReward::distinct() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(seen_.size());
}

int RememberingReward::repeats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return repeats_;
}

}  // namespace planner
