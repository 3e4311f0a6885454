#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "frontend/args.h"
#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "graph/zoo.h"

namespace planner::cli {

namespace {
const frontend::CommandSpec kSpec{
    "zoo",
    "NAME -o OUT.pb [--sizes paper-scale|small] [--batch N] [--layers L] [--hidden H]\n"
    "       [--vocab V] [--steps T]",
    "Writes a benchmark model as a binary GraphDef with a scalar 'loss': rnnlm (multi-layer\n"
    "LSTM language model), nmt (LSTM encoder-decoder with attention), inception_v3,\n"
    "resnet (50, 101 or 152 layers), or the small models mlp, lenet, two_branch, chain.\n"
    "Recurrent cells are unrolled over time at TensorFlow\n"
    "granularity; weights are TF1 variables. Defaults and their sources: docs/zoo.md.",
    {"NAME"},
    {{"-o", "OUT", "output file (required), written atomically"},
     {"--sizes", "NAME",
      "nmt's defaults: paper-scale (batch 256, 50 steps: no NMT fits on one K40) or small "
      "(batch 64, 40 steps)"},
     {"--batch", "N", "examples per step"},
     {"--layers", "L", "LSTM layers (nmt: each of encoder and decoder); resnet: its depth"},
     {"--hidden", "H", "LSTM units"},
     {"--vocab", "V", "vocabulary size"},
     {"--steps", "T", "time steps unrolled"}}};

int Run(const frontend::Args& args) {
  if (args.Get("-o").empty()) return frontend::UsageError(kSpec, "-o OUT.pb is required");
  if (graph::Status st = frontend::CheckOutputWritable("-o", args.Get("-o")); !st.ok()) {
    return frontend::CommandError(kSpec, st);
  }
  graph::ZooOptions o;
  if (args.Has("--sizes")) {
    if (args.positional()[0] != "nmt") {
      return frontend::UsageError(kSpec, "--sizes applies to nmt only");
    }
    o.sizes = args.Get("--sizes");
  }
  for (auto [flag, target] : {std::pair<const char*, int64_t*>{"--batch", &o.batch},
                              {"--layers", &o.layers},
                              {"--hidden", &o.hidden},
                              {"--vocab", &o.vocab},
                              {"--steps", &o.steps}}) {
    if (!args.Has(flag)) continue;
    auto v = frontend::ParsePositiveInt(flag, args.Get(flag));
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    *target = *v;
  }
  auto g = graph::BuildZooModel(args.positional()[0], o);
  // Its every input is a flag or the name: a model it refuses is a usage error, like --layers 0.
  if (!g.ok()) return frontend::UsageError(kSpec, g.status());
  graph::Status st = graph::WriteFileAtomic(args.Get("-o"), graph::SerializeGraphDef(*g));
  if (!st.ok()) return frontend::CommandError(kSpec, st);
  std::printf(
      "wrote %s: %s, %d nodes (forward graph; planner inspect shows the training "
      "graph's count)\n",
      args.Get("-o").c_str(), args.positional()[0].c_str(), g->size());
  return 0;
}

}  // namespace

int ZooCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

}  // namespace planner::cli
