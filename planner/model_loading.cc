#include "planner/model_loading.h"

#include "graph/importer.h"

namespace planner {

graph::Result<LoadedModel> LoadModel(const std::string& path, int64_t batch) {
  GRAPH_ASSIGN_OR_RETURN(graph::Graph g, graph::ImportModel(path));
  LoadedModel m{std::move(g), {}, {}};
  m.options.batch = batch;
  m.report = graph::InferShapes(m.graph, m.options);
  return m;
}

}  // namespace planner
