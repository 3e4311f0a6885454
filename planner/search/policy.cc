#include "planner/search/policy.h"

#include <ATen/ATen.h>
#include <torch/nn/options/rnn.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "graph/cost.h"
#include "planner/search/bidirectional_lstm.h"
#include "planner/search/scope_groups.h"

namespace planner::search {

namespace {
constexpr int kShapeDims = 4;
constexpr int kOwnFeatures = kShapeDims + 5;  // shape, bytes, flops, position, in/out degree
constexpr int kScopeVocabulary = 128;         // most frequent scopes, then one "other" id
constexpr int kScopeNumbers = 3;              // indices read from the first 3 scope components
// An apart slot's first preference for its op's device with
// SearchOptions::apart_colocated 0: p(colocated) = e^2 / (e^2 + devices - 1).
constexpr double kApartStayFixed = 2.0;

// The name scopes of the ops, after the prefix every op shares (a TF.js graph
// wraps all in one scope). Each op gets the ids of its depth-1 and depth-2
// scopes ("decoder", "decoder/cell_1"; 0: none or rare) and the trailing
// integers of its first scope components ("cell_1", "t_5"), each divided by
// its largest value in the graph, so that layers and time steps are visible.
struct Scopes {
  std::vector<int64_t> depth1, depth2;
  std::vector<float> numbers;  // [ops * kScopeNumbers]
  int vocabulary = 1;
};

std::vector<std::string> ScopeOf(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t slash; (slash = name.find('/', start)) != std::string::npos; start = slash + 1) {
    parts.push_back(name.substr(start, slash - start));
  }
  return parts;  // the last component is the op's own name, not a scope
}

constexpr double kLargestScopeNumber = 1e6;

float TrailingNumber(const std::string& part) {
  size_t i = part.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(part[i - 1]))) --i;
  if (i == part.size() || (i > 0 && part[i - 1] != '_')) return 0.0f;
  // A layer's index, not any run of digits: 40 of them made inf, and the
  // features NaN once divided by the largest.
  const double v = std::atof(part.c_str() + i);
  return v <= kLargestScopeNumber ? static_cast<float>(v) : 0.0f;
}

Scopes ReadScopes(const graph::Graph& g) {
  const int ops = g.size();
  std::vector<std::vector<std::string>> scope(ops);
  for (graph::NodeId i = 0; i < ops; ++i) scope[i] = ScopeOf(g.node(i).name);
  size_t common = ops > 0 ? scope[0].size() : 0;
  for (graph::NodeId i = 1; i < ops; ++i) {
    size_t k = 0;
    while (k < common && k < scope[i].size() && scope[i][k] == scope[0][k]) ++k;
    common = k;
  }
  Scopes s;
  std::vector<std::string> key1(ops), key2(ops);
  std::map<std::string, int> count;
  s.numbers.assign(static_cast<size_t>(ops) * kScopeNumbers, 0.0f);
  std::vector<float> largest(kScopeNumbers, 0.0f);
  for (graph::NodeId i = 0; i < ops; ++i) {
    const std::vector<std::string>& p = scope[i];
    if (p.size() > common) key1[i] = p[common];
    if (p.size() > common + 1) key2[i] = p[common] + "/" + p[common + 1];
    if (!key1[i].empty()) ++count[key1[i]];
    if (!key2[i].empty()) ++count[key2[i]];
    for (int d = 0; d < kScopeNumbers && common + d < p.size(); ++d) {
      float v = TrailingNumber(p[common + d]);
      s.numbers[static_cast<size_t>(i) * kScopeNumbers + d] = v;
      largest[d] = std::max(largest[d], v);
    }
  }
  for (size_t j = 0; j < s.numbers.size(); ++j) {
    if (largest[j % kScopeNumbers] > 0) s.numbers[j] /= largest[j % kScopeNumbers];
  }
  std::vector<std::pair<int, std::string>> ranked;
  for (const auto& kv : count) ranked.emplace_back(-kv.second, kv.first);
  std::sort(ranked.begin(), ranked.end());
  std::map<std::string, int64_t> id;
  for (const auto& r : ranked) {
    if (static_cast<int>(id.size()) + 1 >= kScopeVocabulary) break;
    id.emplace(r.second, static_cast<int64_t>(id.size()) + 1);
  }
  s.vocabulary = static_cast<int>(id.size()) + 1;
  s.depth1.resize(ops);
  s.depth2.resize(ops);
  for (graph::NodeId i = 0; i < ops; ++i) {
    auto a = id.find(key1[i]), b = id.find(key2[i]);
    s.depth1[i] = a == id.end() ? 0 : a->second;
    s.depth2[i] = b == id.end() ? 0 : b->second;
  }
  return s;
}

}  // namespace

