#include "frontend/model_loading.h"

#include <cassert>
#include <iostream>

#include "frontend/args.h"
#include "graph/importer.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "placement/placement.h"

namespace frontend {

FlagSpec BatchFlag() {
  return {"--batch", "N", "size for an unknown leading input dimension (default 1)"};
}

FlagSpec InputShapeFlag() {
  return {"--input-shape", "NAME=D0,D1,...",
          "shape of input NAME, for inputs with unknown dimensions (repeatable; NAME= for a "
          "scalar)"};
}

std::vector<std::pair<std::string, std::string>> ModelInputFiles(const std::string& model_path) {
  std::vector<std::pair<std::string, std::string>> files{{"the model", model_path}};
  for (const std::string& f : graph::ModelCompanionFiles(model_path)) {
    files.push_back({"the model's weights file", f});
  }
  return files;
}

graph::Status CheckOutputsBeforeWork(
    const std::vector<std::pair<std::string, std::string>>& outputs, const std::string& model_path,
    const std::string& devices_path,
    const std::vector<std::pair<std::string, std::string>>& other_inputs) {
  for (const auto& [flag, path] : outputs) {
    if (!path.empty()) GRAPH_RETURN_IF_ERROR(CheckOutputWritable(flag, path));
  }
  std::vector<std::pair<std::string, std::string>> inputs = ModelInputFiles(model_path);
  inputs.push_back({"the devices file", devices_path});
  inputs.insert(inputs.end(), other_inputs.begin(), other_inputs.end());
  return CheckDistinctFiles(outputs, inputs);
}

std::vector<FlagSpec> WithTrainingFlags(std::vector<FlagSpec> own) {
  own.push_back(BatchFlag());
  own.push_back(InputShapeFlag());
  own.push_back({"--optimizer", "NAME", "sgd (default) or momentum"});
  return own;
}

namespace {

// --batch fills a leading dimension the model leaves open, and only that: a
// model whose inputs all fix theirs (a PyTorch export without dynamic_axes, a
// zoo model made at --batch 32) was planned at its own batch while the user
// asked for another. Inputs whose fixed leading dimension is the batch asked
// for agree with it. A time-major input ([T, B]) that holds the batch asked
// for as its dimension 1 is refused too (--batch does nothing there), worded
// as possibly set already, not only as a wrong batch.
graph::Status CheckBatchTaken(const LoadedModel& m, const std::string& path) {
  if (!m.options.batch_given || !m.report.bound_placeholders.empty()) return graph::Status::Ok();
  const int64_t batch = m.options.batch;
  for (const graph::Node& n : m.graph.nodes()) {
    if (n.op != "Placeholder" || n.output_shapes.empty()) continue;
    const graph::Shape& shape = n.output_shapes[0];
    if (shape.rank() == 0 || shape.dim(0) < 0 || shape.dim(0) == batch) continue;
    const bool given = m.options.input_shapes.count(n.name) > 0;
    const std::string b = std::to_string(batch);
    const std::string time_major =
        shape.rank() > 1 && shape.dim(1) == batch
            ? "; if its dimension 1 (" + b + ") is the batch, it is set already"
            : "";
    return graph::InvalidArgument(
        path + ": --batch " + b + " binds no input: '" + n.name + "' is " + shape.ToString() +
        (given ? " by --input-shape (give the batch there, or leave --batch out" + time_major + ")"
               : ", fixed by the model (make or export it with an open batch dimension, or "
                 "leave --batch out" +
                     time_major + ")"));
  }
  return graph::Status::Ok();
}

}  // namespace

graph::Result<LoadedModel> LoadModel(const std::string& path,
                                     const graph::InferenceOptions& options) {
  GRAPH_ASSIGN_OR_RETURN(graph::Graph g, graph::ImportModel(path, options.input_shapes));
  graph::Status st = graph::CheckInputShapes(g, options);
  if (!st.ok()) return graph::Status(st.code(), path + ": " + st.message());
  LoadedModel m{std::move(g), {}, options};
  m.report = graph::InferShapes(m.graph, m.options);
  GRAPH_RETURN_IF_ERROR(CheckBatchTaken(m, path));
  return m;
}

std::string BatchNote(const LoadedModel& model) {
  const std::vector<graph::NodeId>& bound = model.report.bound_placeholders;
  if (bound.empty()) return "";
  std::string names;
  for (size_t i = 0; i < bound.size() && i < 3; ++i) {
    names += (i ? ", " : "") + model.graph.node(bound[i]).name;
  }
  if (bound.size() > 3) names += ", ...";
  return "batch: " + std::to_string(model.options.batch) + " (the model leaves the batch " +
         "dimension of " + std::to_string(bound.size()) + " input(s) open: " + names +
         "; --batch N sets it)";
}

graph::Status RequireStaticInputs(const LoadedModel& model, const std::string& path) {
  graph::NodeId id = graph::FirstUnknownInput(model.graph);
  if (id < 0) return graph::Status::Ok();
  const graph::Node& n = model.graph.node(id);
  const graph::Shape s = n.output_shapes.empty() ? graph::Shape() : n.output_shapes[0];
  std::string example;
  if (s.known_rank()) {
    for (int d = 0; d < s.rank(); ++d) {
      example += (d ? "," : "") + (s.dim(d) < 0 ? std::string("?") : std::to_string(s.dim(d)));
    }
  } else {
    example = "D0,D1,...";
  }
  return graph::InvalidArgument((path.empty() ? "" : path + ": ") + "input '" + n.name +
                                "' has shape " + s.ToString() +
                                "; give its size with --input-shape " + n.name + "=" + example +
                                (s.known_rank() ? ", each ? replaced by a size" : ""));
}

namespace {

// A tensor too large to count (its size overflowed to "unknown": 0 bytes, a
// step of 0 ms) is no model any device can run: refused naming the node.
graph::Status RequireCountableTensors(const LoadedModel& model, const std::string& path) {
  constexpr int64_t kMaxBytes = int64_t{1} << 62;
  for (const graph::Node& n : model.graph.nodes()) {
    for (size_t k = 0; k < n.output_shapes.size(); ++k) {
      const graph::Shape& s = n.output_shapes[k];
      if (!s.FullyDefined()) continue;
      const int64_t elements = s.NumElements();
      const int size = k < n.output_dtypes.size() ? graph::DTypeSize(n.output_dtypes[k]) : 1;
      if (elements >= 0 && (size <= 0 || elements <= kMaxBytes / size)) continue;
      return graph::InvalidArgument((path.empty() ? "" : path + ": ") + "output " +
                                    std::to_string(k) + " of node '" + n.name + "' has shape " +
                                    s.ToString() + ", more than 2^62 bytes: no device holds it");
    }
  }
  return graph::Status::Ok();
}

}  // namespace

graph::Result<PlacedTraining> LoadPlacedTraining(const std::string& model_path,
                                                 const std::string& devices_path,
                                                 const std::string& placement_path,
                                                 const graph::InferenceOptions& inference,
                                                 const graph::TrainingOptions& options) {
  GRAPH_ASSIGN_OR_RETURN(LoadedModel model, LoadModel(model_path, inference));
  GRAPH_ASSIGN_OR_RETURN(cluster::Cluster c, cluster::LoadDevicesFile(devices_path));
  if (c.devices.empty()) return graph::InvalidArgument(devices_path + ": no devices");
  return PlaceTraining(std::move(model), model_path, std::move(c), placement_path, options);
}

graph::Result<PlacedTraining> PlaceTraining(LoadedModel model, const std::string& model_name,
                                            cluster::Cluster c, const std::string& placement_path,
                                            const graph::TrainingOptions& options) {
  if (graph::Status st = graph::CheckNoControlFlow(model.graph, "training"); !st.ok()) {
    return graph::Status(st.code(), model_name + ": " + st.message());
  }
  GRAPH_RETURN_IF_ERROR(RequireStaticInputs(model, model_name));
  GRAPH_RETURN_IF_ERROR(RequireCountableTensors(model, model_name));
  assert(!c.devices.empty());
  const graph::Graph& forward = model.graph;
  placement::Placement p;  // without a file, every op on the first device
  for (const graph::Node& n : forward.nodes()) p.ops.emplace_back(n.name, c.devices[0].name);
  std::string method = "single:" + c.devices[0].name;
  std::string note;
  if (!placement_path.empty()) {
    GRAPH_ASSIGN_OR_RETURN(p, placement::ReadPlacement(placement_path));
    GRAPH_RETURN_IF_ERROR(placement::ValidatePlacement(p, forward, c, placement_path));
    method = p.method.empty() ? placement_path : p.method + " (" + placement_path + ")";
    for (const std::string& n : {placement::InputShapesNote(p, forward, placement_path),
                                 placement::OptimizerNote(p, options.optimizer, placement_path)}) {
      if (!n.empty()) note += (note.empty() ? "" : "\n") + n;
    }
  }
  auto training = graph::BuildTrainingGraph(forward, options, model.options);
  if (!training.ok()) {
    // Where the model's shapes stopped is the cause a user can act on: an op
    // type with no rule here, or a node whose inputs its rule rejects.
    const graph::InferenceReport& r = model.report;
    if (!r.nodes_without_rule.empty()) {
      const graph::Node& n = forward.node(r.nodes_without_rule[0]);
      const size_t more = r.nodes_without_rule.size() - 1;
      return graph::Unimplemented(
          model_name + ": node '" + n.name + "' (" + n.op + ") has an op type this planner has " +
          "no shape rule for" +
          (more ? " (and " + std::to_string(more) + " more node(s) of such types)" : "") +
          ", so its training step cannot be built (planner inspect lists the unsupported ops)");
    }
    std::string cause;
    if (!r.problems.empty()) cause = " (shape inference: " + r.problems[0] + ")";
    return graph::Status(training.status().code(),
                         model_name + ": " + training.status().message() + cause);
  }
  GRAPH_ASSIGN_OR_RETURN(
      std::vector<int> device_of_node,
      placement::TrainingDevices(p, training->graph, forward, c, placement_path));
  return PlacedTraining{std::move(model), std::move(c), std::move(training).value(),
                        std::move(device_of_node), method, note};
}

// "NAME=1,256,256,3" -> (NAME, [1,256,256,3]), "NAME=" -> (NAME, []): a
// scalar; the name may itself hold '=' (the last '=' separates).
graph::Status ParseInputShape(const std::string& value,
                              std::map<std::string, std::vector<int64_t>>* shapes) {
  const size_t eq = value.rfind('=');
  // A size 0 is refused as --batch 0 is: an empty tensor trains nothing, and
  // kernels would see it.
  const std::string bad = "--input-shape '" + value +
                          "' must be NAME=D0,D1,... with sizes from 1 to " +
                          std::to_string(graph::kMaxInputSize);
  if (eq == std::string::npos || eq == 0) return graph::InvalidArgument(bad);
  std::vector<int64_t> dims;
  // "NAME=": a scalar (its loop below would have read one empty size and
  // refused it).
  size_t start = eq + 1 == value.size() ? value.size() + 1 : eq + 1;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    auto d = ParseIntInRange("--input-shape", value.substr(start, comma - start), 1,
                             graph::kMaxInputSize);
    if (!d.ok()) return graph::InvalidArgument(bad);
    dims.push_back(*d);
    start = comma + 1;
  }
  const std::string name = value.substr(0, eq);
  if (!shapes->emplace(name, dims).second) {
    return graph::InvalidArgument("--input-shape gives '" + name + "' twice");
  }
  return graph::Status::Ok();
}

