// The `planner` executable's own subcommands: the command layer, which parses
// a command's flags, calls the engine in planner/ and prints; the fleet's and
// the worker's commands are in controllers/ and workers/, beside their code.
// Each returns the process exit status: 0 on success, 1 when the work failed on
// bad input (after printing one line to stderr), 2 on a usage error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "graph/status.h"
#include "sim/profile.h"

namespace planner::cli {

int InspectCommand(int argc, char** argv);
int ImportCommand(int argc, char** argv);
int DevicesCommand(int argc, char** argv);
int MeasureCommand(int argc, char** argv);
int ProfileCommand(int argc, char** argv);
int SimulateCommand(int argc, char** argv);
int ZooCommand(int argc, char** argv);
int BaselineCommand(int argc, char** argv);
int SearchCommand(int argc, char** argv);

frontend::FlagSpec
PlanningProfileFlag();  // --profile PROFILE, for the planning baselines and the simulator
frontend::FlagSpec ProfileCacheFlag();  // --profile-cache DIR|off

// --steps (at least 1) and --warmup (at least 0), each at most `most`, into
// *steps and *warmup where given; the error names the flag and the range.
graph::Status ParseStepFlags(const frontend::Args& args, int most, int* steps, int* warmup);

// The profile named by --profile, read from its file; nullopt without the flag.
// An unreadable or malformed file, or one made on other devices by the names
// of `devices`' (sim::CheckProfileFits), is an error naming it.
graph::Result<std::optional<sim::Profile>> ProfileFlag(const frontend::Args& args,
                                                       const cluster::Cluster& devices);

// --profile and --profile-cache together are refused: with a profile given,
// no device is profiled into the cache, so the cache would be ignored.
graph::Status CheckProfileFlags(const frontend::Args& args);

}  // namespace planner::cli