HierarchicalPolicyImpl::HierarchicalPolicyImpl(const graph::Graph& g, int num_devices,
                                               const SearchOptions& o)
    // No more groups than ops: the rest would be empty, and each costs the
    // Grouper's softmax and the Placer's sequence a step (4,096 groups of an
    // 86-op model took 24 GB).
    : ops_(g.size()),
      groups_(std::min(NumGroups(o, num_devices), std::max(1, g.size()))),
      devices_(num_devices),
      o_(o) {
  if (o.grouper != "learned" && ops_ > 0) scope_grouping_ = std::make_unique<ScopeGrouping>(g);
  if (o.grouper == "scopes" && ops_ > 0) PlaceScopes();
  std::map<std::string, int> type_index;
  for (const graph::Node& n : g.nodes()) type_index.emplace(n.op, 0);
  int t = 0;
  for (auto& kv : type_index) kv.second = t++;
  types_ = t;

  const std::vector<graph::OpCost> costs = graph::ComputeCosts(g);
  std::vector<int> position(ops_, 0);
  for (size_t i = 0; i < g.topological_order().size(); ++i) {
    position[g.topological_order()[i]] = static_cast<int>(i);
  }
  const std::vector<int> consumers = g.ConsumerCounts();
  std::vector<int64_t> type_ids(ops_), src, dst;
  std::vector<float> own(static_cast<size_t>(ops_) * kOwnFeatures, 0.0f);
  std::vector<float> sizes(static_cast<size_t>(ops_) * 3, 0.0f);
  for (graph::NodeId i = 0; i < ops_; ++i) {
    const graph::Node& n = g.node(i);
    type_ids[i] = type_index[n.op];
    float* f = &own[static_cast<size_t>(i) * kOwnFeatures];
    if (!n.output_shapes.empty()) {
      const graph::Shape& s = n.output_shapes[0];
      for (int d = 0; d < std::min(s.rank(), kShapeDims); ++d) {
        f[d] = static_cast<float>(std::log1p(std::max<int64_t>(s.dim(d), 0)) / 10.0);
      }
    }
    int64_t bytes = 0;
    for (int k = 0; k < n.num_outputs(); ++k)
      bytes += std::max<int64_t>(graph::OutputBytes(n, k), 0);
    f[kShapeDims] = static_cast<float>(std::log1p(static_cast<double>(bytes)) / 20.0);
    f[kShapeDims + 1] = static_cast<float>(std::log1p(costs[i].flops) / 25.0);
    f[kShapeDims + 2] = ops_ > 1 ? static_cast<float>(position[i]) / (ops_ - 1) : 0.0f;
    f[kShapeDims + 3] = static_cast<float>(std::log1p(n.inputs.size()) / 3.0);
    f[kShapeDims + 4] = static_cast<float>(std::log1p(consumers[i]) / 3.0);
    sizes[i * 3] = static_cast<float>(bytes / 1e6);
    sizes[i * 3 + 1] = static_cast<float>(costs[i].flops / 1e9);
    sizes[i * 3 + 2] = 1.0f;
    for (const graph::TensorRef& in : n.inputs) {
      src.push_back(in.node);
      dst.push_back(i);
    }
  }
  // Adjacency in the op features: the mean of the producers' own features.
  std::vector<float> mean_in(own.size(), 0.0f);
  for (graph::NodeId i = 0; i < ops_; ++i) {
    const graph::Node& n = g.node(i);
    if (n.inputs.empty()) continue;
    for (const graph::TensorRef& in : n.inputs) {
      for (int k = 0; k < kOwnFeatures; ++k) {
        mean_in[static_cast<size_t>(i) * kOwnFeatures + k] +=
            own[static_cast<size_t>(in.node) * kOwnFeatures + k] / n.inputs.size();
      }
    }
  }
  auto f32 = at::TensorOptions().dtype(at::kFloat);
  auto i64 = at::TensorOptions().dtype(at::kLong);
  type_ids_ = at::tensor(type_ids, i64);
  type_hot_ = at::one_hot(type_ids_, types_).to(at::kFloat);
  features_ = at::cat({at::tensor(own, f32).view({ops_, kOwnFeatures}),
                       at::tensor(mean_in, f32).view({ops_, kOwnFeatures})},
                      1);
  int grouper_in = o.type_embedding + 2 * kOwnFeatures;
  int group_features = types_ + 3;
  if (o.scope_embedding > 0) {
    Scopes sc = ReadScopes(g);
    scopes_ = sc.vocabulary;
    scope1_ = at::tensor(sc.depth1, i64);
    scope2_ = at::tensor(sc.depth2, i64);
    features_ = at::cat({features_, at::tensor(sc.numbers, f32).view({ops_, kScopeNumbers})}, 1);
    scope_hot_ = (at::one_hot(scope1_, scopes_) + at::one_hot(scope2_, scopes_)).to(at::kFloat);
    scope_embedding_ =
        register_module("scope_embedding", torch::nn::Embedding(scopes_, o.scope_embedding));
    grouper_in += kScopeNumbers + 2 * o.scope_embedding;
    group_features += scopes_;
  }
  if (o.incumbent_features) {
    incumbent_ = at::zeros({ops_, devices_});
    grouper_in += devices_;
    group_features += devices_;
  }
  // Ops in structural order: by the topological position at which their
  // depth-2 scope first appears, then by their own (a layer's time steps in
  // order, layer after layer); topological order alone without scopes.
  {
    std::vector<int> key(ops_);
    std::map<int64_t, int> first;
    std::vector<int64_t> scope2 =
        o.scope_embedding > 0
            ? std::vector<int64_t>(scope2_.data_ptr<int64_t>(), scope2_.data_ptr<int64_t>() + ops_)
            : std::vector<int64_t>(ops_, 0);
    for (int p = 0; p < ops_; ++p) {
      const int i = g.topological_order()[p];
      const int64_t sc = scope2[i];
      key[i] = sc == 0 ? p : first.emplace(sc, p).first->second;
    }
    structure_order_ = g.topological_order();
    std::stable_sort(structure_order_.begin(), structure_order_.end(),
                     [&](int a, int b) { return key[a] < key[b]; });
  }
  sizes_ = at::tensor(sizes, f32).view({ops_, 3});
  edge_src_ = at::tensor(src, i64);
  edge_dst_ = at::tensor(dst, i64);

  const int H = o.placer_hidden;
  type_embedding_ =
      register_module("type_embedding", torch::nn::Embedding(types_, o.type_embedding));
  grouper_hidden_ =
      register_module("grouper_hidden", torch::nn::Linear(grouper_in, o.grouper_hidden));
  grouper_out_ = register_module("grouper_out", torch::nn::Linear(o.grouper_hidden, groups_));
  group_in_ = register_module("group_in", torch::nn::Linear(group_features + 2 * groups_, H / 2));
  encoder_ = register_module(
      "encoder", torch::nn::LSTM(torch::nn::LSTMOptions(H / 2, H / 2).bidirectional(true)));
  device_embedding_ =
      register_module("device_embedding", torch::nn::Embedding(devices_, o.device_embedding));
  decoder_ = register_module("decoder", torch::nn::LSTMCell(o.device_embedding + H, H));
  attend_keys_ = register_module(
      "attend_keys", torch::nn::Linear(torch::nn::LinearOptions(H, o.attention).bias(false)));
  attend_query_ = register_module("attend_query", torch::nn::Linear(H, o.attention));
  attend_v_ = register_module(
      "attend_v", torch::nn::Linear(torch::nn::LinearOptions(o.attention, 1).bias(false)));
  device_out_ = register_module("device_out", torch::nn::Linear(2 * H, devices_));
}

