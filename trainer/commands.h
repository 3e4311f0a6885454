// The `trainer` executable's subcommands; each takes the arguments after its
// name and returns the process's exit status (0 ok, 1 failure, 2 usage).
#pragma once

namespace trainer {

int TrainCommand(int argc, char** argv);
int LaunchCommand(int argc, char** argv, const char* self);
int TuneCommand(int argc, char** argv, const char* self);

}  // namespace trainer
