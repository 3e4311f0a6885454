#include "planner/model_loading.h"

#include "graph/importer.h"
#include "graph/training.h"

namespace planner {

graph::Result<LoadedModel> LoadModel(const std::string& path, int64_t batch) {
  GRAPH_ASSIGN_OR_RETURN(graph::Graph g, graph::ImportModel(path));
  LoadedModel m{std::move(g), {}, {}};
  m.options.batch = batch;
  m.report = graph::InferShapes(m.graph, m.options);
  return m;
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