at::Tensor HierarchicalPolicyImpl::GroupEmbeddings(const at::Tensor& groups) {
  torch::NoGradGuard no_grad;
  const int G = groups_;
  at::Tensor hist = at::zeros({G, types_}).index_add_(0, groups, type_hot_);
  at::Tensor sums = at::zeros({G, 3}).index_add_(0, groups, sizes_);
  at::Tensor flat = groups.index_select(0, edge_src_) * G + groups.index_select(0, edge_dst_);
  at::Tensor adj = at::zeros({G * G}).index_add_(0, flat, at::ones({flat.size(0)})).view({G, G});
  std::vector<at::Tensor> parts = {at::log1p(hist), at::log1p(sums)};
  if (scopes_ > 0) {
    parts.push_back(at::log1p(at::zeros({G, scopes_}).index_add_(0, groups, scope_hot_)));
  }
  if (incumbent_.defined()) {
    parts.push_back(at::log1p(at::zeros({G, devices_}).index_add_(0, groups, incumbent_)));
  }
  parts.push_back(at::log1p(adj) / 5);
  parts.push_back(at::log1p(adj.t()) / 5);
  return at::cat(parts, 1);
}

at::Tensor HierarchicalPolicyImpl::GrouperInput() {
  std::vector<at::Tensor> parts = {type_embedding_(type_ids_)};
  if (scopes_ > 0) {
    parts.push_back(scope_embedding_(scope1_));
    parts.push_back(scope_embedding_(scope2_));
  }
  parts.push_back(features_);
  if (incumbent_.defined()) parts.push_back(incumbent_);
  return at::cat(parts, 1);
}

