// A model as it crosses the wire (wire::pb::Model): the imported forward graph
// and the options that shaped its inputs and built its training graph, so a
// worker rebuilds exactly the graphs the controller places (same nodes, same
// order, same shapes) and a placement's indices mean the same on both sides.
//
// Thread safety: free functions, no shared state.
#pragma once

#include <string>

#include "graph/graph.h"
#include "graph/shape_inference.h"
#include "graph/status.h"
#include "graph/training.h"
#include "wire/proto/fleet.pb.h"

namespace wire {

pb::Model ModelToWire(const graph::Graph& forward, const graph::InferenceOptions& inference,
                      const graph::TrainingOptions& training);

// The digest by which workers cache a model: of its serialized bytes.
std::string WireModelDigest(const pb::Model& model);

struct RebuiltModel {
  graph::Graph forward;  // shapes inferred
  graph::TrainingGraph training;
};

// The graphs of `model`; `source` (the peer) names it in errors.
graph::Result<RebuiltModel> ModelFromWire(const pb::Model& model, const std::string& source);

}  // namespace wire
