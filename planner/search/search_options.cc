#include "planner/search/search_options.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "graph/file_util.h"
#include "yaml/document.h"

namespace planner::search {

namespace {

graph::Result<SearchOptions> Parse(const std::string& source, const yaml::Node& root) {
  SearchOptions o;
  if (root.IsNull()) return o;
  if (!root.IsMap()) return graph::InvalidArgument(source + ": a search config is a YAML map");
  GRAPH_ASSIGN_OR_RETURN(const std::vector<yaml::Entry> entries, root.Entries("search config"));
  for (const yaml::Entry& e : entries) {
    if (e.key != "preset") continue;
    if (e.value.Scalar() == "paper") {
      o = PaperSearchOptions();
    } else if (e.value.Scalar() != "default") {
      return e.value.Error("'preset' must be one of default, paper");
    }
  }
  // Each key: where it goes and its allowed range.
  struct IntField {
    int* v;
    int lo, hi;
  };
  struct RealField {
    double* v;
    double lo, hi;
  };
  const std::map<std::string, IntField> ints = {
      {"num_groups", {&o.num_groups, 0, 4096}},
      {"type_embedding", {&o.type_embedding, 1, 1024}},
      {"grouper_hidden", {&o.grouper_hidden, 1, 8192}},
      {"placer_hidden", {&o.placer_hidden, 2, 8192}},
      {"attention", {&o.attention, 1, 8192}},
      {"device_embedding", {&o.device_embedding, 1, 1024}},
      {"scope_embedding", {&o.scope_embedding, 0, 1024}},
      {"grouper_samples", {&o.grouper_samples, 1, 1024}},
      {"ppo_epochs", {&o.ppo_epochs, 1, 1000}},
      {"imitate_best", {&o.imitate_best, 0, 1}},
      {"incumbent_features", {&o.incumbent_features, 0, 1}},
      {"placer_samples", {&o.placer_samples, 1, 1024}},
      {"lr_decay_every", {&o.lr_decay_every, 1, 1 << 30}},
      {"lr_decay_start", {&o.lr_decay_start, 0, 1 << 30}},
      {"logit_noise_until", {&o.logit_noise_until, 0, 1 << 30}},
      {"warm_start_steps", {&o.warm_start_steps, 0, 1 << 20}},
      {"threads", {&o.threads, 1, 256}},
  };
  const std::map<std::string, RealField> reals = {
      {"temperature", {&o.temperature, 1e-6, 1e6}},
      {"tanh_constant", {&o.tanh_constant, 1e-6, 1e6}},
      {"learning_rate", {&o.learning_rate, 1e-12, 10}},
      {"lr_decay", {&o.lr_decay, 1e-6, 1}},
      {"grad_clip", {&o.grad_clip, 1e-12, 1e12}},
      {"baseline_decay", {&o.baseline_decay, 0, 1}},
      {"imitation_weight", {&o.imitation_weight, 0, 1e6}},
      {"failing_step_s", {&o.failing_step_s, 1e-9, 1e9}},
      {"logit_noise", {&o.logit_noise, 0, 1e6}},
      {"warm_start_grouper_lr", {&o.warm_start_grouper_lr, 1e-12, 10}},
      {"warm_start_placer_lr", {&o.warm_start_placer_lr, 1e-12, 10}},
      {"warm_start_loss", {&o.warm_start_loss, 0, 1e6}},
      {"ppo_clip", {&o.ppo_clip, 1e-6, 10}},
      {"entropy_weight", {&o.entropy_weight, 0, 1e6}},
      {"auto_scope_share", {&o.auto_scope_share, 0, 1}},
      {"apart_colocated", {&o.apart_colocated, 0, 0.999}},
  };
  struct NameField {
    std::string* v;
    std::vector<std::string> allowed;
  };
  const std::map<std::string, NameField> names = {
      {"policy_optimizer", {&o.policy_optimizer, {"adam", "sgd"}}},
      {"update", {&o.update, {"reinforce", "ppo"}}},
      {"advantage", {&o.advantage, {"ema", "batch"}}},
      {"grouper", {&o.grouper, {"auto", "learned", "scopes"}}},
  };
  bool sets_imitation_weight = false;
  for (const yaml::Entry& e : entries) {
    const std::string& key = e.key;
    const yaml::Node& v = e.value;
    sets_imitation_weight |= key == "imitation_weight";
    if (key == "preset") continue;  // applied first, above
    if (auto it = ints.find(key); it != ints.end()) {
      const std::optional<int64_t> x = v.AsInt();
      if (!x || *x < it->second.lo || *x > it->second.hi) {
        return v.Error("'" + key + "' must be an integer in [" + std::to_string(it->second.lo) +
                       ", " + std::to_string(it->second.hi) + "]");
      }
      *it->second.v = static_cast<int>(*x);
    } else if (auto jt = reals.find(key); jt != reals.end()) {
      const std::optional<double> x = v.AsNumber();
      if (!x || !(*x >= jt->second.lo) || !(*x <= jt->second.hi)) {
        char range[64];
        std::snprintf(range, sizeof range, "[%g, %g]", jt->second.lo, jt->second.hi);
        return v.Error("'" + key + "' must be a number in " + range);
      }
      *jt->second.v = *x;
    } else if (auto nt = names.find(key); nt != names.end()) {
      const std::vector<std::string>& allowed = nt->second.allowed;
      const std::string x = v.Scalar();
      if (!v.IsScalar() || std::find(allowed.begin(), allowed.end(), x) == allowed.end()) {
        std::string list;
        for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
        return v.Error("'" + key + "' must be one of " + list);
      }
      *nt->second.v = x;
    } else {
      return e.key_node.Error("unknown key '" + key + "'");
    }
  }
  if (o.advantage == "batch" && o.grouper_samples * o.placer_samples < 2) {
    return graph::InvalidArgument(source +
                                  ": 'advantage: batch' needs at least 2 samples per update "
                                  "(grouper_samples x placer_samples)");
  }
  // A weight the file sets needs the imitation on; the default weight does not.
  if (sets_imitation_weight && o.imitation_weight > 0 && !o.imitate_best) {
    return graph::InvalidArgument(source +
                                  ": 'imitation_weight' needs 'imitate_best: 1' (it weights "
                                  "the best placement's cross-entropy)");
  }
  if (o.placer_hidden % 2) {
    return graph::InvalidArgument(
        source + ": 'placer_hidden' must be even (a bi-LSTM of half per direction)");
  }
  return o;
}

}  // namespace

SearchOptions PaperSearchOptions() {
  SearchOptions o;
  o.placer_hidden = 512;
  o.scope_embedding = 0;
  o.placer_samples = 4;
  o.learning_rate = 0.1;
  o.logit_noise = 0.5;
  o.update = "reinforce";
  o.ppo_epochs = 4;  // unused by REINFORCE; a config that sets update: ppo on it gets 4 as before
  o.advantage = "ema";
  o.entropy_weight = 0;
  o.imitate_best = 0;
  o.imitation_weight = 0;
  o.incumbent_features = 0;
  o.grouper = "learned";
  return o;
}

graph::Result<SearchOptions> ParseSearchConfig(const std::string& text, const std::string& source) {
  GRAPH_ASSIGN_OR_RETURN(const yaml::Node root, yaml::Parse(text, source));
  return Parse(source, root);
}

graph::Result<SearchOptions> ReadSearchConfig(const std::string& path) {
  GRAPH_ASSIGN_OR_RETURN(std::string text, graph::ReadFile(path));
  return ParseSearchConfig(text, path);
}

int NumGroups(const SearchOptions& o, int num_devices) {
  return o.num_groups > 0 ? o.num_groups : std::min(256, 20 * num_devices);
}

}  // namespace planner::search