void HierarchicalPolicyImpl::SetIncumbent(const std::vector<int>& device_of_op) {
  if (!incumbent_.defined() && !place_scopes_) return;  // neither option uses it
  TORCH_CHECK(device_of_op.empty() || static_cast<int>(device_of_op.size()) == ops_,
              "incumbent of ", device_of_op.size(), " ops for a policy of ", ops_);
  for (int d : device_of_op) TORCH_CHECK(d >= 0 && d < devices_, "incumbent device ", d);
  if (place_scopes_ && device_of_op != followed_) {
    followed_ = device_of_op;
    UseGroups(scope_grouping_->GroupsFollowing(groups_, device_of_op));
  }
  if (!incumbent_.defined()) return;
  incumbent_.zero_();
  auto hot = incumbent_.accessor<float, 2>();
  for (int i = 0; i < static_cast<int>(device_of_op.size()); ++i) hot[i][device_of_op[i]] = 1.0f;
}

void HierarchicalPolicyImpl::PlaceScopes() {
  TORCH_CHECK(scope_grouping_, "name scopes as the groups need grouper scopes or auto");
  place_scopes_ = true;
  followed_.clear();
  UseGroups(scope_grouping_->Groups(groups_));
}

GrouperChoice HierarchicalPolicyImpl::ChooseGrouper(const std::vector<int>& device_of_op) {
  GrouperChoice c;
  c.groups = groups_;
  if (o_.grouper != "auto" || !scope_grouping_) {
    c.scopes = place_scopes_;
    return c;
  }
  TORCH_CHECK(device_of_op.empty() || static_cast<int>(device_of_op.size()) == ops_,
              "placement of ", device_of_op.size(), " ops for a policy of ", ops_);
  c.scopes_kept = scope_grouping_->ScopesFollowing(groups_, device_of_op);
  c.scopes_needed = static_cast<int>(std::ceil(o_.auto_scope_share * groups_ - 1e-9));
  c.scopes = c.scopes_kept >= c.scopes_needed;
  if (c.scopes) PlaceScopes();
  return c;
}

void HierarchicalPolicyImpl::UseGroups(std::vector<int> group_of_op) {
  fixed_groups_ = std::move(group_of_op);
  fixed_groups_tensor_ =
      at::tensor(std::vector<int64_t>(fixed_groups_.begin(), fixed_groups_.end()));
}

at::Tensor HierarchicalPolicyImpl::GrouperLogits() {
  return grouper_out_(at::relu(grouper_hidden_(GrouperInput())));
}

std::pair<at::Tensor, at::Tensor> HierarchicalPolicyImpl::Encode(const at::Tensor& groups,
                                                                 LstmSteps* steps) {
  const at::Tensor x = at::relu(group_in_(GroupEmbeddings(groups)));
  const at::Tensor encoded = steps ? BidirectionalLstm(encoder_, x, steps)
                                   : std::get<0>(encoder_(x.unsqueeze(1))).squeeze(1);
  return {encoded, attend_keys_(encoded) * 2};  // doubled for DecodeStep's sigmoid
}