graph::Status ParseInferenceFlags(const Args& args, graph::InferenceOptions* inference) {
  if (args.Has("--batch")) {
    GRAPH_ASSIGN_OR_RETURN(inference->batch,
                           ParseIntInRange("--batch", args.Get("--batch"), 1, graph::kMaxBatch));
    inference->batch_given = true;
  }
  for (const std::string& value : args.GetAll("--input-shape")) {
    GRAPH_RETURN_IF_ERROR(ParseInputShape(value, &inference->input_shapes));
  }
  return graph::Status::Ok();
}

graph::Status ParseTrainingFlags(const Args& args, graph::InferenceOptions* inference,
                                 graph::TrainingOptions* options) {
  GRAPH_RETURN_IF_ERROR(ParseInferenceFlags(args, inference));
  options->optimizer = args.Get("--optimizer", "sgd");
  if (options->optimizer != "sgd" && options->optimizer != "momentum") {
    return graph::InvalidArgument("--optimizer must be sgd or momentum, not '" +
                                  options->optimizer + "'");
  }
  return graph::Status::Ok();
}

graph::Result<graph::GraphSummary> InspectModel(const std::string& path,
                                                const graph::InferenceOptions& options) {
  GRAPH_ASSIGN_OR_RETURN(LoadedModel m, LoadModel(path, options));
  graph::GraphSummary s = graph::Summarize(m.graph, m.report, m.options);
  graph::Status inputs = graph::CheckNoControlFlow(m.graph, "training");
  if (inputs.ok()) inputs = RequireStaticInputs(m, "");
  auto t = inputs.ok() ? graph::PlanTrainingGraph(m.graph, {}, m.options)
                       : graph::Result<graph::TrainingPlan>(inputs);
  if (t.ok()) {
    const graph::TrainingCounts& c = t->counts;
    s.training = {true,
                  "",
                  t->loss,
                  t->synthetic_loss,
                  c.total(),
                  c.forward_nodes,
                  c.loss_nodes,
                  c.backward_nodes,
                  c.update_nodes,
                  static_cast<int64_t>(t->parameters.size()),
                  c.unused_parameters};
  } else {
    s.training.error = t.status().message();
  }
  return s;
}

}  // namespace frontend
