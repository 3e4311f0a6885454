#include "planner/search/search.h"

// clip_grad.h uses torch::Tensor without including its declaration.
// clang-format off
#include <torch/types.h>
#include <torch/nn/utils/clip_grad.h>
// clang-format on
#include <ATen/CPUGeneratorImpl.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>
#include <torch/utils.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "data/zip_check.h"
#include "graph/digest.h"
#include "graph/file_util.h"
#include "placement/colocation.h"
#include "planner/search/policy.h"
#include "runtime/flush_denormals.h"
#include "runtime/host_memory.h"
#include "runtime/threads.h"
#include "runtime/torch_status.h"

namespace planner::search {

namespace {

// What LibTorch's errors in the policy are prefixed with (runtime::Catching).
std::string Policy() { return "policy"; }

// The policy's optimizer, by SearchOptions::policy_optimizer (validated by the
// config parser).
std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const std::string& name,
                                                       std::vector<at::Tensor> params, double lr) {
  if (name == "sgd") {
    return std::make_unique<torch::optim::SGD>(std::move(params), torch::optim::SGDOptions(lr));
  }
  TORCH_CHECK(name == "adam", "unknown policy optimizer '", name, "'");
  return std::make_unique<torch::optim::Adam>(std::move(params), torch::optim::AdamOptions(lr));
}

}  // namespace

struct UpdateBatch;

struct Search::Impl {
  Impl(const graph::Graph& forward, int num_devices, const SearchOptions& options, uint64_t seed)
      : o(options),
        num_ops(forward.size()),
        colocation_roots(placement::ColocationRoots(forward)),
        policy((torch::manual_seed(seed), HierarchicalPolicy(forward, num_devices, options))),
        optimizer(
            MakeOptimizer(options.policy_optimizer, policy->parameters(), options.learning_rate)),
        gen(at::make_generator<at::CPUGeneratorImpl>(seed)) {}

  double LearningRate() const {
    if (iteration < o.lr_decay_start) return o.learning_rate;
    return o.learning_rate *
           std::pow(o.lr_decay, (iteration - o.lr_decay_start) / o.lr_decay_every);
  }
  double Cost(const rewards::Evaluation& e) const {
    return std::sqrt(e.status.ok() ? e.step_s : o.failing_step_s);
  }
  // Shows the policy the best placement so far, once per update (samples and
  // their PPO re-scores must see the same one); HierarchicalPolicy::SetIncumbent
  // says what it uses it for.
  void ShowIncumbent() { policy->SetIncumbent(best ? BestForward() : std::vector<int>{}); }
  // The best placement's devices of the forward graph (without apart slots).
  std::vector<int> BestForward() const {
    return {best->device_of_node.begin(), best->device_of_node.begin() + num_ops};
  }
  // Its apart slots' devices [1, apart] (a placement of the forward graph
  // alone: each on its op's device); undefined without apart slots.
  at::Tensor BestApart() const {
    if (apart == 0) return at::Tensor();
    std::vector<int64_t> d(apart);
    for (int a = 0; a < apart; ++a) {
      d[a] = static_cast<int>(best->device_of_node.size()) == num_ops + apart
                 ? best->device_of_node[num_ops + a]
                 : (apart_follows[a] >= 0 ? best->device_of_node[apart_follows[a]] : 0);
    }
    return at::tensor(d).unsqueeze(0);
  }

  SearchOptions o;
  int num_ops;
  std::vector<graph::NodeId> colocation_roots;  // placement::ColocationRoots(forward)
  int apart = 0;                   // AllowApart
  std::vector<int> apart_follows;  // AllowApart's
  HierarchicalPolicy policy;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  at::Generator gen;
  // The parts of an update (StepOrThrow), in its order.
  void AddDemonstration(UpdateBatch* batch, std::vector<float>* costs);
  at::Tensor Advantages(const std::vector<float>& costs) const;
  // The update rule, by SearchOptions::update: one REINFORCE step, or
  // ppo_epochs steps of PPO's clipped surrogate on the batch's samples.
  graph::Status ReinforceUpdate(UpdateBatch& batch, double lr, double* grad_norm);
  graph::Status PpoUpdate(UpdateBatch& batch, double noise, double lr, double* grad_norm);
  // backward() through `loss` and `through`'s deferred gradients, clipped,
  // then the optimizer's step (or the parameter server's).
  graph::Status GradientStep(const at::Tensor& loss, std::vector<PolicySample>* through, double lr,
                             double* grad_norm);

  // With a parameter server (UseParameterServer): updates go there.
  graph::Status PushGradient(double lr);
  ParameterServer* ps = nullptr;
  std::string ps_identity;
  int64_t ps_version = 0, ps_applied = 0, ps_stale = 0;
  int iteration = 0;
  bool have_baseline = false;
  double baseline = 0;
  double elapsed_s = 0;
  std::optional<BestPlacement> best;
};

