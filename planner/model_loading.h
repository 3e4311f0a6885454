// Loads a model file and runs shape inference: the first step of every command
// that takes a MODEL argument.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/shape_inference.h"
#include "graph/status.h"
#include "graph/summary.h"
#include "graph/training.h"
#include "runtime/profile.h"

namespace planner {

struct LoadedModel {
  graph::Graph graph;
  graph::InferenceReport report;
  graph::InferenceOptions options;
};

graph::Result<LoadedModel> LoadModel(const std::string& path, int64_t batch);

// A model's training graph placed on a devices file: what measure, profile and
// simulate start from. Without a placement file, every op is on the first device.
struct PlacedTraining {
  LoadedModel model;
  cluster::Cluster cluster;
  graph::TrainingGraph training;
  std::vector<int> device_of_node;  // of training.graph's nodes
  std::string method;               // "single:cpu0", or the placement's method and file
};
graph::Result<PlacedTraining> LoadPlacedTraining(const std::string& model_path,
                                                 const std::string& devices_path,
                                                 const std::string& placement_path, int64_t batch,
                                                 const graph::TrainingOptions& options);

// The flags every command that builds a training graph shares: --batch N and
// --optimizer sgd|momentum. On a bad value prints "<command_prefix><message>"
// and returns false (a usage error).
class Args;
bool ParseTrainingFlags(const Args& args, const char* command_prefix, int64_t* batch,
                        graph::TrainingOptions* options);

// The profile named by --profile, read from its file; nullopt without the flag.
// An unreadable or malformed file is an error naming it.
graph::Result<std::optional<runtime::Profile>> ProfileFlag(const Args& args);

// Everything `planner inspect` reports: the model's summary and the op counts of
// its training graph (or why none could be built).
graph::Result<graph::GraphSummary> InspectModel(const std::string& path, int64_t batch);

}  // namespace planner
