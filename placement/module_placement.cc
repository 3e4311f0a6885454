#include "placement/module_placement.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "graph/cost.h"
#include "graph/file_util.h"

namespace placement {
namespace {

// Qualified names of the modules holding parameters (from the parameters'
// names: "layer1.0.conv1.weight" -> "layer1.0.conv1"), and their ancestors.
std::set<std::string> ModulesWithParameters(const graph::Graph& g, std::set<std::string>* owners) {
  std::set<std::string> all;
  for (const graph::Node& n : g.nodes()) {
    if (n.op != "Const" || n.attr_bool("_untrainable", false)) continue;
    if (n.name.find('/') != std::string::npos) continue;
    size_t dot = n.name.rfind('.');
    if (dot == std::string::npos || dot == 0) continue;
    std::string m = n.name.substr(0, dot);
    owners->insert(m);
    for (std::string a = m;; a.resize(a.rfind('.'))) {
      all.insert(a);
      if (a.rfind('.') == std::string::npos) break;
    }
  }
  return all;
}

// Whether module `inner` is `outer` or inside it ("" holds every module).
bool Within(const std::string& inner, const std::string& outer) {
  return outer.empty() || inner == outer || inner.rfind(outer + ".", 0) == 0;
}

// Whether an op of module `m` (or of a module inside it) feeds an op of an
// enclosing module's own forward (a residual add, a flatten): only then must
// m's output go back to its container's device. A value that only other
// modules consume stays where it is made, and the consumer's entry moves it:
// a block's output returned to the CPU between two GPU blocks cost two copies.
bool FeedsAnEnclosingModule(const std::string& m, const graph::Graph& forward,
                            const std::vector<std::string>& module_of,
                            const std::vector<std::vector<graph::NodeId>>& consumers) {
  for (graph::NodeId id = 0; id < forward.size(); ++id) {
    const std::string& op = forward.node(id).op;
    if (op == "Const" || op == "Placeholder" || !Within(module_of[id], m)) continue;
    for (graph::NodeId user : consumers[id]) {
      if (module_of[user] != m && Within(m, module_of[user])) return true;
    }
  }
  return false;
}

// The nearest module at or above `m` that `device_of` lists, or "" (the root)
// when none is: where Module.to in ancestors-first order leaves m's parameters.
std::string ListedAtOrAbove(std::string m, const std::map<std::string, int>& device_of) {
  while (!m.empty() && !device_of.count(m)) {
    const size_t dot = m.rfind('.');
    m = dot == std::string::npos ? "" : m.substr(0, dot);
  }
  return m;
}

// A parameter read by ops of two modules (an embedding's weight tied to the
// output layer's; Swin's attention, whose forward calls F.linear with its qkv
// and proj children's weights) is one tensor in PyTorch: Module.to moves it
// for both, and the module moved last takes it along, so the other's forward
// then finds its operands on two devices. Modules linked by such reads, through
// any chain of them, go to one device: that of the parameter's module listed
// first (ancestors first; the embedding before the decoder that reuses its
// weight). Returns each other module of such a group with that module.
std::map<std::string, std::string> ShareParameters(
    const graph::Graph& forward, const std::set<std::string>& known,
    const std::set<std::string>& owners, const std::vector<std::string>& module_of,
    const std::vector<std::vector<graph::NodeId>>& consumers, const std::vector<std::string>& order,
    std::map<std::string, int>* device_of) {
  std::map<std::string, std::string> root;  // union-find over listed modules
  auto find = [&](std::string m) {
    while (root.count(m) && root[m] != m) m = root[m];
    return m;
  };
  std::set<std::string> owning;  // modules whose parameter another reads
  for (graph::NodeId id = 0; id < forward.size(); ++id) {
    const graph::Node& n = forward.node(id);
    if (n.op != "Const" || n.name.find('/') != std::string::npos) continue;
    const std::string owner_module = ModuleOfNode(n.name, known);
    if (owner_module.empty() || !owners.count(owner_module)) continue;
    const std::string owner = ListedAtOrAbove(owner_module, *device_of);
    if (!device_of->count(owner)) continue;
    for (graph::NodeId user : consumers[id]) {
      const std::string reader = ListedAtOrAbove(module_of[user], *device_of);
      if (reader == owner || !device_of->count(reader)) continue;
      owning.insert(owner);
      const std::string a = find(owner), b = find(reader);
      root.emplace(a, a);
      root[b] = a;
    }
  }
  // Each group's anchor: its first owner in `order`.
  std::map<std::string, std::string> anchor;
  for (const std::string& m : order) {
    if (owning.count(m) && root.count(m)) anchor.emplace(find(m), m);
  }
  std::map<std::string, std::string> moved;
  for (const std::string& m : order) {
    if (!root.count(m)) continue;
    auto it = anchor.find(find(m));
    if (it == anchor.end() || it->second == m) continue;
    (*device_of)[m] = device_of->at(it->second);
    moved[m] = it->second;
  }
  return moved;
}

}  // namespace

std::string ModuleOfNode(const std::string& node_name, const std::set<std::string>& known) {
  std::string q, last, best;
  size_t start = 0;
  // A parameter's own name: its module is the name up to the last dot.
  if (node_name.find('/') == std::string::npos) {
    size_t dot = node_name.rfind('.');
    if (dot != std::string::npos && known.count(node_name.substr(0, dot))) {
      return node_name.substr(0, dot);
    }
    return "";
  }
  while (start < node_name.size()) {
    size_t end = node_name.find('/', start);
    if (end == std::string::npos) break;  // the last component names the op
    std::string comp = node_name.substr(start, end - start);
    // A container's children are scoped by the container's attribute name
    // ("block.0" under "block"), other submodules by their own ("conv1"); a
    // module's second call gets "_1" appended to its part ("norm_1").
    auto extend = [&](const std::string& part) {
      if (!last.empty() && part.rfind(last + ".", 0) == 0) {
        return q.substr(0, q.size() - last.size()) + part;
      }
      return q.empty() ? part : q + "." + part;
    };
    std::string next = extend(comp);
    size_t us = comp.rfind('_');
    if (!known.count(next) && us != std::string::npos && us + 1 < comp.size() &&
        comp.find_first_not_of("0123456789", us + 1) == std::string::npos) {
      comp = comp.substr(0, us);
      next = extend(comp);
    }
    q = next;
    last = comp;
    if (!known.count(q)) break;
    best = q;
    start = end + 1;
  }
  return best;
}

std::string TorchDevice(const cluster::DeviceSpec& d) {
  if (d.kind == cluster::DeviceKind::kCuda) return "cuda:" + std::to_string(d.cuda_index);
  if (d.IsCpuLike()) return "cpu";
  return "cuda:" + std::to_string(d.tf_ordinal);
}

std::vector<ModuleDevice> PlaceModules(const graph::Graph& forward, const cluster::Cluster& c,
                                       const std::vector<int>& device_of_node) {
  std::set<std::string> owners;
  const std::set<std::string> known = ModulesWithParameters(forward, &owners);
  if (owners.empty()) return {};  // no PyTorch names: not an export of a PyTorch model
  // Every module with ops of its own, in order of its first op: those holding
  // parameters, the containers (a residual block's add), and the root ("", the
  // ops outside every module, and the parameters it holds itself: a ViT's
  // position embedding). Each listed module's inputs are moved to its device
  // on entry, so an op of its own forward finds there both what its children
  // return and what it was given.
  std::vector<std::string> order;
  // module -> device -> ops; a container's entry counts only its own ops.
  std::map<std::string, std::map<int, int>> counts;
  // module -> device -> the work of its ops there, which decides the module's
  // device: by count, the importer's own op beside a convolution (its
  // filter's transpose) outvoted the convolution where the two were split,
  // and five of resnet18's convolutions moved away from their placement.
  std::map<std::string, std::map<int, double>> work;
  const std::vector<graph::OpCost> costs = graph::ComputeCosts(forward);
  auto weight = [&](graph::NodeId id) {
    const graph::OpCost& k = costs[id];
    return 1.0 + k.flops + static_cast<double>(k.bytes_read + k.bytes_written);
  };
  for (graph::NodeId id = 0; id < forward.size(); ++id) {
    const graph::Node& n = forward.node(id);
    if (n.op == "Placeholder" || n.op == "Const") continue;
    std::string m = ModuleOfNode(n.name, known);
    if (!counts.count(m)) order.push_back(m);
    counts[m][device_of_node[id]]++;
    work[m][device_of_node[id]] += weight(id);
  }
  auto majority = [](const std::map<int, double>& per) {
    return std::max_element(per.begin(), per.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
  };
  // Modules whose parameters are used only by ops in other scopes (weights
  // read through F.* by their parent, MultiheadAttention's out_proj) follow the
  // ops that read them.
  std::vector<std::vector<graph::NodeId>> consumers(forward.size());
  std::vector<std::string> module_of(forward.size());
  for (graph::NodeId id = 0; id < forward.size(); ++id) {
    for (const graph::TensorRef& in : forward.node(id).inputs) consumers[in.node].push_back(id);
    module_of[id] = ModuleOfNode(forward.node(id).name, known);
  }
  for (graph::NodeId id = 0; id < forward.size(); ++id) {
    const graph::Node& n = forward.node(id);
    if (n.op != "Const") continue;
    std::string m = ModuleOfNode(n.name, known);
    if (m.empty() || !owners.count(m) || counts.count(m)) continue;
    order.push_back(m);
    for (graph::NodeId user : consumers[id]) {
      counts[m][device_of_node[user]]++;
      work[m][device_of_node[user]] += weight(user);
    }
    if (counts[m].empty()) {
      counts[m][device_of_node[id]]++;
      work[m][device_of_node[id]] += 1;
    }
  }
  // Ancestors before descendants, the root first: applying the file calls
  // Module.to in this order, and a parent's move would carry its children with it.
  auto depth = [](const std::string& m) {
    return m.empty() ? -1 : static_cast<int>(std::count(m.begin(), m.end(), '.'));
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) { return depth(a) < depth(b); });
  std::map<std::string, int> device_of;
  for (const std::string& m : order) device_of[m] = majority(work[m]);
  std::map<std::string, std::string> tied_to =
      ShareParameters(forward, known, owners, module_of, consumers, order, &device_of);
  std::vector<ModuleDevice> out;
  for (const std::string& m : order) {
    const auto& per = counts[m];
    const int device = device_of.at(m);
    ModuleDevice md;
    md.module = m;
    md.device = c.devices[device].name;
    md.torch = TorchDevice(c.devices[device]);
    md.output = md.torch;
    if (auto it = tied_to.find(m); it != tied_to.end()) md.shares_with = it->second;
    // The nearest enclosing module (or the root) with ops of its own, when
    // one of them reads what m returns.
    std::string parent = m;
    const bool returns = FeedsAnEnclosingModule(m, forward, module_of, consumers);
    while (returns && !parent.empty()) {
      size_t dot = parent.rfind('.');
      parent = dot == std::string::npos ? "" : parent.substr(0, dot);
      auto it = device_of.find(parent);
      if (it != device_of.end()) {
        md.output = TorchDevice(c.devices[it->second]);
        break;
      }
    }
    for (const auto& [d, k] : per) {
      md.ops += k;
      if (d != device) md.ops_elsewhere += k;
    }
    out.push_back(md);
  }
  return out;
}

std::vector<int> DeviceOfNodeFromModules(const graph::Graph& forward, const cluster::Cluster& c,
                                         const std::vector<ModuleDevice>& modules) {
  std::set<std::string> owners;
  const std::set<std::string> known = ModulesWithParameters(forward, &owners);
  std::map<std::string, int> listed;
  for (const ModuleDevice& m : modules) {
    if (const int d = c.IndexOf(m.device); d >= 0) listed[m.module] = d;
  }
  const int first = modules.empty() || !listed.count(modules.front().module)
                        ? 0
                        : listed.at(modules.front().module);
  // Module.to in ancestors-first order leaves each parameter, and each
  // forward's ops, with the nearest listed module at or above its own.
  auto device_of = [&](const std::string& m) {
    auto it = listed.find(ListedAtOrAbove(m, listed));
    return it == listed.end() ? first : it->second;
  };
  std::vector<int> device(forward.size(), first);
  for (graph::NodeId id = 0; id < forward.size(); ++id) {
    const graph::Node& n = forward.node(id);
    // Inputs enter through the model's own forward, which moves them to its device.
    device[id] = n.op == "Placeholder" ? device_of("") : device_of(ModuleOfNode(n.name, known));
  }
  return device;
}

graph::Status WriteModulePlacement(const std::string& path, const std::vector<ModuleDevice>& m,
                                   const std::string& model_path, const std::string& devices_path,
                                   const std::string& method) {
  // Every string double-quoted and escaped: a device named "1.5" or "yes", or
  // a path with a quote, reads back as written (PyYAML's safe_load would take
  // a bare 1.5 for a number).
  auto q = [](const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  };
  std::ostringstream s;
  s << "# The device of each PyTorch module (docs/onnx.md shows how to apply it).\n"
    << "model: " << q(model_path) << "\n"
    << "devices: " << q(devices_path) << "\n"
    << "method: " << q(method) << "\n"
    << "modules:\n";
  for (const ModuleDevice& d : m) {
    s << "  - {module: " << q(d.module) << ", device: " << q(d.device) << ", torch: " << q(d.torch)
      << ", output: " << q(d.output) << ", ops: " << d.ops;
    if (d.ops_elsewhere > 0) s << ", ops_elsewhere: " << d.ops_elsewhere;
    if (!d.shares_with.empty()) s << ", shares_parameters_with: " << q(d.shares_with);
    s << "}\n";
  }
  return graph::WriteFileAtomic(path, s.str());
}

graph::Status CheckPyTorchModules(const graph::Graph& forward, const std::string& model_path) {
  std::set<std::string> owners;
  ModulesWithParameters(forward, &owners);
  if (!owners.empty()) return graph::Status::Ok();
  return graph::InvalidArgument(model_path +
                                ": no PyTorch modules (parameters named module.param and "
                                "ops scoped by module, as torch.onnx.export writes them)");
}

graph::Result<std::vector<ModuleDevice>> ExportModules(
    const std::string& path, const graph::Graph& forward, const cluster::Cluster& c,
    const std::vector<int>& device_of_node, const std::string& model_path,
    const std::string& devices_path, const std::string& method) {
  GRAPH_RETURN_IF_ERROR(CheckPyTorchModules(forward, model_path));
  std::vector<ModuleDevice> modules = PlaceModules(forward, c, device_of_node);
  GRAPH_RETURN_IF_ERROR(WriteModulePlacement(path, modules, model_path, devices_path, method));
  return modules;
}

}  // namespace placement