namespace {

PolicyLayout LayoutOf(const HierarchicalPolicy& policy) {
  PolicyLayout l;
  for (const auto& kv : policy->named_parameters()) {
    l.names.push_back(kv.key());
    l.shapes.push_back(kv.value().sizes().vec());
  }
  return l;
}

// Each parameter's values (or its gradient's, zeros where it has none), flat.
std::vector<std::vector<float>> FlatValues(const std::vector<at::Tensor>& params, bool gradients) {
  std::vector<std::vector<float>> out;
  for (const at::Tensor& p : params) {
    at::Tensor t = gradients ? (p.grad().defined() ? p.grad() : at::zeros_like(p)) : p;
    t = t.detach().contiguous().to(at::kFloat);
    out.emplace_back(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
  }
  return out;
}

graph::Status LoadValues(const std::vector<at::Tensor>& params,
                         const std::vector<std::vector<float>>& values) {
  if (values.size() != params.size()) {
    return graph::InvalidArgument("the parameter server sent " + std::to_string(values.size()) +
                                  " tensors, the policy has " + std::to_string(params.size()));
  }
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < params.size(); ++i) {
    if (static_cast<int64_t>(values[i].size()) != params[i].numel()) {
      return graph::InvalidArgument("the parameter server's tensor " + std::to_string(i) + " has " +
                                    std::to_string(values[i].size()) + " values, the " +
                                    "policy's " + std::to_string(params[i].numel()));
    }
    // Checked before any is copied: the policy stays whole.
    if (!std::all_of(values[i].begin(), values[i].end(),
                     [](float x) { return std::isfinite(x); })) {
      return graph::InvalidArgument("the parameter server's tensor " + std::to_string(i) +
                                    " has non-finite values");
    }
  }
  for (size_t i = 0; i < params.size(); ++i) {
    params[i].copy_(
        at::from_blob(const_cast<float*>(values[i].data()), params[i].sizes(), at::kFloat));
  }
  return graph::Status::Ok();
}

}  // namespace

graph::Status Search::Impl::PushGradient(double lr) {
  const std::vector<at::Tensor> params = policy->parameters();
  auto r = ps->Push(ps_version, lr, FlatValues(params, true));
  if (!r.ok() && r.status().code() == graph::StatusCode::kNotFound) {
    // The server lost the policy: it gets this one's, unless another search
    // gave it one first; this gradient (of other parameters then) is dropped.
    GRAPH_ASSIGN_OR_RETURN(
        PolicyParameters joined,
        ps->Join(ps_identity, o.policy_optimizer, LayoutOf(policy), FlatValues(params, false)));
    ps_version = joined.version;
    return LoadValues(params, joined.values);
  }
  if (!r.ok()) return r.status();
  (r->applied ? ps_applied : ps_stale) += 1;
  ps_version = r->version;
  return LoadValues(params, r->values);
}

graph::Status Search::UseParameterServer(ParameterServer* server, const std::string& identity) {
  Impl& s = *impl_;
  return runtime::CatchingStatus(Policy, [&]() -> graph::Status {
    const std::vector<at::Tensor> params = s.policy->parameters();
    GRAPH_ASSIGN_OR_RETURN(PolicyParameters p,
                           server->Join(identity, s.o.policy_optimizer, LayoutOf(s.policy),
                                        FlatValues(params, false)));
    GRAPH_RETURN_IF_ERROR(LoadValues(params, p.values));
    s.ps = server;
    s.ps_identity = identity;
    s.ps_version = p.version;
    return graph::Status::Ok();
  });
}

int64_t Search::parameter_version() const { return impl_->ps_version; }
int64_t Search::gradients_applied() const { return impl_->ps_applied; }
int64_t Search::gradients_stale() const { return impl_->ps_stale; }

graph::Result<std::unique_ptr<Search>> Search::Create(const graph::Graph& forward, int num_devices,
                                                      const SearchOptions& o, uint64_t seed) {
  if (num_devices < 1) return graph::InvalidArgument("a search needs at least one device");
  if (forward.size() == 0) return graph::InvalidArgument("the model has no ops to place");
  std::unique_ptr<Search> made;
  GRAPH_RETURN_IF_ERROR(runtime::Catching(Policy, [&] {
    runtime::SetKernelThreads(o.threads);
    // The policy's activations (3 MiB an attention step at k = 16) reuse freed
    // pages instead of faulting fresh ones in (runtime/host_memory.h).
    runtime::KeepFreedMemory();
    made.reset(new Search(std::make_unique<Impl>(forward, num_devices, o, seed)));
  }));
  return made;
}

