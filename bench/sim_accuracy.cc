// The simulator's error against real runs, on the local two-CPU-device config:
// for 6 models (from the zoo LeNet, the two-branch model, and the paper's RNNLM
// and NMT at a small size; two TF.js models of models/tfjs) and 8 placements each (both
// single-device placements, two layer-wise splits, per-branch or a four-chunk layer-wise split,
// three random), the measured step time next to the simulated one, then the median absolute error
// and Kendall's tau over all placements.
//
// Protocol: the machine is shared and its speed drifts over seconds, so profiling
// and measuring are interleaved: in each round every placement runs one step,
// and the single-device placements' timelines are the op profile (as planner
// profile builds it), and the two single-device placements of each model also
// run at the same time, for the slowdown of each cpu while the other runs (as
// planner profile measures it). Measured: the median over rounds. Links are
// fitted first (runtime::ProfileLinks).
//   sim_accuracy [--rounds R] [--models DIR]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include "cluster/devices.h"
#include "graph/models.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "graph/zoo.h"
#include "planner/model_loading.h"
#include "planner/placement.h"
#include "runtime/executor.h"
#include "runtime/measure.h"
#include "runtime/profiler.h"
#include "runtime/simulator.h"

namespace {

struct Model {
  std::string name;
  graph::Graph forward;
  graph::InferenceOptions inference;
};

struct Placed {
  std::string model, placement;
  graph::Graph* training = nullptr;
  std::vector<int> device_of_node;
  std::unique_ptr<runtime::Executor> ex;
  std::vector<double> measured;
  double simulated = 0;
  int single = -1;  // the device, for single-device placements
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Kendall's tau-b between two equally long samples.
double KendallTau(const std::vector<double>& a, const std::vector<double>& b) {
  double concordant = 0, discordant = 0, ties_a = 0, ties_b = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = i + 1; j < a.size(); ++j) {
      const double x = a[i] - a[j], y = b[i] - b[j];
      if (x == 0 && y == 0) continue;
      if (x == 0) {
        ++ties_a;
      } else if (y == 0) {
        ++ties_b;
      } else if ((x > 0) == (y > 0)) {
        ++concordant;
      } else {
        ++discordant;
      }
    }
  }
  const double denom =
      std::sqrt((concordant + discordant + ties_a) * (concordant + discordant + ties_b));
  return denom > 0 ? (concordant - discordant) / denom : 0;
}

