// The simple placements a search must beat (DESIGN.md section 6): every op on
// one device, for each device, and the human expert's rule of the paper
// (Mirhoseini et al. 2017/2018): recurrent models a layer per device, CNNs on
// one GPU.
//
// The expert rule reads layers from op names: an op in a scope "cell_<l>",
// "layer_<l>" or "lstm_<l>" belongs to layer l (the zoo's RNNLM and NMT name
// their LSTMs so, as TensorFlow's MultiRNNCell does); the L layers go to the
// accelerators in order, L / D consecutive layers per device; the embedding and
// everything before the first layer goes with layer 0, the attention, softmax
// and loss with the last layer. A model without such layers gets the first
// accelerator for everything. Accelerators are the gpu-like devices (cuda, sim
// of a gpu); with none, every device.
// Thread safety: free functions of const inputs.
#pragma once

#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"

namespace planner {

struct BaselinePlacement {
  std::string method;               // "single:gpu0", "expert"
  std::vector<int> device_of_node;  // of the forward graph's nodes, indexes c.devices
};

// Single-device placements, one per device in file order, then the expert's.
std::vector<BaselinePlacement> Baselines(const graph::Graph& forward, const cluster::Cluster& c);

// The expert's placement alone.
BaselinePlacement ExpertPlacement(const graph::Graph& forward, const cluster::Cluster& c);

}  // namespace planner
