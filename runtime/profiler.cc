#include "runtime/profiler.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <set>

#include "graph/signature.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/measure.h"

namespace runtime {

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool Scheduled(const graph::Node& n) {
  return n.op != "Const" && n.op != "VariableV2" && n.op != "Variable" && n.op != "Placeholder" &&
         n.op != "NoOp";
}

graph::Status ProfileOps(const graph::Graph& g, const std::string& fetch, const cluster::Cluster& c,
                         int d, const ProfileOptions& o, Profile* profile, ProfileReport* report) {
  const cluster::DeviceSpec& spec = c.devices[d];
  GRAPH_ASSIGN_OR_RETURN(auto ex, Executor::Create(g, c, std::vector<int>(g.size(), d)));
  const graph::Graph& rg = ex->graph();  // as it runs: signatures of the rewritten ops
  std::vector<std::string> sig(rg.size());
  std::set<std::string> all, missing;
  for (graph::NodeId id = 0; id < rg.size(); ++id) {
    if (!Scheduled(rg.node(id))) continue;
    sig[id] = graph::OpSignature(rg, id);
    all.insert(sig[id]);
    if (!profile->Find(spec.name, sig[id])) missing.insert(sig[id]);
  }
  report->signatures = std::max(report->signatures, static_cast<int>(all.size()));
  if (missing.empty() && profile->dispatch_s.count(spec.name)) {
    report->reused.push_back(spec.name);
    return graph::Status::Ok();
  }
  GRAPH_ASSIGN_OR_RETURN(auto feeds, RandomFeeds(g, 1));
  std::map<std::string, std::vector<double>> seconds;
  std::map<std::string, int64_t> bytes;
  std::vector<double> dispatch;
  for (int i = 0; i < o.warmup + o.steps; ++i) {
    StepStats stats;
    std::vector<at::Tensor> out;
    graph::Status st = ex->Run(feeds, {fetch}, &out, &stats);
    if (!st.ok()) {
      return graph::Status(st.code(), "profiling on '" + spec.name + "': " + st.message());
    }
    if (i < o.warmup) continue;
    for (const OpRecord& r : stats.ops) {
      const std::string& s = sig[r.node];
      if (!missing.count(s)) continue;
      seconds[s].push_back((r.end_us - r.start_us) / 1e6);
      bytes[s] = r.bytes;
    }
    // Time between kernels: the executor's own work per op (queues, bookkeeping).
    if (!stats.ops.empty()) {
      dispatch.push_back(std::max(0.0, stats.seconds - stats.busy_us[d] / 1e6) /
                         static_cast<double>(stats.ops.size()));
    }
  }
  // The mean, not the median: a step's time is the sum of its ops' means. Samples
  // over three times the median (a preempted kernel) are left out.
  for (const auto& [s, v] : seconds) {
    const double median = Median(v);
    double sum = 0;
    int kept = 0;
    for (double x : v) {
      if (x > 3 * median) continue;
      sum += x;
      ++kept;
    }
    profile->ops[spec.name][s] = {sum / kept, bytes[s], static_cast<int>(v.size())};
  }
  if (!dispatch.empty()) profile->dispatch_s[spec.name] = Median(dispatch);
  report->new_signatures += static_cast<int>(seconds.size());
  report->measured.push_back(spec.name);
  return graph::Status::Ok();
}

// The executor's copy from `src` to `dst`: a clone on dst's worker.
graph::Status ProfileLink(const cluster::Cluster& c, int src, int dst, Profile* profile) {
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Device> device, MakeDevice(c.devices[dst]));
  std::vector<double> xs, ys;
  for (int64_t floats : {1 << 8, 1 << 12, 1 << 16, 1 << 19, 1 << 21}) {
    at::Tensor t = at::rand({floats});
    std::vector<double> times;
    for (int rep = 0; rep < 9; ++rep) {
      std::promise<double> done;
      device->Schedule([&] {
        auto t0 = std::chrono::steady_clock::now();
        at::Tensor copy = t.clone();
        done.set_value(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      });
      times.push_back(done.get_future().get());
    }
    xs.push_back(static_cast<double>(floats * 4));
    ys.push_back(Median(times));
  }
  // Least squares y = a + b x.
  const double n = static_cast<double>(xs.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    sx += xs[i];
    sy += ys[i];
    sxx += xs[i] * xs[i];
    sxy += xs[i] * ys[i];
  }
  const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double a = (sy - b * sx) / n;
  if (!(b > 0)) {
    return graph::Internal("link '" + c.devices[src].name + "' -> '" + c.devices[dst].name +
                           "': copy times do not grow with size; cannot fit a bandwidth");
  }
  profile->links[{c.devices[src].name, c.devices[dst].name}] = {std::max(0.0, a), 1 / b,
                                                                static_cast<int>(xs.size())};
  return graph::Status::Ok();
}

}  // namespace

graph::Status ProfileGraph(const graph::Graph& g, const std::string& fetch,
                           const cluster::Cluster& c, const ProfileOptions& options,
                           Profile* profile, ProfileReport* report) {
  *report = {};
  std::vector<int> real;
  for (int d = 0; d < static_cast<int>(c.devices.size()); ++d) {
    if (c.devices[d].kind != cluster::DeviceKind::kSim) real.push_back(d);
  }
  if (real.empty()) {
    return graph::InvalidArgument(c.source +
                                  ": every device is simulated; there is nothing to profile");
  }
  for (int d : real) {
    GRAPH_RETURN_IF_ERROR(ProfileOps(g, fetch, c, d, options, profile, report));
  }
  for (int a : real) {
    for (int b : real) {
      if (a == b || profile->Link(c.devices[a].name, c.devices[b].name)) continue;
      GRAPH_RETURN_IF_ERROR(ProfileLink(c, a, b, profile));
      ++report->links_measured;
    }
  }
  return graph::Status::Ok();
}

}  // namespace runtime
