// The reference executor: runs a graph one op at a time, in topological order, on
// the host CPU, with the kernel table. It is deliberately simple: it is the oracle
// the concurrent dataflow executor is checked against, and the path gradient
// checks take. Not for measuring placements.
//
// State: Const and Variable nodes are parameters whose tensors live here across
// runs (update ops change them in place); VariableV2 starts at zero.
// Ownership: keeps a pointer to the graph, which must outlive it.
// Thread safety: one Run at a time.
#pragma once

#include <ATen/core/Tensor.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph.h"
#include "graph/status.h"

namespace runtime {

struct RunOptions {
  // Record LibTorch autograd history (to differentiate a forward graph with
  // autograd, for checks); off for ordinary runs.
  bool record_autograd = false;
};

class ReferenceExecutor {
 public:
  // Fails before anything runs, listing every op type that has no kernel.
  static graph::Result<ReferenceExecutor> Create(const graph::Graph& g);

  // Feeds placeholders by node name and returns the fetched tensors ("node" or
  // "node:k") in order.
  graph::Status Run(const std::map<std::string, at::Tensor>& feeds,
                    const std::vector<std::string>& fetches, std::vector<at::Tensor>* results,
                    const RunOptions& opts = {});

  // The persistent tensor of a Const or Variable node; undefined if none.
  at::Tensor state(const std::string& node) const;
  void set_state(const std::string& node, at::Tensor value);

 private:
  explicit ReferenceExecutor(const graph::Graph& g) : g_(&g) {}
  graph::Status RunNode(graph::NodeId id, std::vector<std::vector<at::Tensor>>& values);

  const graph::Graph* g_;
  std::unordered_map<graph::NodeId, at::Tensor> state_;
};

// A graph constant as a tensor (a copy of its bytes).
graph::Result<at::Tensor> ToAten(const graph::Tensor& t);

}  // namespace runtime
