// `trainer`: the data-parallel training engine's command line (docs/trainer.md).
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <iostream>
#include <string>

#include "trainer/commands.h"

int main(int argc, char** argv) {
  constexpr char kUsage[] =
      "usage: trainer COMMAND [ARGS...]   (trainer COMMAND --help for details)\n\n"
      "commands:\n"
      "  train       one rank of a data-parallel run (torchrun's environment), or a world of one\n"
      "  launch      start N local ranks of `trainer train` and watch them\n"
      "  tune        Omnivore's optimizer: probe, choose groups, lr and momentum, train, re-tune\n";
  // A peer that is gone is an error the rank reports (its collective fails,
  // and the heartbeats name who went), not a signal that kills it unreported:
  // Gloo and c10d write to sockets without MSG_NOSIGNAL, and a rank whose
  // peer had died was now and then killed by SIGPIPE, blamed for the failure.
  std::signal(SIGPIPE, SIG_IGN);
  if (argc < 2) return std::cerr << kUsage, 2;
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) return std::cout << kUsage, 0;
  if (!std::strcmp(argv[1], "train")) return trainer::TrainCommand(argc - 2, argv + 2);
  // Ranks are this same executable, named by its real path: /proc/self/exe
  // survives a relative argv[0], and the path lets ps and pkill see the ranks.
  char real[4096];
  ssize_t len = readlink("/proc/self/exe", real, sizeof real - 1);
  const std::string self = len > 0 ? std::string(real, len) : std::string(argv[0]);
  if (!std::strcmp(argv[1], "launch")) return trainer::LaunchCommand(argc - 2, argv + 2, self);
  if (!std::strcmp(argv[1], "tune")) return trainer::TuneCommand(argc - 2, argv + 2, self);
  std::cerr << "trainer: unknown command '" << argv[1] << "' (see trainer --help)\n";
  return 2;
}
