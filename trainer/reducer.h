// Bucketed gradient averaging for synchronous data parallelism, as PyTorch DDP's
// reducer does it: gradients are packed into buckets (a small first bucket, then
// buckets of about bucket_bytes, in the order gradients become ready), and each
// bucket's all-reduce starts the moment its last gradient is copied in, while
// the backward pass goes on, so that communication overlaps computation.
// Buckets start in index order on every rank (c10d matches collectives by
// order): a bucket that fills early waits for the ones before it.
//
// The first step uses the reverse of parameter order (the backward pass meets
// the last layers first); after it, the buckets are rebuilt once from the order
// rank 0 saw gradients arrive, broadcast so that every rank agrees.
//
// Ownership: owns the bucket buffers; gradients handed out by Finish are views
// into them, valid until the next step's first OnGradient.
// Thread safety: OnGradient may be called from several threads at once; Start
// and Finish from the training thread, around the backward pass.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "graph/status.h"
#include "trainer/process_group.h"

namespace trainer {

struct BucketOptions {
  int64_t first_bucket_bytes = 1 << 20;  // DDP's first bucket: 1 MiB
  int64_t bucket_bytes = 25 << 20;       // DDP's bucket_cap_mb: 25 MiB
  bool rebuild = true;                   // rebuild the buckets from the first step's ready order
};

// One step's communication, on ProcessGroup::Now's clock (seconds).
struct CommTimes {
  double comm_s = 0;     // time with at least one all-reduce in flight
  double exposed_s = 0;  // of it, after the backward pass ended (not overlapped)
  int buckets = 0;
};

class Reducer {
 public:
  // `shapes[i]`: the shape of parameter i's gradient (float32).
  Reducer(ProcessGroup* pg, std::vector<std::vector<int64_t>> shapes, BucketOptions opts);
  ~Reducer();

  // Before the backward pass of a step.
  void Start();
  // Gradient `param` is ready: copies it, divided by the number of ranks,
  // into its bucket (so that the all-reduce's sum is the average), and starts
  // every bucket that is now full and whose predecessors have started. The
  // gradient has its parameter's number of elements (any strides).
  void OnGradient(int param, const at::Tensor& gradient);
  // After the backward pass (which ended at `backward_end_s`): waits for every
  // bucket and sets `averaged[i]` to a view of parameter i's average, in its
  // shape. Every parameter must have had its OnGradient.
  graph::Status Finish(double backward_end_s, std::vector<at::Tensor>* averaged, CommTimes* t);

  // Parameters of each bucket, in launch order (for tests and reports).
  std::vector<std::vector<int>> buckets() const;

 private:
  struct Bucket;
  void Assign(const std::vector<int>& order);
  void LaunchReady();  // with mu_ held
  graph::Status Rebuild();

  ProcessGroup* pg_;
  std::vector<std::vector<int64_t>> shapes_;
  std::vector<int64_t> elements_;
  BucketOptions opts_;
  std::vector<std::unique_ptr<Bucket>> buckets_;
  std::vector<int> bucket_of_;      // parameter -> bucket
  std::vector<int64_t> offset_of_;  // parameter -> offset in its bucket
  std::mutex mu_;
  int next_launch_ = 0;
  std::vector<int> ready_order_;  // this step's arrival order (first step only)
  bool rebuilt_ = false;
};

}  // namespace trainer
