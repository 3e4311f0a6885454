#include "planner/sources/registry.h"

#include <map>

namespace planner::sources {

namespace {

std::map<std::string, RewardFactory>& Registered() {
  static std::map<std::string, RewardFactory> sources = {{"sim", rewards::MakeSimReward},
                                                         {"real", MakeRealReward}};
  return sources;
}

}  // namespace

void RegisterRewardSource(const std::string& name, RewardFactory make) {
  Registered()[name] = make;
}

graph::Status CheckRewardName(const std::string& name) {
  if (Registered().count(name)) return graph::Status::Ok();
  std::string names;
  for (const auto& [known, make] : Registered()) names += (names.empty() ? "" : ", ") + known;
  return graph::InvalidArgument("--reward must be one of " + names + ", not '" + name + "'");
}

graph::Result<std::unique_ptr<rewards::RewardSource>> MakeRewardSource(
    const std::string& name, const rewards::RewardContext& context) {
  GRAPH_RETURN_IF_ERROR(CheckRewardName(name));
  return Registered().at(name)(context);
}

}  // namespace planner::sources
