#include "runtime/profiler.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <future>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>

#include "graph/signature.h"
#include "runtime/copies.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/kernel.h"
#include "runtime/measure.h"
#include "runtime/torch_status.h"
#include "sim/rewrite.h"
#include "sim/statistics.h"
#include "sim/timeline_diff.h"

namespace runtime {

namespace {

// A GPU's first profiled step holds each op's kernels back this long; later
// steps as long as HoldFor says.
constexpr double kFirstHoldS = 100e-6;

// Runs `fn` on `d`'s worker and returns what it returns.
double On(Device* d, const std::function<double()>& fn) {
  std::promise<double> done;
  d->Schedule([&] { done.set_value(fn()); });
  return done.get_future().get();
}

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What handing `to` an op from `from`'s worker costs, as the executor's
// Finish does it: the receiving worker's start when it sleeps (wake-up) and
// when it still polls (poll), and the sender's own time in Schedule when it
// must wake a sleeper (notify). Medians of 21.
void ProfileHandOff(Device* from, Device* to, const cluster::DeviceSpec& dst,
                    sim::Profile* profile) {
  std::vector<double> wakeups, notifies, polls;
  to->SetPolling(true);  // as during a step
  const auto asleep = std::chrono::duration<double>(dst.spin_s + 300e-6);
  for (int rep = 0; rep < 21; ++rep) {
    std::this_thread::sleep_for(asleep);  // dst's worker has stopped polling
    std::promise<double> started;
    const double notify = On(from, [&] {
      const auto t0 = std::chrono::steady_clock::now();
      to->Schedule([&started, t0] { started.set_value(Since(t0)); });
      return Since(t0);
    });
    wakeups.push_back(started.get_future().get());
    notifies.push_back(notify);
    On(to, [] { return 0.0; });  // dst's worker has just finished: it polls
    std::promise<double> polled;
    On(from, [&] {
      const auto t0 = std::chrono::steady_clock::now();
      to->Schedule([&polled, t0] { polled.set_value(Since(t0)); });
      return 0.0;
    });
    polls.push_back(polled.get_future().get());
  }
  to->SetPolling(false);
  profile->wakeup_s[dst.name] = sim::Median(wakeups);
  profile->notify_s[dst.name] = sim::Median(notifies);
  profile->poll_s[dst.name] = sim::Median(polls);
}

// Inside Catching (runtime/torch_status.h): a failed status as an exception.
void Check(const graph::Status& st) {
  if (!st.ok()) throw std::runtime_error(st.message());
}

// Latency: the time of the smallest copy; bandwidth: the median over the
// larger sizes of bytes / (time - latency). A least-squares line lets one noisy
// large copy swing the intercept by hundreds of microseconds on a shared machine.
graph::Status FitLink(const cluster::Cluster& c, int src, int dst, const std::vector<double>& bytes,
                      const std::vector<double>& seconds, sim::Profile* profile) {
  const double latency = seconds[0];
  std::vector<double> bandwidths;
  for (size_t i = 1; i < bytes.size(); ++i) {
    if (seconds[i] > latency) bandwidths.push_back(bytes[i] / (seconds[i] - latency));
  }
  if (bandwidths.empty()) {
    return graph::Internal("link '" + c.devices[src].name + "' -> '" + c.devices[dst].name +
                           "': copy times do not grow with size; cannot fit a bandwidth");
  }
  profile->links[{c.devices[src].name, c.devices[dst].name}] = {latency, sim::Median(bandwidths),
                                                                static_cast<int>(bytes.size())};
  return graph::Status::Ok();
}

// A small kernel's launch on a GPU's worker (Profile::launch_s): the median of
// 5 runs of 200.
graph::Result<double> MeasureLaunch(const cluster::DeviceSpec& spec) {
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Device> device, MakeDevice(spec));
  std::vector<double> launches;
  graph::Status st = Catching([&] { return "device '" + spec.name + "'"; },
                              [&] {
                                at::Tensor x = at::zeros({256}).to(device->torch_device());
                                for (int run = 0; run < 5; ++run) {
                                  launches.push_back(On(device.get(), [&] {
                                    const auto t0 = std::chrono::steady_clock::now();
                                    for (int i = 0; i < 200; ++i) x.add_(1);
                                    return Since(t0) / 200;
                                  }));
                                  Check(device->Synchronize());
                                }
                              });
  GRAPH_RETURN_IF_ERROR(st);
  return sim::Median(launches);
}

// The executor's copy from `src` to `dst`: a clone on dst's worker of a tensor
// src has just written (so it comes from src's caches, as in a step).
// Latency: the time of a 1 KiB copy; bandwidth: the median over the larger sizes
// of bytes / (time - latency). A least-squares line lets one noisy large copy
// swing the intercept by hundreds of microseconds on a shared machine.
graph::Status ProfileLink(const cluster::Cluster& c, int src, int dst, sim::Profile* profile) {
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Device> from, MakeDevice(c.devices[src], c.source));
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Device> to, MakeDevice(c.devices[dst], c.source));
  std::vector<double> bytes, seconds;
  for (int64_t floats : {1 << 8, 1 << 14, 1 << 16, 1 << 18, 1 << 20}) {
    at::Tensor t = at::empty({floats});
    std::vector<double> times;
    for (int rep = 0; rep < 11; ++rep) {
      On(from.get(), [&] {
        t.fill_(static_cast<double>(rep));
        return 0.0;
      });
      times.push_back(On(to.get(), [&] {
        const auto t0 = std::chrono::steady_clock::now();
        at::Tensor copy = t.clone();
        return Since(t0);
      }));
    }
    bytes.push_back(static_cast<double>(floats * 4));
    seconds.push_back(sim::Median(times));
  }
  ProfileHandOff(from.get(), to.get(), c.devices[dst], profile);
  return FitLink(c, src, dst, bytes, seconds, profile);
}

