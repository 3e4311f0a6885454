#include "runtime/profiler.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "graph/signature.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/kernel.h"
#include "runtime/measure.h"

namespace runtime {

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

graph::Status ProfileOps(const graph::Graph& g, const std::string& fetch, const cluster::Cluster& c,
                         int d, const ProfileOptions& o, Profile* profile, ProfileReport* report) {
  const cluster::DeviceSpec& spec = c.devices[d];
  GRAPH_ASSIGN_OR_RETURN(auto ex, Executor::Create(g, c, std::vector<int>(g.size(), d)));
  const graph::Graph& rg = ex->graph();  // as it runs: signatures of the rewritten ops
  std::vector<std::string> sig(rg.size());
  std::set<std::string> all, missing;
  for (graph::NodeId id = 0; id < rg.size(); ++id) {
    if (!RunsKernel(rg.node(id).op)) continue;
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
  ProfileBuilder builder;
  for (int i = 0; i < o.warmup + o.steps; ++i) {
    StepStats stats;
    std::vector<at::Tensor> out;
    graph::Status st = ex->Run(feeds, {fetch}, &out, &stats);
    if (!st.ok()) {
      return graph::Status(st.code(), "profiling on '" + spec.name + "': " + st.message());
    }
    if (i >= o.warmup) builder.AddStep(rg, c, d, stats);
  }
  // Entries already in the profile are kept: measure only what was missing.
  Profile fresh;
  builder.Finish(&fresh);
  int added = 0;
  for (const auto& [s, t] : fresh.ops[spec.name]) {
    if (!missing.count(s)) continue;
    profile->ops[spec.name][s] = t;
    ++added;
  }
  if (fresh.dispatch_s.count(spec.name)) {
    profile->dispatch_s[spec.name] = fresh.dispatch_s[spec.name];
  }
  report->new_signatures += added;
  report->measured.push_back(spec.name);
  return graph::Status::Ok();
}

// The executor's copy from `src` to `dst`: a clone on dst's worker of a tensor
// src has just written (so it comes from src's caches, as in a step).
// Latency: the time of a 1 KiB copy; bandwidth: the median over the larger sizes
// of bytes / (time - latency). A least-squares line lets one noisy large copy
// swing the intercept by hundreds of microseconds on a shared machine.
graph::Status ProfileLink(const cluster::Cluster& c, int src, int dst, Profile* profile) {
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Device> from, MakeDevice(c.devices[src]));
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Device> to, MakeDevice(c.devices[dst]));
  auto on = [](Device* d, const std::function<double()>& fn) {
    std::promise<double> done;
    d->Schedule([&] { done.set_value(fn()); });
    return done.get_future().get();
  };
  std::vector<double> bytes, seconds;
  for (int64_t floats : {1 << 8, 1 << 14, 1 << 16, 1 << 18, 1 << 20}) {
    at::Tensor t = at::empty({floats});
    std::vector<double> times;
    for (int rep = 0; rep < 11; ++rep) {
      on(from.get(), [&] {
        t.fill_(static_cast<double>(rep));
        return 0.0;
      });
      times.push_back(on(to.get(), [&] {
        auto t0 = std::chrono::steady_clock::now();
        at::Tensor copy = t.clone();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }));
    }
    bytes.push_back(static_cast<double>(floats * 4));
    seconds.push_back(Median(times));
  }
  // Wake-up: src's worker hands dst's idle worker a function, as Finish does.
  std::vector<double> wakeups;
  for (int rep = 0; rep < 21; ++rep) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // dst's worker sleeps
    std::promise<double> started;
    on(from.get(), [&] {
      auto t0 = std::chrono::steady_clock::now();
      to->Schedule([&started, t0] {
        started.set_value(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      });
      return 0.0;
    });
    wakeups.push_back(started.get_future().get());
  }
  profile->wakeup_s[c.devices[dst].name] = Median(wakeups);
  const double latency = seconds[0];
  std::vector<double> bandwidths;
  for (size_t i = 1; i < bytes.size(); ++i) {
    if (seconds[i] > latency) bandwidths.push_back(bytes[i] / (seconds[i] - latency));
  }
  if (bandwidths.empty()) {
    return graph::Internal("link '" + c.devices[src].name + "' -> '" + c.devices[dst].name +
                           "': copy times do not grow with size; cannot fit a bandwidth");
  }
  profile->links[{c.devices[src].name, c.devices[dst].name}] = {latency, Median(bandwidths),
                                                                static_cast<int>(bytes.size())};
  return graph::Status::Ok();
}

