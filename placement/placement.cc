#include "placement/placement.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "graph/cost.h"
#include "graph/digest.h"
#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "placement/colocation.h"
#include "yaml/document.h"

namespace placement {

namespace {

// "'a', 'b', 'c' and 4 more"
std::string Sample(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < 5; ++i) s += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > 5) s += " and " + std::to_string(names.size() - 5) + " more";
  return s;
}

graph::Status ReadString(const yaml::Entry& e, std::string* out) {
  if (!e.value.IsScalar()) return e.value.Error("'" + e.key + "' must be a string");
  *out = e.value.Scalar();
  return graph::Status::Ok();
}

graph::Status ReadSeconds(const yaml::Entry& e, std::optional<double>* out) {
  const std::optional<double> d = e.value.AsNumber();
  if (!d || !(*d > 0)) return e.value.Error("'" + e.key + "' must be a positive number of seconds");
  *out = d;
  return graph::Status::Ok();
}

graph::Status ReadStatistics(const yaml::Node& v, std::map<std::string, double>* out) {
  if (!v.IsMap()) return v.Error("'search' must be a map");
  GRAPH_ASSIGN_OR_RETURN(const std::vector<yaml::Entry> stats, v.Entries("search"));
  for (const yaml::Entry& s : stats) {
    const std::optional<double> d = s.value.AsNumber();
    if (!d) return s.value.Error("search statistic '" + s.key + "' must be a number");
    (*out)[s.key] = *d;
  }
  return graph::Status::Ok();
}

// A map of names to plain values: ops to devices, or (`what` "input",
// `value` "a shape") inputs to their shapes.
graph::Status ReadOps(const yaml::Node& v, const std::string& key,
                      std::vector<std::pair<std::string, std::string>>* out,
                      const std::string& what = "op", const std::string& value = "a device name") {
  if (!v.IsMap()) {
    // "a device name" -> "device names"
    const std::string values = value.rfind("a ", 0) == 0 ? value.substr(2) + "s" : value;
    return v.Error("'" + key + "' must map " + what + " names to " + values);
  }
  std::unordered_set<std::string> seen;
  for (yaml::Entry& op : v.Pairs()) {
    if (!op.key_node.IsScalar()) return op.key_node.Error(what + " names must be plain names");
    if (!op.value.IsScalar()) {
      return op.value.Error(what + " '" + op.key + "' must map to " + value);
    }
    if (!seen.insert(op.key).second)
      return op.key_node.Error(what + " '" + op.key + "' is " +
                               (what == "op" ? "placed" : "given") + " twice");
    out->emplace_back(std::move(op.key), op.value.Scalar());
  }
  return graph::Status::Ok();
}

// Digests are hexadecimal: a hand-edited file may spell them in capitals.
bool SameDigest(const std::string& a, const std::string& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::vector<std::pair<std::string, std::string>> InputShapes(const graph::Graph& g) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const graph::Node& n : g.nodes()) {
    if (n.op != "Placeholder") continue;
    out.emplace_back(n.name, n.output_shapes.empty() ? "?" : n.output_shapes[0].ToString());
  }
  return out;
}

graph::Result<Placement> Parse(const std::string& path, const yaml::Node& root) {
  if (!root.IsMap()) return graph::InvalidArgument(path + ": a placement file is a YAML map");
  Placement p;
  bool placement_seen = false;
  GRAPH_ASSIGN_OR_RETURN(const std::vector<yaml::Entry> entries, root.Entries("top level"));
  for (const yaml::Entry& e : entries) {
    const std::map<std::string, std::string*> strings = {
        {"model", &p.model},   {"model_digest", &p.model_digest},     {"devices", &p.devices},
        {"method", &p.method}, {"devices_digest", &p.devices_digest}, {"optimizer", &p.optimizer}};
    if (auto it = strings.find(e.key); it != strings.end()) {
      GRAPH_RETURN_IF_ERROR(ReadString(e, it->second));
    } else if (e.key == "measured_step_s") {
      GRAPH_RETURN_IF_ERROR(ReadSeconds(e, &p.measured_step_s));
    } else if (e.key == "simulated_step_s") {
      GRAPH_RETURN_IF_ERROR(ReadSeconds(e, &p.simulated_step_s));
    } else if (e.key == "search") {
      GRAPH_RETURN_IF_ERROR(ReadStatistics(e.value, &p.search));
    } else if (e.key == "placement") {
      placement_seen = true;
      GRAPH_RETURN_IF_ERROR(ReadOps(e.value, e.key, &p.ops));
    } else if (e.key == "gradients_apart") {
      GRAPH_RETURN_IF_ERROR(ReadOps(e.value, e.key, &p.gradients_apart));
    } else if (e.key == "inputs") {
      GRAPH_RETURN_IF_ERROR(ReadOps(e.value, e.key, &p.inputs, "input", "a shape"));
    } else {
      return e.key_node.Error("unknown key '" + e.key + "'");
    }
  }
  if (p.ops.empty()) {
    return graph::InvalidArgument(path + (placement_seen
                                              ? ": 'placement' places no op"
                                              : ": no 'placement' map of ops to devices"));
  }
  return p;
}

}  // namespace