// Copies as the executor makes them between a cpu and a cuda device, or
// within a GPU (src == dst, a clone): `Tensor::to` from pageable host memory
// or into it, timed to the GPU's synchronisation; 4 KiB to 64 MiB, medians of 7.
graph::Status ProfileGpuLink(const cluster::Cluster& c, int src, int dst, sim::Profile* profile) {
  const int gpu = c.devices[src].kind == cluster::DeviceKind::kCuda ? src : dst;
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Device> device, MakeDevice(c.devices[gpu], c.source));
  const c10::Device from = src == gpu ? device->torch_device() : c10::Device(c10::kCPU);
  const c10::Device to = dst == gpu ? device->torch_device() : c10::Device(c10::kCPU);
  std::vector<double> bytes, seconds;
  graph::Status st = Catching(
      [&] { return "link '" + c.devices[src].name + "' -> '" + c.devices[dst].name + "'"; },
      [&] {
        for (int64_t floats : {1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 24}) {
          const at::Tensor x = at::rand({floats}).to(from);
          std::vector<double> times;
          for (int rep = 0; rep < 8; ++rep) {
            Check(device->Synchronize());
            const auto t0 = std::chrono::steady_clock::now();
            at::Tensor y = from == to ? x.clone() : CopyAcross(x, to, c.devices[src]);
            Check(device->Synchronize());
            if (rep > 0) times.push_back(Since(t0));  // the first warms the allocator
          }
          bytes.push_back(static_cast<double>(floats * 4));
          seconds.push_back(sim::Median(times));
        }
      });
  GRAPH_RETURN_IF_ERROR(st);
  return FitLink(c, src, dst, bytes, seconds, profile);
}

// The prefix of the second copy's node names in the parallel step.
constexpr char kParallelCopy[] = "parallel_copy/";

// The executors and feeds of one profiling run, and what each round runs.
struct Rounds {
  std::map<int, std::unique_ptr<Executor>> single;  // device -> every op on it
  std::vector<int> wanted;                // devices whose op times and dispatch go into the profile
  std::vector<int> measure;               // devices run alone each round: wanted, and shared ones
  std::vector<int> shared;                // cpus whose sharing figures the alternating steps give
  std::unique_ptr<Executor> alternating;  // ops alternating between two cpus, or null
  std::unique_ptr<Executor> parallel;     // a copy of the graph on each of two cpus, or null
  std::map<std::string, at::Tensor> parallel_feeds;  // its feeds: both copies'
  std::unique_ptr<Executor> gpu_split;    // ops alternating between a cpu and a GPU, or null
  std::map<std::string, at::Tensor> feeds;
};

// The untimed steps before a timed step of device `d`: a GPU's timed step
// already follows its step without kernel timing.
int WarmSteps(const cluster::Cluster& c, int d, int warm_steps) {
  return c.devices[d].kind == cluster::DeviceKind::kCuda ? 0 : warm_steps;
}

// One step into `stats`, after `warm` untimed ones on the same executor.
graph::Status RunStep(Executor& ex, const Rounds& r, const std::string& fetch,
                      const std::string& what, sim::StepStats* stats, int warm = 0) {
  const std::map<std::string, at::Tensor>& feeds =
      &ex == r.parallel.get() ? r.parallel_feeds : r.feeds;
  std::vector<at::Tensor> out;
  graph::Status st = graph::Status::Ok();
  for (int i = 0; i < warm && st.ok(); ++i) st = ex.Run(feeds, {fetch}, &out, nullptr);
  if (st.ok()) st = ex.Run(feeds, {fetch}, &out, stats);
  if (!st.ok()) return graph::Status(st.code(), "profiling " + what + ": " + st.message());
  return st;
}

// How long to hold each op's kernels back in a GPU's next timed step: longer
// than most ops' launches (4x their median, at least 20 us), so that an op's
// kernels have all queued when the first starts; at most 1 ms, which an op
// launching longer (a first call choosing an algorithm) gets measured with
// part of its launch.
double HoldFor(const sim::StepStats& step) {
  std::vector<double> launches;
  for (const sim::OpRecord& r : step.ops) launches.push_back((r.end_us - r.start_us) / 1e6);
  if (launches.empty()) return kFirstHoldS;
  return std::clamp(4 * sim::Median(launches), 20e-6, 1e-3);
}

// One round: a step on each device in turn, then (when asked) the alternating
// placement, and with `split` the step split between a cpu and a GPU. `timed`:
// add them to the builder.
graph::Status RunRound(const Rounds& r, const std::string& fetch, const cluster::Cluster& c,
                       bool timed, bool split, int warm_steps, ProfileBuilder* b) {
  for (int d : r.measure) {
    Executor& ex = *r.single.at(d);
    const std::string what = "on '" + c.devices[d].name + "'";
    sim::StepStats stats;
    if (c.devices[d].kind == cluster::DeviceKind::kCuda) {
      // A GPU's host times from a step as the executor runs it, its kernels'
      // from a step with kernel timing: the timing's waits before each op
      // change what the host spends around its launches.
      ex.set_kernel_timing(false);
      GRAPH_RETURN_IF_ERROR(RunStep(ex, r, fetch, what, &stats));
      if (timed) b->AddStep(ex.graph(), c, d, stats);
      ex.set_kernel_timing(true, HoldFor(stats));
      stats = {};
    }
    GRAPH_RETURN_IF_ERROR(RunStep(ex, r, fetch, what, &stats, WarmSteps(c, d, warm_steps)));
    if (timed) b->AddStep(ex.graph(), c, d, stats);
  }
  if (r.alternating) {
    sim::StepStats stats;
    GRAPH_RETURN_IF_ERROR(
        RunStep(*r.alternating, r, fetch, "with ops alternating", &stats, warm_steps));
    if (timed) b->AddSharedStep(r.alternating->graph(), c, stats);
  }
  if (r.parallel) {
    sim::StepStats stats;
    GRAPH_RETURN_IF_ERROR(
        RunStep(*r.parallel, r, fetch, "with a copy of the graph on each cpu", &stats, warm_steps));
    if (timed) b->AddParallelStep(r.parallel->graph(), c, stats);
  }
  if (r.gpu_split && split) {
    sim::StepStats stats;
    GRAPH_RETURN_IF_ERROR(
        RunStep(*r.gpu_split, r, fetch, "with ops alternating between a cpu and a GPU", &stats));
    if (timed) b->AddGpuSplitStep(c, stats);
  }
  return graph::Status::Ok();
}

