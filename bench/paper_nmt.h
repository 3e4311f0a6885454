// The paper's NMT on its machine, for the benchmarks that run it: the zoo's
// NMT with `layers` layers (2, 4 or 8) at `sizes` ("paper-scale" or "small";
// graph/zoo.h), shapes inferred, its training graph (SGD), and
// DIR/k40-paper-{layers}gpu.yaml (a modelled CPU and `layers` K40s).
// Header-only: shared by sim_speed, search_update and climb_speed.
#pragma once

#include <string>

#include "cluster/devices.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "graph/zoo.h"

namespace bench {

struct PaperNmt {
  cluster::Cluster cluster;
  graph::Graph forward;
  graph::TrainingGraph training;
};

inline graph::Result<PaperNmt> LoadPaperNmt(const std::string& configs, int layers,
                                            const std::string& sizes = "paper-scale") {
  GRAPH_ASSIGN_OR_RETURN(
      cluster::Cluster c,
      cluster::LoadDevicesFile(configs + "/k40-paper-" + std::to_string(layers) + "gpu.yaml"));
  graph::ZooOptions o;
  o.layers = layers;
  o.sizes = sizes;
  GRAPH_ASSIGN_OR_RETURN(graph::Graph forward, graph::BuildZooModel("nmt", o));
  graph::InferShapes(forward);
  GRAPH_ASSIGN_OR_RETURN(graph::TrainingGraph training, graph::BuildTrainingGraph(forward, {}));
  return PaperNmt{std::move(c), std::move(forward), std::move(training)};
}

}  // namespace bench
