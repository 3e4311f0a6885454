// The simulator: predicts a placed training step's time, timeline and per-device
// peak memory without running it, by replaying the dataflow executor's policy
// (executor.h) over predicted op and transfer times.
//
// Op times: the profiled median for the device and op signature where the
// profile has it; otherwise a roofline estimate, max(FLOPs / peak FLOP/s, bytes /
// memory bandwidth), from the device's figures (sim devices always have them) or
// from rates fitted to the device's profiled ops; such ops are counted as
// estimated. A cpu device's kernel that starts while another cpu device of the
// host is awake (running an op or polling for one) takes its profiled slowdown
// factor longer, and the executor's time around it is its dispatch_shared
// time (runtime/profiler.h says what is measured). An op handed to an idle worker by another
// device starts after the profiled poll time when that worker went idle less
// than its device's spin time before (it still polls its queue), else after
// the wake-up time, and then the handing worker also pays the notify time
// before its own next op (runtime/device.h); each step starts with every
// worker asleep, as the executor leaves them between steps. In a step with ops on
// two or more cpu devices, a cpu kernel also takes the profile's cold extra for
// how long its device was idle before it (from its last kernel's end to the
// op's copies or kernel), and where the profile has a dispatch_cross figure the
// executor's time per op is dispatch + dispatch_cross x the device's
// cross-device edges per op, instead of dispatch_shared while another cpu is awake. Transfers:
// between two real cpu devices, or a cpu and a cuda device, the consumer's worker copies the tensor
// before its kernel, as the executor does, at the profiled link fit (else the devices file's link;
// a copy to or from a `sync: step` GPU first waits for the kernels queued there, as LibTorch's
// blocking copy waits for the GPU's stream, and the GPU's later kernels wait for it; a copy off such
// a GPU also holds the driver from its request to its end, so the GPU's own worker launches nothing
// meanwhile); any other pair sends it
// over its link as soon as it is produced, one transfer at a time per direction (contention), at
// latency + bytes / bandwidth. Memory: the executor's accounting (parameters resident, outputs from
// their op's end to their last reader, copies on the reading device, views free); exceeding a
// capacity ends the step as out-of-memory. A cuda device under `sync: step` is
// a pipeline, as the executor drives it: its worker spends an op's launch time
// (profiled per signature) and moves on, while the op's kernels run on the GPU
// once launched and once the GPU is done with the kernels before them; its ops'
// consumers on the same GPU may launch as soon as it is launched, others wait
// for its kernels, and the step ends when the last kernel does. Details and
// measured error: docs/simulator.md.
//
// Ownership: copies the graph (as rewritten for execution), the cluster and the
// costs. Thread safety: Run is const and may run concurrently; each thread keeps
// one scratch table of the copies in flight, reused by its later runs.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "graph/cost.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "sim/profile.h"
#include "sim/timeline.h"

namespace sim {

struct SimResult {
  graph::Status status;   // ok, or kOutOfMemory naming the device, node and bytes
  StepStats step;         // the predicted timeline, seconds, peak bytes and busy time
  int estimated_ops = 0;  // scheduled ops whose time is a roofline estimate
  // The step does not end before the cutoff Run was given, and Run may have
  // stopped early: step.seconds is then a lower bound at least the cutoff,
  // the timeline and peaks are what ran until then, and an out-of-memory
  // still to come is not seen (status ok).
  bool cut_off = false;
};

class Simulator {
 public:
  // `g` is a training graph with shapes inferred. `profile` may be null.
  static graph::Result<Simulator> Create(const graph::Graph& g, const cluster::Cluster& c,
                                         const Profile* profile);

  // `device_of_node[i]` indexes the cluster's devices; `fetch` (the loss) stays live.
  // An InvalidArgument status when an op is placed on a device that can give it
  // no time (a real device with neither a profile entry nor figures), or two
  // devices that exchange a tensor have no link.
  // With a finite `cutoff_s` the run stops as soon as the step cannot end
  // before it (SimResult::cut_off): the clock has passed it, or a device's
  // kernels not yet started, at their least, no longer fit before it. A run
  // that ends before the cutoff is the same as without one. A local search
  // that keeps only faster placements passes its incumbent's time: most of its
  // candidates are slower, and are known to be long before their last op.
  SimResult Run(const std::vector<int>& device_of_node, graph::NodeId fetch = -1,
                double cutoff_s = std::numeric_limits<double>::infinity()) const;

  // A lower bound on the step time of every placement on these devices: the
  // longest chain of dependent ops, each at its fastest device's kernel time,
  // with no transfers, dispatch, wake-ups or contention (all of which only add).
  double DependencyBoundSeconds() const;
  // Another: the busiest device's kernel time in the best split of the ops'
  // work over the devices, ops divisible (the fractional relaxation), found from
  // below by exponentiated-gradient ascent on its dual (any iterate is a valid
  // bound; `iterations` only tightens it).
  double WorkBoundSeconds(int iterations = 300) const;