// The devices among `real` whose profile lacks one of g's signatures or its
// dispatch time; counts the graph's signatures into the report.
std::vector<int> DevicesToMeasure(const graph::Graph& rg, const cluster::Cluster& c,
                                  const std::vector<int>& real, const sim::Profile& profile,
                                  ProfileReport* report) {
  std::set<std::string> all;
  for (graph::NodeId id = 0; id < rg.size(); ++id) {
    if (RunsKernel(rg.node(id).op)) all.insert(graph::OpSignature(rg, id));
  }
  report->signatures = static_cast<int>(all.size());
  std::vector<int> out;
  for (int d : real) {
    const std::string& name = c.devices[d].name;
    bool complete = profile.dispatch_s.count(name) > 0;
    for (const std::string& s : all) complete = complete && profile.Find(name, s);
    (complete ? report->reused : report->measured).push_back(name);
    if (!complete) out.push_back(d);
  }
  return out;
}

// What was measured now goes into `profile`: only the signatures it lacked,
// the dispatch times of the devices measured, the sharing figures asked for,
// and the links when they were measured now.
void Merge(const sim::Profile& fresh, const cluster::Cluster& c, const Rounds& r,
           sim::Profile* profile, ProfileReport* report) {
  for (int d : r.wanted) {
    const std::string& name = c.devices[d].name;
    auto ops = fresh.ops.find(name);
    if (ops == fresh.ops.end()) continue;
    for (const auto& [sig, t] : ops->second) {
      if (profile->Find(name, sig)) continue;
      profile->ops[name][sig] = t;
      ++report->new_signatures;
    }
    auto it = fresh.dispatch_s.find(name);
    if (it != fresh.dispatch_s.end()) profile->dispatch_s[name] = it->second;
    auto launch = fresh.launch_s.find(name);
    if (launch != fresh.launch_s.end()) profile->launch_s[name] = launch->second;
    auto host = fresh.host_s.find(name);
    if (host == fresh.host_s.end()) continue;
    for (const auto& [sig, s] : host->second) {
      if (profile->HostSeconds(name, sig) < 0) profile->host_s[name][sig] = s;
    }
  }
  for (int d : r.shared) {
    const std::string& name = c.devices[d].name;
    for (auto [from, to] : {std::pair{&fresh.slowdown, &profile->slowdown},
                            std::pair{&fresh.dispatch_shared_s, &profile->dispatch_shared_s},
                            std::pair{&fresh.poll_s, &profile->poll_s}}) {
      auto it = from->find(name);
      if (it != from->end()) (*to)[name] = it->second;
    }
    auto cold = fresh.cold_s.find(name);
    if (cold != fresh.cold_s.end()) profile->cold_s[name] = cold->second;
    auto cross = fresh.dispatch_cross_s.find(name);
    if (cross != fresh.dispatch_cross_s.end()) profile->dispatch_cross_s[name] = cross->second;
    // The parallel figures pair with the alternating ones measured beside
    // them: a device measured now without them loses the old ones.
    for (auto [from, to] : {std::pair{&fresh.parallel_slowdown, &profile->parallel_slowdown},
                            std::pair{&fresh.shared_cross, &profile->shared_cross}}) {
      auto it = from->find(name);
      if (it != from->end()) {
        (*to)[name] = it->second;
      } else {
        to->erase(name);
      }
    }
    auto par_cold = fresh.parallel_cold_s.find(name);
    if (par_cold != fresh.parallel_cold_s.end()) {
      profile->parallel_cold_s[name] = par_cold->second;
    } else {
      profile->parallel_cold_s.erase(name);
    }
  }
  if (report->links_measured > 0) {
    for (const auto& [pair, fit] : fresh.links) profile->links[pair] = fit;
  }
}

// Each measured device's steps, spread and speed against the first.
void DescribeDevices(const sim::Profile& fresh, const ProfileBuilder& b, const cluster::Cluster& c,
                     const Rounds& r, ProfileReport* report) {
  const std::map<std::string, sim::OpTiming>* first = nullptr;
  for (int d : r.wanted) {
    const std::string& name = c.devices[d].name;
    DeviceProfileReport dr{name, b.KeptSteps(name), b.SlowSteps(name)};
    auto ops = fresh.ops.find(name);
    if (ops != fresh.ops.end()) {
      std::vector<double> spreads, ratios;
      for (const auto& [sig, t] : ops->second) {
        spreads.push_back(t.spread);
        if (!first) continue;
        auto other = first->find(sig);
        if (other != first->end() && other->second.seconds > 1e-6) {
          ratios.push_back(t.seconds / other->second.seconds);
        }
      }
      if (!spreads.empty()) dr.median_spread = sim::Median(spreads);
      if (!ratios.empty()) dr.relative_speed = sim::Median(ratios);
      if (!first) first = &ops->second;
    }
    report->devices.push_back(dr);
  }
}

}  // namespace