HierarchicalPolicyImpl::DecoderState HierarchicalPolicyImpl::StartDecoder(int batch) const {
  const int H = o_.placer_hidden;
  DecoderState st;
  st.h = at::zeros({batch, H});
  st.c = at::zeros({batch, H});
  st.context = at::zeros({batch, H});
  st.previous = at::zeros({batch, o_.device_embedding});
  return st;
}

at::Tensor HierarchicalPolicyImpl::DecodeStep(const at::Tensor& encoded, const at::Tensor& keys,
                                              DecoderState* st, PolicySample* s) {
  if (s && st->weight.defined()) {
    // The LSTM cell (i, f, g, o gates, as torch::nn::LSTMCell) with its weights
    // detached: autograd would otherwise form and sum a [4H, in] weight
    // gradient at every one of the groups' steps, most of an update's backward
    // pass on NMT-8; the tap's gradient is the gates' gradient, from which
    // AddDeferredGradients forms the weights' in one product over all steps.
    const at::Tensor x = at::cat({st->previous, st->context, st->h}, 1);
    const at::Tensor tap = s->decoder.Tap(x, st->weight.size(0));
    std::vector<at::Tensor> gates =
        (FewRowsTimesWeight(x, st->weight) + st->bias + tap).chunk(4, 1);
    st->c = at::sigmoid(gates[1]) * st->c + at::sigmoid(gates[0]) * at::tanh(gates[2]);
    st->h = at::sigmoid(gates[3]) * at::tanh(st->c);
  } else {
    std::tie(st->h, st->c) =
        decoder_(at::cat({st->previous, st->context}, 1), std::make_tuple(st->h, st->c));
  }
  // Bahdanau's score v . tanh(key + query), computed as 2 v . sigmoid(2 key +
  // 2 query) (tanh x = 2 sigmoid(2x) - 1; softmax drops the constant -v . 1):
  // the same attention, and ATen's sigmoid takes a quarter of its tanh's time
  // (Sleef's tanhf: 343 against 89 us over [4, 180, 256], docs/search.md).
  const at::Tensor query = attend_query_(st->h).unsqueeze(1) * 2;
  const at::Tensor score = attend_v_(at::sigmoid(keys.unsqueeze(0) + query)).squeeze(2) * 2;
  st->context = at::softmax(score, 1).matmul(encoded);  // score: [batch, G]
  at::Tensor logits = device_out_(at::cat({st->h, st->context}, 1));
  return o_.tanh_constant * at::tanh(logits / o_.temperature);
}

void HierarchicalPolicyImpl::DecodeDevices(const at::Tensor& groups, int k, double noise,
                                           at::Generator* gen, const at::Tensor& forced,
                                           PolicySample* s) {
  auto [encoded, keys] = Encode(groups, &s->encoder);
  DecoderState st = StartDecoder(k);
  {
    torch::NoGradGuard no_grad;
    st.weight = at::cat({decoder_->weight_ih, decoder_->weight_hh}, 1);
    st.bias = decoder_->bias_ih + decoder_->bias_hh;
  }
  std::vector<at::Tensor> chosen, log_prob, entropy;
  chosen.reserve(groups_);
  log_prob.reserve(groups_);
  entropy.reserve(groups_);
  for (int step = 0; step < groups_; ++step) {
    at::Tensor logits = DecodeStep(encoded, keys, &st, s);
    if (noise > 0) {
      at::Tensor scale = logits.detach().abs().mean() * noise;
      logits =
          logits + scale * at::randn({k, devices_}, *gen, at::TensorOptions().dtype(at::kFloat));
    }
    at::Tensor logp = at::log_softmax(logits, 1);
    at::Tensor d = forced.defined()
                       ? forced.select(1, step).unsqueeze(1)
                       : at::multinomial(logp.detach().exp(), 1, true, *gen);  // [k, 1]
    log_prob.push_back(logp.gather(1, d).squeeze(1));
    if (o_.entropy_weight > 0) entropy.push_back(-(logp.exp() * logp).sum(1));
    st.previous = device_embedding_(d.squeeze(1));
    chosen.push_back(d.squeeze(1));
  }
  s->devices = at::stack(chosen, 1).contiguous();  // [k, G]
  s->device_log_prob = at::stack(log_prob, 1);
  if (!entropy.empty()) s->device_entropy = at::stack(entropy, 1);
  s->log_prob = s->group_log_prob.sum() + s->device_log_prob.sum(1);
}

