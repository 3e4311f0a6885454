// The flags that choose a command's profile (--profile, --profile-cache),
// read into planner/job/profile_cache.h's ProfileForDevices.
#include "cli/commands.h"
#include "planner/job/profile_cache.h"

namespace planner::cli {

FlagSpec ProfileCacheFlag() {
  return {"--profile-cache", "DIR",
          "without --profile, real devices are profiled into DIR (default ~/.cache/planner; "
          "off: never)"};
}

graph::Result<std::optional<sim::Profile>> ProfileFlag(const Args& args) {
  if (!args.Has("--profile")) return std::optional<sim::Profile>();
  GRAPH_ASSIGN_OR_RETURN(sim::Profile p, sim::ReadProfile(args.Get("--profile")));
  return std::optional<sim::Profile>(std::move(p));
}

graph::Result<std::optional<sim::Profile>> ProfileForDevices(const Args& args,
                                                             const PlacedTraining& setup) {
  return job::ProfileForDevices(args.Get("--profile"), args.Get("--profile-cache"), setup);
}

}  // namespace planner::cli
