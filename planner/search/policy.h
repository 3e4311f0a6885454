// The Hierarchical Planner's policy (Mirhoseini et al., ICLR 2018, section 2):
// a feed-forward Grouper that samples a group for every op of the forward graph,
// and a sequence-to-sequence Placer that reads the groups' embeddings with a
// bidirectional LSTM and, with attention over them, samples one device per
// group. Every op then runs on its group's device; the training graph's added
// ops follow their forward op (placement::TrainingDeviceOfNode).
// With SearchOptions::grouper "scopes" the groups are the
// model's name scopes instead (scope_groups.h), fixed, and the Grouper is
// unused; with "auto" (the default) ChooseGrouper picks one of the two.
//
// Op features (fixed per graph): an embedding of the op type; its first
// output's shape (up to 4 dims, log-scaled) and output bytes and FLOPs (log);
// its position in topological order; its in- and out-degree; the mean of its
// producers' numeric features (adjacency). Group embeddings (per sampled
// grouping, not differentiated): the group's op-type histogram, its summed
// output bytes, FLOPs and op count, and its edge counts to and from every other
// group (adjacency). Sizes and sources: planner/search/search_options.h.
//
// Ownership: a torch module; copies what it needs of the graph. Thread safety:
// none; one thread samples and trains it.
#pragma once

#include <ATen/core/Generator.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>

#include <memory>
#include <utility>
#include <vector>

#include "graph/graph.h"
#include "planner/search/bidirectional_lstm.h"
#include "planner/search/deferred_gradient.h"
#include "planner/search/scope_groups.h"
#include "planner/search/search_options.h"

namespace planner::search {

// One grouping and k device assignments of it, with every decision's
// log-probability and, when SearchOptions::entropy_weight > 0 (else undefined,
// to spare their cost), its entropy; gradients flow into both.
struct PolicySample {
  at::Tensor log_prob;                         // [k]: log p(grouping) + log p(devices_j)
  at::Tensor group_log_prob, group_entropy;    // [ops]: each op's group decision
  at::Tensor device_log_prob, device_entropy;  // [k, groups]: each group's device decision
  at::Tensor groups;                           // [ops] int64, no gradient
  at::Tensor devices;                          // [k, groups] int64, no gradient
  std::vector<int> group_of_op;                // the one grouping, per forward node
  // [k][forward node, then apart slot] (Sample only): with PlaceApart, each
  // placement's forward nodes' devices and then its apart slots'.
  std::vector<std::vector<int>> device_of_op;
  // With PlaceApart (else undefined): [k, K] each apart slot's device decision,
  // its log-probability (in log_prob too) and, with an entropy weight, entropy.
  at::Tensor apart_devices, apart_log_prob, apart_entropy;
  // The recurrent weights' steps: backward() leaves the decoder's weight and
  // the encoder's recurrent weights to AddDeferredGradients, one product over
  // all steps instead of one per step (planner/search/deferred_gradient.h).
  DeferredSteps decoder;
  LstmSteps encoder;
};

class HierarchicalPolicyImpl : public torch::nn::Module {
 public:
  // `forward` has shapes inferred; the policy places its nodes on `num_devices`.
  HierarchicalPolicyImpl(const graph::Graph& forward, int num_devices, const SearchOptions& o);

  // Samples one grouping and k device assignments of it. `noise` is the std of
  // the exploration noise added to the Placer's logits, relative to their mean
  // magnitude (0: none). Gradients flow into log_prob.
  PolicySample Sample(int k, double noise, at::Generator& gen);
  // The same decisions (`groups` [ops], `devices` [k, groups], as a sample
  // holds them) scored by the policy as it is now, without noise: for updates
  // that take several steps on one batch of samples (PPO).
  // With PlaceApart, `apart` [k, K] holds the apart slots' decisions.
  PolicySample Score(const at::Tensor& groups, const at::Tensor& devices,
                     const at::Tensor& apart = at::Tensor());

