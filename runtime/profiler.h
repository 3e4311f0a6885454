// Profiling real devices for the simulator (what `planner profile` runs).
//
// Op costs: for each real device, the training step runs with every op on that
// device (warm-up, then timed steps); each op's kernel time comes from the
// timeline, and each op signature gets the mean over its ops and steps. A
// device that already has every signature of the graph in the profile is not
// run again, so profiling a model twice costs nothing the second time; new
// signatures are added, existing ones kept. Links: for each ordered pair of real
// cpu devices, the executor's copy (a clone on the receiving device's worker) is
// timed at several sizes and fitted as latency + bytes / bandwidth (least squares).
//
// Thread safety: one call at a time per process (it creates executors).
#pragma once

#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "runtime/profile.h"

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

// `g`: a training graph with shapes inferred; `fetch`: its loss.
graph::Status ProfileGraph(const graph::Graph& g, const std::string& fetch,
                           const cluster::Cluster& c, const ProfileOptions& options,
                           Profile* profile, ProfileReport* report);

}  // namespace runtime
