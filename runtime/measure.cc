#include "runtime/measure.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "graph/summary.h"
#include "runtime/kernel.h"
#include "runtime/torch_status.h"

namespace runtime {

namespace {

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

StepTimeStats SummarizeStepTimes(std::vector<double> seconds) {
  assert(!seconds.empty());
  StepTimeStats s;
  s.n = static_cast<int>(seconds.size());
  s.median_s = MedianOf(seconds);
  s.min_s = *std::min_element(seconds.begin(), seconds.end());
  s.max_s = *std::max_element(seconds.begin(), seconds.end());
  std::vector<double> dev;
  for (double x : seconds) dev.push_back(std::fabs(x - s.median_s));
  const double limit = std::max(3 * 1.4826 * MedianOf(dev), 0.05 * s.median_s);
  double sum = 0;
  int kept = 0;
  for (double x : seconds) {
    if (std::fabs(x - s.median_s) <= limit) {
      sum += x;
      ++kept;
    }
  }
  s.outliers = s.n - kept;
  s.robust_mean_s = sum / kept;  // the median itself is always kept
  return s;
}

graph::Result<std::map<std::string, at::Tensor>> RandomFeeds(const graph::Graph& g, uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  std::map<std::string, at::Tensor> feeds;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const graph::Node& n = g.node(id);
    if (n.op != "Placeholder") continue;
    if (n.output_shapes.empty() || !n.output_shapes[0].FullyDefined()) {
      return graph::InvalidArgument("placeholder '" + n.name +
                                    "' has no static shape to make a feed of (give --batch)");
    }
    if (!HasTorchType(n.output_dtypes[0])) {
      return graph::Unimplemented("placeholder '" + n.name + "' is of type " +
                                  graph::DTypeName(n.output_dtypes[0]) + ", which cannot be fed");
    }
    const at::ScalarType type = ToTorch(n.output_dtypes[0]);
    const std::vector<int64_t>& dims = n.output_shapes[0].dims();
    // A batch too large for the host fails here, before any step: said, not thrown.
    GRAPH_RETURN_IF_ERROR(Catching(
        [&] { return "placeholder '" + n.name + "' of shape " + n.output_shapes[0].ToString(); },
        [&] {
          feeds[n.name] = at::isFloatingType(type)
                              ? at::rand(dims, gen, at::TensorOptions().dtype(type))
                              : at::zeros(dims, at::TensorOptions().dtype(type));
        }));
  }
  return feeds;
}

graph::Result<Measurement> Measure(Executor& ex, const graph::Graph& g, const std::string& fetch,
                                   const MeasureOptions& options) {
  assert(options.steps > 0 && options.warmup >= 0);
  GRAPH_ASSIGN_OR_RETURN(auto feeds, RandomFeeds(g, options.seed));
  Measurement m;
  std::vector<sim::StepStats> timed;
  for (int i = 0; i < options.warmup + options.steps; ++i) {
    sim::StepStats stats;
    std::vector<at::Tensor> out;
    if (i == options.warmup) ex.ResetPeakMemory();
    graph::Status st = ex.Run(feeds, {fetch}, &out, &stats);
    if (!st.ok()) {
      return graph::Status(st.code(), "step " + std::to_string(i + 1) + ": " + st.message());
    }
    if (m.peak_bytes.empty()) m.peak_bytes.assign(stats.peak_bytes.size(), 0);
    for (size_t d = 0; d < stats.peak_bytes.size(); ++d) {
      m.peak_bytes[d] = std::max(m.peak_bytes[d], stats.peak_bytes[d]);
    }
    if (i >= options.warmup) {
      m.step_s.push_back(stats.seconds);
      timed.push_back(std::move(stats));
    }
  }
  m.allocator_peak_bytes = ex.PeakMemory();
  m.time = SummarizeStepTimes(m.step_s);
  m.busy_s.assign(m.peak_bytes.size(), 0);
  size_t closest = 0;
  for (size_t i = 0; i < timed.size(); ++i) {
    for (size_t d = 0; d < timed[i].busy_us.size(); ++d) {
      m.busy_s[d] += timed[i].busy_us[d] / 1e6 / timed.size();
    }
    if (std::fabs(timed[i].seconds - m.time.median_s) <
        std::fabs(timed[closest].seconds - m.time.median_s)) {
      closest = i;
    }
  }
  m.median_step = std::move(timed[closest]);
  m.transfers = static_cast<int>(m.median_step.transfers.size());
  for (const sim::TransferRecord& t : m.median_step.transfers) m.transfer_bytes += t.bytes;
  return m;
}

}  // namespace runtime
