#include "runtime/measure.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "graph/summary.h"
#include "runtime/kernel.h"

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
    const at::ScalarType type = ToTorch(n.output_dtypes[0]);
    const std::vector<int64_t>& dims = n.output_shapes[0].dims();
    feeds[n.name] = at::isFloatingType(type) ? at::rand(dims, gen, at::TensorOptions().dtype(type))
                                             : at::zeros(dims, at::TensorOptions().dtype(type));
  }
  return feeds;
}

graph::Result<Measurement> Measure(Executor& ex, const graph::Graph& g, const std::string& fetch,
                                   const MeasureOptions& options) {
  assert(options.steps > 0 && options.warmup >= 0);
  GRAPH_ASSIGN_OR_RETURN(auto feeds, RandomFeeds(g, options.seed));
  Measurement m;
  std::vector<StepStats> timed;
  for (int i = 0; i < options.warmup + options.steps; ++i) {
    StepStats stats;
    std::vector<at::Tensor> out;
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
  for (const TransferRecord& t : m.median_step.transfers) m.transfer_bytes += t.bytes;
  return m;
}

std::string ChromeTrace(const graph::Graph& g, const cluster::Cluster& c, const StepStats& step) {
  struct Event {
    double start, end;
    int device;
    std::string json_tail;  // everything after "tid"
  };
  std::vector<Event> events;
  for (const OpRecord& r : step.ops) {
    const graph::Node& n = g.node(r.node);
    events.push_back({r.start_us, r.end_us, r.device,
                      ",\"name\":" + graph::JsonQuote(n.name) +
                          ",\"cat\":\"op\",\"args\":{\"op\":" + graph::JsonQuote(n.op) + "}"});
  }
  for (const TransferRecord& t : step.transfers) {
    events.push_back({t.start_us, t.end_us, t.dst_device,
                      ",\"name\":" + graph::JsonQuote("copy " + g.node(t.from_node).name) +
                          ",\"cat\":\"transfer\",\"args\":{\"bytes\":" + std::to_string(t.bytes) +
                          ",\"from\":" + graph::JsonQuote(c.devices[t.src_device].name) + "}"});
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.start < b.start; });
  // Events of one row must not overlap: each goes to the first row of its device
  // that is free when it starts.
  std::vector<std::vector<double>> row_free(c.devices.size());
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
  char buf[160];
  bool first = true;
  std::vector<int> rows_used(c.devices.size(), 0);
  for (const Event& e : events) {
    std::vector<double>& rows = row_free[e.device];
    size_t row = 0;
    while (row < rows.size() && rows[row] > e.start) ++row;
    if (row == rows.size()) rows.push_back(0);
    rows[row] = e.end;
    rows_used[e.device] = std::max<int>(rows_used[e.device], row + 1);
    std::snprintf(buf, sizeof(buf), "{\"ph\":\"X\",\"pid\":0,\"ts\":%.3f,\"dur\":%.3f,\"tid\":%d",
                  e.start, std::max(0.0, e.end - e.start), e.device * 1000 + static_cast<int>(row));
    out += (first ? "" : ",\n") + std::string(buf) + e.json_tail + "}";
    first = false;
  }
  for (size_t d = 0; d < c.devices.size(); ++d) {
    for (int row = 0; row < std::max(1, rows_used[d]); ++row) {
      std::string name = c.devices[d].name + (row ? " #" + std::to_string(row + 1) : "");
      std::snprintf(buf, sizeof(buf), "{\"ph\":\"M\",\"pid\":0,\"tid\":%d,",
                    static_cast<int>(d) * 1000 + row);
      out += (first ? "" : ",\n") + std::string(buf) +
             "\"name\":\"thread_name\",\"args\":{\"name\":" + graph::JsonQuote(name) + "}}";
      first = false;
    }
  }
  return out + "]}\n";
}

}  // namespace runtime
