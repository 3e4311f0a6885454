#include "planner/policy.h"

#include <ATen/ATen.h>
#include <torch/nn/options/rnn.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "graph/cost.h"

namespace planner {

namespace {
constexpr int kShapeDims = 4;
constexpr int kOwnFeatures = kShapeDims + 5;  // shape, bytes, flops, position, in/out degree
}  // namespace

HierarchicalPolicyImpl::HierarchicalPolicyImpl(const graph::Graph& g, int num_devices,
                                               const SearchOptions& o)
    : ops_(g.size()), groups_(NumGroups(o, num_devices)), devices_(num_devices), o_(o) {
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
  sizes_ = at::tensor(sizes, f32).view({ops_, 3});
  edge_src_ = at::tensor(src, i64);
  edge_dst_ = at::tensor(dst, i64);

  const int H = o.placer_hidden;
  type_embedding_ =
      register_module("type_embedding", torch::nn::Embedding(types_, o.type_embedding));
  grouper_hidden_ = register_module(
      "grouper_hidden", torch::nn::Linear(o.type_embedding + 2 * kOwnFeatures, o.grouper_hidden));
  grouper_out_ = register_module("grouper_out", torch::nn::Linear(o.grouper_hidden, groups_));
  group_in_ = register_module("group_in", torch::nn::Linear(types_ + 3 + 2 * groups_, H / 2));
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

PolicySample HierarchicalPolicyImpl::Sample(int k, double noise, at::Generator& gen) {
  const int G = groups_;
  // Grouper: a group per op.
  at::Tensor x = at::cat({type_embedding_(type_ids_), features_}, 1);
  at::Tensor group_logp = at::log_softmax(grouper_out_(at::relu(grouper_hidden_(x))), 1);
  at::Tensor groups =
      at::multinomial(group_logp.detach().exp(), 1, /*replacement=*/true, gen).squeeze(1);
  at::Tensor log_prob_groups = group_logp.gather(1, groups.unsqueeze(1)).sum();

  // Group embeddings from the sampled grouping.
  at::Tensor embedding;
  {
    torch::NoGradGuard no_grad;
    at::Tensor hist = at::zeros({G, types_}).index_add_(0, groups, type_hot_);
    at::Tensor sums = at::zeros({G, 3}).index_add_(0, groups, sizes_);
    at::Tensor flat = groups.index_select(0, edge_src_) * G + groups.index_select(0, edge_dst_);
    at::Tensor adj = at::zeros({G * G}).index_add_(0, flat, at::ones({flat.size(0)})).view({G, G});
    embedding =
        at::cat({at::log1p(hist), at::log1p(sums), at::log1p(adj) / 5, at::log1p(adj.t()) / 5}, 1);
  }

  // Placer: encode the groups, decode a device per group with attention.
  const int H = o_.placer_hidden;
  at::Tensor encoded =
      std::get<0>(encoder_(at::relu(group_in_(embedding)).unsqueeze(1))).squeeze(1);
  at::Tensor keys = attend_keys_(encoded);  // [G, A]
  at::Tensor h = at::zeros({k, H}), c = at::zeros({k, H}), context = at::zeros({k, H});
  at::Tensor previous = at::zeros({k, o_.device_embedding});
  at::Tensor log_prob = log_prob_groups.expand({k});
  std::vector<at::Tensor> chosen;
  chosen.reserve(G);
  for (int step = 0; step < G; ++step) {
    std::tie(h, c) = decoder_(at::cat({previous, context}, 1), std::make_tuple(h, c));
    at::Tensor score = attend_v_(at::tanh(keys.unsqueeze(0) + attend_query_(h).unsqueeze(1)))
                           .squeeze(2);  // [k, G]
    context = at::softmax(score, 1).matmul(encoded);
    at::Tensor logits = device_out_(at::cat({h, context}, 1));
    logits = o_.tanh_constant * at::tanh(logits / o_.temperature);
    if (noise > 0) {
      at::Tensor scale = logits.detach().abs().mean() * noise;
      logits =
          logits + scale * at::randn({k, devices_}, gen, at::TensorOptions().dtype(at::kFloat));
    }
    at::Tensor logp = at::log_softmax(logits, 1);
    at::Tensor d = at::multinomial(logp.detach().exp(), 1, true, gen);  // [k, 1]
    log_prob = log_prob + logp.gather(1, d).squeeze(1);
    previous = device_embedding_(d.squeeze(1));
    chosen.push_back(d.squeeze(1));
  }

  PolicySample s;
  s.log_prob = log_prob;
  at::Tensor group_cpu = groups.contiguous();
  const int64_t* gp = group_cpu.data_ptr<int64_t>();
  s.group_of_op.assign(gp, gp + ops_);
  at::Tensor devices = at::stack(chosen, 1).contiguous();  // [k, G]
  const int64_t* dp = devices.data_ptr<int64_t>();
  s.device_of_op.assign(k, std::vector<int>(ops_));
  for (int j = 0; j < k; ++j) {
    for (int i = 0; i < ops_; ++i) s.device_of_op[j][i] = static_cast<int>(dp[j * G + gp[i]]);
  }
  return s;
}

}  // namespace planner