// Every real cpu device runs the whole step at the same time as the others.
graph::Status ProfileSlowdown(const graph::Graph& g, const std::string& fetch,
                              const cluster::Cluster& c, const std::vector<int>& real,
                              const ProfileOptions& o, Profile* profile) {
  std::vector<int> cpus;
  for (int d : real) {
    if (c.devices[d].kind == cluster::DeviceKind::kCpu &&
        !profile->slowdown.count(c.devices[d].name)) {
      cpus.push_back(d);
    }
  }
  if (cpus.size() < 2) return graph::Status::Ok();
  std::vector<std::unique_ptr<Executor>> ex;
  for (int d : cpus) {
    GRAPH_ASSIGN_OR_RETURN(auto e, Executor::Create(g, c, std::vector<int>(g.size(), d)));
    ex.push_back(std::move(e));
  }
  GRAPH_ASSIGN_OR_RETURN(auto feeds, RandomFeeds(g, 1));
  ProfileBuilder builder;
  for (int i = 0; i < o.warmup + o.steps; ++i) {
    std::vector<StepStats> stats(cpus.size());
    std::vector<graph::Status> status(cpus.size());
    std::vector<std::thread> threads;
    for (size_t k = 0; k < cpus.size(); ++k) {
      threads.emplace_back([&, k] {
        std::vector<at::Tensor> out;
        status[k] = ex[k]->Run(feeds, {fetch}, &out, &stats[k]);
      });
    }
    for (std::thread& t : threads) t.join();
    for (size_t k = 0; k < cpus.size(); ++k) {
      if (!status[k].ok()) return status[k];
      if (i >= o.warmup) builder.AddConcurrentStep(ex[k]->graph(), c, cpus[k], stats[k]);
    }
  }
  Profile slowdowns = *profile;
  builder.Finish(&slowdowns);
  for (int d : cpus) {
    auto it = slowdowns.slowdown.find(c.devices[d].name);
    if (it != slowdowns.slowdown.end()) profile->slowdown[it->first] = it->second;
  }
  return graph::Status::Ok();
}

// The step with ops alternating (in topological order) between the first two cpu
// devices: many transfers of many sizes, refitted as the executor pays them.
graph::Status CalibrateLinks(const graph::Graph& g, const std::string& fetch,
                             const cluster::Cluster& c, const std::vector<int>& real,
                             const ProfileOptions& o, Profile* profile) {
  std::vector<int> cpus;
  for (int d : real) {
    if (c.devices[d].kind == cluster::DeviceKind::kCpu) cpus.push_back(d);
  }
  if (cpus.size() < 2) return graph::Status::Ok();
  std::vector<int> placement(g.size());
  const std::vector<graph::NodeId>& topo = g.topological_order();
  for (size_t i = 0; i < topo.size(); ++i) placement[topo[i]] = cpus[i % 2];
  GRAPH_ASSIGN_OR_RETURN(auto ex, Executor::Create(g, c, placement));
  GRAPH_ASSIGN_OR_RETURN(auto feeds, RandomFeeds(g, 1));
  ProfileBuilder builder;
  for (int i = 0; i < o.warmup + o.steps; ++i) {
    StepStats stats;
    std::vector<at::Tensor> out;
    GRAPH_RETURN_IF_ERROR(ex->Run(feeds, {fetch}, &out, &stats));
    if (i >= o.warmup) builder.AddTransfers(c, stats);
  }
  builder.Finish(profile);
  return graph::Status::Ok();
}

}  // namespace

void ProfileBuilder::AddStep(const graph::Graph& g, const cluster::Cluster& c, int device,
                             const StepStats& step) {
  const std::string& name = c.devices[device].name;
  for (const OpRecord& r : step.ops) {
    if (r.device != device) continue;
    Samples& s = ops_[{name, graph::OpSignature(g, r.node)}];
    s.seconds.push_back((r.end_us - r.start_us) / 1e6);
    s.bytes = r.bytes;
  }
  if (!step.ops.empty() && device < static_cast<int>(step.busy_us.size())) {
    dispatch_[name].push_back(std::max(0.0, step.seconds - step.busy_us[device] / 1e6) /
                              static_cast<double>(step.ops.size()));
  }
}