  // With gradient ops placed apart from their op (Search::AllowApart):
  // `follows[k]` is the forward node whose device apart slot k's op would take
  // colocated (placement::ForwardSourceOfNode; -1: none). Every sample then
  // also draws a device for each slot, from logits of the slot's own: a learned
  // preference per device, plus a learned preference for the device its op was
  // sampled on (at first such that a slot stays with its op with probability
  // SearchOptions::apart_colocated, or e^2 / (e^2 + devices - 1) with 0).
  // Once, before the first sample; the head's parameters join the policy's.
  void PlaceApart(const std::vector<int>& follows);
  int num_apart() const {
    return apart_bias_.defined() ? static_cast<int>(apart_bias_.size(0)) : 0;
  }

  // A grouping that follows `device_of_op` (every group on one device; each
  // device's ops cut in structural order, scope by scope, into groups in
  // proportion to their number), and each group's device.
  std::vector<int> GroupsFollowing(const std::vector<int>& device_of_op,
                                   std::vector<int>* device_of_group) const;

  // After backward() through these samples' log-probabilities: adds the
  // gradients backward() leaves out (the decoder's weights and biases, the
  // encoder's recurrent weights) to their parameters' gradients, and clears
  // the samples' taps. Call it once per backward(), before the gradients are
  // read (clipped, stepped, sent).
  void AddDeferredGradients(std::vector<PolicySample>* samples);

  // Cross-entropies against a given grouping and device per group, for warm
  // starts: the Grouper's, the mean over ops of -log p(group); the Placer's,
  // the mean over groups of -log p(device), fed the given grouping and devices
  // (teacher forcing). Each has gradients only into its own parameters.
  at::Tensor GrouperImitationLoss(const std::vector<int>& group_of_op);
  at::Tensor PlacerImitationLoss(const std::vector<int>& group_of_op,
                                 const std::vector<int>& device_of_group);
  // A grouping sampled from the Grouper, without gradients.
  std::vector<int> SampleGroups(at::Generator& gen);
  // Each group's device by majority of its ops in `device_of_op` (ties: the
  // lower device; an empty group: the device with most ops).
  std::vector<int> MajorityDevices(const std::vector<int>& group_of_op,
                                   const std::vector<int>& device_of_op) const;

  // With SearchOptions::incumbent_features: the placement the policy is shown
  // (every forward node's device; empty: none yet, all zeros; without either
  // option below, ignored). Samples and
  // scores are conditioned on it, so set it between updates, not between a
  // sample and its scoring. With scopes as the groups (SearchOptions::grouper),
  // the grouping samples use from then on follows it
  // (ScopeGrouping::GroupsFollowing), so that it can be proposed exactly.
  void SetIncumbent(const std::vector<int>& device_of_op);

  // With SearchOptions::grouper "auto", before the first sample: places the
  // name scopes from now on (as grouper "scopes") when at least
  // auto_scope_share of the groups stay scopes cut where `device_of_op` (the
  // best baseline) cuts them, else keeps the Grouper. Other groupers: says
  // which is on. Deterministic.
  GrouperChoice ChooseGrouper(const std::vector<int>& device_of_op);
  bool places_scopes() const { return place_scopes_; }
  // Grouper "auto" only: from now on the name scopes (ChooseGrouper's other
  // outcome, for a resumed search that had chosen them).
  void PlaceScopes();

  std::vector<at::Tensor> GrouperParameters() const;
  std::vector<at::Tensor> PlacerParameters() const;

  int num_groups() const { return groups_; }
  int num_devices() const { return devices_; }

 private:
  // The Placer's decoder state, for a batch of placements decoded together.
  struct DecoderState {
    at::Tensor h, c, context;  // [batch, placer_hidden]
    at::Tensor previous;       // [batch, device_embedding]: the last group's device
    at::Tensor weight, bias;   // the cell's, detached (deferred weight gradients), or undefined
  };