Search::Search(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Search::~Search() = default;

const std::optional<BestPlacement>& Search::best() const { return impl_->best; }
int Search::iterations() const { return impl_->iteration; }
double Search::elapsed_s() const { return impl_->elapsed_s; }

GrouperChoice Search::ChooseGrouper(const std::vector<int>& device_of_node) {
  return impl_->policy->ChooseGrouper(device_of_node);
}

bool Search::places_scopes() const { return impl_->policy->places_scopes(); }

void Search::AllowApart(const std::vector<int>& follows) {
  Impl& s = *impl_;
  assert(s.iteration == 0 && !s.ps && s.apart == 0);
  if (follows.empty()) return;
  s.apart = static_cast<int>(follows.size());
  s.apart_follows = follows;
  s.policy->PlaceApart(follows);
  // The head's parameters join the optimizer's (nothing stepped yet).
  s.optimizer = MakeOptimizer(s.o.policy_optimizer, s.policy->parameters(), s.o.learning_rate);
}

bool Search::Offer(const std::string& method, const std::vector<int>& device_of_node,
                   const rewards::Evaluation& e, int iteration) {
  assert(static_cast<int>(device_of_node.size()) == impl_->num_ops ||
         static_cast<int>(device_of_node.size()) == impl_->num_ops + impl_->apart);
  if (!e.status.ok()) return false;
  if (impl_->best && impl_->best->step_s <= e.step_s) return false;
  // Kept as it runs: a model's colocated ops on their group's device, so that
  // a placement found again compares equal whatever was sampled for them.
  impl_->best =
      BestPlacement{method, e.step_s, placement::Colocated(impl_->colocation_roots, device_of_node),
                    iteration, impl_->elapsed_s};
  return true;
}

std::vector<int> Search::SamplePlacement(uint64_t seed) {
  const runtime::ScopedFlushDenormals flush;
  std::vector<int> out;
  auto sample = [&] {
    torch::NoGradGuard no_grad;
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    out = std::move(impl_->policy->Sample(1, 0.0, gen).device_of_op[0]);
  };
  if (!runtime::Catching([] { return std::string("policy sample"); }, sample).ok()) out.clear();
  return out;
}

SearchIteration Search::Step(const rewards::RewardSource& reward) {
  SearchIteration it;
  graph::Status st =
      runtime::Catching([&] { return "policy update " + std::to_string(impl_->iteration + 1); },
                        [&] { it = StepOrThrow(reward); });
  if (!st.ok()) {
    it = SearchIteration();
    it.status = std::move(st);
  }
  return it;
}

WarmStartResult Search::WarmStart(const std::vector<int>& device_of_node) {
  const runtime::ScopedFlushDenormals flush;
  WarmStartResult r;
  graph::Status st = runtime::Catching([] { return std::string("policy warm start"); },
                                       [&] { r = WarmStartOrThrow(device_of_node); });
  if (!st.ok()) {
    r = WarmStartResult();
    r.status = std::move(st);
  }
  return r;
}

WarmStartResult Search::WarmStartOrThrow(const std::vector<int>& device_of_node) {
  Impl& s = *impl_;
  const auto start = std::chrono::steady_clock::now();
  s.ShowIncumbent();
  std::vector<int> device_of_group;
  const std::vector<int> groups = s.policy->GroupsFollowing(device_of_node, &device_of_group);
  // Each network with its own Adam and rate, until its loss is below
  // warm_start_loss or for warm_start_steps: the Placer's wide layers saturate
  // the tanh of its logits at rates the small Grouper needs (docs/search.md).
  auto fit = [&](std::vector<at::Tensor> params, double lr, const auto& loss_of, int* steps,
                 double* loss, double* seconds) {
    const auto fit_start = std::chrono::steady_clock::now();
    torch::optim::Adam adam(params, torch::optim::AdamOptions(lr));
    while (true) {
      at::Tensor loss_t = loss_of();
      *loss = loss_t.item<double>();
      if (*loss < s.o.warm_start_loss || *steps >= s.o.warm_start_steps) break;
      adam.zero_grad();
      loss_t.backward();
      torch::nn::utils::clip_grad_norm_(params, s.o.grad_clip);
      adam.step();
      ++*steps;
    }
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - fit_start).count();
  };
  WarmStartResult r;
  // With the name scopes as the groups the Grouper samples nothing, and
  // fitting it would only spend the search's time.
  if (!s.policy->places_scopes()) {
    fit(
        s.policy->GrouperParameters(), s.o.warm_start_grouper_lr,
        [&] { return s.policy->GrouperImitationLoss(groups); }, &r.grouper_steps, &r.grouper_loss,
        &r.grouper_s);
  }
  // The Placer learns on groupings the fitted Grouper samples, a fresh one per
  // step, each group labelled with the device most of its ops have: fitted to
  // the target grouping alone, it misplaced whole groups when a sample moved a
  // few ops (docs/search.md).
  fit(
      s.policy->PlacerParameters(), s.o.warm_start_placer_lr,
      [&] {
        const std::vector<int> sampled = s.policy->SampleGroups(s.gen);
        return s.policy->PlacerImitationLoss(sampled,
                                             s.policy->MajorityDevices(sampled, device_of_node));
      },
      &r.placer_steps, &r.placer_loss, &r.placer_s);
  s.policy->zero_grad();
  s.elapsed_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

namespace {

// The mean entropy per decision of the first `count` samples: the Grouper's
// over its ops, the Placer's over its groups and, with apart slots, theirs,
// averaged.
at::Tensor MeanEntropy(const std::vector<PolicySample>& samples, size_t count) {
  at::Tensor sum = at::zeros({});
  int kinds = 2;
  for (size_t g = 0; g < count; ++g) {
    sum = sum + samples[g].group_entropy.mean() + samples[g].device_entropy.mean();
    if (samples[g].apart_entropy.defined()) {
      sum = sum + samples[g].apart_entropy.mean();
      kinds = 3;
    }
  }
  return sum / static_cast<double>(kinds * count);
}

// PPO's clipped surrogate (Schulman et al. 2017) for costs, which are
// minimised: per decision, the larger (pessimistic) of ratio x A and
// clip(ratio) x A, with A the advantage of the placement the decision belongs
// to (a grouping's: the mean of its placements'). Ratios are per decision,
// not per placement: a placement's probability is a product over thousands of
// decisions, whose ratio leaves any clip range after the smallest step.
// Over the first `count` samples of `now` (those `advantage` covers).
at::Tensor ClippedSurrogate(const std::vector<PolicySample>& now,
                            const std::vector<PolicySample>& old, const at::Tensor& advantage,
                            double clip, size_t count) {
  auto term = [&](const at::Tensor& logp, const at::Tensor& old_logp, const at::Tensor& a) {
    at::Tensor ratio = at::exp(logp - old_logp);
    return at::max(ratio * a, at::clamp(ratio, 1 - clip, 1 + clip) * a).mean();
  };
  at::Tensor loss = at::zeros({});
  int64_t first = 0;
  for (size_t g = 0; g < count; ++g) {
    const int64_t k = now[g].devices.size(0);
    at::Tensor a = advantage.slice(0, first, first + k);  // [k]
    first += k;
    loss = loss + term(now[g].group_log_prob, old[g].group_log_prob, a.mean()) +
           term(now[g].device_log_prob, old[g].device_log_prob, a.unsqueeze(1));
    if (now[g].apart_log_prob.defined()) {
      loss = loss + term(now[g].apart_log_prob, old[g].apart_log_prob, a.unsqueeze(1));
    }
  }
  return loss / static_cast<double>(count);
}

// A demonstration's cross-entropy under the policy: the mean -log p of its
// grouping decisions plus that of its device decisions (and of its apart
// slots').
at::Tensor CrossEntropy(const PolicySample& demo) {
  at::Tensor ce = -(demo.group_log_prob.mean() + demo.device_log_prob.mean());
  if (demo.apart_log_prob.defined()) ce = ce - demo.apart_log_prob.mean();
  return ce;
}

}  // namespace

// One update's batch after its placements ran: the samples (with
// self-imitation the best placement so far last), the advantages of the first
// `with_advantage` of them, and whether the last is imitated by a
// cross-entropy term of its own (imitation_weight) rather than as a sample.
struct UpdateBatch {
  std::vector<PolicySample> samples;
  at::Tensor advantage;
  size_t with_advantage = 0;
  bool demo_apart = false;
};

// Self-imitation: the best placement so far joins the update as one more
// sample, decided by the grouping that follows it (GroupsFollowing) and its
// groups' majority devices, at its known cost, without being run again. With
// imitation_weight it enters as its own cross-entropy term instead, in every
// gradient step: the last of the samples, but the first `with_advantage` alone
// have advantages, a clip and an entropy bonus.
void Search::Impl::AddDemonstration(UpdateBatch* batch, std::vector<float>* costs) {
  if (!o.imitate_best || !best) return;
  std::vector<int> device_of_group;
  const std::vector<int> groups = policy->GroupsFollowing(BestForward(), &device_of_group);
  batch->samples.push_back(policy->Score(
      at::tensor(std::vector<int64_t>(groups.begin(), groups.end())),
      at::tensor(std::vector<int64_t>(device_of_group.begin(), device_of_group.end())).unsqueeze(0),
      BestApart()));
  batch->demo_apart = o.imitation_weight > 0;
  if (!batch->demo_apart) costs->push_back(static_cast<float>(std::sqrt(best->step_s)));
}

at::Tensor Search::Impl::Advantages(const std::vector<float>& costs) const {
  const at::Tensor cost = at::tensor(costs);
  if (o.advantage == "batch") {
    // Standardised within the update: the scale of the step times (1 ms or
    // 1 s) no longer sets the step size, and half the samples are pushed up.
    return (cost - cost.mean()) / (cost.std() + 1e-6);
  }
  // The paper's: the moving average before this update's costs enter it.
  return cost - static_cast<float>(baseline);
}

graph::Status Search::Impl::GradientStep(const at::Tensor& loss, std::vector<PolicySample>* through,
                                         double lr, double* grad_norm) {
  optimizer->zero_grad();
  loss.backward();
  policy->AddDeferredGradients(through);
  *grad_norm = torch::nn::utils::clip_grad_norm_(policy->parameters(), o.grad_clip);
  if (ps) return PushGradient(lr);
  optimizer->step();
  return graph::Status::Ok();
}

graph::Status Search::Impl::ReinforceUpdate(UpdateBatch& batch, double lr, double* grad_norm) {
  // The mean over samples of advantage x log p(placement).
  std::vector<at::Tensor> log_prob;
  for (size_t g = 0; g < batch.with_advantage; ++g) log_prob.push_back(batch.samples[g].log_prob);
  at::Tensor loss = (batch.advantage * at::cat(log_prob)).mean();
  if (o.entropy_weight > 0)
    loss = loss - o.entropy_weight * MeanEntropy(batch.samples, batch.with_advantage);
  if (batch.demo_apart) loss = loss + o.imitation_weight * CrossEntropy(batch.samples.back());
  return GradientStep(loss, &batch.samples, lr, grad_norm);
}

graph::Status Search::Impl::PpoUpdate(UpdateBatch& batch, double noise, double lr,
                                      double* grad_norm) {
  std::vector<PolicySample> old;
  for (int epoch = 0; epoch < o.ppo_epochs; ++epoch) {
    // Without noise the samples' own log-probabilities are the policy's, and
    // the first epoch needs no second forward pass.
    std::vector<PolicySample> now;
    if (epoch == 0 && noise == 0) {
      now = batch.samples;  // the demonstration, if any, was scored as it is now
    } else {
      for (const PolicySample& p : batch.samples) {
        now.push_back(policy->Score(p.groups, p.devices, p.apart_devices));
      }
    }
    if (epoch == 0) {
      for (const PolicySample& p : now) {
        PolicySample d;
        d.group_log_prob = p.group_log_prob.detach();
        d.device_log_prob = p.device_log_prob.detach();
        if (p.apart_log_prob.defined()) d.apart_log_prob = p.apart_log_prob.detach();
        old.push_back(std::move(d));
      }
    }
    at::Tensor loss = ClippedSurrogate(now, old, batch.advantage, o.ppo_clip, batch.with_advantage);
    if (o.entropy_weight > 0)
      loss = loss - o.entropy_weight * MeanEntropy(now, batch.with_advantage);
    if (batch.demo_apart) loss = loss + o.imitation_weight * CrossEntropy(now.back());
    GRAPH_RETURN_IF_ERROR(GradientStep(loss, &now, lr, grad_norm));
  }
  return graph::Status::Ok();
}

SearchIteration Search::StepOrThrow(const rewards::RewardSource& reward) {
  Impl& s = *impl_;
  const auto start = std::chrono::steady_clock::now();
  const int m = s.o.grouper_samples, k = s.o.placer_samples, n = m * k;
  const double noise = s.iteration < s.o.logit_noise_until ? s.o.logit_noise : 0.0;
  UpdateBatch batch;
  std::vector<std::vector<int>> placements;
  s.ShowIncumbent();
  {
    // The policy's arithmetic with denormals flushed (runtime/flush_denormals.h:
    // an NMT-8 update 0.69 s instead of 1.15 s), the rewards' in the thread's
    // own mode: a real reward runs the model's kernels.
    const runtime::ScopedFlushDenormals flush;
    for (int g = 0; g < m; ++g) {
      batch.samples.push_back(s.policy->Sample(k, noise, s.gen));
      for (std::vector<int>& p : batch.samples.back().device_of_op) {
        placements.push_back(std::move(p));
      }
    }
  }

  SearchIteration it;
  it.evaluations = rewards::EvaluateAll(reward, placements);
  const runtime::ScopedFlushDenormals flush;  // the rest is the policy's update

  // A placement no one could evaluate (kUnavailable: a fleet without a worker)
  // says nothing about itself: it gets the mean cost of the evaluated ones, so
  // that it neither pushes nor pulls the policy. Charging it the failing cost
  // would teach the policy to avoid whatever it sampled while workers were gone.
  std::vector<float> costs(n);
  double mean = 0;
  int evaluated = 0;
  for (int j = 0; j < n; ++j) {
    if (it.evaluations[j].status.code() == graph::StatusCode::kUnavailable) continue;
    mean += costs[j] = static_cast<float>(s.Cost(it.evaluations[j]));
    ++evaluated;
  }
  if (evaluated == 0) {
    it.status = graph::Status(
        graph::StatusCode::kUnavailable,
        "policy update " + std::to_string(s.iteration + 1) + ": none of its " + std::to_string(n) +
            " placements could be evaluated (" + it.evaluations[0].status.message() + ")");
    return it;
  }
  mean /= evaluated;
  for (int j = 0; j < n; ++j) {
    if (it.evaluations[j].status.code() == graph::StatusCode::kUnavailable) costs[j] = mean;
  }
  s.AddDemonstration(&batch, &costs);
  batch.with_advantage = batch.samples.size() - (batch.demo_apart ? 1 : 0);
  if (!s.have_baseline) {
    s.baseline = mean;
    s.have_baseline = true;
  }
  batch.advantage = s.Advantages(costs);
  const double lr = s.LearningRate();
  for (auto& group : s.optimizer->param_groups()) group.options().set_lr(lr);
  double grad_norm = 0;
  const graph::Status updated = s.o.update == "ppo" ? s.PpoUpdate(batch, noise, lr, &grad_norm)
                                                    : s.ReinforceUpdate(batch, lr, &grad_norm);
  // The placements were evaluated either way: a failed update (a server's push
  // that a signal cut short) still offers them, so that a new best measured in
  // it is the search's to write, not thrown away with the update.
  auto offer_evaluated = [&](int iteration) {
    for (int j = 0; j < n; ++j) {
      if (Offer("search", placements[j], it.evaluations[j], iteration)) it.improved = true;
    }
  };
  if (!updated.ok()) {
    it.status = updated.WithContext("policy update " + std::to_string(s.iteration + 1));
    offer_evaluated(s.iteration + 1);  // the number the update would have had
    return it;
  }
  s.baseline = s.o.baseline_decay * s.baseline + (1 - s.o.baseline_decay) * mean;
  ++s.iteration;
  s.elapsed_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  it.iteration = s.iteration;
  it.mean_cost = mean;
  it.baseline = s.baseline;
  it.learning_rate = lr;
  it.grad_norm = grad_norm;
  offer_evaluated(s.iteration);
  it.placements = std::move(placements);
  return it;
}

namespace {

// Each parameter's name and sizes ("grouper_out.weight 40x64"), one per line:
// what a checkpoint's policy must match, whichever option changed it.
std::string ParameterShapes(const HierarchicalPolicy& policy) {
  std::string shapes;
  for (const auto& kv : policy->named_parameters()) {
    shapes += kv.key() + " ";
    for (int64_t d = 0; d < kv.value().dim(); ++d) {
      shapes += (d ? "x" : "") + std::to_string(kv.value().size(d));
    }
    shapes += "\n";
  }
  return shapes;
}

// A digest of every parameter's name and values (float32 on the CPU), in order:
// what a checkpoint's parameters read back must give.
std::string ParametersDigest(const HierarchicalPolicy& policy) {
  std::string bytes;
  for (const auto& kv : policy->named_parameters()) {
    const at::Tensor t = kv.value().detach().to(at::kCPU, at::kFloat).contiguous();
    bytes += kv.key() + '\0';
    bytes.append(static_cast<const char*>(t.data_ptr()), t.numel() * sizeof(float));
  }
  return graph::Fnv1a64Hex(bytes);
}

// The first line of `a` that `b` does not have at the same place.
std::string FirstDifference(const std::string& a, const std::string& b) {
  size_t pos = 0;
  while (pos < a.size()) {
    const size_t nl = a.find('\n', pos);
    const std::string line = a.substr(pos, nl - pos);
    if (b.compare(pos, line.size() + 1, line + "\n") != 0) return line;
    pos = nl + 1;
  }
  return "(fewer parameters)";
}

at::Tensor IntsTensor(const std::vector<int>& v) {
  return at::tensor(std::vector<int64_t>(v.begin(), v.end()), at::kLong);
}

}  // namespace

graph::Status Search::Save(const std::string& path, const SearchIdentity& id) const {
  const Impl& s = *impl_;
  const std::string tmp = path + ".tmp";
  graph::Status st = runtime::Catching(
      [&] { return path + ": cannot write the checkpoint"; },
      [&] {
        torch::serialize::OutputArchive root, policy, optimizer;
        s.policy->save(policy);
        s.optimizer->save(optimizer);
        root.write("policy", policy);
        root.write("policy_optimizer", c10::IValue(s.o.policy_optimizer));
        root.write("optimizer", optimizer);
        root.write("model_digest", c10::IValue(id.model_digest));
        root.write("devices_digest", c10::IValue(id.devices_digest));
        root.write("reward", c10::IValue(id.reward));
        root.write("num_ops", c10::IValue(static_cast<int64_t>(s.num_ops)));
        root.write("num_groups", c10::IValue(static_cast<int64_t>(s.policy->num_groups())));
        root.write("grouper",
                   c10::IValue(std::string(s.policy->places_scopes() ? "scopes" : "learned")));
        root.write("parameter_shapes", c10::IValue(ParameterShapes(s.policy)));
        root.write("parameters_digest", c10::IValue(ParametersDigest(s.policy)));
        root.write("num_devices", c10::IValue(static_cast<int64_t>(s.policy->num_devices())));
        root.write("apart_slots", c10::IValue(static_cast<int64_t>(s.apart)));
        root.write("iteration", c10::IValue(static_cast<int64_t>(s.iteration)));
        root.write("have_baseline", c10::IValue(s.have_baseline));
        root.write("baseline", c10::IValue(s.baseline));
        root.write("elapsed_s", c10::IValue(s.elapsed_s));
        root.write("generator", s.gen.get_state());
        root.write("have_best", c10::IValue(s.best.has_value()));
        if (s.best) {
          root.write("best_method", c10::IValue(s.best->method));
          root.write("best_step_s", c10::IValue(s.best->step_s));
          root.write("best_iteration", c10::IValue(static_cast<int64_t>(s.best->iteration)));
          root.write("best_found_at_s", c10::IValue(s.best->found_at_s));
          root.write("best_devices", IntsTensor(s.best->device_of_node));
        }
        root.save_to(tmp);
      });
  if (!st.ok()) {
    std::remove(tmp.c_str());
    return graph::IoError(st.message());
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return graph::IoError(path + ": cannot write the checkpoint");
  }
  return graph::Status::Ok();
}

graph::Status Search::Load(const std::string& path, const SearchIdentity& id) {
  // Said in our words before LibTorch's ("open file failed because of errno 2
  // on fopen").
  if (::access(path.c_str(), R_OK) != 0) {
    const int err = errno;
    return graph::Status(err == ENOENT ? graph::StatusCode::kNotFound : graph::StatusCode::kIoError,
                         path + ": no checkpoint to resume (" + std::strerror(err) + ")");
  }
  // A directory or FIFO (which LibTorch would wait on), and a file that is no
  // zip archive, as LibTorch's are, said so before LibTorch reads it.
  GRAPH_RETURN_IF_ERROR(graph::CheckRegularFile(path));
  {
    char magic[4] = {};
    std::ifstream f(path, std::ios::binary);
    if (!f.read(magic, 4) || std::memcmp(magic, "PK\x03\x04", 4) != 0) {
      return graph::InvalidArgument(path +
                                    ": not a search checkpoint (a checkpoint is a zip archive)");
    }
  }
  // LibTorch's reader checks no entry's CRC-32: a byte changed on disk in the
  // optimizer's moments, the generator's state or the best placement would load.
  if (graph::Status crc = data::CheckZipArchive(path); !crc.ok()) {
    if (crc.code() != graph::StatusCode::kInvalidArgument) return crc;
    const std::string& m = crc.message();
    const size_t skip = m.rfind(path + ": ", 0) == 0 ? path.size() + 2 : 0;
    return graph::InvalidArgument(path + ": a corrupt checkpoint: " + m.substr(skip));
  }
  graph::Status loaded;  // what the reading decided, when LibTorch did not throw
  graph::Status thrown =
      runtime::Catching([&] { return path + ": not a readable search checkpoint"; },
                        [&] { loaded = LoadOrThrow(path, id); });
  return thrown.ok() ? loaded : graph::InvalidArgument(thrown.message());
}

graph::Status Search::LoadOrThrow(const std::string& path, const SearchIdentity& id) {
  Impl& s = *impl_;
  torch::serialize::InputArchive root;
  root.load_from(path);
  c10::IValue v;
  auto str = [&](const char* key) {
    root.read(key, v);
    return v.toStringRef();
  };
  auto integer = [&](const char* key) {
    root.read(key, v);
    return v.toInt();
  };
  auto mismatch = [&](const std::string& what, const std::string& theirs, const std::string& ours) {
    return graph::InvalidArgument(path + ": a checkpoint of another " + what + " (" + theirs +
                                  ", this search has " + ours + ")");
  };
  if (std::string m = str("model_digest"); m != id.model_digest)
    return mismatch("model", "digest " + m, id.model_digest);
  if (std::string d = str("devices_digest"); d != id.devices_digest)
    return mismatch("devices file", "digest " + d, id.devices_digest);
  if (std::string r = str("reward"); r != id.reward)
    return mismatch("reward source", "--reward " + r, "--reward " + id.reward);
  const int64_t groups = integer("num_groups"), devices = integer("num_devices");
  if (groups > s.num_ops && s.policy->num_groups() == s.num_ops) {
    return graph::InvalidArgument(
        path + ": a checkpoint of a policy with " + std::to_string(groups) + " groups for " +
        std::to_string(s.num_ops) +
        " ops, written before the groups were capped at the ops (2026-11-30): start the "
        "search afresh");
  }
  if (groups != s.policy->num_groups() || devices != s.policy->num_devices() ||
      integer("num_ops") != s.num_ops) {
    return mismatch("policy shape", std::to_string(groups) + " groups",
                    std::to_string(s.policy->num_groups()) + " (see --config)");
  }
  // The groups the checkpoint's policy placed (before the key: the config's
  // grouper, learned or scopes). Grouper "auto" resumes its choice.
  if (root.try_read("grouper", v)) {
    const std::string theirs = v.toStringRef();
    if (theirs == "scopes" && !s.policy->places_scopes() && s.o.grouper == "auto") {
      s.policy->PlaceScopes();
    }
    const std::string ours = s.policy->places_scopes() ? "scopes" : "learned";
    if (theirs != ours) return mismatch("grouper", theirs, ours + " (see --config)");
  }
  // Before the shapes, which the apart slots' head changes, in words a user
  // can act on.
  if (root.try_read("apart_slots", v) && v.toInt() != s.apart) {
    return graph::InvalidArgument(path + ": a checkpoint of a search that places " +
                                  std::to_string(v.toInt()) +
                                  " gradient op(s) apart from their op, and this search " +
                                  (s.apart ? std::to_string(s.apart) : std::string("none")) +
                                  ": resume with the --gradients setting it was made with");
  }
  if (root.try_read("parameter_shapes", v)) {
    const std::string theirs = v.toStringRef(), ours = ParameterShapes(s.policy);
    if (theirs != ours) {
      return mismatch("policy shape", FirstDifference(theirs, ours),
                      FirstDifference(ours, theirs) + " (see --config)");
    }
  }
  // Checkpoints from before the policy_optimizer option hold Adam's state
  // under "adam".
  const bool named = root.try_read("policy_optimizer", v);
  const std::string kind = named ? v.toStringRef() : "adam";
  if (kind != s.o.policy_optimizer) {
    return mismatch("policy optimizer", kind, s.o.policy_optimizer + " (see --config)");
  }
  torch::serialize::InputArchive policy, optimizer;
  root.read("policy", policy);
  root.read(named ? "optimizer" : "adam", optimizer);
  s.policy->load(policy);
  // A parameter not finite would fail only at the next sample, in LibTorch's
  // words ("invalid multinomial distribution"): here it names the file.
  for (const auto& p : s.policy->named_parameters()) {
    if (!at::isfinite(p.value()).all().item<bool>()) {
      return graph::InvalidArgument(path + ": a corrupt checkpoint (parameter '" + p.key() +
                                    "' is not finite)");
    }
  }
  // Other values changed on disk, which LibTorch's reader does not see (it
  // checks no CRC). Checkpoints written before the digest have none.
  if (root.try_read("parameters_digest", v) && v.toStringRef() != ParametersDigest(s.policy)) {
    return graph::InvalidArgument(path +
                                  ": a corrupt checkpoint (its parameters do not match their "
                                  "digest)");
  }
  s.optimizer->load(optimizer);
  s.iteration = static_cast<int>(integer("iteration"));
  root.read("have_baseline", v);
  s.have_baseline = v.toBool();
  root.read("baseline", v);
  s.baseline = v.toDouble();
  root.read("elapsed_s", v);
  s.elapsed_s = v.toDouble();
  at::Tensor state;
  root.read("generator", state);
  s.gen.set_state(state);
  root.read("have_best", v);
  s.best.reset();
  if (v.toBool()) {
    BestPlacement b;
    b.method = str("best_method");
    root.read("best_step_s", v);
    b.step_s = v.toDouble();
    b.iteration = static_cast<int>(integer("best_iteration"));
    root.read("best_found_at_s", v);
    b.found_at_s = v.toDouble();
    at::Tensor devices_t;
    root.read("best_devices", devices_t);
    if (devices_t.dim() != 1 ||
        (devices_t.size(0) != s.num_ops && devices_t.size(0) != s.num_ops + s.apart)) {
      if (devices_t.dim() == 1 && devices_t.size(0) > s.num_ops) {
        return graph::InvalidArgument(path + ": its best placement places " +
                                      std::to_string(devices_t.size(0) - s.num_ops) +
                                      " gradient op(s) apart from their op and this search " +
                                      (s.apart ? std::to_string(s.apart) : std::string("none")) +
                                      ": resume with the --gradients setting it was made with");
      }
      return graph::InvalidArgument(path + ": a corrupt checkpoint (best placement)");
    }
    devices_t = devices_t.to(at::kLong).contiguous();
    const int64_t* p = devices_t.data_ptr<int64_t>();
    for (int64_t i = 0; i < devices_t.size(0); ++i) {
      if (p[i] < 0 || p[i] >= devices)
        return graph::InvalidArgument(path + ": a corrupt checkpoint (device index)");
      b.device_of_node.push_back(static_cast<int>(p[i]));
    }
    s.best = std::move(b);
  }
  return graph::Status::Ok();
}

}  // namespace planner::search
