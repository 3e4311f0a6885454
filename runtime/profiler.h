// Profiling real devices for the simulator (what `planner profile` runs).
//
// Op costs: the training step runs with every op on one device, for each real
// device, in rounds: each round runs one step on every device in turn (and,
// with two or more cpu devices, one with ops alternating between the first
// two), so that a machine whose speed drifts over seconds or minutes drifts
// under every measurement alike. Each op
// signature gets a time from its kernel samples (OpTime below), and their
// spread. A step during which the device ran slow (its median op more than
// `slow_tolerance` slower than that op's median over the steps: a core taken
// by another guest, a frequency drop) is counted for the report, and, by
// default (OpTime::kSteadyMean), left out and another step measured in its
// place, up to `max_extra_steps`.
// A device that already has every signature of the graph in the profile is not
// run again, so profiling a model twice costs nothing the second time; new
// signatures are added, existing ones kept.
//
// Sharing the host: for each ordered pair of cpu devices, microbenchmarks time
// what the executor pays to hand an op over (runtime/device.h): the receiving
// worker's start when it sleeps (wake-up) and when it still polls (poll), and
// the handing worker's own cost of waking a sleeping one (notify); and a copy
// of 1 KiB to 4 MiB from data the sender just wrote gives a first link fit.
// The alternating steps then measure all of it as the executor pays it in a
// step: the links refitted to its copies (allocation and bookkeeping
// included), the hand-off to a polling worker, and, for ops that ran while
// another cpu device was awake (running an op or polling for one), the
// device's kernel times over the same ops' times alone (its slowdown) and its
// time per op outside kernels (dispatch_shared); for every kernel, what it took
// beyond that by how long its device had idled before it (cold extras); and the
// gap before a queued op per cross-device edge per op (dispatch_cross). With
// ProfileOptions::parallel_step, a step with a whole copy of the graph on each
// of the two cpus at once gives the slowdown and cold extras of independent
// streams as well (Profile::parallel_slowdown, parallel_cold_s). On the
// two-core VM of docs/simulator.md kernels run 2-20% slower while the other core
// is awake, a kernel takes 1 us more after no idle time and 6-9 us after a
// sleep, and the executor's time per op grows by about 6 us per cross-device
// edge per op.
//
// A GPU (a cuda device): its single-device steps run with kernel timing
// (Executor::set_kernel_timing), each op's kernels held back until its
// launches have queued, so its op times are its kernels' spans on the device
// (CUDA events); each is preceded by a step without the timing, whose launches
// give its host times (Profile::host_s) and whose gaps between them its
// dispatch, as the executor spends them; its links
// to and from each cpu device, and within itself, are first fitted to
// Tensor::to copies of one tensor, 4 KiB to 64 MiB; a small kernel's launch
// gives Profile::launch_s. When the links were measured now, a step with ops
// alternating between the first cpu device and the first GPU (in the last
// warm-up round and the first timed one) then refits the links between those
// two to its copies (GpuLinks::kStep): copies of the model's own tensors, just
// made, sized as the model's, while the cpu device's workers run, timed from
// when the GPU's queue has drained (the simulator adds that wait itself; the
// step runs without kernel timing, whose holds would queue ahead of the
// copies). On the H100 lent on 2026-11-27 an etf step's copies of 0.25-4 MiB
// spanned 1.6-2.4x the first fit's time, waits included (docs/simulator.md,
// "On a GPU").
//
// Thread safety: one call at a time per process (it creates executors).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cluster/devices.h"
#include "graph/graph.h"
#include "graph/status.h"
#include "sim/profile.h"
#include "sim/timeline.h"

