// One replica of a model being trained: its placed training graph (forward,
// backward and update; graph/training.h) run by the runtime's dataflow executor,
// split where the gradients meet the updates. A step is Compute (forward and
// backward, reporting each gradient as it is ready) and then Update (the update
// ops, fed whichever gradients the caller gives: its own, or the average over
// replicas). Model parallelism is inside a replica (the planner's placement
// applies to both halves, node by node); data parallelism is across replicas.
//
// Ownership: owns both executors; parameters are shared between them (updates
// write them in place) and handed out as live tensors.
// Thread safety: one Compute or Update at a time; the gradient callback runs on
// the executor's device threads, possibly several at once.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/status.h"
#include "graph/training.h"

namespace runtime {
class Executor;
}

namespace trainer {

struct ComputeTimes {
  double forward_s = 0;   // from the step's start to the loss
  double backward_s = 0;  // from the loss to the last gradient
};

class Replica {
 public:
  // `device_of_node` indexes `cluster.devices`, one per node of `training.graph`.
  // Fails when a parameter is not float32 or the executor cannot run the graph.
  static graph::Result<std::unique_ptr<Replica>> Create(const graph::TrainingGraph& training,
                                                        const cluster::Cluster& cluster,
                                                        const std::vector<int>& device_of_node);
  ~Replica();

  int num_parameters() const { return static_cast<int>(parameters_.size()); }
  const std::string& parameter_name(int i) const { return parameters_[i]; }
  // The live tensor, updated in place by Update.
  at::Tensor parameter(int i) const;
  int64_t parameter_elements() const;  // over all parameters

  using GradientReady = std::function<void(int parameter, const at::Tensor& gradient)>;
  // Runs forward and backward on `feeds`. `on_gradient` (may be empty) sees each
  // gradient as soon as its op has run; `gradients` gets them all, by parameter.
  graph::Status Compute(const std::map<std::string, at::Tensor>& feeds,
                        const GradientReady& on_gradient, std::vector<at::Tensor>* gradients,
                        double* loss, ComputeTimes* times);
  // Applies the optimizer's update ops with `gradients` (one per parameter).
  graph::Status Update(const std::vector<at::Tensor>& gradients);

  // Every tensor of training state, by node name: parameters, then optimizer
  // slots (momentum accumulators); live tensors, for checkpoints.
  std::vector<std::pair<std::string, at::Tensor>> State() const;

 private:
  Replica() = default;
  std::unique_ptr<runtime::Executor> compute_, update_;
  std::vector<std::string> parameters_;
  std::vector<std::string> gradient_fetches_;  // the gradient tensor of each parameter
  std::vector<std::string> gradient_feeds_;    // its placeholder in the update graph
  std::vector<std::string> slots_;             // optimizer state of the update graph
  // Compute graph node -> (parameter, output index) of the gradients it makes.
  std::vector<std::vector<std::pair<int, int>>> gradient_of_node_;
  std::string loss_;
  int loss_node_ = -1;
};

}  // namespace trainer