PolicySample HierarchicalPolicyImpl::Sample(int k, double noise, at::Generator& gen) {
  PolicySample s;
  // Grouper: a group per op.
  if (place_scopes_) {
    s.groups = fixed_groups_tensor_;
    FixedGroupDecisions(&s);
  } else {
    at::Tensor group_logp = at::log_softmax(GrouperLogits(), 1);
    s.groups = at::multinomial(group_logp.detach().exp(), 1, /*replacement=*/true, gen).squeeze(1);
    s.group_log_prob = group_logp.gather(1, s.groups.unsqueeze(1)).squeeze(1);
    if (o_.entropy_weight > 0) s.group_entropy = -(group_logp.exp() * group_logp).sum(1);
  }
  // Placer: encode the groups, decode a device per group with attention.
  DecodeDevices(s.groups, k, noise, &gen, at::Tensor(), &s);
  DecideApart(at::Tensor(), &gen, &s);

  at::Tensor group_cpu = s.groups.contiguous();
  const int64_t* gp = group_cpu.data_ptr<int64_t>();
  s.group_of_op.assign(gp, gp + ops_);
  const int64_t* dp = s.devices.data_ptr<int64_t>();
  const int G = groups_;
  const int K = num_apart();
  s.device_of_op.assign(k, std::vector<int>(ops_ + K));
  for (int j = 0; j < k; ++j) {
    for (int i = 0; i < ops_; ++i) s.device_of_op[j][i] = static_cast<int>(dp[j * G + gp[i]]);
  }
  if (K > 0) {
    const int64_t* ap = s.apart_devices.data_ptr<int64_t>();
    for (int j = 0; j < k; ++j) {
      for (int a = 0; a < K; ++a) s.device_of_op[j][ops_ + a] = static_cast<int>(ap[j * K + a]);
    }
  }
  return s;
}

void HierarchicalPolicyImpl::PlaceApart(const std::vector<int>& follows) {
  TORCH_CHECK(!apart_bias_.defined(), "the apart slots are placed once");
  if (follows.empty()) return;
  const int64_t K = static_cast<int64_t>(follows.size());
  std::vector<int64_t> op(K);
  std::vector<float> has(K);
  for (int64_t a = 0; a < K; ++a) {
    TORCH_CHECK(follows[a] < ops_, "apart slot ", a, " follows node ", follows[a], " of ", ops_);
    op[a] = std::max(follows[a], 0);
    has[a] = follows[a] >= 0 ? 1.0f : 0.0f;
  }
  apart_follows_ = at::tensor(op);
  apart_has_follow_ = at::tensor(has);
  apart_bias_ = register_parameter("apart_bias", at::zeros({K, devices_}));
  // p(colocated) = e^stay / (e^stay + devices - 1) at first: o_.apart_colocated,
  // or with 0 the fixed preference's share. Colocated is where every baseline
  // starts, and the search learns away from it.
  const double p = o_.apart_colocated;
  const double stay = p > 0 ? std::log(p / (1 - p) * std::max(devices_ - 1, 1)) : kApartStayFixed;
  apart_stay_ = register_parameter("apart_stay", at::full({K}, static_cast<float>(stay)));
}

void HierarchicalPolicyImpl::DecideApart(const at::Tensor& forced, at::Generator* gen,
                                         PolicySample* s) {
  if (!apart_bias_.defined()) return;
  const int64_t k = s->devices.size(0), K = apart_bias_.size(0);
  // Each slot's op's device in each placement: its group's.
  const at::Tensor own = s->devices.index_select(1, s->groups.index_select(0, apart_follows_));
  const at::Tensor near =
      at::one_hot(own, devices_).to(at::kFloat) * apart_has_follow_.view({1, K, 1});
  const at::Tensor logits = apart_bias_.unsqueeze(0) + apart_stay_.view({1, K, 1}) * near;
  const at::Tensor logp = at::log_softmax(logits, 2);  // [k, K, devices]
  at::Tensor d;
  if (forced.defined()) {
    TORCH_CHECK(forced.size(0) == k && forced.size(1) == K, "apart decisions of shape ",
                forced.sizes(), " for ", k, " placements of ", K, " slots");
    d = forced;
  } else {
    d = at::multinomial(logp.detach().exp().view({k * K, devices_}), 1, true, *gen).view({k, K});
  }
  s->apart_devices = d.contiguous();
  s->apart_log_prob = logp.gather(2, s->apart_devices.unsqueeze(2)).squeeze(2);
  if (o_.entropy_weight > 0) s->apart_entropy = -(logp.exp() * logp).sum(2);
  s->log_prob = s->log_prob + s->apart_log_prob.sum(1);
}

