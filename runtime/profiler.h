// Profiling real devices for the simulator (what `planner profile` runs).
//
// Op costs: for each real device, the training step runs with every op on that
// device (warm-up, then timed steps); each op's kernel time comes from the
// timeline, and each op signature gets the mean over its ops and steps. A
// device that already has every signature of the graph in the profile is not
// run again, so profiling a model twice costs nothing the second time; new
// signatures are added, existing ones kept. With two or more cpu devices, the
// steps then run on all of them at once, and each device's slowdown (kernel time
// while the others run over kernel time alone) is recorded. Links: for each ordered pair of real
// cpu devices, the executor's copy (a clone on the receiving device's worker of
// data the sending device just wrote) is timed at sizes from 1 KiB to 4 MiB:
// latency is the 1 KiB time, bandwidth the median of bytes / (time - latency);
// then the step runs with ops alternating between the first two cpu devices and
// the links are refitted to the executor's own copies, which cost more than a
// bare clone (allocation, bookkeeping).
//
// Thread safety: one call at a time per process (it creates executors).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "runtime/profile.h"
#include "runtime/timeline.h"

namespace runtime {

struct ProfileOptions {
  int warmup = 2;  // untimed steps per device
  int steps = 5;   // timed steps per device
};

struct ProfileReport {
  int signatures = 0;                 // distinct op signatures of the graph
  std::vector<std::string> measured;  // devices whose ops were measured now
  std::vector<std::string> reused;    // devices whose profile already had every signature
  int new_signatures = 0;             // entries added over all devices
  int links_measured = 0;
};

// Turns timelines of steps run with every op on one device into profile entries:
// per op signature the mean kernel time (samples over three times the median, a
// preempted kernel, left out) and the bytes its outputs occupy; per device the
// executor's time per op outside kernels. What ProfileGraph uses, and what a
// benchmark that interleaves profiling with measuring can use.
class ProfileBuilder {
 public:
  // `g`: the graph as the executor ran it (Executor::graph()); `device` its index.
  void AddStep(const graph::Graph& g, const cluster::Cluster& c, int device, const StepStats& step);
  // A step with every op on `device` that ran while other cpu devices of the
  // host ran steps too: its op times over the same ops' times alone give the
  // device's slowdown.
  void AddConcurrentStep(const graph::Graph& g, const cluster::Cluster& c, int device,
                         const StepStats& step);
  // The transfers of a step with ops on several devices: what the executor's
  // copies cost, fitted per link as latency + bytes / bandwidth (Theil-Sen: the
  // median of pairwise slopes, robust to the odd slow copy).
  void AddTransfers(const cluster::Cluster& c, const StepStats& step);
  // Adds the entries to `profile`, replacing those of the same device and
  // signature, then the slowdowns (against the profile's times alone) and the
  // links fitted from transfers (at least 8 of a link); returns how many op
  // entries it wrote.
  int Finish(Profile* profile) const;

 private:
  struct Samples {
    std::vector<double> seconds;
    int64_t bytes = 0;
  };
  std::map<std::pair<std::string, std::string>, Samples> ops_;  // (device, signature)
  std::map<std::string, std::vector<double>> dispatch_;         // device -> per-op seconds
  std::map<std::pair<std::string, std::string>, std::vector<double>> concurrent_;
  // (src, dst) -> (bytes, seconds) of each transfer
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> transfers_;
};

// Fits every link between two real cpu devices that `profile` lacks; returns
// how many it measured.
graph::Result<int> ProfileLinks(const cluster::Cluster& c, Profile* profile);

// `g`: a training graph with shapes inferred; `fetch`: its loss.
graph::Status ProfileGraph(const graph::Graph& g, const std::string& fetch,
                           const cluster::Cluster& c, const ProfileOptions& options,
                           Profile* profile, ProfileReport* report);

}  // namespace runtime
