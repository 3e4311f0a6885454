// TensorFlow's colocation among a model's own ops: a GraphDef node whose
// "_class" attribute holds "loc:@a" must run on a's device (graph::Node::
// colocation), and TensorFlow's placer refuses (or, with soft placement,
// overrides) a graph whose explicit devices say otherwise. A placement treats
// each such group as one unit: evaluation puts every member on its root's
// device (ForwardSourceOfNode), and what is written or exported follows it.
//
// Thread safety: value types and free functions.
#pragma once

#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"

namespace placement {

// The root of each node's colocation group (the group closed under the
// relation, in both directions): its first trainable parameter
// (graph::TrainableParameters: in a graph with variables, a variable; as
// TensorFlow names a group after it), else its lowest id. A node in no group is its own root; names
// of nodes the graph lacks are ignored.
std::vector<graph::NodeId> ColocationRoots(const graph::Graph& g);

// Whether any node of `g` is colocated with another of its nodes.
bool HasColocation(const std::vector<graph::NodeId>& roots);

// `device_of_node` (one device per node of the graph `roots` is for, perhaps
// followed by devices of slots beyond it, which are kept) with every node on
// its root's device.
std::vector<int> Colocated(const std::vector<graph::NodeId>& roots,
                           std::vector<int> device_of_node);

// One line naming the first nodes of `g` that `device_of_node` places apart
// from their root, with both devices' names (`device_of_node` indexes
// c.devices), and how many there are; "" when there are none.
std::string ColocationConflicts(const graph::Graph& g, const std::vector<graph::NodeId>& roots,
                                const std::vector<int>& device_of_node, const cluster::Cluster& c);

// Each unit (a set of node ids of the graph `roots` is for; larger ids, such
// as slots beyond the graph, are kept as they are) with the other members of
// its nodes' groups added, so that moving a unit moves whole groups.
std::vector<std::vector<graph::NodeId>> ClosedUnderColocation(
    const std::vector<graph::NodeId>& roots, std::vector<std::vector<graph::NodeId>> units);

}  // namespace placement
