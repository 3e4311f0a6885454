// Hyper-parameters of the Hierarchical Planner's search (policy and REINFORCE),
// and the YAML file that sets them (configs/search.yaml; every default and its
// source is documented there and in docs/search.md).
// Thread safety: value types and free functions.
#pragma once

#include <cstdint>
#include <string>

#include "graph/status.h"

namespace planner::search {

// The defaults are the planner's own settings, which learn on the paper's
// models in simulation (docs/search.md, "The defaults"); where they differ from
// the paper's, the comment says "paper: ..." and PaperSearchOptions() has the
// paper's value.
struct SearchOptions {
  // Policy. Sources: Mirhoseini et al. 2018 (ICLR) section 3 and TensorFlow's
  // grappler/hierarchical_controller.py (hierarchical_controller_hparams).
  int num_groups = 0;       // 0: min(256, 20 x devices), as TensorFlow's controller
  int type_embedding = 16;  // op-type embedding width (ours; TF feeds op types one-hot)
  int grouper_hidden = 64;  // TF grouping_hidden_size
  // The Placer's width: its encoder is a bi-LSTM of half this per direction.
  // Paper (TF hidden_size): 512; ours 256, a quarter of the decoder's
  // products, so that an NMT-8 update with 16 samples stays within a second.
  int placer_hidden = 256;
  int attention = 256;        // Placer attention width (ours)
  int device_embedding = 16;  // Placer's embedding of the previous group's device (ours)
  int scope_embedding = 8;    // ours: width of the name-scope embeddings (paper: 0, none)
  // The groups the Placer places: "learned" (paper: the Grouper samples a
  // group per op), "scopes" (ours: fixed, the model's name scopes as fine as
  // the groups allow, cut where the best placement so far cuts them,
  // planner/search/scope_groups.h; the Grouper is unused), or "auto" (ours:
  // Search::ChooseGrouper picks one from the best baseline before the first
  // update: scopes when, cut where that placement cuts them, at least
  // auto_scope_share of the groups stay scopes (ScopeGrouping::ScopesFollowing),
  // else learned: a placement scattered op by op across scopes, a list
  // scheduler's, leaves scopes too coarse to refine it).
  std::string grouper = "auto";
  double auto_scope_share = 0.5;  // of num_groups (ours; grouper "auto" only)
  double temperature = 10.0;      // paper T: logits are divided by it before the tanh
  double tanh_constant = 5.0;     // paper C: logits = C * tanh(logits / T)

