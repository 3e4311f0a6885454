// Flags several commands share: those that choose a command's profile
// (--profile, --profile-cache, read by planner/job/profile_cache.h's
// ProfileForDevices) and the timed and warm-up steps of measure and profile.
#include "cli/commands.h"

namespace planner::cli {

frontend::FlagSpec PlanningProfileFlag() {
  return {"--profile", "PROFILE",
          "op and link costs for the simulator, etf, msct, metis and scotch (default: real "
          "devices are profiled into the cache)"};
}

frontend::FlagSpec ProfileCacheFlag() {
  return {"--profile-cache", "DIR",
          "without --profile, real devices are profiled into DIR (default ~/.cache/planner; "
          "off: never)"};
}

graph::Result<std::optional<sim::Profile>> ProfileFlag(const frontend::Args& args,
                                                       const cluster::Cluster& devices) {
  if (!args.Has("--profile")) return std::optional<sim::Profile>();
  GRAPH_ASSIGN_OR_RETURN(sim::Profile p, sim::ReadProfile(args.Get("--profile")));
  GRAPH_RETURN_IF_ERROR(sim::CheckProfileFits(p, args.Get("--profile"), devices));
  return std::optional<sim::Profile>(std::move(p));
}

graph::Status CheckProfileFlags(const frontend::Args& args) {
  if (args.Has("--profile") && args.Has("--profile-cache")) {
    return graph::InvalidArgument(
        "--profile-cache goes without --profile: with --profile's costs, no device is profiled "
        "into a cache");
  }
  return graph::Status::Ok();
}

graph::Status ParseStepFlags(const frontend::Args& args, int most, int* steps, int* warmup) {
  frontend::TypedFlags counts(args);
  *steps = counts.Int("--steps", *steps, 1, most);
  *warmup = counts.Int("--warmup", *warmup, 0, most);
  return counts.status();
}

}  // namespace planner::cli
