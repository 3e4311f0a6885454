// The facts `planner inspect` prints about a model: size, op mix, parameters,
// FLOPs, activation memory, inputs and outputs, and everything left unknown.
// Pure functions of a shape-inferred Graph; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/cost.h"
#include "graph/graph.h"
#include "graph/shape_inference.h"

namespace graph {

struct TensorInfo {
  std::string name;  // "node" or "node:1"
  DType dtype = DType::kInvalid;
  Shape shape;
};

// The training graph `planner inspect` builds alongside (graph/training.h).
struct TrainingSummary {
  bool built = false;
  std::string error;  // why it could not be built, when !built
  std::string loss;
  bool synthetic_loss = false;
  int64_t nodes = 0, forward = 0, loss_nodes = 0, backward = 0, update = 0;
  int64_t parameters = 0, unused_parameters = 0;
};

struct GraphSummary {
  int64_t nodes = 0;
  std::map<std::string, int64_t> op_histogram;
  int64_t parameter_tensors = 0;
  int64_t parameters = 0;  // elements
  int64_t parameter_bytes = 0;
  double forward_flops = 0;
  int64_t activation_bytes = 0;  // every output of every non-parameter op, summed
  // Peak of live activations when the ops run one at a time in topological order
  // and each tensor is freed after its last consumer (graph outputs stay live).
  int64_t peak_activation_bytes = 0;
  std::vector<TensorInfo> inputs;                // placeholders
  std::vector<TensorInfo> outputs;               // tensors no node consumes
  std::vector<std::string> unknown_ops;          // op types without a shape rule
  std::vector<std::string> unknown_shape_nodes;  // "name (Op)"
  std::vector<std::string> unknown_cost_nodes;   // "name (Op)"
  std::vector<std::string> problems;             // rule rejections
  std::vector<std::string> batch_bound;          // placeholders given the default batch
  int64_t batch = 1;
  TrainingSummary training;  // filled by the caller that built it
};

GraphSummary Summarize(const Graph& g, const InferenceReport& report, const InferenceOptions& opts);

// GraphSummary::peak_activation_bytes alone: the peak of live outputs (not
// constants or parameters) when the ops run one at a time in topological
// order, each freed after its last consumer.
int64_t PeakLiveActivationBytes(const Graph& g);

std::string SummaryToText(const GraphSummary& s, const std::string& model);
std::string SummaryToJson(const GraphSummary& s, const std::string& model);

// `s` as a JSON string literal, quotes included.
std::string JsonQuote(const std::string& s);
// `v` with `decimals` digits after the point, or null when it is not finite
// (JSON has no NaN or infinity: a diverged loss must not break the file).
std::string JsonNumber(double v, int decimals);

}  // namespace graph