void ProfileBuilder::AddStep(const graph::Graph& g, const cluster::Cluster& c, int device,
                             const sim::StepStats& step) {
  const std::string& name = c.devices[device].name;
  if (c.devices[device].kind == cluster::DeviceKind::kCuda && !KernelsTimed(step, device)) {
    if (!step.replayed) AddLaunches(g, name, device, step);  // a replay launches no op
    return;
  }
  std::vector<double>& steps = dispatch_[name];
  const int id = static_cast<int>(steps.size());
  // A GPU's ops with kernel spans: their time is the kernels'.
  bool kernels_timed = false;
  for (const sim::OpRecord& r : step.ops) {
    if (r.device != device) continue;
    const std::string sig = graph::OpSignature(g, r.node);
    Samples& s = ops_[{name, sig}];
    const bool spans = r.kernel_start_us >= 0 && r.kernel_end_us >= r.kernel_start_us;
    s.samples.push_back(
        {id, (spans ? r.kernel_end_us - r.kernel_start_us : r.end_us - r.start_us) / 1e6});
    s.bytes = r.bytes;
    kernels_timed = kernels_timed || spans;
  }
  const bool timed = !step.ops.empty() && device < static_cast<int>(step.busy_us.size());
  const double ops = static_cast<double>(step.ops.size());
  // A GPU's dispatch comes from its untimed steps (AddLaunches): -1 holds the
  // timed step's place among the device's steps.
  if (kernels_timed || !timed) {
    steps.push_back(-1);
  } else {
    steps.push_back(std::max(0.0, step.seconds - step.busy_us[device] / 1e6) / ops);
  }
}

bool ProfileBuilder::KernelsTimed(const sim::StepStats& step, int device) {
  for (const sim::OpRecord& r : step.ops) {
    if (r.device == device && r.kernel_start_us >= 0 && r.kernel_end_us >= r.kernel_start_us) {
      return true;
    }
  }
  return false;
}

void ProfileBuilder::AddLaunches(const graph::Graph& g, const std::string& name, int device,
                                 const sim::StepStats& step) {
  // The worker's op records are its launches; the rest of its time from the
  // step's start to the last launch's end is the executor's, per op (the
  // simulator charges it before each op, the first one too).
  double launch_us = 0, last_us = 0;
  int ops = 0;
  for (const sim::OpRecord& r : step.ops) {
    if (r.device != device) continue;
    host_[{name, graph::OpSignature(g, r.node)}].push_back((r.end_us - r.start_us) / 1e6);
    launch_us += r.end_us - r.start_us;
    last_us = std::max(last_us, r.end_us);
    ++ops;
  }
  if (ops > 0) launch_dispatch_[name].push_back(std::max(0.0, last_us - launch_us) / 1e6 / ops);
}

namespace {

// Per cpu device, the times (us) it was busy: its ops and the copies it made.
std::vector<std::vector<std::pair<double, double>>> BusyTimes(const cluster::Cluster& c,
                                                              const sim::StepStats& step) {
  std::vector<std::vector<std::pair<double, double>>> busy(c.devices.size());
  for (const sim::OpRecord& r : step.ops) busy[r.device].push_back({r.start_us, r.end_us});
  for (const sim::TransferRecord& t : step.transfers)
    busy[t.dst_device].push_back({t.start_us, t.end_us});
  for (auto& b : busy) std::sort(b.begin(), b.end());
  return busy;
}

// Whether a cpu device other than `d` was awake at `t`: busy then, or (with
// `polling`) idle for less than its spin time (its worker polled).
bool OtherAwake(const cluster::Cluster& c,
                const std::vector<std::vector<std::pair<double, double>>>& busy, int d, double t,
                bool polling = true) {
  for (size_t o = 0; o < busy.size(); ++o) {
    if (static_cast<int>(o) == d || c.devices[o].kind != cluster::DeviceKind::kCpu) continue;
    double last_end = -1e300;
    for (const auto& [start, end] : busy[o]) {
      if (start > t) break;
      if (end > t) return true;
      last_end = std::max(last_end, end);
    }
    if (polling && t - last_end <= c.devices[o].spin_s * 1e6) return true;
  }
  return false;
}

// Per device, its ops' edges to other devices per op (Profile::dispatch_cross_s):
// inputs made on another device and consumers run on another; a node that ran
// no kernel is on the device a transfer of it left from, if any.
std::vector<double> CrossEdgesPerOp(const graph::Graph& g, const cluster::Cluster& c,
                                    const sim::StepStats& step) {
  std::vector<int> device(g.size(), -1);
  std::vector<char> ran(g.size(), 0);
  for (const sim::OpRecord& r : step.ops) device[r.node] = r.device, ran[r.node] = 1;
  for (const sim::TransferRecord& t : step.transfers) {
    if (device[t.from_node] < 0) device[t.from_node] = t.src_device;
  }
  std::vector<double> edges(c.devices.size(), 0), ops(c.devices.size(), 0);
  for (const sim::OpRecord& r : step.ops) {
    ops[r.device] += 1;
    for (const graph::TensorRef& in : g.node(r.node).inputs) {
      const int from = device[in.node];
      if (from < 0 || from == r.device) continue;
      edges[r.device] += 1;
      if (ran[in.node]) edges[from] += 1;
    }
  }
  for (size_t d = 0; d < edges.size(); ++d) edges[d] = ops[d] > 0 ? edges[d] / ops[d] : 0;
  return edges;
}

}  // namespace

void ProfileBuilder::AddSharedStep(const graph::Graph& g, const cluster::Cluster& c,
                                   const sim::StepStats& step) {
  for (const sim::TransferRecord& t : step.transfers) AddTransfer(c, t);
  const auto busy = BusyTimes(c, step);
  const std::vector<double> cross = CrossEdgesPerOp(g, c, step);
  AddKernels(g, c, step, &shared_kernels_);
  std::vector<char> ran(c.devices.size(), 0);
  for (const sim::OpGap& o : sim::OpGaps(g, c, step)) {
    const cluster::DeviceSpec& spec = c.devices[o.device];
    if (spec.kind != cluster::DeviceKind::kCpu) continue;
    ran[o.device] = 1;
    const double gap_us = o.start_us - o.copies_us - o.prev_end_us;
    if (o.ready_us > o.prev_end_us && o.ready_us - o.prev_end_us <= spec.spin_s * 1e6) {
      shared_poll_[spec.name].push_back(std::max(0.0, o.start_us - o.copies_us - o.ready_us) / 1e6);
    }
    const bool queued = o.ready_us <= o.prev_end_us && o.prev_end_us > 0;
    if (queued) {
      cross_dispatch_[spec.name].push_back({std::max(0.0, gap_us) / 1e6, cross[o.device]});
    }
    if (queued && OtherAwake(c, busy, o.device, o.start_us)) {
      shared_dispatch_[spec.name].push_back(std::max(0.0, gap_us) / 1e6);
    }
  }
  for (size_t d = 0; d < ran.size(); ++d) {
    if (ran[d]) shared_cross_[c.devices[d].name].push_back(cross[d]);
  }
}

