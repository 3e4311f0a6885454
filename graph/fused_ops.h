// TensorFlow's fused contractions (_FusedConv2D, FusedDepthwiseConv2dNative,
// _FusedMatMul): a convolution or matrix product followed by the ops listed in
// its `fused_ops` attribute, whose extra operands follow the two inputs
// (`num_args` of them). One reading of that attribute, shared by the kernels
// (runtime/) and the gradient rules (gradients.cc), so both agree on what a
// node computes.
//
// Supported: BiasAdd, then optionally one activation of TensorFlow's fusions or
// TF.js's: Relu, Relu6, Elu, LeakyRelu (attr leakyrelu_alpha, default 0.2),
// Sigmoid, Tanh, GeluApproximate, GeluExact, and Prelu (TF.js; its alpha is the
// extra operand after the bias, num_args 2). A fused FusedBatchNorm (TensorFlow
// folds inference batch norm this way; TF.js refuses it too) is refused.
// Thread safety: pure functions.
#pragma once

#include <string>

#include "graph/graph.h"
#include "graph/status.h"

namespace graph {

enum class FusedActivation {
  kNone,
  kRelu,
  kRelu6,
  kElu,
  kLeakyRelu,
  kSigmoid,
  kTanh,
  kGeluApproximate,
  kGeluExact,
  kPrelu,
};

struct FusedOps {
  FusedActivation activation = FusedActivation::kNone;
  std::string activation_name;  // as written in fused_ops ("" for none)
  float leakyrelu_alpha = 0.2f;
  int bias_input = 2;    // the BiasAdd operand
  int alpha_input = -1;  // Prelu's alpha operand, -1 without Prelu
};

// Reads `n`'s fused_ops and num_args; the error names the node and what is
// unsupported. Checks the node's input count against num_args.
Result<FusedOps> ParseFusedOps(const Node& n);

}  // namespace graph
