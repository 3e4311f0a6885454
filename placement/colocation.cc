#include "placement/colocation.h"

#include <algorithm>
#include <numeric>

#include "graph/cost.h"

namespace placement {

namespace {

graph::NodeId Find(std::vector<graph::NodeId>& parent, graph::NodeId x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

std::vector<graph::NodeId> ColocationRoots(const graph::Graph& g) {
  std::vector<graph::NodeId> parent(g.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    for (const std::string& name : g.node(id).colocation) {
      const graph::NodeId other = g.Find(name);
      if (other < 0) continue;
      const graph::NodeId a = Find(parent, id), b = Find(parent, other);
      parent[std::max(a, b)] = std::min(a, b);  // the lowest id leads
    }
  }
  std::vector<graph::NodeId> root(g.size());
  for (graph::NodeId id = 0; id < g.size(); ++id) root[id] = Find(parent, id);
  // A group's first trainable parameter leads it instead, when it has one: in
  // a graph with variables a variable, not the constant that initialises it
  // (TensorFlow colocates "w/Initializer/zeros" with w, and lists it first).
  const std::vector<char> trainable = graph::TrainableParameters(g);
  std::vector<graph::NodeId> parameter(g.size(), -1);
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (parameter[root[id]] < 0 && trainable[id]) parameter[root[id]] = id;
  }
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (parameter[root[id]] >= 0) root[id] = parameter[root[id]];
  }
  return root;
}

bool HasColocation(const std::vector<graph::NodeId>& roots) {
  for (size_t id = 0; id < roots.size(); ++id) {
    if (roots[id] != static_cast<graph::NodeId>(id)) return true;
  }
  return false;
}

std::vector<int> Colocated(const std::vector<graph::NodeId>& roots,
                           std::vector<int> device_of_node) {
  for (size_t id = 0; id < roots.size() && id < device_of_node.size(); ++id) {
    device_of_node[id] = device_of_node[roots[id]];
  }
  return device_of_node;
}

std::string ColocationConflicts(const graph::Graph& g, const std::vector<graph::NodeId>& roots,
                                const std::vector<int>& device_of_node, const cluster::Cluster& c) {
  std::string named;
  int count = 0;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const graph::NodeId r = roots[id];
    if (device_of_node[id] == device_of_node[r]) continue;
    if (++count <= 3) {
      named += std::string(named.empty() ? "" : ", ") + "'" + g.node(id).name + "' on '" +
               c.devices[device_of_node[id]].name + "' but its group's '" + g.node(r).name +
               "' on '" + c.devices[device_of_node[r]].name + "'";
    }
  }
  if (count == 0) return "";
  return std::to_string(count) + " op(s) placed apart from the ops they are colocated with " +
         "(their GraphDef's _class \"loc:@...\"; TensorFlow runs a group on one device): " + named +
         (count > 3 ? " and " + std::to_string(count - 3) + " more" : "");
}

std::vector<std::vector<graph::NodeId>> ClosedUnderColocation(
    const std::vector<graph::NodeId>& roots, std::vector<std::vector<graph::NodeId>> units) {
  if (!HasColocation(roots)) return units;
  const graph::NodeId n = static_cast<graph::NodeId>(roots.size());
  std::vector<std::vector<graph::NodeId>> members(n);
  for (graph::NodeId id = 0; id < n; ++id) members[roots[id]].push_back(id);
  for (std::vector<graph::NodeId>& unit : units) {
    std::vector<graph::NodeId> closed;
    for (graph::NodeId id : unit) {
      if (id >= n) {
        closed.push_back(id);
        continue;
      }
      const std::vector<graph::NodeId>& group = members[roots[id]];
      closed.insert(closed.end(), group.begin(), group.end());
    }
    std::sort(closed.begin(), closed.end());
    closed.erase(std::unique(closed.begin(), closed.end()), closed.end());
    unit = std::move(closed);
  }
  return units;
}

}  // namespace placement
