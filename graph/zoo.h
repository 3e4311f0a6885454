// The benchmark models of the device-placement papers, built in code at
// TensorFlow granularity (what `planner zoo` writes): recurrent cells unrolled
// over time into MatMul/BiasAdd/Split/Sigmoid/Tanh/Mul/AddV2 nodes, as TF1's
// BasicLSTMCell writes them; CNNs as Conv2D + FusedBatchNormV3 + Relu units;
// weights as TF1 variables (VariableV2 read through Identity; no values in the
// file) and a scalar float "loss".
//
// Sizes (hidden units, vocabulary, sequence length) default to the papers'
// (docs/zoo.md says which and where from); every one can be overridden.
// Ownership: the Graph is the caller's, shapes not inferred. Thread safety: pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/status.h"

namespace graph {

// 0 means the model's default.
struct ZooOptions {
  int64_t batch = 0;   // examples per step
  int64_t layers = 0;  // LSTM layers (rnnlm; nmt: of the encoder and of the decoder);
                       // resnet: depth, 50, 101 or 152
  int64_t hidden = 0;  // LSTM units
  int64_t vocab = 0;   // words
  int64_t steps = 0;   // time steps unrolled (nmt: of the source and of the target)
  // The defaults the zeros above take (nmt only; docs/zoo.md): "paper-scale",
  // an assumption, the sizes within the sources' ranges at which NMT-2, -4 and
  // -8 do not fit on one K40, as the paper's Table 1 says (batch 256, 50
  // steps); or "small", the sizes used before (batch 64, 40 steps), at which
  // they fit.
  std::string sizes = "paper-scale";
};

// "inception_v3", "resnet", "rnnlm", "nmt", and the small models "mlp", "lenet",
// "two_branch", "chain".
std::vector<std::string> ZooModels();

// Unknown names and out-of-range sizes are InvalidArgument naming the model.
Result<Graph> BuildZooModel(const std::string& name, const ZooOptions& options);

}  // namespace graph
