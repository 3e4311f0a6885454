// The graph IR: a validated dataflow graph of TensorFlow-style operations.
//
// A Graph is built once from NodeSpecs (what an importer read) by Graph::Create,
// which resolves input names and rejects duplicate names, dangling inputs, cycles
// and TensorFlow control-flow loops. After that the node set and edges are fixed;
// shape inference fills each node's output dtypes and shapes in place.
//
// Ownership: a Graph owns its nodes; NodeIds index Graph::nodes(). Thread safety:
// const methods may be called concurrently; mutation needs external locking.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/attr.h"
#include "graph/status.h"

namespace graph {

using NodeId = int;

// Inputs naming an output index at or above this are malformed: no op has that
// many outputs, and the bound keeps file-supplied indices from sizing allocations.
constexpr int kMaxOutputIndex = 1 << 16;

// One output of one node: the endpoint of a data edge.
struct TensorRef {
  NodeId node = -1;
  int index = 0;
  bool operator==(const TensorRef& o) const { return node == o.node && index == o.index; }
};

// What an importer hands to Graph::Create: a node with its inputs still named
// the TensorFlow way ("x", "x:1", "^x" for a control input).
struct NodeSpec {
  std::string name;
  std::string op;
  std::vector<std::string> inputs;
  std::string device;
  AttrMap attrs;
};

struct Node {
  std::string name;
  std::string op;
  std::vector<TensorRef> inputs;  // data inputs, in operand order
  std::vector<NodeId> control_inputs;
  AttrMap attrs;
  std::string requested_device;         // NodeDef.device as imported; may be empty
  std::vector<std::string> colocation;  // names from the "_class" attr ("loc:@name")
  // Filled by shape inference; empty before it runs.
  std::vector<DType> output_dtypes;
  std::vector<Shape> output_shapes;
  // The values shape inference evaluated (small integer tensors: shapes, axes,
  // sizes), one per output; an invalid Tensor where none is known.
  std::vector<Tensor> output_values;

  int num_outputs() const { return static_cast<int>(output_dtypes.size()); }
  const AttrValue* attr(std::string_view key) const;
  int64_t attr_int(std::string_view key, int64_t dflt) const;
  float attr_float(std::string_view key, float dflt) const;
  bool attr_bool(std::string_view key, bool dflt) const;
  std::string attr_string(std::string_view key, const std::string& dflt) const;
  DType attr_type(std::string_view key, DType dflt) const;
  const std::vector<int64_t>* attr_ints(std::string_view key) const;
};

class Graph {
 public:
  Graph() = default;
  // The name index holds views into the nodes' names: a copy rebuilds it, a move
  // keeps it (moving the node vector leaves each name's characters in place).
  Graph(const Graph& o);
  Graph& operator=(const Graph& o);
  Graph(Graph&&) = default;
  Graph& operator=(Graph&&) = default;

  // Validates and links `specs`. `source` names the file in error messages.
  static Result<Graph> Create(std::vector<NodeSpec> specs, const std::string& source);

  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<Node>& mutable_nodes() { return nodes_; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  Node& mutable_node(NodeId id) { return nodes_[id]; }
  int size() const { return static_cast<int>(nodes_.size()); }
  // -1 if no node has that name.
  NodeId Find(std::string_view name) const;
  // The tensor a TensorFlow name ("node" or "node:k") refers to; nothing if the
  // node does not exist or the name is malformed (the output may still not exist).
  std::optional<TensorRef> FindTensor(std::string_view name) const;
  // Nodes ordered so every node comes after all of its (data and control)
  // inputs, except a loop's back edges (NextIteration into Merge), which
  // TensorFlow's own executor also leaves out of its order.
  const std::vector<NodeId>& topological_order() const { return topo_; }
  // The first node (in topological order) of TensorFlow's dataflow control flow
  // (IsControlFlowOp), or -1. Such a graph can be imported, inspected and
  // written back, but not trained, measured or simulated: the executors run
  // acyclic step graphs without conditionals (CheckNoControlFlow).
  NodeId first_control_flow() const { return first_control_flow_; }
  // For each node, how many data edges leave it (all outputs together).
  std::vector<int> ConsumerCounts() const;

  // Set by InferShapes; a copy keeps it.
  bool shapes_inferred() const { return shapes_inferred_; }
  void set_shapes_inferred(bool v) { shapes_inferred_ = v; }

  int producer_version() const { return producer_version_; }
  void set_producer_version(int v) { producer_version_ = v; }

  // The nodes as NodeSpecs (inputs named the TensorFlow way), to build a larger
  // graph from this one.
  std::vector<NodeSpec> ToSpecs() const;
  // TensorFlow's name for output `index` of `node`: "name" or "name:index".
  std::string TensorName(TensorRef t) const;

  // Same nodes (names, ops, inputs, attributes, devices) in the same order.
  bool SameStructure(const Graph& o, std::string* first_difference) const;

  // This graph and, after it, a second copy of every node, named `prefix` +
  // its name and reading the copies of its inputs: two independent graphs in
  // one, node id i and size() + i the same node. Shapes and values are the
  // copies' too; colocation constraints are left out of the copy (names would
  // cross). What `planner profile` runs as independent streams. Fails when a
  // prefixed name is already taken.
  Result<Graph> WithCopy(const std::string& prefix) const;

 private:
  std::vector<Node> nodes_;
  void RebuildIndex();

  std::unordered_map<std::string_view, NodeId> index_;
  std::vector<NodeId> topo_;
  int producer_version_ = 0;
  bool shapes_inferred_ = false;
  NodeId first_control_flow_ = -1;
};

// Ops of TensorFlow's control flow (loops and conditionals), dataflow or
// functional.
bool IsControlFlowOp(std::string_view op);

// Unimplemented, naming the graph's first control-flow node and why, when it
// has one; `what` says what cannot be done ("training").
Status CheckNoControlFlow(const Graph& g, const std::string& what);

}  // namespace graph
