// How replicas keep their models together: the data-parallel strategies, one
// implementation each in sibling files (strategy_sync.cc, strategy_async.cc,
// strategy_easgd.cc, strategy_gossip.cc), chosen by name through MakeStrategy.
//
//   sync    every step, gradients averaged over all ranks by bucketed all-reduce
//           that overlaps the backward pass (reducer.h); every rank then applies
//           the same update, so replicas stay identical.
//   async   a parameter server with Omnivore's compute groups: the ranks form
//           `groups` groups of consecutive ranks, synchronous inside (as sync,
//           over the group), asynchronous across: after its update, a group's
//           first rank pushes the change to its model to the server (a thread
//           of rank 0), which adds it to the central model and sends that back;
//           the group adopts it. groups = 1 is synchronous SGD, groups = ranks
//           fully asynchronous.
//   easgd   elastic averaging SGD (Zhang, Choromanska and LeCun 2015), its
//           synchronous form: each rank steps on its own gradients, and every
//           `period` steps x_i -= alpha (x_i - c) and c += alpha sum_i (x_i - c)
//           (one all-reduce); c, the centre, is the model that is evaluated.
//   gossip  each step every rank averages with one peer of a random pairing
//           that all ranks draw alike: x <- (1 - b) x + b x_peer (Jin et al.
//           2016); with an odd number of ranks one sits each round out.
//
// Ownership: borrows the process group and the replica, which outlive it.
// Thread safety: OnGradient may run on several executor threads at once; the
// rest on the training thread.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <string>
#include <vector>

#include "graph/status.h"
#include "trainer/process_group.h"
#include "trainer/reducer.h"
#include "trainer/replica.h"

namespace trainer {

struct StrategyOptions {
  std::string name = "sync";  // sync | async | easgd | gossip
  int groups = 0;             // async: compute groups (0: one per rank)
  BucketOptions buckets;      // sync
  int period = 1;             // easgd: steps between elastic updates
  double alpha = 0;           // easgd: elastic rate; 0 means 0.9 / ranks (the paper's beta = 0.9)
  double mix = 0.5;           // gossip: b, the weight of the peer's model
  uint64_t seed = 1;          // gossip: the pairing's random stream, shared by all ranks
  std::string tag;            // async: told apart from other strategies of the same run
                              // (its groups' names in the store end with it)
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Whether OnGradient should be called during the backward pass.
  virtual bool overlaps() const { return false; }
  // Before a step's backward pass.
  virtual void Start() {}
  // Gradient `param` is ready (executor threads).
  virtual void OnGradient(int param, const at::Tensor& gradient) {}
  // After the backward pass (ended at `backward_end_s`, ProcessGroup::Now's
  // clock): turns the local gradients into those to apply.
  virtual graph::Status Reduce(double backward_end_s, std::vector<at::Tensor>* gradients,
                               CommTimes* t) {
    return graph::Status::Ok();
  }
  // After the update of step `step` (counted from 0 over the whole run).
  virtual graph::Status AfterUpdate(int64_t step, CommTimes* t) { return graph::Status::Ok(); }
  // After the last step, before the ranks part.
  virtual graph::Status Finish() { return graph::Status::Ok(); }
  // The model to evaluate: the replica's own parameters, or easgd's centre.
  virtual std::vector<at::Tensor> EvaluatedParameters() const;

 protected:
  Strategy(ProcessGroup* pg, Replica* replica) : pg_(pg), replica_(replica) {}
  ProcessGroup* pg_;
  Replica* replica_;
};

// The names MakeStrategy accepts, for usage messages.
const std::vector<std::string>& StrategyNames();
// Ok for a name MakeStrategy accepts, else the error naming it and the others.
graph::Status CheckStrategyName(const std::string& name);

graph::Result<std::unique_ptr<Strategy>> MakeStrategy(const StrategyOptions& opts, ProcessGroup* pg,
                                                      Replica* replica);

// Strategies' shared tools: the parameters' shapes; all parameters as one flat
// float32 copy, and back.
std::vector<std::vector<int64_t>> ParameterShapes(const Replica& r);
at::Tensor FlattenParameters(const Replica& r);
void UnflattenParameters(const at::Tensor& flat, Replica* r);

// The constructors MakeStrategy chooses among (strategy_*.cc).
std::unique_ptr<Strategy> MakeSyncStrategy(const StrategyOptions& o, ProcessGroup* pg,
                                           Replica* replica);
graph::Result<std::unique_ptr<Strategy>> MakeAsyncStrategy(const StrategyOptions& o,
                                                           ProcessGroup* pg, Replica* replica);
graph::Result<std::unique_ptr<Strategy>> MakeEasgdStrategy(const StrategyOptions& o,
                                                           ProcessGroup* pg, Replica* replica);
std::unique_ptr<Strategy> MakeGossipStrategy(const StrategyOptions& o, ProcessGroup* pg,
                                             Replica* replica);

}  // namespace trainer
