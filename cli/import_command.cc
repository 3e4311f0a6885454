#include <iostream>

#include "cli/commands.h"
#include "frontend/args.h"
#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "graph/importer.h"

namespace planner::cli {

namespace {
const frontend::CommandSpec kSpec{
    "import",
    "MODEL -o OUT [--text]",
    "Converts a model (binary/text/JSON GraphDef or TensorFlow.js model.json with its\n"
    "weights) into a binary GraphDef that TensorFlow's own graph.proto parses. Weights\n"
    "stored quantized (float16, uint8) are written dequantized. OUT is written atomically.",
    {"MODEL"},
    {{"-o", "OUT", "output file (required)"},
     {"--text", "", "write a text GraphDef (.pbtxt) instead of binary"}}};

int Run(const frontend::Args& args) {
  if (!args.Has("-o") || args.Get("-o").empty())
    return frontend::UsageError(kSpec, "-o OUT is required");
  const std::string& path = args.positional()[0];
  auto g = graph::ImportModel(path);
  if (!g.ok()) return frontend::CommandError(kSpec, g.status());
  std::string out = args.Has("--text") ? graph::GraphDefToText(*g) : graph::SerializeGraphDef(*g);
  graph::Status st = graph::WriteFileAtomic(args.Get("-o"), out);
  if (!st.ok()) return frontend::CommandError(kSpec, st);
  std::cerr << "wrote " << args.Get("-o") << ": " << g->size() << " nodes, " << out.size()
            << " bytes\n";
  return 0;
}

}  // namespace

int ImportCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

}  // namespace planner::cli
