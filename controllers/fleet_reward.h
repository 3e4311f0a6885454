// `--reward fleet`: the third reward source (planner/rewards/reward.h), whose
// placements are evaluated by remote workers (workers/worker.h) through a
// Dispatcher bound as fleet.yaml says. It waits for the file's number of
// workers when made; a batch of placements is spread over all of them at once.
//
// Ownership and thread safety: as planner::rewards::RewardSource; Evaluate and
// EvaluateBatch may be called from several threads (they take turns).
#pragma once

namespace controllers {

// Makes "fleet" a reward source name for planner::sources::MakeRewardSource: called
// once by `planner`'s main, which is above both.
void RegisterFleetReward();

}  // namespace controllers