namespace runtime {

// The idle spells (seconds before a kernel during which its device ran
// nothing) that cold kernels are measured and predicted for: each bin's upper
// edge; the last bin (at or over 200 us: a worker that slept, at the default
// spin) is unbounded.
const std::vector<double>& ColdIdleBins();

// How an op signature's time is estimated from its kernel samples (samples
// over 3x their median, preempted kernels, are left out in each). The measured
// step it is set against is the median over rounds, slow spells included; on a
// machine whose speed swings, leaving the slow steps out predicts every step
// fast, and keeping them makes two profiles minutes apart agree less
// (docs/simulator.md, item 7 of "What diverged": neither wins both there).
enum class OpTime {
  kSteadyMean,  // the mean over the steps the device did not run slow in (slow ones re-measured)
  kMean,        // the mean over every step's samples: the mean step
  kStepMedian,  // its mean within each step, then the median over every step: its share of
                // the median step when the machine's speed moves a step's ops alike
};

// "steady-mean", "mean" or "step-median"; false for anything else.
bool ParseOpTime(const std::string& name, OpTime* out);

// Where the links between a cpu device and a GPU come from.
enum class GpuLinks {
  kStep,    // refitted to the copies of a step split between them (below)
  kCopies,  // the copies of one tensor alone (the first fit; the profile before 2026-11-28)
};

// "step" or "copies"; false for anything else.
bool ParseGpuLinks(const std::string& name, GpuLinks* out);

struct ProfileOptions {
  int warmup = 2;                        // untimed rounds first
  int steps = 7;                         // timed steps kept per device
  double slow_tolerance = 0.10;          // a step whose median op ran this much slower is slow...
  OpTime op_time = OpTime::kSteadyMean;  // ...and with kSteadyMean left out and re-measured...
  int max_extra_steps = 7;               // ...at most this many times per device (and the
                                         // parallel step's, below, till its copies overlap)
  GpuLinks gpu_links = GpuLinks::kStep;
  // Untimed steps a cpu device's executor (and the alternating one) runs just
  // before each of its timed steps, so that the timed step finds its own data
  // in the core's caches, as a training step does after the one before it. At
  // 0 (the default) it follows the other executors' steps of its round, cold.
  // In three runs of bench/profile_flags_ab.sh (docs/simulator.md, item 8 of
  // "What diverged") warm steps lowered the signed median errors but put the
  // ratio of a split's step to one core's further off in the median in all
  // three (better at p90 in two), so they are not the default. Not recorded
  // in the profile: extending a profile with another setting mixes the two.
  int warm_steps = 0;
  // Also run, each round, a step whose first two cpu devices each run a whole
  // copy of the graph at once (Graph::WithCopy): independent streams, no
  // cross-device edge. Its kernels give the sharing figures of coarse splits
  // (Profile::parallel_slowdown, parallel_cold_s), which the alternating
  // step's, measured where nearly every op's neighbours ran on the other cpu,
  // overstate for them; the simulator weighs the two by a placement's
  // cross-device edges per op. Adds that step's time to every round.
  bool parallel_step = false;
};

// What one device's steps looked like while it was profiled now.
struct DeviceProfileReport {
  std::string device;
  int kept_steps = 0;
  int slow_steps = 0;         // the device ran slow during them (left out with kSteadyMean)
  double median_spread = 0;   // over its signatures: median absolute deviation / median
  double relative_speed = 1;  // its op times over the first measured device's (median)
};

struct ProfileReport {
  int signatures = 0;                 // distinct op signatures of the graph
  std::vector<std::string> measured;  // devices whose ops were measured now
  std::vector<std::string> reused;    // devices whose profile already had every signature
  // Devices the profile held under another definition, each "NAME (profiled
  // as X; here Y)": their entries were dropped and measured anew.
  std::vector<std::string> redefined;
  int new_signatures = 0;             // entries added over all devices
  int links_measured = 0;
  // The links between a cpu and a GPU refitted to a split step now, and the
  // first fit each replaced (copies of one tensor alone).
  std::map<std::pair<std::string, std::string>, sim::LinkFit> first_gpu_links;
  std::vector<DeviceProfileReport> devices;  // one per device measured now
  // With ProfileOptions::parallel_step: the cpu devices with fewer than
  // ProfileBuilder::kMinParallelOverlap kernels that ran while the other copy
  // of the graph ran one, even after extra steps (a busy host runs one worker
  // after the other), so that they got no parallel figures.
  std::vector<std::string> parallel_unmeasured;
};

// Turns timelines of steps run with every op on one device into profile entries:
// per op signature its kernel time as its OpTime estimates it, its spread, and
// the bytes its outputs occupy; per device the executor's time per op outside
// kernels. Steps during which the device ran slow are counted, and left out
// with OpTime::kSteadyMean (see above). What ProfileGraph uses, and what a
// benchmark that interleaves profiling with measuring can use.
class ProfileBuilder {
 public:
  explicit ProfileBuilder(double slow_tolerance = 0.10, OpTime op_time = OpTime::kSteadyMean)
      : slow_tolerance_(slow_tolerance), op_time_(op_time) {}