  at::Tensor GrouperInput();
  at::Tensor GrouperLogits();                            // [ops, groups]
  at::Tensor GroupEmbeddings(const at::Tensor& groups);  // [G, group features], no gradient
  // A grouping's encoder outputs [G, H] and attention keys [G, attention]
  // (doubled: DecodeStep's score is in sigmoid form);
  // with `steps`, the recurrent weights' gradients deferred to them, else
  // through autograd.
  std::pair<at::Tensor, at::Tensor> Encode(const at::Tensor& groups, LstmSteps* steps);
  DecoderState StartDecoder(int batch) const;
  // One group's step: advances `st` (not `previous`, which the caller sets to
  // the chosen device) and returns the device logits C * tanh(logits / T).
  // With `s` (and st's detached weights), the decoder's weights enter without
  // gradient and the step's gate tap and input go to s (AddDeferredGradients);
  // without, through autograd.
  at::Tensor DecodeStep(const at::Tensor& encoded, const at::Tensor& keys, DecoderState* st,
                        PolicySample* s = nullptr);
  // Decodes k device assignments of `groups`: sampled with `noise` from `gen`
  // when `forced` is undefined, else forced's [k, groups] devices. Fills the
  // sample's device fields.
  void DecodeDevices(const at::Tensor& groups, int k, double noise, at::Generator* gen,
                     const at::Tensor& forced, PolicySample* s);

  // With PlaceApart: each of the sample's k placements' apart decisions, drawn
  // from `gen` when `forced` is undefined, else forced's [k, K]; adds their
  // log-probability to the sample's log_prob. Without PlaceApart: nothing.
  void DecideApart(const at::Tensor& forced, at::Generator* gen, PolicySample* s);

  // With SearchOptions::grouper "scopes": the scope grouping
  // (scope_groups.h) that replaces the Grouper's samples, its decisions' log p
  // (zeros), and the grouping set.
  void FixedGroupDecisions(PolicySample* s) const;
  void UseGroups(std::vector<int> group_of_op);

  int ops_, groups_, devices_, types_;
  std::unique_ptr<ScopeGrouping> scope_grouping_;  // with grouper "scopes" or "auto"
  bool place_scopes_ = false;  // the groups are scope_grouping_'s; else the Grouper samples them
  std::vector<int> fixed_groups_;  // [ops], with place_scopes_
  at::Tensor fixed_groups_tensor_;
  std::vector<int> followed_;         // the incumbent fixed_groups_ follows (empty: none)
  int scopes_ = 0;                    // scope vocabulary; 0: scope features off
  std::vector<int> structure_order_;  // ops by first appearance of their scope, then topology
  SearchOptions o_;
  at::Tensor type_ids_;             // [ops] int64
  at::Tensor type_hot_;             // [ops, types] one-hot
  at::Tensor features_;             // [ops, F]
  at::Tensor sizes_;                // [ops, 3]: log bytes, log flops, 1 (for group sums)
  at::Tensor edge_src_, edge_dst_;  // [edges] int64
  at::Tensor scope1_, scope2_;      // [ops] int64: depth-1 and depth-2 scope ids
  at::Tensor scope_hot_;            // [ops, scopes]: both ids, one-hot summed
  at::Tensor incumbent_;            // [ops, devices]: the incumbent's devices, one-hot
  torch::nn::Embedding scope_embedding_{nullptr};
  torch::nn::Embedding type_embedding_{nullptr};
  torch::nn::Linear grouper_hidden_{nullptr}, grouper_out_{nullptr};
  torch::nn::Linear group_in_{nullptr};
  torch::nn::LSTM encoder_{nullptr};
  torch::nn::LSTMCell decoder_{nullptr};
  torch::nn::Embedding device_embedding_{nullptr};
  torch::nn::Linear attend_keys_{nullptr}, attend_query_{nullptr}, attend_v_{nullptr};
  torch::nn::Linear device_out_{nullptr};
  // PlaceApart's head: [K, devices] per-device logits, [K] the weight of "its
  // op's device"; the slots' ops' forward nodes [K] and whether they have one.
  at::Tensor apart_bias_, apart_stay_, apart_follows_, apart_has_follow_;
};
TORCH_MODULE(HierarchicalPolicy);

}  // namespace planner::search
