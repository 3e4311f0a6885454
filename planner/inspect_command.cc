#include <iostream>

#include "graph/summary.h"
#include "planner/args.h"
#include "planner/commands.h"
#include "planner/model_loading.h"

namespace planner {

namespace {
const CommandSpec kSpec{
    "inspect",
    "MODEL [--json] [--batch N]",
    "Prints a model's node count, op-type histogram, trainable parameters, forward FLOPs,\n"
    "activation memory, inputs and outputs, and every op whose shape or cost is unknown.\n"
    "MODEL: binary or text GraphDef, JSON GraphDef, or TensorFlow.js model.json (format\n"
    "recognised from the content).",
    {"MODEL"},
    {{"--json", "", "print the same facts as one JSON object"},
     {"--batch", "N", "size for an unknown leading placeholder dimension (default 1)"}}};
}  // namespace

int InspectCommand(int argc, char** argv) {
  int exit_code = 0;
  std::optional<Args> args = ParseCommandLine(kSpec, argc, argv, &exit_code);
  if (!args) return exit_code;
  int64_t batch = 1;
  if (args->Has("--batch")) {
    auto b = ParsePositiveInt("--batch", args->Get("--batch"));
    if (!b.ok()) {
      std::cerr << "planner inspect: " << b.status().message() << "\n";
      return 2;
    }
    batch = *b;
  }
  const std::string& path = args->positional()[0];
  auto s = InspectModel(path, batch);
  if (!s.ok()) {
    std::cerr << "planner inspect: " << s.status().message() << "\n";
    return 1;
  }
  std::cout << (args->Has("--json") ? graph::SummaryToJson(*s, path)
                                    : graph::SummaryToText(*s, path));
  return 0;
}

}  // namespace planner
