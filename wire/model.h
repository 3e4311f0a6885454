// A model as it crosses the wire (wire::pb::Model): the imported forward graph
// and the options that shaped its inputs and built its training graph, so a
// worker rebuilds exactly the graphs the controller places (same nodes, same
// order, same shapes) and a placement's indices mean the same on both sides.
//
// Thread safety: free functions, no shared state.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/shape_inference.h"
#include "graph/status.h"
#include "graph/training.h"

namespace wire {

namespace pb {
class Model;  // wire/proto/fleet.proto; included by wire's own files only
}  // namespace pb

// `apart`: names of the training graph's gradient ops that placements put on
// devices of their own (`--gradients heavy`), in the order their devices follow
// the forward nodes'; empty when every gradient follows its op.
pb::Model ModelToWire(const graph::Graph& forward, const graph::InferenceOptions& inference,
                      const graph::TrainingOptions& training,
                      const std::vector<std::string>& apart = {});

// The digest by which workers cache a model: of its serialized bytes.
std::string WireModelDigest(const pb::Model& model);

// A model ready to send to workers: its message, built once, and the digest
// they cache it by. Immutable; copies share the message.
class WireModel {
 public:
  WireModel(const graph::Graph& forward, const graph::InferenceOptions& inference,
            const graph::TrainingOptions& training, const std::vector<std::string>& apart = {});
  // A message as it is (a test's fake model).
  explicit WireModel(const pb::Model& message);
  const pb::Model& message() const { return *message_; }
  const std::string& digest() const { return digest_; }

 private:
  std::shared_ptr<const pb::Model> message_;
  std::string digest_;
};

struct RebuiltModel {
  graph::Graph forward;  // shapes inferred
  graph::TrainingGraph training;
  // pb::Model::apart as nodes of training.graph (planner::rewards::RewardContext::apart).
  std::vector<graph::NodeId> apart;
};

// The graphs of `model`; `source` (the peer) names it in errors, among them a
// name of `apart` that is no node of the training graph, or a node that may
// not run apart from its op (placement::MayRunApart), or one given twice.
graph::Result<RebuiltModel> ModelFromWire(const pb::Model& model, const std::string& source);

}  // namespace wire
