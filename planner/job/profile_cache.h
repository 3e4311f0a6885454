// Profiles of real devices, made when needed: a command that needs op and link
// costs of real devices (the simulator, etf, metis, scotch) and was given no
// --profile profiles the model on them (runtime::ProfileGraph) into a cache
// file per host and devices file, so that the second model, or the second run,
// measures only the op signatures the cache lacks.
//
// The cache: DIR/profiles/<host>-<devices digest>.profile, DIR given (the
// commands' --profile-cache), else $PLANNER_CACHE_DIR, else
// $XDG_CACHE_HOME/planner, else $HOME/.cache/planner. DIR "off" turns it off.
//
// Thread safety: free functions; two processes extending one cache file each
// write it atomically, and the last write wins (its signatures are re-measured
// by the next run that needs them).
#pragma once

#include <optional>
#include <string>

#include "frontend/model_loading.h"
#include "graph/status.h"
#include "sim/profile.h"

namespace planner::job {

// The profile a command runs with: the file `profile_path` when not empty;
// else, when every device of `setup` is real and the cache (`cache_dir`, empty
// for the default place) is not off, the cached profile extended to `setup`'s
// training graph (a line on stdout says where and what was measured); else
// none.
graph::Result<std::optional<sim::Profile>> ProfileForDevices(const std::string& profile_path,
                                                             const std::string& cache_dir,
                                                             const frontend::PlacedTraining& setup);

}  // namespace planner::job