void ProfileBuilder::AddParallelStep(const graph::Graph& g, const cluster::Cluster& c,
                                     const sim::StepStats& step) {
  AddKernels(g, c, step, &parallel_kernels_);
}

int ProfileBuilder::ParallelOverlaps(const std::string& device) const {
  auto it = parallel_kernels_.find(device);
  if (it == parallel_kernels_.end()) return 0;
  return static_cast<int>(std::count_if(it->second.begin(), it->second.end(),
                                        [](const SharedKernel& k) { return k.other_busy; }));
}

void ProfileBuilder::AddKernels(const graph::Graph& g, const cluster::Cluster& c,
                                const sim::StepStats& step,
                                std::map<std::string, std::vector<SharedKernel>>* into) {
  const auto busy = BusyTimes(c, step);
  for (const sim::OpGap& o : sim::OpGaps(g, c, step)) {
    const cluster::DeviceSpec& spec = c.devices[o.device];
    if (spec.kind != cluster::DeviceKind::kCpu) continue;
    const double gap_us = o.start_us - o.copies_us - o.prev_end_us;
    (*into)[spec.name].push_back({graph::OpSignature(g, o.node), (o.end_us - o.start_us) / 1e6,
                                  std::max(0.0, gap_us) / 1e6,
                                  OtherAwake(c, busy, o.device, o.start_us),
                                  OtherAwake(c, busy, o.device, o.start_us, false)});
  }
}

void ProfileBuilder::AddGpuSplitStep(const cluster::Cluster& c, const sim::StepStats& step) {
  for (const sim::TransferRecord& t : step.transfers) {
    const cluster::DeviceKind from = c.devices[t.src_device].kind,
                              to = c.devices[t.dst_device].kind;
    const bool crosses = (from == cluster::DeviceKind::kCpu && to == cluster::DeviceKind::kCuda) ||
                         (from == cluster::DeviceKind::kCuda && to == cluster::DeviceKind::kCpu);
    if (crosses) AddTransfer(c, t);
  }
}

void ProfileBuilder::AddTransfer(const cluster::Cluster& c, const sim::TransferRecord& t) {
  auto& v = transfers_[{c.devices[t.src_device].name, c.devices[t.dst_device].name}];
  if (v.size() < kMaxTransfersPerLink) {
    v.push_back({static_cast<double>(t.bytes), (t.end_us - t.start_us) / 1e6});
  }
}

const std::vector<double>& ColdIdleBins() {
  static const std::vector<double> bins{5e-6, 20e-6, 50e-6, 200e-6, 1e9};
  return bins;
}

ProfileBuilder::SharingFit ProfileBuilder::FitSharing(const std::string& device,
                                                      const std::vector<SharedKernel>& kernels,
                                                      const sim::Profile& profile) const {
  const std::vector<double>& bins = ColdIdleBins();
  constexpr int kMinPerBin = 8;
  // Extras are measured on kernels this short alone, where a few microseconds
  // show above the noise of the slowdown (5% of a millisecond kernel is 50 us).
  constexpr double kSmall = 50e-6;
  struct Kernel {
    double seconds, alone;
    int bin;
    bool other_awake;
  };
  std::vector<Kernel> kept;
  for (const SharedKernel& k : kernels) {
    const sim::OpTiming* alone = profile.Find(device, k.signature);
    if (!alone || k.seconds > 3 * alone->seconds + 20e-6) continue;
    const int bin =
        static_cast<int>(std::upper_bound(bins.begin(), bins.end(), k.idle_s) - bins.begin());
    kept.push_back({k.seconds, alone->seconds, std::min(bin, static_cast<int>(bins.size()) - 1),
                    k.other_awake});
  }
  double slowdown = 1;
  bool shared = false;
  std::vector<double> extra(bins.size(), 0);
  for (int round = 0; round < 8; ++round) {
    double with = 0, alone = 0;
    for (const Kernel& k : kept) {
      if (!k.other_awake) continue;
      with += k.seconds - extra[k.bin];
      alone += k.alone;
    }
    // Under load the cold-start extras can exceed the kernels' own times:
    // no slowdown is measured then (a factor <= 0 is no time at all, and
    // ReadProfile refuses it, so the cache would be profiled anew every run).
    shared = alone > 0 && with > 0;
    if (shared) slowdown = with / alone;
    std::vector<double> sum(bins.size(), 0);
    std::vector<int> n(bins.size(), 0);
    for (const Kernel& k : kept) {
      if (k.alone > kSmall) continue;
      sum[k.bin] += k.seconds - k.alone * (k.other_awake ? slowdown : 1);
      ++n[k.bin];
    }
    for (size_t b = 0; b < bins.size(); ++b) {
      extra[b] = !previous_model_ && n[b] >= kMinPerBin ? std::max(0.0, sum[b] / n[b]) : 0;
    }
  }
  SharingFit fit{shared, slowdown, {}, {}};
  std::vector<int> n(bins.size(), 0);
  for (const Kernel& k : kept) n[k.bin] += k.alone <= kSmall;
  for (size_t b = 0; b < bins.size(); ++b) {
    fit.cold.push_back({bins[b], extra[b]});
    fit.bin_measured.push_back(n[b] >= kMinPerBin);
  }
  return fit;
}