std::string ModelDigest(const graph::Graph& g) {
  // Without the nodes' requested devices: the GraphDef --export-graphdef writes
  // (devices set) is the same model as the one it was placed from, and its
  // placement file must apply to it. A model without devices digests as before.
  graph::GraphDefWriteOptions no_devices;
  no_devices.devices.assign(static_cast<size_t>(g.size()), "");
  return graph::Fnv1a64Hex(graph::SerializeGraphDef(g, no_devices));
}

Placement SingleDevicePlacement(const graph::Graph& g, const std::string& device) {
  Placement p;
  p.method = "single:" + device;
  p.model_digest = ModelDigest(g);
  for (const graph::Node& n : g.nodes()) p.ops.emplace_back(n.name, device);
  p.inputs = InputShapes(g);
  return p;
}

Placement MakePlacement(const std::string& model_path, const graph::Graph& g,
                        const std::string& model_digest, const std::string& devices_path,
                        const cluster::Cluster& c, const std::string& method,
                        const std::vector<int>& device_of_node, const std::string& optimizer) {
  Placement p;
  p.model = model_path;
  p.model_digest = model_digest;
  p.devices = devices_path;
  p.devices_digest = c.placement_digest;
  p.method = method;
  const std::vector<int> device = Colocated(ColocationRoots(g), device_of_node);
  for (graph::NodeId i = 0; i < g.size(); ++i) {
    p.ops.emplace_back(g.node(i).name, c.devices[device[i]].name);
  }
  p.inputs = InputShapes(g);
  p.optimizer = optimizer;
  return p;
}

graph::Result<Placement> ReadPlacement(const std::string& path) {
  GRAPH_ASSIGN_OR_RETURN(std::string text, graph::ReadFile(path));
  GRAPH_ASSIGN_OR_RETURN(const yaml::Node root, yaml::Parse(text, path));
  return Parse(path, root);
}

// "x [2,3] there, [2,4] here, ..." for each input of `g` that `p` records at
// another shape; "" when none is.
std::string OtherInputShapes(const Placement& p, const graph::Graph& g) {
  std::map<std::string, std::string> made(p.inputs.begin(), p.inputs.end());
  std::string differ;
  for (const auto& [input, shape] : InputShapes(g)) {
    auto it = made.find(input);
    if (it == made.end()) continue;
    // Written "[2,3]"; a hand-written "[2, 3]" is the same shape.
    std::string written = it->second;
    written.erase(std::remove_if(written.begin(), written.end(),
                                 [](unsigned char c) { return std::isspace(c); }),
                  written.end());
    if (written == shape) continue;
    differ += (differ.empty() ? "" : ", ") + input + " " + it->second + " there, " + shape + " here";
  }
  return differ;
}

std::string InputShapesNote(const Placement& p, const graph::Graph& g, const std::string& source) {
  const std::string differ = OtherInputShapes(p, g);
  if (differ.empty()) return "";
  return "note: " + source + " was made at other input shapes (" + differ +
         "): every op is placed, but the placement was found for another step";
}

