#include "wire/model.h"

#include <set>

#include "graph/digest.h"
#include "graph/graphdef.h"
#include "graph/shape_inference.h"
#include "placement/placement.h"
#include "wire/proto/fleet.pb.h"

namespace wire {

pb::Model ModelToWire(const graph::Graph& forward, const graph::InferenceOptions& inference,
                      const graph::TrainingOptions& training,
                      const std::vector<std::string>& apart) {
  pb::Model m;
  m.set_graphdef(graph::SerializeGraphDef(forward));
  m.set_batch(inference.batch);
  for (const auto& [name, dims] : inference.input_shapes) {
    pb::Model::InputShape* s = m.add_input_shapes();
    s->set_name(name);
    for (int64_t d : dims) s->add_dims(d);
  }
  m.set_max_constant_elements(inference.max_constant_elements);
  m.set_optimizer(training.optimizer);
  m.set_learning_rate(training.learning_rate);
  m.set_momentum(training.momentum);
  m.set_loss(training.loss);
  for (const std::string& name : apart) m.add_apart(name);
  return m;
}

WireModel::WireModel(const graph::Graph& forward, const graph::InferenceOptions& inference,
                     const graph::TrainingOptions& training, const std::vector<std::string>& apart)
    : message_(std::make_shared<const pb::Model>(ModelToWire(forward, inference, training, apart))),
      digest_(WireModelDigest(*message_)) {}

WireModel::WireModel(const pb::Model& message)
    : message_(std::make_shared<const pb::Model>(message)), digest_(WireModelDigest(message)) {}

std::string WireModelDigest(const pb::Model& model) {
  return graph::Fnv1a64Hex(model.SerializeAsString());
}

namespace {

// m.apart as nodes of r.training.graph, each checked.
graph::Result<std::vector<graph::NodeId>> ApartNodes(const pb::Model& m, const RebuiltModel& r,
                                                     const std::string& where) {
  const graph::Graph& training = r.training.graph;
  const std::vector<graph::NodeId> source = placement::ForwardSourceOfNode(training, r.forward);
  std::vector<graph::NodeId> apart;
  std::set<graph::NodeId> seen;
  for (const std::string& name : m.apart()) {
    const graph::NodeId id = training.Find(name);
    if (id < 0) {
      return graph::InvalidArgument(where + ": '" + name +
                                    "', to be placed apart, is no node of its training graph");
    }
    if (!placement::MayRunApart(training, r.forward, source, id)) {
      return graph::InvalidArgument(where + ": '" + name +
                                    "' is not a gradient op that may run apart from its op");
    }
    if (!seen.insert(id).second) {
      return graph::InvalidArgument(where + ": '" + name + "' is placed apart twice");
    }
    apart.push_back(id);
  }
  return apart;
}

}  // namespace

graph::Result<RebuiltModel> ModelFromWire(const pb::Model& m, const std::string& source) {
  const std::string where = source + "'s model";
  GRAPH_ASSIGN_OR_RETURN(graph::Graph forward, graph::ParseBinaryGraphDef(m.graphdef(), where));
  graph::InferenceOptions inference;
  inference.batch = m.batch();
  // The ranges the command line takes: a peer's model is held to no less.
  if (inference.batch < 1 || inference.batch > graph::kMaxBatch) {
    return graph::InvalidArgument(where + ": batch " + std::to_string(inference.batch) +
                                  " is out of range (1 to " + std::to_string(graph::kMaxBatch) +
                                  ")");
  }
  for (const pb::Model::InputShape& s : m.input_shapes()) {
    for (int64_t d : s.dims()) {
      if (d < 1 || d > graph::kMaxInputSize) {
        return graph::InvalidArgument(where + ": input '" + s.name() + "' has size " +
                                      std::to_string(d) + " (sizes are 1 to " +
                                      std::to_string(graph::kMaxInputSize) + ")");
      }
    }
    inference.input_shapes[s.name()] = {s.dims().begin(), s.dims().end()};
  }
  inference.max_constant_elements = m.max_constant_elements();
  if (inference.max_constant_elements < 0) {
    return graph::InvalidArgument(where + ": constant limit " +
                                  std::to_string(inference.max_constant_elements) + " is negative");
  }
  if (graph::Status st = graph::CheckInputShapes(forward, inference); !st.ok()) {
    return st.WithContext(where);
  }
  graph::InferShapes(forward, inference);
  graph::TrainingOptions training;
  training.optimizer = m.optimizer();
  training.learning_rate = m.learning_rate();
  training.momentum = m.momentum();
  training.loss = m.loss();
  auto built = graph::BuildTrainingGraph(forward, training, inference);
  if (!built.ok()) return built.status().WithContext(where);
  RebuiltModel r{std::move(forward), std::move(built).value(), {}};
  GRAPH_ASSIGN_OR_RETURN(r.apart, ApartNodes(m, r, where));
  return r;
}

}  // namespace wire
