#include <iostream>

#include "cli/commands.h"
#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "graph/importer.h"

namespace planner::cli {

namespace {
const frontend::CommandSpec kSpec{
    "import",
    "MODEL -o OUT [--text] [--input-shape NAME=D0,D1,...]",
    "Converts a model (binary/text/JSON GraphDef, TensorFlow.js model.json with its weights,\n"
    "or ONNX, what torch.onnx.export writes) into a binary GraphDef that TensorFlow's own\n"
    "graph.proto parses. Weights stored quantized (float16, uint8) are written dequantized.\n"
    "An ONNX model's recurrent ops (LSTM, GRU, RNN) are unrolled, which needs its inputs'\n"
    "sizes: --input-shape gives those exported as dynamic. OUT is written atomically.",
    {"MODEL"},
    {{"-o", "OUT", "output file (required)"},
     {"--text", "", "write a text GraphDef (.pbtxt) instead of binary"},
     frontend::InputShapeFlag()}};

int Run(const frontend::Args& args) {
  if (!args.Has("-o") || args.Get("-o").empty())
    return frontend::UsageError(kSpec, "-o OUT is required");
  const std::string& path = args.positional()[0];
  // Not over the model or its weight files, nor a FIFO or device.
  if (graph::Status st = frontend::CheckOutputsBeforeWork({{"-o", args.Get("-o")}}, path, "");
      !st.ok()) {
    return frontend::CommandError(kSpec, st);
  }
  graph::InferenceOptions shapes;
  if (graph::Status st = frontend::ParseInferenceFlags(args, &shapes); !st.ok()) {
    return frontend::UsageError(kSpec, st);
  }
  auto contents = graph::ReadFile(path);
  if (!contents.ok()) return frontend::CommandError(kSpec, contents.status());
  if (!shapes.input_shapes.empty() &&
      graph::DetectModelFormat(*contents) != graph::ModelFormat::kOnnx) {
    return frontend::UsageError(kSpec,
                                "--input-shape applies to ONNX models here (a GraphDef keeps its "
                                "declared shapes; inspect, simulate and search take it)");
  }
  auto g = graph::ImportModelContents(*contents, path, shapes.input_shapes);
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