std::string OptimizerNote(const Placement& p, const std::string& optimizer,
                          const std::string& source) {
  if (p.optimizer.empty() || p.optimizer == optimizer) return "";
  return "note: " + source + " was made for --optimizer " + p.optimizer + " (" + optimizer +
         " here): every op is placed, but the placement was found for another step";
}

graph::Status ValidatePlacement(const Placement& p, const graph::Graph& g,
                                const cluster::Cluster& c, const std::string& source) {
  if (!p.model_digest.empty() && !SameDigest(p.model_digest, ModelDigest(g))) {
    // The same inputs at other sizes: most likely this model, imported at
    // other --input-shape sizes (an unrolled LSTM's graph follows them).
    std::set<std::string> made, here;
    for (const auto& [input, shape] : p.inputs) made.insert(input);
    for (const auto& [input, shape] : InputShapes(g)) here.insert(input);
    const std::string sizes = made == here ? OtherInputShapes(p, g) : "";
    if (!sizes.empty()) {
      return graph::InvalidArgument(source + ": made for this model's inputs at other sizes (" +
                                    sizes + "): give the sizes it was made at (--input-shape, " +
                                    "--batch), or place the model again");
    }
    return graph::InvalidArgument(source + ": made for another model (digest " + p.model_digest +
                                  ", this model's is " + ModelDigest(g) + ")");
  }
  // Files written before placement_digest carry the file bytes' digest.
  if (!p.devices_digest.empty() && !c.placement_digest.empty() &&
      !SameDigest(p.devices_digest, c.placement_digest) &&
      !SameDigest(p.devices_digest, c.digest)) {
    return graph::InvalidArgument(
        source + ": made for another devices file (placement digest " + p.devices_digest + ", " +
        c.source + "'s is " + c.placement_digest + ": planner devices " + c.source + " prints it)");
  }
  std::vector<std::string> unknown_ops, placed_ops;
  std::set<std::string> unknown_devices;
  std::vector<char> placed(g.size(), 0);
  for (const auto& [op, device] : p.ops) {
    graph::NodeId id = g.Find(op);
    if (id < 0) {
      unknown_ops.push_back(op);
    } else {
      placed[id] = 1;
    }
    if (c.IndexOf(device) < 0) unknown_devices.insert(device);
  }
  if (!unknown_ops.empty()) {
    return graph::InvalidArgument(source + ": " + std::to_string(unknown_ops.size()) +
                                  " placed op(s) are not in the model: " + Sample(unknown_ops));
  }
  if (!unknown_devices.empty()) {
    std::string known;
    for (const cluster::DeviceSpec& d : c.devices) known += (known.empty() ? "" : ", ") + d.name;
    return graph::InvalidArgument(
        source + ": device(s) " +
        Sample(std::vector<std::string>(unknown_devices.begin(), unknown_devices.end())) +
        " are not in " + c.source + " (it has " + known + ")");
  }
  std::vector<std::string> missing;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (!placed[id]) missing.push_back(g.node(id).name);
  }
  if (!missing.empty()) {
    return graph::InvalidArgument(source + ": " + std::to_string(missing.size()) +
                                  " op(s) of the model have no device: " + Sample(missing));
  }
  const std::string apart = ColocationConflicts(g, ColocationRoots(g), DeviceOfNode(p, g, c), c);
  if (!apart.empty()) return graph::InvalidArgument(source + ": " + apart);
  return graph::Status::Ok();
}

std::vector<int> DeviceOfNode(const Placement& p, const graph::Graph& g,
                              const cluster::Cluster& c) {
  std::vector<int> out(g.size(), -1);
  for (const auto& [op, device] : p.ops) {
    graph::NodeId id = g.Find(op);
    assert(id >= 0 && "DeviceOfNode needs a validated placement");
    out[id] = c.IndexOf(device);
  }
  return out;
}

