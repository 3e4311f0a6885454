// Measuring the training step of a placed graph: random feeds, warm-up steps,
// timed steps and their statistics, and the timeline as a Chrome trace. What
// `planner measure` prints and what a real-hardware reward is made of.
//
// Thread safety: Measure runs steps on an Executor, one at a time (see
// executor.h); the other functions are pure.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "runtime/executor.h"

namespace runtime {

struct MeasureOptions {
  int warmup = 2;     // untimed steps first: allocator, caches and oneDNN primitives warm up
  int steps = 10;     // timed steps
  uint64_t seed = 1;  // of the random feeds
};

// A sample of step times. The robust mean is the mean of the samples within
// three scaled median absolute deviations (1.4826 MAD, the normal-consistent
// scale) of the median, and never leaves out one within 5% of it (with a few
// samples the MAD can be near zero): on a shared machine a step now and then is
// slowed by something else, and such a step says nothing about the placement.
struct StepTimeStats {
  int n = 0;
  int outliers = 0;  // samples the robust mean left out
  double robust_mean_s = 0, min_s = 0, median_s = 0, max_s = 0;
};
StepTimeStats SummarizeStepTimes(std::vector<double> seconds);  // seconds not empty

struct Measurement {
  StepTimeStats time;
  std::vector<double> step_s;       // each timed step, in order
  std::vector<double> busy_s;       // per device: mean busy time of a timed step
  std::vector<int64_t> peak_bytes;  // per device: the highest of any step, warm-up included
  // Per device: what its allocator held at most over the timed steps (a GPU's
  // caching allocator: tensors, its cache and the kernels' workspaces, which
  // the executor's own accounting above does not see); -1: no such figure.
  std::vector<int64_t> allocator_peak_bytes;
  int transfers = 0;           // cross-device copies in one step
  int64_t transfer_bytes = 0;  // their bytes
  sim::StepStats median_step;  // the timeline of the timed step closest to the median
};

// One feed for every Placeholder of `g`, of its inferred (fully defined) shape:
// floats uniform in [0, 1), integers and booleans zero (a valid label, index or
// mask for any size). Fails naming a placeholder without a static shape.
graph::Result<std::map<std::string, at::Tensor>> RandomFeeds(const graph::Graph& g, uint64_t seed);

// Runs options.warmup + options.steps training steps of `ex` (built on `g`),
// fetching `fetch`. An error in any step (out of memory, a kernel's) ends it.
graph::Result<Measurement> Measure(Executor& ex, const graph::Graph& g, const std::string& fetch,
                                   const MeasureOptions& options);

}  // namespace runtime