PolicySample HierarchicalPolicyImpl::Score(const at::Tensor& groups, const at::Tensor& devices,
                                           const at::Tensor& apart) {
  PolicySample s;
  s.groups = groups;
  if (place_scopes_) {
    FixedGroupDecisions(&s);
  } else {
    at::Tensor group_logp = at::log_softmax(GrouperLogits(), 1);
    s.group_log_prob = group_logp.gather(1, groups.unsqueeze(1)).squeeze(1);
    if (o_.entropy_weight > 0) s.group_entropy = -(group_logp.exp() * group_logp).sum(1);
  }
  DecodeDevices(groups, static_cast<int>(devices.size(0)), 0, nullptr, devices, &s);
  TORCH_CHECK(apart.defined() == (num_apart() > 0), "apart decisions for a policy of ", num_apart(),
              " apart slots");
  DecideApart(apart, nullptr, &s);
  return s;
}

void HierarchicalPolicyImpl::FixedGroupDecisions(PolicySample* s) const {
  // A fixed grouping is certain: log p = 0 and no entropy for every op.
  s->group_log_prob = at::zeros({ops_});
  if (o_.entropy_weight > 0) s->group_entropy = at::zeros({ops_});
}

std::vector<int> HierarchicalPolicyImpl::GroupsFollowing(const std::vector<int>& device_of_op,
                                                         std::vector<int>* device_of_group) const {
  if (place_scopes_) {
    // Scopes cut by device where they must (ScopeGrouping::GroupsFollowing):
    // each group's ops share one device, unless even that does not fit.
    std::vector<int> groups = device_of_op == followed_
                                  ? fixed_groups_
                                  : scope_grouping_->GroupsFollowing(groups_, device_of_op);
    *device_of_group = MajorityDevices(groups, device_of_op);
    return groups;
  }
  // Each device gets groups in proportion to its ops (largest remainders; one
  // at least if it has any), and cuts its ops in structural order into them.
  std::vector<int> count(devices_, 0);
  for (int d : device_of_op) ++count[d];
  std::vector<int> share(devices_, 0);
  int used = 0;
  std::vector<std::pair<double, int>> remainder;
  for (int d = 0; d < devices_; ++d) {
    if (count[d] == 0) continue;
    const double exact = static_cast<double>(groups_) * count[d] / ops_;
    share[d] = std::max(1, static_cast<int>(exact));
    used += share[d];
    remainder.emplace_back(-(exact - static_cast<int>(exact)), d);
  }
  std::sort(remainder.begin(), remainder.end());
  for (size_t j = 0; used < groups_; j = (j + 1) % remainder.size(), ++used) {
    ++share[remainder[j].second];
  }
  while (used > groups_) {  // more devices with ops than groups, or rounding up
    const int d = static_cast<int>(std::max_element(share.begin(), share.end()) - share.begin());
    --share[d];
    --used;
  }
  std::vector<int> first_group(devices_, 0), seen(devices_, 0);
  device_of_group->assign(groups_, 0);
  for (int d = 0, next = 0; d < devices_; ++d) {
    // With more devices holding ops than groups, a device left without a group
    // shares the last one; its ops still get a group, if not a device of their own.
    first_group[d] = std::min(next, groups_ - 1);
    for (int j = 0; j < share[d]; ++j) (*device_of_group)[next + j] = d;
    next += share[d];
  }
  std::vector<int> group_of_op(ops_, 0);
  for (int i : structure_order_) {
    const int d = device_of_op[i];
    const int chunk = std::max(1, share[d]);
    group_of_op[i] = first_group[d] + std::min(chunk - 1, seen[d]++ * chunk / count[d]);
  }
  return group_of_op;
}