std::vector<graph::NodeId> ForwardSourceOfNode(const graph::Graph& training,
                                               const graph::Graph& forward) {
  std::vector<graph::NodeId> out(training.size(), -1);
  const std::vector<graph::NodeId> root = ColocationRoots(forward);
  for (graph::NodeId id = 0; id < training.size(); ++id) {
    const graph::NodeId f = forward.Find(training.node(id).name);
    if (f >= 0) out[id] = root[f];  // a model's own colocated ops run as one
  }
  // Colocation names a node of the training graph, itself perhaps colocated.
  std::function<graph::NodeId(graph::NodeId, int)> colocated = [&](graph::NodeId id, int depth) {
    if (out[id] >= 0 || depth > 8) return out[id];
    for (const std::string& name : training.node(id).colocation) {
      graph::NodeId target = training.Find(name);
      if (target >= 0 && target != id && colocated(target, depth + 1) >= 0) {
        return out[id] = out[target];
      }
    }
    return graph::NodeId{-1};
  };
  for (graph::NodeId id = 0; id < training.size(); ++id) colocated(id, 0);
  const std::vector<graph::NodeId>& topo = training.topological_order();
  for (graph::NodeId id : topo) {
    if (out[id] >= 0) continue;
    for (const graph::TensorRef& in : training.node(id).inputs) {
      if (out[in.node] >= 0) {
        out[id] = out[in.node];
        break;
      }
    }
  }
  std::vector<std::vector<graph::NodeId>> consumers(training.size());
  for (graph::NodeId id = 0; id < training.size(); ++id) {
    for (const graph::TensorRef& in : training.node(id).inputs) consumers[in.node].push_back(id);
  }
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    if (out[*it] >= 0) continue;
    for (graph::NodeId c : consumers[*it]) {
      if (out[c] >= 0) {
        out[*it] = out[c];
        break;
      }
    }
  }
  return out;
}

std::vector<int> DeviceOfSources(const std::vector<graph::NodeId>& source,
                                 const std::vector<int>& forward_device) {
  std::vector<int> out(source.size(), 0);
  for (size_t id = 0; id < source.size(); ++id) {
    if (source[id] >= 0) out[id] = forward_device[source[id]];
  }
  return out;
}

std::vector<int> TrainingDeviceOfNode(const graph::Graph& training, const graph::Graph& forward,
                                      const std::vector<int>& forward_device) {
  assert(static_cast<int>(forward_device.size()) == forward.size());
  return DeviceOfSources(ForwardSourceOfNode(training, forward), forward_device);
}

bool MayRunApart(const graph::Graph& training, const graph::Graph& forward,
                 const std::vector<graph::NodeId>& source, graph::NodeId id) {
  const graph::NodeId f = source[id];
  return f >= 0 && !training.node(id).colocation.empty() &&
         forward.Find(training.node(id).name) < 0 && !graph::IsTrainableParameter(forward.node(f));
}

graph::Result<std::vector<int>> TrainingDevices(const Placement& p, const graph::Graph& training,
                                                const graph::Graph& forward,
                                                const cluster::Cluster& c,
                                                const std::string& source) {
  const std::vector<graph::NodeId> from = ForwardSourceOfNode(training, forward);
  std::vector<int> out = DeviceOfSources(from, DeviceOfNode(p, forward, c));
  for (const auto& [op, device] : p.gradients_apart) {
    const graph::NodeId id = training.Find(op);
    const std::string entry = source + ": gradients_apart: '" + op + "'";
    if (id < 0) return graph::InvalidArgument(entry + " is not a node of the training graph");
    if (!MayRunApart(training, forward, from, id)) {
      return graph::InvalidArgument(entry +
                                    " is not a gradient op that may run apart (the model's "
                                    "own ops go under 'placement'; a parameter's update, and "
                                    "the gradients of ops colocated with a parameter, run with "
                                    "it)");
    }
    const int d = c.IndexOf(device);
    if (d < 0)
      return graph::InvalidArgument(entry + ": device '" + device + "' is not in " + c.source);
    out[id] = d;
  }
  return out;
}

std::vector<int> DeviceOfPlaced(const std::vector<graph::NodeId>& source,
                                const std::vector<graph::NodeId>& apart, size_t forward_size,
                                const std::vector<int>& placed) {
  std::vector<int> out = DeviceOfSources(source, placed);
  if (placed.size() > forward_size) {
    assert(placed.size() == forward_size + apart.size());
    for (size_t k = 0; k < apart.size(); ++k) out[apart[k]] = placed[forward_size + k];
  }
  return out;
}