  // `g`: the graph as the executor ran it (Executor::graph()); `device` its index.
  // Each call is one step of that device.
  void AddStep(const graph::Graph& g, const cluster::Cluster& c, int device,
               const sim::StepStats& step);
  // A step with ops on several cpu devices (`g`: the graph as run): its copies,
  // fitted per link as latency + bytes / bandwidth (Theil-Sen: the median of
  // pairwise slopes, robust to the odd slow copy); its hand-offs to polling
  // workers; and its ops that ran while another cpu device was awake, whose
  // kernel times (set against the same ops' times alone) and gaps give each
  // device's slowdown and dispatch_shared.
  void AddSharedStep(const graph::Graph& g, const cluster::Cluster& c, const sim::StepStats& step);
  // A step whose cpu devices each ran their own copy of the graph at once
  // (`g`: Graph::WithCopy's, as run): its kernels, set against the same ops'
  // times alone, give each device's parallel_slowdown and parallel_cold_s.
  void AddParallelStep(const graph::Graph& g, const cluster::Cluster& c,
                       const sim::StepStats& step);
  // Kernels of `device` in the parallel steps added so far that started while
  // another cpu device ran a kernel (not only polled: a copy's first kernels
  // start within the spin of the other copy's last). Finish writes parallel
  // figures for a device only with at least kMinParallelOverlap of them: a
  // busy host may run the two copies one after the other, which measures no
  // sharing at all.
  int ParallelOverlaps(const std::string& device) const;
  static constexpr int kMinParallelOverlap = 8;
  // A step split between a cpu device and a GPU, run with copy timing
  // (Executor::set_copy_timing: its copies' records start once the GPU's
  // queue has drained): its copies between a cpu and a GPU, fitted per link
  // as AddSharedStep's. Nothing else of it is used.
  void AddGpuSplitStep(const cluster::Cluster& c, const sim::StepStats& step);

  // Fits the simulator's previous model of sharing the host instead (an
  // ablation for benchmarks): no cold kernels (the slowdown takes all of the
  // shared kernels' extra time), no dispatch_cross, the median poll time.
  void set_previous_model(bool on) { previous_model_ = on; }
  // For benchmarks that refit the same steps with another estimate.
  void set_op_time(OpTime t) { op_time_ = t; }

  // Steps of `device` added so far that are kept, and that ran slow (left out
  // only with OpTime::kSteadyMean).
  int KeptSteps(const std::string& device) const;
  int SlowSteps(const std::string& device) const;

  // Adds the entries to `profile`, replacing those of the same device and
  // signature, then what shared steps gave: slowdowns and cold kernels
  // (against the profile's times alone; from parallel steps the parallel
  // ones and shared_cross, which a device refitted without parallel steps
  // loses: its two sets of figures would no longer pair), dispatch_shared,
  // dispatch_cross
  // (the queued ops' mean gap over dispatch_s, per cross-device edge per op)
  // and poll times (means), and the links fitted from transfers (at least 8
  // of a link); returns how many op entries it wrote.
  //
  // Slowdown and cold kernels are one fit: a kernel of a shared step takes
  // its time alone, times the device's slowdown while another cpu is awake,
  // plus an extra that depends only on how long its device had been idle
  // before it (ColdIdleBins' bins). On the two-core VM of docs/simulator.md a
  // small kernel takes 1 us more after no idle time and 6-15 us more after a
  // sleep, so fine-grained splits, whose workers idle between most ops, pay it
  // on most ops. The two are found by alternating: the extras as the mean
  // residual per bin of the kernels under 50 us alone, whose residuals the
  // slowdown's noise does not swamp (bins with fewer than 8 get none; never
  // below 0),
  // the slowdown as the shared kernels' time less their extras over their
  // time alone; kernels over 3x their time alone + 20 us (preempted) are left out.
  int Finish(sim::Profile* profile) const;

