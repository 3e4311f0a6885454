// Reward sources by name: "sim" (planner/rewards/, the simulator), "real"
// (reward_real.cc here: the placement run on the real devices with LibTorch)
// and sources registered from a layer above this one (the fleet, in
// controllers/, which `planner`'s main registers before any command runs).
//
// Thread safety: not thread-safe; register before making sources.
#pragma once

#include <memory>
#include <string>

#include "graph/status.h"
#include "planner/rewards/reward.h"

namespace planner::sources {

// The measured source (reward_real.cc): runs each placement on the real
// devices of `context` (runtime::Executor) and reports the median step.
graph::Result<std::unique_ptr<rewards::RewardSource>> MakeRealReward(
    const rewards::RewardContext& context);

// Ok for a reward source's name ("sim", "real", or a registered one), else the
// usage error that MakeRewardSource gives: commands check it before loading
// anything.
graph::Status CheckRewardName(const std::string& name);

using RewardFactory =
    graph::Result<std::unique_ptr<rewards::RewardSource>> (*)(const rewards::RewardContext&);
void RegisterRewardSource(const std::string& name, RewardFactory make);

// "sim", "real" or a registered name; an unknown name, a real source over sim
// devices, or a graph the source cannot run is a one-line error.
graph::Result<std::unique_ptr<rewards::RewardSource>> MakeRewardSource(
    const std::string& name, const rewards::RewardContext& context);

}  // namespace planner::sources
