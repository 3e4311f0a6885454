// Placement files (YAML): which device runs each op of a model, and what
// produced the placement (DESIGN.md section 4, docs/file-formats.md).
//
// A placement covers the nodes of the model file, the forward graph; the nodes a
// training graph adds follow their colocation (gradients with the op they
// differentiate, updates with their parameter), and a model's own colocated
// ops share one device (colocation.h).
// Thread safety: value types and free functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"

namespace placement {

struct Placement {
  std::string model;           // the model file it was made for
  std::string model_digest;    // ModelDigest() of that model
  std::string devices;         // the devices file
  std::string devices_digest;  // Cluster::placement_digest of that file (older: digest)
  std::string method;          // what produced it: "single:cpu0", "expert", "search", ...
  std::optional<double> measured_step_s;   // seconds per training step, measured
  std::optional<double> simulated_step_s;  // seconds per training step, simulated
  std::map<std::string, double> search;    // search statistics (iterations, seconds, ...)
  std::vector<std::pair<std::string, std::string>> ops;  // op -> device, in file order
  // Gradient ops of the training graph that run on another device than the op
  // they differentiate (planner search --gradients heavy), op -> device; empty
  // for most placements, whose gradients all follow their op.
  std::vector<std::pair<std::string, std::string>> gradients_apart;
  // The model's inputs and their shapes as it was placed ("[12,4]"): a model
  // imported at other --input-shape sizes digests otherwise, and the refusal
  // then says which input differs. Empty in files written before 2026-11-30.
  std::vector<std::pair<std::string, std::string>> inputs;
  // The optimizer of the training step it was found for (--optimizer: sgd or
  // momentum, whose accumulators change the step); empty in files written
  // before 2026-11-30 and in hand-written ones.
  std::string optimizer;
};

// Digest of a model's graph, independent of its file format (TF.js, .pb, .pbtxt
// of the same graph agree) and of its nodes' devices (the GraphDef
// --export-graphdef writes is the model it was placed from): FNV-1a 64 of its
// binary GraphDef as we write it, NodeDef.device left empty.
std::string ModelDigest(const graph::Graph& g);

// "" when `p` was made at `g`'s input shapes (or does not record them); else
// one line naming the inputs whose shapes differ (a placement made at batch 1
// used at batch 32: valid, since every op is placed, but found for another step).
std::string InputShapesNote(const Placement& p, const graph::Graph& g, const std::string& source);

// "" when `p` was made for `optimizer`'s training step (or does not say); else
// one line naming both (valid, as the optimizer's accumulators follow their
// parameter, but its recorded step times are another step's).
std::string OptimizerNote(const Placement& p, const std::string& optimizer,
                          const std::string& source);

// Every op of `g` on `device`.
Placement SingleDevicePlacement(const graph::Graph& g, const std::string& device);

// A placement of `g` on `c` (`device_of_node` indexes c.devices) made by `method`,
// naming the model and devices files it is for; `model_digest` is ModelDigest(g),
// which callers that write many placements of one graph compute once; `optimizer`
// that of the training step it was found for. Each colocated op takes its
// group's device (colocation.h: the device it runs on). Step times and search
// statistics are the caller's to fill.
Placement MakePlacement(const std::string& model_path, const graph::Graph& g,
                        const std::string& model_digest, const std::string& devices_path,
                        const cluster::Cluster& c, const std::string& method,
                        const std::vector<int>& device_of_node, const std::string& optimizer);

// Parses the file; checks syntax and types only.
graph::Result<Placement> ReadPlacement(const std::string& path);

// Checks `p` against the model and devices it is used with: every op placed once,
// only ops of the model, only devices of the cluster, colocated ops together
// (colocation.h), and (when the file has them) matching digests. Every problem of a kind is counted
// and the first few named in one line. `source` names the placement file in messages.
graph::Status ValidatePlacement(const Placement& p, const graph::Graph& g,
                                const cluster::Cluster& c, const std::string& source);

// The device index (into c.devices) of each node of `g`; `p` must be valid.
std::vector<int> DeviceOfNode(const Placement& p, const graph::Graph& g, const cluster::Cluster& c);

// Extends a placement of a forward graph to the training graph built from it.
// Forward nodes keep their device (a colocated one its group's root's:
// colocation.h); a node colocated with another (gradients
// with the op they differentiate, updates and accumulators with their parameter)
// takes that node's device; any other added node (the synthetic loss, the
// gradient seed) takes the device of its first placed input, else of its first
// placed consumer, else device 0. `forward_device` indexes forward's nodes.
std::vector<int> TrainingDeviceOfNode(const graph::Graph& training, const graph::Graph& forward,
                                      const std::vector<int>& forward_device);

// The same in two halves, for callers that extend many placements: which
// forward node each training node takes its device from (-1: device 0), which
// depends on the graphs only (a forward node: its colocation root); and the
// devices that gives for one placement.
std::vector<graph::NodeId> ForwardSourceOfNode(const graph::Graph& training,
                                               const graph::Graph& forward);
std::vector<int> DeviceOfSources(const std::vector<graph::NodeId>& source,
                                 const std::vector<int>& forward_device);

// `device_of_node` with each set of interchangeable devices
// (cluster::Cluster::Interchangeable) renumbered in order of first use, so two
// placements that differ only by swapping identical GPUs compare equal.
std::vector<int> CanonicalDevices(const std::vector<int>& device_of_node,
                                  const cluster::Cluster& c);

// Whether training node `id` may run apart from the op it follows
// (Placement::gradients_apart, --gradients heavy): a node the training graph
// adds (not one of `forward`'s) that is colocated with a forward op, the
// gradient ops; not a trainable parameter's update or accumulator, which write
// the parameter's state in place, nor any op of a colocation group that a
// parameter leads. `source` is ForwardSourceOfNode(training, forward).
bool MayRunApart(const graph::Graph& training, const graph::Graph& forward,
                 const std::vector<graph::NodeId>& source, graph::NodeId id);

// The device of each node of `training`, built from `forward` (`p` valid for
// it): TrainingDeviceOfNode, then each of p.gradients_apart on its own device.
// An entry that MayRunApart refuses, or that names a device `c` lacks, is an
// error naming `source` and the entry.
graph::Result<std::vector<int>> TrainingDevices(const Placement& p, const graph::Graph& training,
                                                const graph::Graph& forward,
                                                const cluster::Cluster& c,
                                                const std::string& source);

// A placement the search may extend past the forward graph: `placed` holds a
// device for each of forward's `forward_size` nodes, then, when longer, one for
// each of `apart` (nodes of the training graph placed apart from the op they
// follow; planner/refine/refine.h, HeavyGradientOps). DeviceOfSources of the
// forward part, with apart[k] on placed[forward_size + k].
std::vector<int> DeviceOfPlaced(const std::vector<graph::NodeId>& source,
                                const std::vector<graph::NodeId>& apart, size_t forward_size,
                                const std::vector<int>& placed);
// `forward_device` extended by a device for each of `apart`: the one it follows.
std::vector<int> WithApart(const std::vector<graph::NodeId>& source,
                           const std::vector<graph::NodeId>& apart,
                           const std::vector<int>& forward_device);
// Placement::gradients_apart of such an extended placement: the nodes of
// `apart` not on the device they would follow, with their devices' names.
std::vector<std::pair<std::string, std::string>> GradientsApart(
    const graph::Graph& training, const std::vector<graph::NodeId>& source,
    const std::vector<graph::NodeId>& apart, size_t forward_size, const std::vector<int>& placed,
    const cluster::Cluster& c);

// Writes atomically, ops in graph order.
graph::Status WritePlacement(const std::string& path, const Placement& p);

// Writes `forward` as a binary GraphDef whose NodeDef.device fields are the
// TensorFlow device strings of its placement (`device_of_node` indexes
// c.devices; colocated ops take their group's device), atomically: what a
// TensorFlow trainer imports.
graph::Status WritePlacedGraphDef(const std::string& path, const graph::Graph& forward,
                                  const cluster::Cluster& c,
                                  const std::vector<int>& device_of_node);

}  // namespace placement
