#include "planner/rewards/reward_memo.h"

namespace planner::rewards {

namespace {

// kUnavailable says nothing of the placement (no device could be reached):
// asked again, it is evaluated again.
bool Remembered(const Evaluation& e) { return e.status.code() != graph::StatusCode::kUnavailable; }

}  // namespace

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
  if (!Remembered(e)) return e;
  std::lock_guard<std::mutex> lock(mu_);
  return seen_.emplace(forward_device, e).first->second;
}

void RememberingReward::Replace(const std::vector<int>& forward_device, const Evaluation& e) const {
  std::lock_guard<std::mutex> lock(mu_);
  seen_[forward_device] = e;
}

std::vector<Evaluation> RememberingReward::EvaluateBatch(
    const std::vector<std::vector<int>>& placements) const {
  std::vector<Evaluation> out(placements.size());
  std::vector<std::vector<int>> fresh;             // distinct, not seen
  std::map<std::vector<int>, size_t> fresh_index;  // into `fresh`
  std::vector<long> from_fresh(placements.size(), -1);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t j = 0; j < placements.size(); ++j) {
      auto seen = seen_.find(placements[j]);
      if (seen != seen_.end()) {
        ++repeats_;
        out[j] = seen->second;
        continue;
      }
      auto [it, added] = fresh_index.emplace(placements[j], fresh.size());
      if (added) {
        fresh.push_back(placements[j]);
      } else {
        ++repeats_;
      }
      from_fresh[j] = static_cast<long>(it->second);
    }
  }
  if (fresh.empty()) return out;
  const std::vector<Evaluation> got = inner_.EvaluateBatch(fresh);
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < fresh.size(); ++i) {
    if (Remembered(got[i])) seen_.emplace(fresh[i], got[i]);
  }
  for (size_t j = 0; j < placements.size(); ++j) {
    if (from_fresh[j] >= 0) out[j] = got[from_fresh[j]];
  }
  return out;
}

int RememberingReward::distinct() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(seen_.size());
}

std::vector<std::pair<std::vector<int>, double>> RememberingReward::Evaluated() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::vector<int>, double>> out;
  for (const auto& [placement, e] : seen_) {
    if (e.status.ok()) out.emplace_back(placement, e.step_s);
  }
  return out;
}

int RememberingReward::repeats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return repeats_;
}

}  // namespace planner::rewards
