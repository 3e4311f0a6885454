// Simulation speed and the paper machine's memory limits, on the NMT models at
// both of the zoo's sizes (paper-scale, the default, then small; docs/zoo.md)
// and configs/k40-paper-{2,4,8}gpu.yaml:
//  - the time of one Simulator::Run of NMT-8 on 8 simulated K40s, placed
//    layer-wise and with its ops on random GPUs (median of 21 each; target <= 50 ms);
//  - for NMT-2/4/8: everything on one K40 vs. a layer per GPU (the expert baseline,
//    planner/baselines/baselines.h: encoder and decoder layer l on GPU l, embeddings with the
//    first layer, attention and softmax with the last): simulated step time or
//    out-of-memory, and peak memory.
//   sim_speed [--configs DIR]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>

#include "bench/paper_nmt.h"
#include "frontend/args.h"
#include "placement/placement.h"
#include "planner/baselines/baselines.h"
#include "sim/simulator.h"

const frontend::CommandSpec kSpec{
    "sim_speed",
    "[--configs DIR]",
    "Simulation speed of NMT-8 on 8 simulated K40s, and NMT-2/4/8's step time and memory all\n"
    "on one K40 against a layer per GPU, at the zoo's paper-scale and small sizes.",
    {},
    {{"--configs", "DIR", "where k40-paper-{2,4,8}gpu.yaml are (default configs)"}},
    /*program=*/""};

int main(int argc, char** argv) {
  const frontend::Args args = frontend::ParseProgramArgs(kSpec, argc, argv);
  const std::string configs = args.Get("--configs", "configs");
  for (const char* sizes : {"paper-scale", "small"}) {
    for (int64_t layers : {2, 4, 8}) {
      if (layers == 2) std::printf("nmt --sizes %s:\n", sizes);
      auto nmt = bench::LoadPaperNmt(configs, static_cast<int>(layers), sizes);
      if (!nmt.ok()) return std::fprintf(stderr, "%s\n", nmt.status().message().c_str()), 1;
      const graph::Graph* fwd = &nmt->forward;
      const graph::TrainingGraph* t = &nmt->training;
      const cluster::Cluster* c = &nmt->cluster;
      auto t0 = std::chrono::steady_clock::now();
      auto sim = sim::Simulator::Create(t->graph, *c, nullptr);
      if (!sim.ok()) return std::fprintf(stderr, "%s\n", sim.status().message().c_str()), 1;
      const double create_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const graph::NodeId loss = t->graph.Find(t->loss);

      // Device 0 is the CPU; GPUs are 1..n.
      std::vector<int> one_gpu_fwd(fwd->size(), 1);
      std::vector<int> layer_fwd = planner::baselines::ExpertPlacement(*fwd, *c).device_of_node;
      for (auto [name, fwd_dev] :
           {std::pair<const char*, std::vector<int>*>{"all on gpu0", &one_gpu_fwd},
            {"a layer per GPU", &layer_fwd}}) {
        std::vector<int> d = placement::TrainingDeviceOfNode(t->graph, *fwd, *fwd_dev);
        sim::SimResult r = sim->Run(d, loss);
        int64_t peak = 0;
        for (int64_t p : r.step.peak_bytes) peak = std::max(peak, p);
        if (r.status.code() == graph::StatusCode::kOutOfMemory) {
          std::printf("NMT-%lld, %s: out of memory (%s)\n", static_cast<long long>(layers), name,
                      r.status.message().c_str());
        } else if (!r.status.ok()) {
          return std::fprintf(stderr, "%s\n", r.status.message().c_str()), 1;
        } else {
          std::printf("NMT-%lld, %s: %.1f ms a step, largest device peak %.2f GiB of 12 GiB\n",
                      static_cast<long long>(layers), name, r.step.seconds * 1e3,
                      peak / 1073741824.0);
        }
      }
      if (layers == 8) {
        // Two kinds of placement the search evaluates: whole layers (the expert,
        // and the hill climb's moves from it; few transfers) and ops scattered at
        // random over the GPUs (the policy's first samples; a transfer at most edges).
        std::mt19937 rng(1);
        std::vector<int> scattered_fwd(fwd->size());
        for (int& x : scattered_fwd) x = 1 + static_cast<int>(rng() % layers);
        std::printf(
            "NMT-8 training graph (%d nodes) on 8 simulated K40s, one simulation "
            "(median of 21; target <= 50 ms):\n",
            t->graph.size());
        for (auto [name, fwd_dev] :
             {std::pair<const char*, std::vector<int>*>{"a layer per GPU", &layer_fwd},
              {"ops at random", &scattered_fwd}}) {
          std::vector<int> d = placement::TrainingDeviceOfNode(t->graph, *fwd, *fwd_dev);
          std::vector<double> times;
          size_t transfers = 0;
          for (int i = 0; i < 21; ++i) {
            auto s0 = std::chrono::steady_clock::now();
            sim::SimResult r = sim->Run(d, loss);
            times.push_back(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count());
            transfers = r.step.transfers.size();
          }
          std::sort(times.begin(), times.end());
          std::printf("  %-16s %6.1f ms (min %.1f, max %.1f), %zu transfers\n", name,
                      times[10] * 1e3, times[0] * 1e3, times[20] * 1e3, transfers);
        }
        std::printf("Simulator::Create once %.0f ms\n", create_s * 1e3);
      }
    }
  }
  return 0;
}