void ProfileBuilder::AddConcurrentStep(const graph::Graph& g, const cluster::Cluster& c, int device,
                                       const StepStats& step) {
  const std::string& name = c.devices[device].name;
  for (const OpRecord& r : step.ops) {
    if (r.device == device) {
      concurrent_[{name, graph::OpSignature(g, r.node)}].push_back((r.end_us - r.start_us) / 1e6);
    }
  }
}

void ProfileBuilder::AddTransfers(const cluster::Cluster& c, const StepStats& step) {
  for (const TransferRecord& t : step.transfers) {
    auto& v = transfers_[{c.devices[t.src_device].name, c.devices[t.dst_device].name}];
    if (v.size() < 400) {
      v.push_back({static_cast<double>(t.bytes), (t.end_us - t.start_us) / 1e6});
    }
  }
}

int ProfileBuilder::Finish(Profile* profile) const {
  for (const auto& [key, s] : ops_) {
    const double median = Median(s.seconds);
    double sum = 0;
    int kept = 0;
    for (double x : s.seconds) {
      if (x > 3 * median) continue;
      sum += x;
      ++kept;
    }
    profile->ops[key.first][key.second] = {sum / kept, s.bytes, static_cast<int>(s.seconds.size())};
  }
  for (const auto& [device, v] : dispatch_) profile->dispatch_s[device] = Median(v);
  std::map<std::string, std::pair<double, double>> ratio;  // device -> (concurrent, alone)
  for (const auto& [key, v] : concurrent_) {
    const OpTiming* alone = profile->Find(key.first, key.second);
    if (!alone) continue;
    for (double t : v) {
      if (t > 3 * Median(v)) continue;
      ratio[key.first].first += t;
      ratio[key.first].second += alone->seconds;
    }
  }
  for (const auto& [device, r] : ratio) {
    if (r.second > 0) profile->slowdown[device] = r.first / r.second;
  }
  for (const auto& [link, v] : transfers_) {
    if (v.size() < 8) continue;
    std::vector<double> slopes, intercepts;
    for (size_t i = 0; i < v.size(); ++i) {
      for (size_t j = i + 1; j < v.size(); ++j) {
        const double dx = v[j].first - v[i].first;
        if (std::fabs(dx) >= 1024) slopes.push_back((v[j].second - v[i].second) / dx);
      }
    }
    if (slopes.empty()) continue;
    const double slope = Median(slopes);
    if (!(slope > 0)) continue;
    for (const auto& [bytes, seconds] : v) intercepts.push_back(seconds - slope * bytes);
    profile->links[link] = {std::max(0.0, Median(intercepts)), 1 / slope,
                            static_cast<int>(v.size())};
  }
  return static_cast<int>(ops_.size());
}

graph::Result<int> ProfileLinks(const cluster::Cluster& c, Profile* profile) {
  int measured = 0;
  for (int a = 0; a < static_cast<int>(c.devices.size()); ++a) {
    for (int b = 0; b < static_cast<int>(c.devices.size()); ++b) {
      if (a == b || c.devices[a].kind != cluster::DeviceKind::kCpu ||
          c.devices[b].kind != cluster::DeviceKind::kCpu ||
          profile->Link(c.devices[a].name, c.devices[b].name)) {
        continue;
      }
      GRAPH_RETURN_IF_ERROR(ProfileLink(c, a, b, profile));
      ++measured;
    }
  }
  return measured;
}

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
  GRAPH_RETURN_IF_ERROR(ProfileSlowdown(g, fetch, c, real, options, profile));
  GRAPH_ASSIGN_OR_RETURN(report->links_measured, ProfileLinks(c, profile));
  if (report->links_measured > 0) {
    GRAPH_RETURN_IF_ERROR(CalibrateLinks(g, fetch, c, real, options, profile));
  }
  return graph::Status::Ok();
}

}  // namespace runtime
