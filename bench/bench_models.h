// The models the simulator's benchmarks run on the local two-CPU machine: the
// zoo's small models (LeNet and the two-branch model at batch 32; the paper's
// RNNLM and NMT at a small size: batch 8, 2 layers of 128 units, 1,000 words,
// 8 steps) and every TF.js model of a folder (models/tfjs). Each with its
// training graph (SGD); and the two single-core devices of
// configs/local-2cpu.yaml, with idle workers polling for `spin`.
// Header-only: shared by sim_accuracy and profile_stability.
#pragma once

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "frontend/args.h"
#include "frontend/model_loading.h"
#include "graph/models.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "graph/zoo.h"
#include "sim/statistics.h"

namespace bench {

struct Model {
  std::string name;
  std::string source;  // "zoo" or "tfjs"
  graph::Graph forward;
  graph::TrainingGraph training;
};

// The flags of the programs that run LoadModels on TwoCpus, then `own`.
inline std::vector<frontend::FlagSpec> ModelFlags(std::vector<frontend::FlagSpec> own) {
  own.insert(
      own.begin(),
      {{"--models", "DIR", "TensorFlow.js models (default models/tfjs, from the repository root)"},
       {"--only", "A,B,...",
        "these models only (default: the zoo's small ones and every one of DIR)"},
       {"--spin", "DURATION", "how long cpu devices poll before their workers sleep"}});
  return own;
}

inline graph::Result<cluster::Cluster> TwoCpus(const std::string& spin) {
  const std::string extra = spin.empty() ? "" : ", spin: " + spin;
  return cluster::ParseDevicesYaml("devices:\n  - {name: cpu0, kind: cpu, cores: [0]" + extra +
                                       "}\n  - {name: cpu1, kind: cpu, cores: [1]" + extra + "}\n",
                                   "local-2cpu");
}

inline graph::Status AddModel(std::string name, std::string source, graph::Graph forward,
                              const graph::InferenceOptions& inference, std::vector<Model>* out) {
  auto t = graph::BuildTrainingGraph(forward, {}, inference);
  if (!t.ok()) return graph::Status(t.status().code(), name + ": " + t.status().message());
  out->push_back({std::move(name), std::move(source), std::move(forward), std::move(t).value()});
  return graph::Status::Ok();
}

// `only`: names to keep (empty: all).
inline graph::Result<std::vector<Model>> LoadModels(const std::string& tfjs_dir,
                                                    const std::vector<std::string>& only) {
  auto wanted = [&](const std::string& n) {
    return only.empty() || std::find(only.begin(), only.end(), n) != only.end();
  };
  std::vector<Model> models;
  if (wanted("lenet")) {
    GRAPH_ASSIGN_OR_RETURN(graph::Graph g, graph::BuildLeNet({32, 1}));
    GRAPH_RETURN_IF_ERROR(AddModel("lenet", "zoo", std::move(g), {}, &models));
  }
  if (wanted("two_branch")) {
    GRAPH_ASSIGN_OR_RETURN(graph::Graph g, graph::BuildTwoBranch({32, {256, 256}, 1}));
    GRAPH_RETURN_IF_ERROR(AddModel("two_branch", "zoo", std::move(g), {}, &models));
  }
  for (const char* m : {"rnnlm", "nmt"}) {
    if (!wanted(m)) continue;
    graph::ZooOptions o;
    o.batch = 8;
    o.hidden = 128;
    o.vocab = 1000;
    o.steps = 8;
    o.layers = 2;
    GRAPH_ASSIGN_OR_RETURN(graph::Graph g, graph::BuildZooModel(m, o));
    graph::InferenceOptions inference;
    graph::InferShapes(g, inference);
    GRAPH_RETURN_IF_ERROR(AddModel(m, "zoo", std::move(g), inference, &models));
  }
  std::vector<std::string> files;
  if (DIR* dir = opendir(tfjs_dir.c_str())) {
    while (dirent* e = readdir(dir)) {
      const std::string f = e->d_name;
      if (f.size() > 5 && f.compare(f.size() - 5, 5, ".json") == 0) files.push_back(f);
    }
    closedir(dir);
  } else {
    return graph::NotFound(tfjs_dir + ": cannot open the models folder");
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    const std::string name = f.substr(0, f.size() - 5);
    if (!wanted(name)) continue;
    GRAPH_ASSIGN_OR_RETURN(frontend::LoadedModel m, frontend::LoadModel(tfjs_dir + "/" + f, {}));
    GRAPH_RETURN_IF_ERROR(AddModel(name, "tfjs", std::move(m.graph), m.options, &models));
  }
  return models;
}

// "a,b,c" -> {"a", "b", "c"}.
inline std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size() && !s.empty()) {
    size_t comma = s.find(',', at);
    if (comma == std::string::npos) comma = s.size();
    if (comma > at) out.push_back(s.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

// sim::Median, and 0 for no samples (a model none of whose placements ran).
inline double Median(std::vector<double> v) { return v.empty() ? 0 : sim::Median(std::move(v)); }

// The q-quantile (0..1) by linear interpolation.
inline double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double at = q * (v.size() - 1);
  const size_t lo = static_cast<size_t>(at);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - lo) * (v[hi] - v[lo]);
}

}  // namespace bench