std::vector<int> HierarchicalPolicyImpl::SampleGroups(at::Generator& gen) {
  if (place_scopes_) return fixed_groups_;
  torch::NoGradGuard no_grad;
  at::Tensor p = at::softmax(GrouperLogits(), 1);
  at::Tensor groups = at::multinomial(p, 1, /*replacement=*/true, gen).squeeze(1).contiguous();
  const int64_t* g = groups.data_ptr<int64_t>();
  return std::vector<int>(g, g + ops_);
}

std::vector<int> HierarchicalPolicyImpl::MajorityDevices(
    const std::vector<int>& group_of_op, const std::vector<int>& device_of_op) const {
  std::vector<std::vector<int>> count(groups_, std::vector<int>(devices_, 0));
  std::vector<int> total(devices_, 0);
  for (int i = 0; i < ops_; ++i) {
    ++count[group_of_op[i]][device_of_op[i]];
    ++total[device_of_op[i]];
  }
  const int busiest =
      static_cast<int>(std::max_element(total.begin(), total.end()) - total.begin());
  std::vector<int> device(groups_);
  for (int g = 0; g < groups_; ++g) {
    const auto top = std::max_element(count[g].begin(), count[g].end());
    device[g] = *top == 0 ? busiest : static_cast<int>(top - count[g].begin());
  }
  return device;
}

void HierarchicalPolicyImpl::AddDeferredGradients(std::vector<PolicySample>* samples) {
  const int64_t in = decoder_->weight_ih.size(1);
  for (PolicySample& s : *samples) {
    at::Tensor bias;
    const at::Tensor w = s.decoder.Product(&bias);
    if (w.defined()) {
      AccumulateGradient(decoder_->weight_ih, w.narrow(1, 0, in));
      AccumulateGradient(decoder_->weight_hh, w.narrow(1, in, w.size(1) - in));
      AccumulateGradient(decoder_->bias_ih, bias);
      AccumulateGradient(decoder_->bias_hh, bias);
    }
    AddBidirectionalLstmGradients(encoder_, &s.encoder);
  }
}

at::Tensor HierarchicalPolicyImpl::GrouperImitationLoss(const std::vector<int>& group_of_op) {
  at::Tensor groups = at::tensor(std::vector<int64_t>(group_of_op.begin(), group_of_op.end()));
  at::Tensor group_logp = at::log_softmax(GrouperLogits(), 1);
  return -group_logp.gather(1, groups.unsqueeze(1)).mean();
}

at::Tensor HierarchicalPolicyImpl::PlacerImitationLoss(const std::vector<int>& group_of_op,
                                                       const std::vector<int>& device_of_group) {
  at::Tensor groups = at::tensor(std::vector<int64_t>(group_of_op.begin(), group_of_op.end()));
  at::Tensor devices =
      at::tensor(std::vector<int64_t>(device_of_group.begin(), device_of_group.end()));
  auto [encoded, keys] = Encode(groups, nullptr);
  DecoderState st = StartDecoder(1);
  at::Tensor loss = at::zeros({});
  for (int step = 0; step < groups_; ++step) {
    at::Tensor logits = DecodeStep(encoded, keys, &st);
    at::Tensor target = devices.slice(0, step, step + 1);
    loss = loss - at::log_softmax(logits, 1).gather(1, target.unsqueeze(1)).sum();
    st.previous = device_embedding_(target);
  }
  return loss / groups_;
}

namespace {
bool IsGrouperParameter(const std::string& name) {
  for (const char* prefix : {"type_embedding.", "scope_embedding.", "grouper_"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}
}  // namespace

std::vector<at::Tensor> HierarchicalPolicyImpl::GrouperParameters() const {
  std::vector<at::Tensor> p;
  for (const auto& kv : named_parameters()) {
    if (IsGrouperParameter(kv.key())) p.push_back(kv.value());
  }
  return p;
}

std::vector<at::Tensor> HierarchicalPolicyImpl::PlacerParameters() const {
  std::vector<at::Tensor> p;
  for (const auto& kv : named_parameters()) {
    if (!IsGrouperParameter(kv.key())) p.push_back(kv.value());
  }
  return p;
}

}  // namespace planner::search