// Forward placements of a model's ops: name -> device per forward node.
std::vector<std::pair<std::string, std::vector<int>>> Placements(const graph::Graph& fwd,
                                                                 bool branches) {
  const int n = fwd.size();
  const std::vector<graph::NodeId>& topo = fwd.topological_order();
  std::vector<std::pair<std::string, std::vector<int>>> out;
  out.push_back({"single cpu0", std::vector<int>(n, 0)});
  out.push_back({"single cpu1", std::vector<int>(n, 1)});
  auto chunks = [&](int k, int first) {
    std::vector<int> d(n);
    for (int i = 0; i < n; ++i) d[topo[i]] = (first + (i * k / n)) % 2;
    return d;
  };
  out.push_back({"layer-wise halves", chunks(2, 0)});
  out.push_back({"layer-wise halves, swapped", chunks(2, 1)});
  if (branches) {
    std::vector<int> d(n, 0);
    for (graph::NodeId id = 0; id < n; ++id) d[id] = fwd.node(id).name.rfind("b/", 0) == 0;
    out.push_back({"per-branch", d});
  } else {
    out.push_back({"layer-wise quarters", chunks(4, 0)});
  }
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed);
    std::vector<int> d(n);
    for (int& x : d) x = static_cast<int>(rng() & 1);
    out.push_back({"random " + std::to_string(seed), d});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 7;
  std::string models_dir = "models/tfjs";  // run from the repository root
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) rounds = std::max(3, std::atoi(argv[++i]));
    if (a == "--models" && i + 1 < argc) models_dir = argv[++i];
  }
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n  - {name: cpu1, kind: cpu, cores: "
      "[1]}\n",
      "local-2cpu");
  if (!c.ok()) return std::fprintf(stderr, "%s\n", c.status().message().c_str()), 1;

  std::vector<Model> models;
  models.push_back({"lenet (zoo, batch 32)", *graph::BuildLeNet({32, 1}), {}});
  models.push_back({"two_branch (zoo, batch 32)", *graph::BuildTwoBranch({32, {256, 256}, 1}), {}});
  for (const char* m : {"rnnlm", "nmt"}) {  // the paper's recurrent models, small
    graph::ZooOptions o;
    o.batch = 8;
    o.hidden = 128;
    o.vocab = 1000;
    o.steps = 8;
    o.layers = 2;
    auto g = graph::BuildZooModel(m, o);
    if (!g.ok()) return std::fprintf(stderr, "%s\n", g.status().message().c_str()), 1;
    graph::InferenceOptions inference;
    graph::InferShapes(*g, inference);
    models.push_back({std::string(m) + " (zoo, batch 8, 2x128)", std::move(g).value(), inference});
  }
  for (const char* m : {"emotion", "facemesh-detection-short"}) {
    auto loaded = planner::LoadModel(models_dir + "/" + m + ".json", {});
    if (!loaded.ok()) return std::fprintf(stderr, "%s\n", loaded.status().message().c_str()), 1;
    models.push_back({std::string(m) + " (tfjs)", loaded->graph, loaded->options});
  }

  std::vector<graph::TrainingGraph> trainings;
  trainings.reserve(models.size());
  std::vector<Placed> placed;
  for (const Model& m : models) {
    auto t = graph::BuildTrainingGraph(m.forward, {}, m.inference);
    if (!t.ok())
      return std::fprintf(stderr, "%s: %s\n", m.name.c_str(), t.status().message().c_str()), 1;
    trainings.push_back(std::move(t).value());
  }
  for (size_t k = 0; k < models.size(); ++k) {
    graph::TrainingGraph& t = trainings[k];
    bool branches = models[k].name.rfind("two_branch", 0) == 0;
    for (auto& [name, fwd_dev] : Placements(models[k].forward, branches)) {
      Placed p;
      p.model = models[k].name;
      p.placement = name;
      p.training = &t.graph;
      p.device_of_node = planner::TrainingDeviceOfNode(t.graph, models[k].forward, fwd_dev);
      if (name == "single cpu0") p.single = 0;
      if (name == "single cpu1") p.single = 1;
      auto ex = runtime::Executor::Create(t.graph, *c, p.device_of_node);
      if (!ex.ok()) return std::fprintf(stderr, "%s\n", ex.status().message().c_str()), 1;
      p.ex = std::move(ex).value();
      placed.push_back(std::move(p));
    }
  }

  runtime::Profile profile;
  if (auto links = runtime::ProfileLinks(*c, &profile); !links.ok()) {
    return std::fprintf(stderr, "%s\n", links.status().message().c_str()), 1;
  }
  for (const auto& [pair, l] : profile.links) {
    std::printf("link %s -> %s: latency %.2f us, bandwidth %.2f GB/s\n", pair.first.c_str(),
                pair.second.c_str(), l.latency_s * 1e6, l.bandwidth_bytes_per_s / 1e9);
  }
  std::vector<runtime::ProfileBuilder> builders(models.size());
  std::vector<std::unique_ptr<runtime::Executor>> calibration;
  for (const graph::TrainingGraph& t : trainings) {
    std::vector<int> alternate(t.graph.size());
    const std::vector<graph::NodeId>& topo = t.graph.topological_order();
    for (size_t i = 0; i < topo.size(); ++i) alternate[topo[i]] = static_cast<int>(i % 2);
    auto ex = runtime::Executor::Create(t.graph, *c, alternate);
    if (!ex.ok()) return std::fprintf(stderr, "%s\n", ex.status().message().c_str()), 1;
    calibration.push_back(std::move(ex).value());
  }
  std::vector<std::map<std::string, at::Tensor>> feeds;
  for (const graph::TrainingGraph& t : trainings)
    feeds.push_back(*runtime::RandomFeeds(t.graph, 1));
  const int warmup = 2;
  for (int r = 0; r < warmup + rounds; ++r) {
    for (size_t i = 0; i < placed.size(); ++i) {
      Placed& p = placed[i];
      const size_t k = i / 8;
      runtime::StepStats stats;
      std::vector<at::Tensor> out;
      graph::Status st = p.ex->Run(feeds[k], {trainings[k].loss}, &out, &stats);
      if (!st.ok()) return std::fprintf(stderr, "%s\n", st.message().c_str()), 1;
      if (r < warmup) continue;
      p.measured.push_back(stats.seconds);
      if (p.single >= 0) builders[k].AddStep(p.ex->graph(), *c, p.single, stats);
    }
    // The links, as the executor's copies cost: a calibration placement (ops
    // alternating between the devices in topological order), not one evaluated.
    for (size_t k = 0; k < models.size(); ++k) {
      runtime::StepStats stats;
      std::vector<at::Tensor> out;
      graph::Status st = calibration[k]->Run(feeds[k], {trainings[k].loss}, &out, &stats);
      if (!st.ok()) return std::fprintf(stderr, "%s\n", st.message().c_str()), 1;
      if (r >= warmup) builders[k].AddTransfers(*c, stats);
    }
    // Both single-device placements of each model at the same time: the slowdown.
    for (size_t k = 0; k < models.size(); ++k) {
      runtime::StepStats s0, s1;
      std::thread other([&] {
        std::vector<at::Tensor> out;
        (void)placed[8 * k + 1].ex->Run(feeds[k], {trainings[k].loss}, &out, &s1);
      });
      std::vector<at::Tensor> out;
      (void)placed[8 * k].ex->Run(feeds[k], {trainings[k].loss}, &out, &s0);
      other.join();
      if (r < warmup) continue;
      builders[k].AddConcurrentStep(placed[8 * k].ex->graph(), *c, 0, s0);
      builders[k].AddConcurrentStep(placed[8 * k + 1].ex->graph(), *c, 1, s1);
    }
  }
  std::vector<double> measured, simulated, errors;
  std::printf("%-30s %-28s %12s %12s %8s\n", "model", "placement", "measured ms", "simulated ms",
              "error");
  for (size_t i = 0; i < placed.size(); ++i) {
    Placed& p = placed[i];
    const size_t k = i / 8;
    runtime::Profile model_profile = profile;
    builders[k].Finish(&model_profile);
    if (i % 8 == 0) {
      const runtime::LinkFit* l = model_profile.Link("cpu0", "cpu1");
      std::printf(
          "  (%s: slowdown while the other cpu runs: cpu0 %.3f, cpu1 %.3f; copies cpu0->cpu1 "
          "%.2f us + %.2f GB/s)\n",
          p.model.c_str(), model_profile.slowdown["cpu0"], model_profile.slowdown["cpu1"],
          l ? l->latency_s * 1e6 : 0, l ? l->bandwidth_bytes_per_s / 1e9 : 0);
    }
    auto sim = runtime::Simulator::Create(*p.training, *c, &model_profile);
    if (!sim.ok()) return std::fprintf(stderr, "%s\n", sim.status().message().c_str()), 1;
    runtime::SimResult r = sim->Run(p.device_of_node, p.training->Find(trainings[k].loss));
    if (!r.status.ok()) return std::fprintf(stderr, "%s\n", r.status.message().c_str()), 1;
    const double m = Median(p.measured), s = r.step.seconds;
    if (getenv("SIM_DEBUG") && p.placement == "layer-wise halves") {
      runtime::StepStats real;
      std::vector<at::Tensor> out;
      (void)p.ex->Run(feeds[k], {trainings[k].loss}, &out, &real);
      for (int d = 0; d < 2; ++d) {
        int nr = 0, ns = 0;
        for (auto& o : real.ops) nr += o.device == d;
        for (auto& o : r.step.ops) ns += o.device == d;
        std::printf("  dev %d real busy %.3f ms (%d ops), sim busy %.3f ms (%d ops)\n", d,
                    real.busy_us[d] / 1e3, nr, r.step.busy_us[d] / 1e3, ns);
      }
      std::printf("  transfers real %zu sim %zu; real step %.3f\n", real.transfers.size(),
                  r.step.transfers.size(), real.seconds * 1e3);
      double tr = 0, ts = 0;
      for (auto& t : real.transfers) tr += t.end_us - t.start_us;
      for (auto& t : r.step.transfers) ts += t.end_us - t.start_us;
      std::printf("  transfer time real %.3f ms sim %.3f ms\n", tr / 1e3, ts / 1e3);
    }
    measured.push_back(m);
    simulated.push_back(s);
    errors.push_back(std::fabs(s - m) / m);
    std::printf("%-30s %-28s %12.3f %12.3f %+7.1f%%\n", p.model.c_str(), p.placement.c_str(),
                m * 1e3, s * 1e3, 100 * (s - m) / m);
  }
  std::printf(
      "\n%zu placements of %zu models, %d rounds: median |error| %.1f%% (target <= 10%%), "
      "Kendall's tau %.3f (target >= 0.8)\n",
      placed.size(), models.size(), rounds, 100 * Median(errors), KendallTau(measured, simulated));
  for (size_t k = 0; k < models.size(); ++k) {
    std::vector<double> a(measured.begin() + 8 * k, measured.begin() + 8 * (k + 1));
    std::vector<double> b(simulated.begin() + 8 * k, simulated.begin() + 8 * (k + 1));
    std::vector<double> e(errors.begin() + 8 * k, errors.begin() + 8 * (k + 1));
    std::printf("  %-30s median |error| %5.1f%%, tau within the model %.3f\n",
                models[k].name.c_str(), 100 * Median(e), KendallTau(a, b));
  }
  return 0;
}
