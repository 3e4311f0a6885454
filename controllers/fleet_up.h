// `planner fleet up`: a whole fleet on this machine as real processes, with one
// command (docs/fleet.md): a parameter server, C controllers (`planner search
// --reward fleet --ps`, seeds 1..C) and W workers for each, on loopback ports
// it picks. It prints one progress line per controller while they run, stops
// everything on SIGINT/SIGTERM or when the controllers are done (children also
// get SIGTERM if it dies: PR_SET_PDEATHSIG), and writes the best controller's
// placement. Every process's output is kept in the run directory.
#pragma once

namespace controllers {

int FleetCommand(int argc, char** argv);

}  // namespace controllers
