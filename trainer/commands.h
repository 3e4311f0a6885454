// The `trainer` executable's subcommands; each takes the arguments after its
// name and returns the process's exit status (0 ok, 1 failure, 2 usage).
// `self` is the trainer executable's real path, which launch and tune run.
#pragma once

#include <string>

namespace trainer {

int TrainCommand(int argc, char** argv);
// Parses and checks a train command's arguments as TrainCommand would, running
// nothing: 0 when it would start, 2 after printing its usage error, -1 after
// printing its help (trainer launch checks its command before any rank starts).
int CheckTrainCommand(int argc, char** argv);
int LaunchCommand(int argc, char** argv, const std::string& self);
int TuneCommand(int argc, char** argv, const std::string& self);

}  // namespace trainer
