// `planner`: the command-line front end. Dispatches to one subcommand. It sits
// above every layer: the fleet's reward source (controllers/) is registered
// here, and `planner worker` (workers/) is one of its commands.
#include <cstring>
#include <iostream>

#include "cli/commands.h"
#include "controllers/fleet_reward.h"
#include "controllers/fleet_up.h"
#include "controllers/ps.h"
#include "controllers/ps_client.h"
#include "frontend/stop_signals.h"
#include "workers/worker.h"

namespace {

struct Subcommand {
  const char* name;
  int (*run)(int, char**);
  const char* summary;
};

constexpr Subcommand kCommands[] = {
    {"inspect", planner::cli::InspectCommand, "ops, parameters, FLOPs, memory, unsupported ops"},
    {"import", planner::cli::ImportCommand, "convert a model to a binary GraphDef"},
    {"devices", planner::cli::DevicesCommand, "validate and show a devices.yaml file"},
    {"measure", planner::cli::MeasureCommand,
     "time training steps of a placed model on real devices"},
    {"profile", planner::cli::ProfileCommand, "measure op and link costs on the real devices"},
    {"simulate", planner::cli::SimulateCommand, "predict a placed model's step time and memory"},
    {"baseline", planner::cli::BaselineCommand, "place by a baseline: one device, expert, etf, m-SCT, METIS, Scotch"},
    {"search", planner::cli::SearchCommand,
     "learn a placement: the Hierarchical Planner (PPO; the paper's REINFORCE by config)"},
    {"zoo", planner::cli::ZooCommand, "write a benchmark model (rnnlm, nmt, inception_v3, resnet, small models)"},
    {"worker", workers::WorkerCommand, "evaluate placements for a fleet search (docs/fleet.md)"},
    {"ps", controllers::PsCommand, "parameter server: searches that join it train one policy"},
    {"fleet", controllers::FleetCommand, "fleet up local:CxW: server, controllers, workers here"},
};

void Usage(std::ostream& o) {
  o << "usage: planner COMMAND [ARGS...]   (planner COMMAND --help for details)\n\ncommands:\n";
  for (const Subcommand& c : kCommands) {
    std::string name = c.name;
    name.resize(12, ' ');
    o << "  " << name << c.summary << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  controllers::RegisterFleetReward();
  controllers::RegisterParameterServerClient();
  if (argc < 2) {
    Usage(std::cerr);
    return 2;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    Usage(std::cout);
    return 0;
  }
  for (const Subcommand& c : kCommands) {
    // A command that a signal stopped after it wrote its files says so.
    if (!std::strcmp(argv[1], c.name))
      return frontend::ExitCodeAfterStop(c.run(argc - 2, argv + 2));
  }
  if (!std::strcmp(argv[1], "controller")) {  // the design brief's name for one
    std::cerr << "planner: a fleet's controller is planner search MODEL DEVICES --ps ENDPOINT "
                 "[--reward fleet --fleet FLEET] (docs/fleet.md)\n";
    return 2;
  }
  std::cerr << "planner: unknown command '" << argv[1] << "' (see planner --help)\n";
  return 2;
}