std::set<int> ProfileBuilder::SlowStepIds(const std::string& device) const {
  // Per step, the median over its ops of (time / the op signature's median
  // time): how much slower than usual the device ran then. Ops under a
  // microsecond are left out: their times are mostly the clock's.
  std::map<int, std::vector<double>> ratios;
  for (auto it = ops_.lower_bound({device, ""}); it != ops_.end() && it->first.first == device;
       ++it) {
    std::vector<double> seconds;
    for (const Sample& x : it->second.samples) seconds.push_back(x.seconds);
    const double median = sim::Median(seconds);
    if (median < 1e-6) continue;
    for (const Sample& x : it->second.samples) ratios[x.step].push_back(x.seconds / median);
  }
  std::set<int> slow;
  for (const auto& [step, r] : ratios) {
    if (sim::Median(r) > 1 + slow_tolerance_) slow.insert(step);
  }
  return slow;
}

int ProfileBuilder::KeptSteps(const std::string& device) const {
  auto it = dispatch_.find(device);
  if (it == dispatch_.end()) return 0;
  return static_cast<int>(it->second.size()) -
         (op_time_ == OpTime::kSteadyMean ? SlowSteps(device) : 0);
}

int ProfileBuilder::SlowSteps(const std::string& device) const {
  return static_cast<int>(SlowStepIds(device).size());
}

bool ParseGpuLinks(const std::string& name, GpuLinks* out) {
  if (name == "step") return *out = GpuLinks::kStep, true;
  if (name == "copies") return *out = GpuLinks::kCopies, true;
  return false;
}

bool ParseOpTime(const std::string& name, OpTime* out) {
  if (name == "steady-mean") return *out = OpTime::kSteadyMean, true;
  if (name == "step-median") return *out = OpTime::kStepMedian, true;
  if (name == "mean") return *out = OpTime::kMean, true;
  return false;
}

int ProfileBuilder::Finish(sim::Profile* profile) const {
  std::map<std::string, std::set<int>> slow;
  if (op_time_ == OpTime::kSteadyMean) {
    for (const auto& [device, steps] : dispatch_) slow[device] = SlowStepIds(device);
  }
  int written = 0;
  for (const auto& [key, s] : ops_) {
    const std::set<int>& left_out = slow[key.first];
    std::vector<double> kept;
    for (const Sample& x : s.samples) {
      if (!left_out.count(x.step)) kept.push_back(x.seconds);
    }
    if (kept.empty()) continue;
    const double median = sim::Median(kept);
    std::vector<double> deviations;
    for (double x : kept) deviations.push_back(std::fabs(x - median));
    std::map<int, std::pair<double, int>> per_step;  // step -> sum, count
    double sum = 0;
    int n = 0;
    for (const Sample& x : s.samples) {
      if (left_out.count(x.step) || x.seconds > 3 * median) continue;
      per_step[x.step].first += x.seconds;
      ++per_step[x.step].second;
      sum += x.seconds;
      ++n;
    }
    double seconds = n > 0 ? sum / n : median;
    if (op_time_ == OpTime::kStepMedian) {
      std::vector<double> step_means;
      for (const auto& [step, v] : per_step) step_means.push_back(v.first / v.second);
      seconds = sim::Median(step_means);
    }
    const double spread = median > 0 ? sim::Median(deviations) / median : 0;
    profile->ops[key.first][key.second] = {seconds, s.bytes, static_cast<int>(kept.size()), spread};
    ++written;
  }
  for (const auto& [key, v] : host_) {  // means of the samples under 3x their median
    const double median = sim::Median(v);
    double sum = 0;
    int n = 0;
    for (double x : v) {
      if (x <= 3 * median) sum += x, ++n;
    }
    profile->host_s[key.first][key.second] = n > 0 ? sum / n : median;
  }
  for (const auto& [device, steps] : dispatch_) {
    std::vector<double> kept;
    for (size_t i = 0; i < steps.size(); ++i) {
      if (steps[i] >= 0 && !slow[device].count(static_cast<int>(i))) kept.push_back(steps[i]);
    }
    if (!kept.empty()) profile->dispatch_s[device] = sim::Median(kept);
  }
  for (const auto& [device, v] : launch_dispatch_) profile->dispatch_s[device] = sim::Median(v);
  for (const auto& [device, kernels] : shared_kernels_) {
    const SharingFit fit = FitSharing(device, kernels, *profile);
    if (fit.slowdown_measured) profile->slowdown[device] = fit.slowdown;
    if (!previous_model_) profile->cold_s[device] = fit.cold;
    auto parallel = parallel_kernels_.find(device);
    const SharingFit par = parallel != parallel_kernels_.end() && !previous_model_ &&
                                   ParallelOverlaps(device) >= kMinParallelOverlap
                               ? FitSharing(device, parallel->second, *profile)
                               : SharingFit{};
    const std::vector<double>& cross = shared_cross_.at(device);
    const double at = std::accumulate(cross.begin(), cross.end(), 0.0) / cross.size();
    if (fit.slowdown_measured && par.slowdown_measured && at > 0) {
      profile->parallel_slowdown[device] = par.slowdown;
      // Idle spells the parallel step hardly has (its workers seldom wait)
      // keep the alternating step's extras: no measurement says they differ.
      std::vector<std::pair<double, double>>& cold = profile->parallel_cold_s[device];
      cold = par.cold;
      for (size_t b = 0; b < cold.size(); ++b) {
        if (!par.bin_measured[b]) cold[b].second = fit.cold[b].second;
      }
      profile->shared_cross[device] = at;
    } else {
      profile->parallel_slowdown.erase(device);
      profile->parallel_cold_s.erase(device);
      profile->shared_cross.erase(device);
    }
  }
  for (const auto& [device, v] : shared_dispatch_)
    profile->dispatch_shared_s[device] = sim::Median(v);
  // Sums of these costs are what a step pays: means, of the samples under a
  // millisecond (a preempted worker's wait is no hand-off cost); the previous
  // model took medians, which the costs' long tails put at half the mean.
  auto mean_below_ms = [](const std::vector<double>& v) {
    double sum = 0;
    int n = 0;
    for (double x : v) {
      if (x < 1e-3) sum += x, ++n;
    }
    return n > 0 ? sum / n : 0.0;
  };
  for (const auto& [device, v] : shared_poll_) {
    profile->poll_s[device] = previous_model_ ? sim::Median(v) : mean_below_ms(v);
  }
  for (const auto& [device, samples] : cross_dispatch_) {
    auto alone = profile->dispatch_s.find(device);
    if (previous_model_ || alone == profile->dispatch_s.end()) continue;
    std::vector<double> gaps;
    double edges = 0;
    for (const auto& [gap, per_op] : samples) gaps.push_back(gap), edges += per_op;
    edges /= samples.size();
    if (edges > 0) {
      profile->dispatch_cross_s[device] =
          std::max(0.0, (mean_below_ms(gaps) - alone->second) / edges);
    }
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
    const double slope = sim::Median(slopes);
    if (!(slope > 0)) continue;
    for (const auto& [bytes, seconds] : v) intercepts.push_back(seconds - slope * bytes);
    profile->links[link] = {std::max(0.0, sim::Median(intercepts)), 1 / slope,
                            static_cast<int>(v.size())};
  }
  return written;
}