 private:
  // Whether `device`'s ops in `step` have kernel spans.
  static bool KernelsTimed(const sim::StepStats& step, int device);
  // A GPU's step without kernel timing: its launches' host times and the
  // executor's time per op between them (its dispatch).
  void AddLaunches(const graph::Graph& g, const std::string& name, int device,
                   const sim::StepStats& step);

  struct Sample {
    int step;
    double seconds;
  };
  struct Samples {
    std::vector<Sample> samples;
    int64_t bytes = 0;
  };
  // A kernel of a shared step: how long its device was idle before it, and
  // whether another cpu device was awake (running a kernel or polling) or
  // running a kernel when it started.
  struct SharedKernel {
    std::string signature;
    double seconds = 0, idle_s = 0;
    bool other_awake = false, other_busy = false;
  };
  // A copy of a shared or split step, for its link's fit (the first
  // kMaxTransfersPerLink of each link).
  void AddTransfer(const cluster::Cluster& c, const sim::TransferRecord& t);
  // The slowdown and cold kernels of `device` from its shared (or parallel)
  // steps' kernels, set against `profile`'s times alone (see Finish).
  struct SharingFit {
    bool slowdown_measured = false;  // some kernel ran while another cpu was awake
    double slowdown = 1;
    std::vector<std::pair<double, double>> cold;  // Profile::cold_s's bins
    std::vector<char> bin_measured;               // [bin] enough kernels to fit its extra
  };
  SharingFit FitSharing(const std::string& device, const std::vector<SharedKernel>& kernels,
                        const sim::Profile& profile) const;
  // A step's kernels on cpu devices (what FitSharing takes), by device.
  static void AddKernels(const graph::Graph& g, const cluster::Cluster& c,
                         const sim::StepStats& step,
                         std::map<std::string, std::vector<SharedKernel>>* into);
  // The device's steps whose median op ran more than the tolerance slow.
  std::set<int> SlowStepIds(const std::string& device) const;

  double slow_tolerance_;
  OpTime op_time_;
  bool previous_model_ = false;
  std::map<std::pair<std::string, std::string>, Samples> ops_;  // (device, signature)
  // (device, signature) -> host seconds of each launch, for ops with kernel spans
  std::map<std::pair<std::string, std::string>, std::vector<double>> host_;
  std::map<std::string, std::vector<double>> dispatch_;         // device -> per step: s per op
  std::map<std::string, std::vector<double>> launch_dispatch_;  // GPU -> per untimed step: s per op
  std::map<std::string, std::vector<SharedKernel>> shared_kernels_;  // by device
  std::map<std::string, std::vector<SharedKernel>> parallel_kernels_;  // by device
  std::map<std::string, std::vector<double>> shared_cross_;            // device -> per shared step
  std::map<std::string, std::vector<double>> shared_dispatch_;       // device -> queued ops' gaps
  std::map<std::string, std::vector<double>> shared_poll_;           // device -> polled hand-offs
  // device -> (queued op's gap, the step's cross-device edges per op there)
  std::map<std::string, std::vector<std::pair<double, double>>> cross_dispatch_;
  // (src, dst) -> (bytes, seconds) of each transfer, the first this many of a link
  static constexpr size_t kMaxTransfersPerLink = 400;
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> transfers_;
};

// Times, for every ordered pair of real cpu devices that `profile` lacks a link
// for, the hand-off costs (wake-up, poll, notify of the receiving device) and a
// first link fit; returns how many pairs it measured.
graph::Result<int> ProfileLinks(const cluster::Cluster& c, sim::Profile* profile);

// `g`: a training graph with shapes inferred; `fetch`: its loss. Every op runs
// on each device measured, past the memory a cpu device declares (a model
// that fits no single cpu device is profiled too); a GPU's memory holds.
graph::Status ProfileGraph(const graph::Graph& g, const std::string& fetch,
                           const cluster::Cluster& c, const ProfileOptions& options,
                           sim::Profile* profile, ProfileReport* report);

}  // namespace runtime
