#include "planner/reward.h"

namespace planner {

// Backends, in sibling files.
graph::Result<std::unique_ptr<RewardSource>> MakeSimReward(const RewardContext& context);
graph::Result<std::unique_ptr<RewardSource>> MakeRealReward(const RewardContext& context);

graph::Result<std::unique_ptr<RewardSource>> MakeRewardSource(const std::string& name,
                                                              const RewardContext& context) {
  if (name == "sim") return MakeSimReward(context);
  if (name == "real") return MakeRealReward(context);
  return graph::InvalidArgument("--reward must be sim or real, not '" + name +
                                "' (the fleet comes in a later issue)");
}

}  // namespace planner