std::vector<int> WithApart(const std::vector<graph::NodeId>& source,
                           const std::vector<graph::NodeId>& apart,
                           const std::vector<int>& forward_device) {
  std::vector<int> out = forward_device;
  for (graph::NodeId id : apart) out.push_back(source[id] >= 0 ? forward_device[source[id]] : 0);
  return out;
}

std::vector<std::pair<std::string, std::string>> GradientsApart(
    const graph::Graph& training, const std::vector<graph::NodeId>& source,
    const std::vector<graph::NodeId>& apart, size_t forward_size, const std::vector<int>& placed,
    const cluster::Cluster& c) {
  std::vector<std::pair<std::string, std::string>> out;
  if (placed.size() <= forward_size) return out;
  for (size_t k = 0; k < apart.size(); ++k) {
    const graph::NodeId follows = source[apart[k]];
    const int d = placed[forward_size + k];
    if (d != (follows >= 0 ? placed[follows] : 0)) {
      out.emplace_back(training.node(apart[k]).name, c.devices[d].name);
    }
  }
  return out;
}

graph::Status WritePlacement(const std::string& path, const Placement& p) {
  yaml::Writer w;
  w.Comment("written by planner; format: docs/file-formats.md");
  w.BeginMap();
  for (const auto& [key, v] : {std::pair<const char*, const std::string&>{"model", p.model},
                               {"model_digest", p.model_digest},
                               {"devices", p.devices},
                               {"devices_digest", p.devices_digest},
                               {"method", p.method},
                               {"optimizer", p.optimizer}}) {
    if (!v.empty()) w.Pair(key, v);
  }
  w.DoublePrecision(9);
  if (p.measured_step_s) w.Pair("measured_step_s", *p.measured_step_s);
  if (p.simulated_step_s) w.Pair("simulated_step_s", *p.simulated_step_s);
  if (!p.search.empty()) {
    w.Key("search");
    w.BeginMap();
    for (const auto& [k, v] : p.search) w.Pair(k, v);
    w.EndMap();
  }
  w.Key("placement");
  w.BeginMap();
  for (const auto& [op, device] : p.ops) w.Pair(op, device);
  w.EndMap();
  if (!p.gradients_apart.empty()) {
    w.Key("gradients_apart");
    w.BeginMap();
    for (const auto& [op, device] : p.gradients_apart) w.Pair(op, device);
    w.EndMap();
  }
  if (!p.inputs.empty()) {
    w.Key("inputs");
    w.BeginMap();
    for (const auto& [input, shape] : p.inputs) w.Pair(input, shape);
    w.EndMap();
  }
  w.EndMap();
  auto text = w.Text();
  if (!text.ok()) return graph::Internal(path + ": " + text.status().message());
  return graph::WriteFileAtomic(path, *text);
}

graph::Status WritePlacedGraphDef(const std::string& path, const graph::Graph& forward,
                                  const cluster::Cluster& c,
                                  const std::vector<int>& device_of_node) {
  graph::GraphDefWriteOptions w;
  for (int d : Colocated(ColocationRoots(forward), device_of_node)) {
    w.devices.push_back(c.devices[d].TfDeviceString());
  }
  return graph::WriteFileAtomic(path, graph::SerializeGraphDef(forward, w));
}

std::vector<int> CanonicalDevices(const std::vector<int>& device_of_node,
                                  const cluster::Cluster& c) {
  const int k = static_cast<int>(c.devices.size());
  // The members of each device's class, in index order.
  std::vector<std::vector<int>> members(k);
  for (int a = 0; a < k; ++a) {
    for (int b = 0; b < k; ++b) {
      if (c.Interchangeable(a, b)) members[a].push_back(b);
    }
  }
  std::vector<int> rename(k, -1), used(k, 0);  // used: per class leader, names given
  std::vector<int> out(device_of_node.size());
  for (size_t i = 0; i < device_of_node.size(); ++i) {
    const int d = device_of_node[i];
    if (rename[d] < 0) {
      const int leader = members[d].front();
      rename[d] = members[d][used[leader]++];
    }
    out[i] = rename[d];
  }
  return out;
}

}  // namespace placement
