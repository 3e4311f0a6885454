#include <iostream>

#include "cli/commands.h"
#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "graph/summary.h"

namespace planner::cli {

namespace {
const frontend::CommandSpec kSpec{
    "inspect",
    "MODEL [--json] [--batch N] [--input-shape NAME=D0,D1,...]",
    "Prints a model's node count, op-type histogram, trainable parameters, forward FLOPs,\n"
    "activation memory, inputs and outputs, and every op whose shape or cost is unknown.\n"
    "MODEL: binary or text GraphDef, JSON GraphDef, TensorFlow.js model.json, or ONNX (what\n"
    "torch.onnx.export writes); the format is recognised from the content.",
    {"MODEL"},
    {{"--json", "", "print the same facts as one JSON object"},
     frontend::BatchFlag(),
     frontend::InputShapeFlag()}};

int Run(const frontend::Args& args) {
  graph::InferenceOptions inference;
  if (graph::Status st = frontend::ParseInferenceFlags(args, &inference); !st.ok()) {
    return frontend::UsageError(kSpec, st);
  }
  const std::string& path = args.positional()[0];
  auto s = frontend::InspectModel(path, inference);
  if (!s.ok()) return frontend::CommandError(kSpec, s.status());
  std::cout << (args.Has("--json") ? graph::SummaryToJson(*s, path)
                                   : graph::SummaryToText(*s, path));
  return 0;
}

}  // namespace

int InspectCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

}  // namespace planner::cli