graph::Result<int> ProfileLinks(const cluster::Cluster& c, sim::Profile* profile) {
  int measured = 0;
  for (int a = 0; a < static_cast<int>(c.devices.size()); ++a) {
    for (int b = 0; b < static_cast<int>(c.devices.size()); ++b) {
      const cluster::DeviceKind ka = c.devices[a].kind, kb = c.devices[b].kind;
      if (ka == cluster::DeviceKind::kSim || kb == cluster::DeviceKind::kSim ||
          profile->Link(c.devices[a].name, c.devices[b].name)) {
        continue;
      }
      const bool gpu = ka == cluster::DeviceKind::kCuda || kb == cluster::DeviceKind::kCuda;
      if (a == b && !gpu) continue;
      // Between two GPUs: the executor refuses such placements (executor.h).
      if (a != b && ka == cluster::DeviceKind::kCuda && kb == cluster::DeviceKind::kCuda) continue;
      GRAPH_RETURN_IF_ERROR(gpu ? ProfileGpuLink(c, a, b, profile) : ProfileLink(c, a, b, profile));
      ++measured;
    }
  }
  return measured;
}

// With the links measured now: the step with ops alternating between the
// first cpu and the first GPU in topological order (GpuLinks::kStep), whose
// copies refit the links between them.
graph::Status AddGpuSplit(const graph::Graph& g, const cluster::Cluster& c,
                          const std::vector<int>& cpus, Rounds* r) {
  int gpu = -1;
  for (int d = 0; d < static_cast<int>(c.devices.size()) && gpu < 0; ++d) {
    if (c.devices[d].kind == cluster::DeviceKind::kCuda) gpu = d;
  }
  if (gpu < 0 || cpus.empty()) return graph::Status::Ok();
  std::vector<int> placement(g.size());
  const std::vector<graph::NodeId>& topo = g.topological_order();
  for (size_t i = 0; i < topo.size(); ++i) placement[topo[i]] = i % 2 ? gpu : cpus[0];
  GRAPH_ASSIGN_OR_RETURN(r->gpu_split, Executor::Create(g, c, placement));
  // Its copies are timed from when the GPU's queue has drained; its ops run
  // as in any step (no kernel timing: a hold before each GPU op would queue
  // ahead of the cpu's copies off the GPU and lengthen them).
  r->gpu_split->set_copy_timing(true);
  return graph::Status::Ok();
}

// The first fits in `profile` of the links between a cpu and a GPU that
// `fresh` refits (from a split step).
void FirstGpuLinks(const cluster::Cluster& c, const sim::Profile& fresh,
                   const sim::Profile& profile, ProfileReport* report) {
  for (const auto& [pair, fit] : fresh.links) {
    const cluster::DeviceSpec* a = c.Find(pair.first);
    const cluster::DeviceSpec* b = c.Find(pair.second);
    if (!a || !b || a->kind == b->kind ||
        (a->kind != cluster::DeviceKind::kCuda && b->kind != cluster::DeviceKind::kCuda)) {
      continue;
    }
    if (const sim::LinkFit* first = profile.Link(pair.first, pair.second)) {
      report->first_gpu_links[pair] = *first;
    }
  }
}

// Profiling runs every op on each device to time it: a CPU device's memory is
// a capacity the devices file declares for placements (the host's memory
// need not honour it for one step), so a model that fits no single CPU device
// (the case model parallelism is for) is still profiled. A GPU's is its own.
cluster::Cluster WithoutCpuCapacities(const cluster::Cluster& declared) {
  cluster::Cluster c = declared;
  for (cluster::DeviceSpec& d : c.devices) {
    if (d.kind == cluster::DeviceKind::kCpu) d.memory_bytes.reset();
  }
  return c;
}

