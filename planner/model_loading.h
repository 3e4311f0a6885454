// Loads a model file and runs shape inference: the first step of every command
// that takes a MODEL argument.
#pragma once

#include <string>

#include "graph/graph.h"
#include "graph/shape_inference.h"
#include "graph/status.h"
#include "graph/summary.h"

namespace planner {

struct LoadedModel {
  graph::Graph graph;
  graph::InferenceReport report;
  graph::InferenceOptions options;
};

graph::Result<LoadedModel> LoadModel(const std::string& path, int64_t batch);

// Everything `planner inspect` reports: the model's summary and the op counts of
// its training graph (or why none could be built).
graph::Result<graph::GraphSummary> InspectModel(const std::string& path, int64_t batch);

}  // namespace planner
