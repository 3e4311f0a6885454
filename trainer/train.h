// One rank's data-parallel training run: loads and places the model, connects to
// the other ranks, and trains with a strategy (strategy.h) on its shard of the
// data, evaluating, checkpointing and reporting as it goes. What `trainer train`
// runs in each process.
//
// Thread safety: one Train per process at a time (it sets LibTorch's thread count).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/status.h"
#include "trainer/process_group.h"
#include "trainer/strategy.h"
#include "trainer/tuner.h"

namespace trainer {

struct TrainOptions {
  std::string model;      // a model file, or a name of planner's zoo ("lenet")
  std::string devices;    // devices file; empty: one 1-thread CPU device per rank
  std::string placement;  // placement file of the model on `devices`; empty: all on the first
  StrategyOptions strategy;
  std::string data = "fashion-mnist";  // "fashion-mnist" (images/labels inputs) or "synthetic"
  std::string data_dir;                // empty: Debian's dataset-fashion-mnist
  int epochs = 1;
  int64_t max_steps = 0;               // steps in all, instead of epochs (0: epochs decide)
  int64_t batch = 64;                  // examples per rank and step
  bool batch_given = false;            // --batch was given (a fixed-batch model refuses it)
  std::string optimizer = "momentum";  // sgd | momentum
  float learning_rate = 0.01f;
  float momentum = 0.9f;
  std::string checkpoint_dir;     // empty: no checkpoints
  int64_t checkpoint_every = 0;   // steps between checkpoints (0: at epoch ends only)
  bool resume = false;            // continue from checkpoint_dir's checkpoint
  // Every rank on `devices` as written, even where LOCAL_RANK and
  // LOCAL_WORLD_SIZE (trainer launch, torchrun) would give each its own copy
  // (trainer/rank_devices.h): for per-rank devices files.
  bool shared_devices = false;
  int64_t eval_every = 0;         // steps between evaluations (0: at epoch ends)
  bool evaluate = true;           // false: no evaluation at all (probes, benchmarks)
  double target_accuracy = 0;     // stop once the test accuracy reaches it (0: never)
  int64_t log_every = 100;        // steps between progress lines (0: none)
  uint64_t seed = 1;              // data order
  std::string logits = "logits";  // the output evaluated for accuracy
  bool quiet = false;             // rank 0 prints nothing but errors and the summary
  // Probes instead of training (trainer tune): each configuration runs
  // probe_steps steps from the same starting model and data position.
  std::vector<TuneConfig> probes;
  int64_t probe_steps = 60;
};

struct Evaluation {
  int64_t step = 0;
  double train_s = 0;  // training time (evaluations excluded) when it was taken
  double accuracy = 0;
};

struct TrainReport {
  int64_t steps = 0;     // steps run by this invocation
  int64_t examples = 0;  // over all ranks
  double train_s = 0;    // wall time of the steps, evaluations and checkpoints excluded
  double forward_s = 0, backward_s = 0, comm_s = 0, exposed_s = 0, update_s = 0;  // per step
  double first_loss = 0;                // mean over the first logging window
  double final_loss = 0;                // mean over the last logging window
  std::vector<Evaluation> evaluations;  // rank 0's (other ranks: empty)
  std::vector<Probe> probes;            // TrainOptions::probes' results, in order
  double images_per_s() const { return train_s > 0 ? examples / train_s : 0; }
};

graph::Result<TrainReport> Train(const TrainOptions& opts, const Rendezvous& rendezvous);

// Ok for a TrainOptions::data the trainer reads (fashion-mnist, synthetic).
graph::Status CheckTrainData(const std::string& data);

// The per-step summary line: "t_f 1.2 ms, t_b 2.3 ms, t_comm 0.4 ms (0.1 ms not
// overlapped, 25%), update 0.2 ms".
std::string StepTimesLine(const TrainReport& r);

}  // namespace trainer
