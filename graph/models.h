// Small training models built in code: an MLP, LeNet-5 and a two-branch model for
// 28x28x1 images (Fashion-MNIST) with 10 classes.
//
// They are forward graphs written the way TensorFlow writes a frozen graph (op
// names, attrs, NHWC layout, weights as float32 Const nodes), so importers' users,
// shape inference, costs and the training-graph construction treat them exactly
// like imported models. Every model has:
//   "images"  Placeholder float32 [batch, 28, 28, 1]
//   "labels"  Placeholder int32 [batch]
//   "logits"  float32 [batch, 10]
//   "loss"    Mean over the batch of SparseSoftmaxCrossEntropyWithLogits, a scalar
// Weights are Glorot-uniform and biases zero, drawn in node order from one
// std::mt19937 seeded with `seed`, so a seed gives the same weights on every run
// (with the same standard library: uniform_real_distribution is not specified
// bit-exactly across implementations).
//
// Ownership: the returned Graph is the caller's; shapes are not yet inferred (run
// InferShapes, as after an import). Thread safety: pure functions; safe to call
// concurrently.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "graph/status.h"

namespace graph {

struct MlpOptions {
  int64_t batch = 64;                        // examples per step
  std::vector<int64_t> hidden = {256, 256};  // units of each ReLU hidden layer, input to output
  uint32_t seed = 1;                         // weight initialisation
};

// images -> Reshape [batch, 784] -> (MatMul + BiasAdd + Relu) per hidden layer
// -> MatMul + BiasAdd to 10 logits. Node scopes: "flatten", "hidden_0", ...,
// "logits". Default parameters: 269,322.
Result<Graph> BuildMlp(const MlpOptions& opts);

struct LeNetOptions {
  int64_t batch = 64;  // examples per step
  uint32_t seed = 1;   // weight initialisation
};

// LeNet-5 for 28x28x1: conv1 5x5x1x6 SAME + BiasAdd + Relu, pool1 2x2/2,
// conv2 5x5x6x16 VALID + BiasAdd + Relu, pool2 2x2/2, flatten [batch, 400],
// fc1 400x120 + Relu, fc2 120x84 + Relu, logits 84x10. Parameters: 61,706.
Result<Graph> BuildLeNet(const LeNetOptions& opts);

struct TwoBranchOptions {
  int64_t batch = 64;                        // examples per step
  std::vector<int64_t> hidden = {512, 512};  // ReLU hidden layers of each branch
  uint32_t seed = 1;                         // weight initialisation
};

// Two MLP towers of identical shape ("a/..." and "b/...", each with its own
// Reshape, hidden layers and 10 logits) read "images" and meet only at
// "logits" = AddV2(a/logits, b/logits); the loss follows. The branches are
// independent and equally expensive, so two devices can run them in parallel:
// the ideal placement halves the branch time. With the defaults each branch is
// 2 x 64 x (784x512 + 512x512 + 512x10) = 85.6 MFLOP forward and about 3x that,
// 257 MFLOP, per training step: about 3 ms on one core at the ~90 GFLOP/s that
// single-threaded OpenBLAS sgemm reached on these shapes on the development
// machine (an AVX-512 EPYC core). Default parameters: 2 x 669,706.
Result<Graph> BuildTwoBranch(const TwoBranchOptions& opts);

struct ChainOptions {
  int64_t batch = 64;    // examples per step
  int64_t width = 1280;  // units after the one MatMul; a multiple of 10
  int tanh_layers = 8;   // Tanh ops after it
  uint32_t seed = 1;     // weight initialisation
};

// A model whose training step has no parallelism: images -> Reshape
// [batch, 784] -> MatMul with the only parameter "dense/kernel" [784, width]
// -> `tanh_layers` Tanh ops ("tanh_0", ...) -> Reshape [batch, 10, width/10]
// -> Sum over the last axis = "logits". The images need no gradient and no
// other op has a parameter, so the backward pass is one chain (TanhGrads, then
// the kernel's gradient) ending in the one update: apart from constants and
// the loss's value (a Mean over the batch that the gradients do not read) no
// two ops can run at once, and no placement can beat every op on the fastest
// device. It is the counterpart of two_branch for tests of the search's
// honesty. With the defaults a step is about 0.4 GFLOP (the MatMul and its
// gradient) plus 16 passes over 64 x 1280 floats.
Result<Graph> BuildChain(const ChainOptions& opts);

}  // namespace graph