  // The update: REINFORCE's (paper) or PPO's (ours).
  int grouper_samples = 1;        // paper m: groupings per policy update...
  int placer_samples = 16;        // k: ...and placements of each (m x k per update; paper: 4)
  double learning_rate = 0.003;   // Adam's (paper and TF: 0.1)
  double lr_decay = 0.95;         // TF lr_dec: multiplied in every lr_decay_every updates...
  int lr_decay_every = 50;        // TF lr_num_steps
  int lr_decay_start = 400;       // ...from this update on (TF start_decay_step)
  double grad_clip = 1.0;         // paper and TF grad_bound: global L2 norm
  double baseline_decay = 0.9;    // TF bl_dec: exponential moving average of the cost
  double failing_step_s = 100.0;  // TF failing_signal: the step time charged to a failed placement
  double logit_noise = 0;  // std of noise on the Placer's logits (x their mean |logit|; TF: 0.5)...
  int logit_noise_until = 750;  // ...for the first updates (TF stop_noise_step)
  int threads = 1;              // threads of the policy's LibTorch calls (ATen and OpenBLAS pools)
  // The policy's optimizer (not the model's, --optimizer): "adam" (paper and TF),
  // or "sgd" (ours: p -= lr * clipped gradient). After a
  // warm start, Adam's first steps move every parameter by the full rate however
  // small the gradient, and walk the policy away from the placement it learned;
  // SGD's steps are as small as REINFORCE's gradient (docs/search.md).
  std::string policy_optimizer = "adam";
  // The update (ours, docs/search.md "What the policy does"): "reinforce" (paper:
  // one gradient step on (cost - baseline) x log p(placement)), or "ppo" (a
  // clipped surrogate, Schulman et al. 2017, as Post, Gao et al. 2018, used on
  // these benchmarks: ppo_epochs steps on each update's samples, the
  // probability ratio of every grouping and device decision clipped to
  // 1 +- ppo_clip).
  std::string update = "ppo";  // paper: "reinforce"
  int ppo_epochs = 1;  // steps per update (4 in configs/search-ppo.yaml): one buys more updates
  double ppo_clip = 0.2;
  // The advantage: "ema" (paper and TF: cost minus the moving average), or
  // "batch" (ours: each update's costs standardised over its m x k samples).
  std::string advantage = "batch";  // paper: "ema"
  double entropy_weight = 0.01;     // ours: bonus on the mean entropy per decision (paper: 0)
  // Ours: 1 adds the best placement so far (a baseline's or a sample's) to
  // every update as one more sample at its known cost (self-imitation, Oh et al.
  // 2018; the cross-entropy half of Post), so the policy is pulled toward it
  // while its own samples explore; 0: off (paper).
  int imitate_best = 1;
  // Ours; needs imitate_best. Above 0, the best placement is no sample of the
  // update (no advantage, no clip, no entropy bonus); instead every gradient
  // step's loss gains this weight times its cross-entropy under the policy
  // (the mean -log p of its grouping decisions plus that of its device
  // decisions), as Post's cross-entropy step on its elite sample. As a clipped
  // sample, a decision the policy gives p = 0.001 gains about a factor
  // 1 + ppo_clip an update (past it the clip stops its gradient), some 38
  // updates at 0.2 to become likely; the cross-entropy has no such bound.
  // 0: the best is one more sample (imitate_best alone; paper: no imitation).
  double imitation_weight = 1;
  // Ours: 1 shows the policy the best placement so far: every op's device in
  // it (one-hot) joins the Grouper's features, and each group's count of ops
  // per device in it joins the group embeddings, so that the Grouper can cut
  // groups along it and the Placer can keep or move each one (conditioning on
  // an incumbent, as learned improvement heuristics do). 0: off (paper).
  int incumbent_features = 1;
  // Ours, with gradient ops placed apart (--gradients heavy,
  // HierarchicalPolicy::PlaceApart): the probability that an apart slot's
  // first samples put it on its op's device, whatever the number of devices
  // (its preference for that device starts at log(p / (1 - p) x (devices -
  // 1))). 0: a preference of 2 whatever the number of devices, so
  // e^2 / (e^2 + devices - 1), fewer on more devices. Neither measured
  // better: 0 against 0.9, the policy alone on the five paper models with
  // heavy gradients, 3 seeds side by side, ended within the seeds' noise on
  // every model (docs/search.md, "Gradients apart"; bench/apart_colocated.sh).
  double apart_colocated = 0;

  // Warm start (ours): before REINFORCE, train the policy by cross-entropy to
  // propose the best baseline (Search::WarmStart), so that it searches around
  // it instead of starting from uniform random placements.
  int warm_start_steps = 0;             // Adam steps per network at most (0: no warm start)...
  double warm_start_loss = 0.01;        // ...or until its cross-entropy (nats/decision) is below
  double warm_start_grouper_lr = 0.1;   // Adam's rate for the Grouper
  double warm_start_placer_lr = 0.001;  // and for the Placer
};

// The paper's settings: REINFORCE on the cost minus its moving average, k = 4,
// Adam at 0.1, TF's logit noise, a 512-wide Placer, none of ours.
SearchOptions PaperSearchOptions();

// Parses a search config (YAML map of the fields above); unknown keys and values
// of the wrong type or out of range are one-line errors naming the file and line.
// The fields start from the defaults, or with `preset: paper` (wherever in the
// map) from PaperSearchOptions(); the other keys then change them.
graph::Result<SearchOptions> ParseSearchConfig(const std::string& text, const std::string& source);
graph::Result<SearchOptions> ReadSearchConfig(const std::string& path);

// The number of groups the Grouper uses for `num_devices` devices.
int NumGroups(const SearchOptions& o, int num_devices);

}  // namespace planner::search
