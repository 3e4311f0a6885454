#include "planner/model_loading.h"

#include <iostream>

#include "graph/importer.h"
#include "graph/training.h"
#include "planner/args.h"
#include "planner/placement.h"

namespace planner {

graph::Result<LoadedModel> LoadModel(const std::string& path, int64_t batch) {
  GRAPH_ASSIGN_OR_RETURN(graph::Graph g, graph::ImportModel(path));
  LoadedModel m{std::move(g), {}, {}};
  m.options.batch = batch;
  m.report = graph::InferShapes(m.graph, m.options);
  return m;
}

graph::Result<PlacedTraining> LoadPlacedTraining(const std::string& model_path,
                                                 const std::string& devices_path,
                                                 const std::string& placement_path, int64_t batch,
                                                 const graph::TrainingOptions& options) {
  GRAPH_ASSIGN_OR_RETURN(LoadedModel model, LoadModel(model_path, batch));
  GRAPH_ASSIGN_OR_RETURN(cluster::Cluster c, cluster::LoadDevicesFile(devices_path));
  if (c.devices.empty()) return graph::InvalidArgument(devices_path + ": no devices");
  const graph::Graph& forward = model.graph;
  std::vector<int> forward_device(forward.size(), 0);
  std::string method = "single:" + c.devices[0].name;
  if (!placement_path.empty()) {
    GRAPH_ASSIGN_OR_RETURN(Placement p, ReadPlacement(placement_path));
    GRAPH_RETURN_IF_ERROR(ValidatePlacement(p, forward, c, placement_path));
    forward_device = DeviceOfNode(p, forward, c);
    method = p.method.empty() ? placement_path : p.method + " (" + placement_path + ")";
  }
  auto training = graph::BuildTrainingGraph(forward, options, model.options);
  if (!training.ok()) {
    return graph::Status(training.status().code(), model_path + ": " + training.status().message());
  }
  std::vector<int> device_of_node = TrainingDeviceOfNode(training->graph, forward, forward_device);
  return PlacedTraining{std::move(model), std::move(c), std::move(training).value(),
                        std::move(device_of_node), method};
}

graph::Result<std::optional<runtime::Profile>> ProfileFlag(const Args& args) {
  if (!args.Has("--profile")) return std::optional<runtime::Profile>();
  GRAPH_ASSIGN_OR_RETURN(runtime::Profile p, runtime::ReadProfile(args.Get("--profile")));
  return std::optional<runtime::Profile>(std::move(p));
}

bool ParseTrainingFlags(const Args& args, const char* command_prefix, int64_t* batch,
                        graph::TrainingOptions* options) {
  if (args.Has("--batch")) {
    auto v = ParseIntInRange("--batch", args.Get("--batch"), 1, 1 << 20);
    if (!v.ok()) {
      std::cerr << command_prefix << v.status().message() << "\n";
      return false;
    }
    *batch = *v;
  }
  options->optimizer = args.Get("--optimizer", "sgd");
  if (options->optimizer != "sgd" && options->optimizer != "momentum") {
    std::cerr << command_prefix << "--optimizer must be sgd or momentum, not '"
              << options->optimizer << "'\n";
    return false;
  }
  return true;
}

graph::Result<graph::GraphSummary> InspectModel(const std::string& path, int64_t batch) {
  GRAPH_ASSIGN_OR_RETURN(LoadedModel m, LoadModel(path, batch));
  graph::GraphSummary s = graph::Summarize(m.graph, m.report, m.options);
  auto t = graph::PlanTrainingGraph(m.graph, {}, m.options);
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

}  // namespace planner