graph::Status ProfileGraph(const graph::Graph& g, const std::string& fetch,
                           const cluster::Cluster& declared, const ProfileOptions& options,
                           sim::Profile* profile, ProfileReport* report) {
  *report = {};
  const cluster::Cluster c = WithoutCpuCapacities(declared);
  std::vector<int> real, cpus;
  for (int d = 0; d < static_cast<int>(c.devices.size()); ++d) {
    if (c.devices[d].kind == cluster::DeviceKind::kSim) continue;
    real.push_back(d);
    if (c.devices[d].kind == cluster::DeviceKind::kCpu) cpus.push_back(d);
  }
  if (real.empty()) {
    return graph::InvalidArgument(c.source +
                                  ": every device is simulated; there is nothing to profile");
  }
  // A device profiled under another definition (other cores, another GPU)
  // is measured again from nothing, not extended.
  for (int d : real) {
    const cluster::DeviceSpec& spec = c.devices[d];
    if (std::string r = sim::Redefinition(*profile, spec); !r.empty()) {
      report->redefined.push_back(std::move(r));
      profile->Erase(spec.name);
    }
    profile->definitions[spec.name] = cluster::TimingDefinition(spec);
  }
  GRAPH_ASSIGN_OR_RETURN(report->links_measured, ProfileLinks(c, profile));
  Rounds r;
  r.wanted = DevicesToMeasure(sim::RewriteForExecution(g), c, real, *profile, report);
  r.measure = r.wanted;
  if (cpus.size() >= 2) {
    for (int d : {cpus[0], cpus[1]}) {
      // v1 profiles lack dispatch_shared, v2 profiles cold (and dispatch_cross).
      const std::string& name = c.devices[d].name;
      if (report->links_measured > 0 || !profile->slowdown.count(name) ||
          !profile->dispatch_shared_s.count(name) || !profile->cold_s.count(name) ||
          (options.parallel_step && !profile->parallel_slowdown.count(name))) {
        r.shared = {cpus[0], cpus[1]};
      }
    }
  }
  for (int d : r.shared) {  // measured alone too, for the slowdown's denominator
    if (std::find(r.measure.begin(), r.measure.end(), d) == r.measure.end()) r.measure.push_back(d);
  }
  for (int d : r.measure) {
    GRAPH_ASSIGN_OR_RETURN(r.single[d], Executor::Create(g, c, std::vector<int>(g.size(), d)));
  }
  if (!r.shared.empty()) {
    // Ops alternating between the first two cpus in topological order: many
    // transfers of many sizes, refitted as the executor pays them.
    std::vector<int> placement(g.size());
    const std::vector<graph::NodeId>& topo = g.topological_order();
    for (size_t i = 0; i < topo.size(); ++i) placement[topo[i]] = cpus[i % 2];
    GRAPH_ASSIGN_OR_RETURN(r.alternating, Executor::Create(g, c, placement));
  }
  if (!r.shared.empty() && options.parallel_step) {
    GRAPH_ASSIGN_OR_RETURN(graph::Graph both, g.WithCopy(kParallelCopy));
    std::vector<int> placement(both.size(), cpus[0]);
    std::fill(placement.begin() + g.size(), placement.end(), cpus[1]);
    GRAPH_ASSIGN_OR_RETURN(r.parallel, Executor::Create(both, c, placement));
  }
  if (report->links_measured > 0 && options.gpu_links == GpuLinks::kStep) {
    GRAPH_RETURN_IF_ERROR(AddGpuSplit(g, c, cpus, &r));
  }
  if (r.measure.empty() && !r.alternating && !r.gpu_split) return graph::Status::Ok();
  GRAPH_ASSIGN_OR_RETURN(r.feeds, RandomFeeds(g, 1));
  if (r.parallel) {  // the same inputs for both copies
    for (const auto& [name, t] : r.feeds) {
      r.parallel_feeds[name] = t;
      r.parallel_feeds[kParallelCopy + name] = t;
    }
  }
  ProfileBuilder b(options.slow_tolerance, options.op_time);
  for (int i = 0; i < options.warmup + options.steps; ++i) {
    // The split step in the last warm-up round and the first timed one.
    const bool split = i + 1 >= options.warmup && i <= options.warmup;
    GRAPH_RETURN_IF_ERROR(
        RunRound(r, fetch, c, i >= options.warmup, split, options.warm_steps, &b));
  }
  // Steps left out as slow (kSteadyMean) are measured again, device by device.
  for (int k = 0; k < options.max_extra_steps; ++k) {
    bool more = false;
    for (int d : r.measure) {
      if (b.KeptSteps(c.devices[d].name) >= options.steps) continue;
      sim::StepStats stats;
      GRAPH_RETURN_IF_ERROR(RunStep(*r.single.at(d), r, fetch, "on '" + c.devices[d].name + "'",
                                    &stats, WarmSteps(c, d, options.warm_steps)));
      b.AddStep(r.single.at(d)->graph(), c, d, stats);
      more = true;
    }
    if (!more) break;
  }
  // A busy host may run the two copies one after the other: more parallel
  // steps until both devices have kernels that overlapped the other's.
  auto short_of_overlaps = [&] {
    std::vector<std::string> short_ones;
    for (int d : r.shared) {
      const std::string& name = c.devices[d].name;
      if (b.ParallelOverlaps(name) < ProfileBuilder::kMinParallelOverlap) {
        short_ones.push_back(name);
      }
    }
    return short_ones;
  };
  for (int k = 0; r.parallel && k < options.max_extra_steps && !short_of_overlaps().empty(); ++k) {
    sim::StepStats stats;
    GRAPH_RETURN_IF_ERROR(RunStep(*r.parallel, r, fetch, "with a copy of the graph on each cpu",
                                  &stats, options.warm_steps));
    b.AddParallelStep(r.parallel->graph(), c, stats);
  }
  if (r.parallel) report->parallel_unmeasured = short_of_overlaps();
  sim::Profile fresh;
  b.Finish(&fresh);
  for (int d : r.measure) {
    if (c.devices[d].kind != cluster::DeviceKind::kCuda) continue;
    GRAPH_ASSIGN_OR_RETURN(fresh.launch_s[c.devices[d].name], MeasureLaunch(c.devices[d]));
  }
  if (r.gpu_split) FirstGpuLinks(c, fresh, *profile, report);
  Merge(fresh, c, r, profile, report);
  DescribeDevices(fresh, b, c, r, report);
  return graph::Status::Ok();
}

}  // namespace runtime