  const graph::Graph& graph() const { return g_; }
  // Predicted kernel time of node `id` on device `d` (negative: none can be
  // given), and whether it is estimated.
  double OpSeconds(graph::NodeId id, int d) const { return op_s_[d][id]; }
  bool Estimated(graph::NodeId id, int d) const { return estimated_[d][id]; }
  // Whether node `id` runs a kernel (false: state, feeds, NoOps, which take no time).
  bool Scheduled(graph::NodeId id) const { return scheduled_[id] != 0; }
  // Bytes node `id` keeps on its device: a parameter's or constant's resident
  // tensor, else its outputs as the memory accounting counts them (views: 0).
  int64_t NodeBytes(graph::NodeId id) const;
  // Latency + bytes / bandwidth of the link from `src` to `dst`; infinite when
  // the devices have none.
  double TransferSeconds(int src, int dst, int64_t bytes) const;

 private:
  class Step;  // one Run's event loop (simulator.cc)

  Simulator() = default;

  // Create's steps, in order: which nodes run kernels, their signatures
  // and the bytes their outputs are accounted at; each device's op times and
  // overheads; the links; the graph's edges in flat arrays; the copy slots.
  void ClassifyNodes(const Profile* profile, std::vector<std::string>* sig,
                     std::vector<std::vector<int64_t>>* out_bytes);
  void PlanDevices(const Profile* profile, const std::vector<graph::OpCost>& costs,
                   const std::vector<std::string>& sig);
  void PlanLaunches(int d, const Profile* profile, const std::vector<std::string>& sig);
  void PlanOverheads(int d, const Profile& profile);
  void PlanLinks(const Profile* profile);
  void PlanEdges(const std::vector<std::vector<int64_t>>& out_bytes);
  void PlanCopySlots(const std::vector<std::vector<int64_t>>& out_bytes);

  graph::Graph g_;
  cluster::Cluster cluster_;
  std::vector<std::vector<double>> op_s_;  // [device][node]
  // A cuda device under `sync: step` runs its ops as a pipeline: its worker is
  // busy for an op's launch (host_s_: the profile's host time, else its
  // launch_s, else 0), its kernels start when launched and the GPU is free.
  std::vector<char> async_;                   // [device]
  std::vector<std::vector<double>> host_s_;   // [device][node], async devices only
  std::vector<std::vector<char>> estimated_;  // [device][node]
  std::vector<double> dispatch_s_;            // [device] per scheduled op
  std::vector<double> dispatch_shared_s_;     // [device] the same while another cpu is awake
  std::vector<double> dispatch_cross_s_;      // [device] Profile::dispatch_cross_s; < 0: none
  std::vector<double> wakeup_s_;  // [device] from a hand-off to its sleeping worker starting
  std::vector<double> poll_s_;    // [device] the same for a worker still polling
  std::vector<double> notify_s_;  // [device] the handing worker's cost of waking it
  std::vector<double> spin_s_;    // [device] how long an idle worker polls before sleeping
  std::vector<int> cpu_devices_;  // the real cpu devices, which share the host
  std::vector<double> slowdown_;  // [device] kernel factor while a cpu of the same host runs
  // [device] (idle seconds below, extra kernel seconds), ascending: Profile::cold_s
  std::vector<std::vector<std::pair<double, double>>> cold_s_;
  // [device] the same two from independent streams (Profile::parallel_slowdown,
  // parallel_cold_s; slowdown < 0: none), and the cross-device edges per op
  // slowdown_ and cold_s_ were measured at (Profile::shared_cross; 0: none).
  std::vector<double> parallel_slowdown_;
  std::vector<std::vector<std::pair<double, double>>> parallel_cold_s_;
  std::vector<double> shared_cross_;
  // Per-run counters start from these copies (one allocation each, not one per node).
  std::vector<int> out_offset_;    // [node] index of its first output in `base_uses_`; [n]: total
  std::vector<int> base_uses_;     // [output] data inputs that read it
  std::vector<int> base_pending_;  // [node] data and control inputs
  std::vector<int64_t> state_bytes_;  // [node] resident bytes of state nodes
  std::vector<char> scheduled_;       // [node] runs on a worker (not state/feed/NoOp)
  // Copies of a tensor on other devices are tracked per copy slot: a node's
  // outputs, and any higher output index a consumer reads.
  std::vector<int> slot_offset_;     // [node] its first copy slot; [n]: total
  std::vector<int64_t> copy_bytes_;  // [slot] what an executor copy occupies
  std::vector<int64_t> send_bytes_;  // [slot] what an eager send moves
  // The edges and output sizes Run walks for every node, in flat arrays (CSR):
  // reaching them through each Node's own vectors was most of Run's time, in
  // cache misses.
  std::vector<int> in_offset_;               // [node] its first data input in `in_`; [n]: total
  std::vector<graph::TensorRef> in_;         // every node's data inputs, in order
  std::vector<int> use_offset_;              // [node] its first reader in `use_`; [n]: total
  std::vector<graph::TensorRef> use_;        // (reader, output index it reads), readers in id order
  std::vector<int> ctrl_offset_;             // [node] its first control consumer in `ctrl_`
  std::vector<graph::NodeId> ctrl_;          // control consumers
  std::vector<int64_t> out_flat_;            // [output] bytes accounted (at out_offset_)
  std::vector<int64_t> out_total_;           // [node] its outputs' bytes, summed
  std::vector<std::vector<LinkFit>> links_;  // [src][dst]; bandwidth 0: none
  std::vector<char> consumer_copies_;        // [src * n + dst]: the consumer's worker copies
};

}  // namespace sim
