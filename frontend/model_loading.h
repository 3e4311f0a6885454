// Loads a model file and runs shape inference: the first step of every command
// that takes a MODEL argument.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "frontend/args.h"
#include "graph/graph.h"
#include "graph/shape_inference.h"
#include "graph/status.h"
#include "graph/summary.h"
#include "graph/training.h"

namespace frontend {

struct LoadedModel {
  graph::Graph graph;
  graph::InferenceReport report;
  graph::InferenceOptions options;
};

// Imports the model and infers its shapes with `options` (batch, input shapes,
// which are checked against the model's inputs first).
graph::Result<LoadedModel> LoadModel(const std::string& path,
                                     const graph::InferenceOptions& options);

// "batch: ..." when the model leaves its inputs' batch dimension open and
// inference gave it options.batch (a PyTorch export with dynamic_axes), naming
// the inputs and the flag; "" otherwise. Commands print it, so that a plan made
// at batch 1 says so.
std::string BatchNote(const LoadedModel& model);

// When an input still has unknown dimensions, the error that asks for
// --input-shape, naming the input and its shape; Ok otherwise.
graph::Status RequireStaticInputs(const LoadedModel& model, const std::string& path);

// A model's training graph placed on a devices file: what measure, profile and
// simulate start from. Without a placement file, every op is on the first device.
struct PlacedTraining {
  LoadedModel model;
  cluster::Cluster cluster;
  graph::TrainingGraph training;
  std::vector<int> device_of_node;  // of training.graph's nodes
  std::string method;               // "single:cpu0", or the placement's method and file
  // A line for each way the placement was made for another step (other input
  // shapes, another --optimizer), for the command to print; else "".
  std::string placement_note;
};
graph::Result<PlacedTraining> LoadPlacedTraining(const std::string& model_path,
                                                 const std::string& devices_path,
                                                 const std::string& placement_path,
                                                 const graph::InferenceOptions& inference,
                                                 const graph::TrainingOptions& options);
// The same for a model already loaded (`model_name` names it in messages) and
// devices already read (at least one).
graph::Result<PlacedTraining> PlaceTraining(LoadedModel model, const std::string& model_name,
                                            cluster::Cluster c, const std::string& placement_path,
                                            const graph::TrainingOptions& options);

// The flags that shape a model's inputs, for every command that takes a MODEL
// (functions: the commands' specs are static objects built at start-up).
FlagSpec BatchFlag();       // --batch N
FlagSpec InputShapeFlag();  // --input-shape NAME=D0,D1,... (repeatable)

// The files a model is read from, named for CheckDistinctFiles: the model and
// its weight or external data files ("the model's weights file"), so that no
// output is written over one.
std::vector<std::pair<std::string, std::string>> ModelInputFiles(const std::string& model_path);
// A command's outputs (flag, path; an empty path is not given), checked before
// its work: each writable (CheckOutputWritable), none named twice, and none
// over the model (its weight files included), the devices file or
// `other_inputs` (what names it, path). The errors name the flag and the file.
graph::Status CheckOutputsBeforeWork(
    const std::vector<std::pair<std::string, std::string>>& outputs, const std::string& model_path,
    const std::string& devices_path,
    const std::vector<std::pair<std::string, std::string>>& other_inputs = {});
// A command's own flags, then those of ParseTrainingFlags: --batch,
// --input-shape and --optimizer.
std::vector<FlagSpec> WithTrainingFlags(std::vector<FlagSpec> own);

// Reads --batch and --input-shape; the error (a usage error) names the flag.
graph::Status ParseInferenceFlags(const Args& args, graph::InferenceOptions* inference);

// The flags every command that builds a training graph shares: those of
// ParseInferenceFlags and --optimizer sgd|momentum.
graph::Status ParseTrainingFlags(const Args& args, graph::InferenceOptions* inference,
                                 graph::TrainingOptions* options);

// Everything `planner inspect` reports: the model's summary and the op counts of
// its training graph (or why none could be built).
graph::Result<graph::GraphSummary> InspectModel(const std::string& path,
                                                const graph::InferenceOptions& options);

}  // namespace frontend
