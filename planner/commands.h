// The `planner` subcommands. Each returns the process exit status: 0 on success,
// 1 when the work failed on bad input (after printing one line to stderr), 2 on
// a usage error.
#pragma once

namespace planner {

int InspectCommand(int argc, char** argv);
int ImportCommand(int argc, char** argv);
int DevicesCommand(int argc, char** argv);
int MeasureCommand(int argc, char** argv);
int ProfileCommand(int argc, char** argv);
int SimulateCommand(int argc, char** argv);
int ZooCommand(int argc, char** argv);
int BaselineCommand(int argc, char** argv);
int SearchCommand(int argc, char** argv);

}  // namespace planner
