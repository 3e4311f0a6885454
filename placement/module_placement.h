// Placements PyTorch users can apply: the device of each nn.Module of a model
// exported by torch.onnx.export, read off the placement of its ops.
//
// torch.onnx.export names each node by its module scopes
// ("/layer1/layer1.0/conv1/Conv") and each parameter by its qualified name
// ("layer1.0.conv1.weight"). The modules that hold parameters are the units a
// user can move (Module.to); an op belongs to the deepest such module (or
// ancestor of one) its scopes name, and the module takes the device where most
// of its ops' work runs (forward FLOPs and bytes; ops of unknown cost count
// one each). A container's own forward (a residual add) runs on the device most
// of its own ops are placed on: its inputs are moved there on entry and each
// child's output is sent back there, so every op finds its operands on one
// device. docs/onnx.md has the snippet that applies the file with forward hooks.
// Thread safety: free functions of their arguments.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"

namespace placement {

struct ModuleDevice {
  std::string module;  // qualified name, as model.get_submodule takes it
  std::string device;  // the devices file's name ("gpu0")
  std::string torch;   // PyTorch's device string ("cuda:0", "cpu")
  // Where the module's output goes: the device of the enclosing container's
  // own forward (a residual add, a flatten) when one of its ops reads it, so
  // that they find their operands on one device; else `torch` (no copy: the
  // next module's entry moves it).
  std::string output;
  int ops = 0;            // ops of the module
  int ops_elsewhere = 0;  // of those, ops the placement puts on other devices
  // Modules linked by ops that read another's parameter (weights tied between
  // an embedding and the output layer; a parent whose forward calls F.linear
  // with its children's weights) go where the first such parameter's module
  // goes: PyTorch holds a parameter once, on one device. That module, or "".
  std::string shares_with;
};

// The device of each module that holds parameters or runs ops of its own (a
// container's residual add; the root, module "", for the ops outside every
// module and its own parameters), the root first, then ancestors before their
// descendants (else in order of first op). Empty when the graph has no
// PyTorch-style names (not an export of a PyTorch model).
std::vector<ModuleDevice> PlaceModules(const graph::Graph& forward, const cluster::Cluster& c,
                                       const std::vector<int>& device_of_node);

// The placement, op by op, that applying `modules` (PlaceModules' for this
// graph) gives: each op and parameter on the device of the nearest listed module
// at or above its own (where Module.to in the file's order leaves it), the
// inputs on the model's own. What the module file costs against the placement
// it was read off is the difference between the two placements' steps.
std::vector<int> DeviceOfNodeFromModules(const graph::Graph& forward, const cluster::Cluster& c,
                                         const std::vector<ModuleDevice>& modules);

// The qualified module name a node's scopes spell ("layer1.0.conv1" for
// "layer1/layer1.0/conv1/Conv"), limited to prefixes in `modules`; "" if none.
std::string ModuleOfNode(const std::string& node_name, const std::set<std::string>& modules);

// PyTorch's name for a device of the cluster ("cpu", "cuda:1").
std::string TorchDevice(const cluster::DeviceSpec& d);

// Writes the modules as YAML (docs/file-formats.md), atomically; `method`,
// `model_path` and `devices_path` go in its header.
graph::Status WriteModulePlacement(const std::string& path, const std::vector<ModuleDevice>& m,
                                   const std::string& model_path, const std::string& devices_path,
                                   const std::string& method);

// Ok when `forward` names PyTorch modules (parameters named module.param), else
// the error ExportModules gives, naming `model_path`: for a check before any
// work, so that --export-modules on another model is refused at once.
graph::Status CheckPyTorchModules(const graph::Graph& forward, const std::string& model_path);

// PlaceModules, then WriteModulePlacement to `path` (`search --export-modules`,
// `baseline --export-modules`): returns the modules written; an error naming
// `model_path` when the model has no PyTorch module names.
graph::Result<std::vector<ModuleDevice>> ExportModules(
    const std::string& path, const graph::Graph& forward, const cluster::Cluster& c,
    const std::vector<int>& device_of_node, const std::string& model_path,
    const std::string& devices_path, const std::string& method);

}  // namespace placement
