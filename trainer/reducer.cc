#include "trainer/reducer.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cassert>
#include <numeric>

namespace trainer {

struct Reducer::Bucket {
  std::vector<int> params;
  at::Tensor flat;  // float32, the bucket's gradients back to back
  int pending = 0;  // gradients not yet copied in this step
  std::unique_ptr<Work> work;
};

Reducer::Reducer(ProcessGroup* pg, std::vector<std::vector<int64_t>> shapes, BucketOptions opts)
    : pg_(pg), shapes_(std::move(shapes)), opts_(opts) {
  for (const auto& s : shapes_) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    elements_.push_back(n);
  }
  std::vector<int> order(elements_.size());
  std::iota(order.rbegin(), order.rend(), 0);
  Assign(order);
  rebuilt_ = !opts_.rebuild;
}

Reducer::~Reducer() {
  // A bucket's all-reduce writes into its buffer: let it land before freeing.
  for (auto& b : buckets_) {
    if (b->work) b->work->Drain();
  }
}

void Reducer::Assign(const std::vector<int>& order) {
  buckets_.clear();
  bucket_of_.assign(elements_.size(), -1);
  offset_of_.assign(elements_.size(), 0);
  int64_t used = 0;  // bytes in the last bucket
  for (int p : order) {
    int64_t cap = buckets_.size() == 1 ? opts_.first_bucket_bytes : opts_.bucket_bytes;
    if (buckets_.empty() || (used > 0 && used + elements_[p] * 4 > cap)) {
      buckets_.push_back(std::make_unique<Bucket>());
      used = 0;
    }
    bucket_of_[p] = static_cast<int>(buckets_.size()) - 1;
    offset_of_[p] = used / 4;
    buckets_.back()->params.push_back(p);
    used += elements_[p] * 4;
  }
  for (auto& b : buckets_) {
    int64_t n = 0;
    for (int p : b->params) n += elements_[p];
    b->flat = at::zeros({n}, at::kFloat);
  }
}

std::vector<std::vector<int>> Reducer::buckets() const {
  std::vector<std::vector<int>> out;
  for (const auto& b : buckets_) out.push_back(b->params);
  return out;
}

void Reducer::Start() {
  std::lock_guard<std::mutex> l(mu_);
  for (auto& b : buckets_) {
    b->pending = static_cast<int>(b->params.size());
    b->work.reset();
  }
  next_launch_ = 0;
  ready_order_.clear();
}

void Reducer::OnGradient(int param, const at::Tensor& gradient) {
  Bucket& b = *buckets_[bucket_of_[param]];
  // Copying outside the lock: each parameter has its own slice. Straight from
  // the gradient's strides: a gradient that is a transposed view (an ONNX
  // import's OIHW weights) is copied once, not first made contiguous. Divided
  // by the ranks on the way in, so that the all-reduce's sum is the average
  // and no pass over the buckets is left for Finish.
  assert(gradient.numel() == elements_[param] && "a gradient of another size than its parameter");
  at::Tensor to = b.flat.narrow(0, offset_of_[param], elements_[param]).view(gradient.sizes());
  at::mul_out(to, gradient, at::scalar_tensor(1.0 / pg_->world_size(), gradient.options()));
  std::lock_guard<std::mutex> l(mu_);
  if (!rebuilt_) ready_order_.push_back(param);
  --b.pending;
  LaunchReady();
}

void Reducer::LaunchReady() {
  while (next_launch_ < static_cast<int>(buckets_.size()) && buckets_[next_launch_]->pending == 0) {
    Bucket& b = *buckets_[next_launch_++];
    b.work = pg_->StartAllReduce(b.flat);
  }
}

graph::Status Reducer::Finish(double backward_end_s, std::vector<at::Tensor>* averaged,
                              CommTimes* t) {
  std::vector<std::pair<double, double>> spans;
  graph::Status first_error;
  for (auto& b : buckets_) {
    assert(b->work && "Finish before every gradient was ready");
    if (!first_error.ok()) {  // one diagnosis is enough; the rest only need to end
      b->work->Drain();
      continue;
    }
    first_error = b->work->Wait();
    if (first_error.ok()) spans.push_back({b->work->started_s(), b->work->finished_s()});
  }
  GRAPH_RETURN_IF_ERROR(first_error);
  if (t) {
    std::sort(spans.begin(), spans.end());
    *t = CommTimes{};
    t->buckets = static_cast<int>(buckets_.size());
    double end = -1e300;
    for (const auto& [s, e] : spans) {  // union of the in-flight intervals
      double from = std::max(s, end);
      if (e > from) t->comm_s += e - from;
      double exposed_from = std::max(from, backward_end_s);
      if (e > exposed_from) t->exposed_s += e - exposed_from;
      end = std::max(end, e);
    }
  }
  averaged->assign(elements_.size(), at::Tensor());
  for (auto& b : buckets_) {  // averaged already: OnGradient divided
    for (int p : b->params) {
      (*averaged)[p] = b->flat.narrow(0, offset_of_[p], elements_[p]).view(shapes_[p]);
    }
  }
  if (!rebuilt_) return Rebuild();
  return graph::Status::Ok();
}

graph::Status Reducer::Rebuild() {
  rebuilt_ = true;
  assert(ready_order_.size() == elements_.size());
  at::Tensor order = at::empty({static_cast<int64_t>(elements_.size())}, at::kLong);
  for (size_t i = 0; i < ready_order_.size(); ++i) order[i] = ready_order_[i];
  GRAPH_RETURN_IF_ERROR(pg_->Broadcast(order, 0));
  std::vector<int> rank0(order.data_ptr<int64_t>(), order.data_ptr<int64_t>() + order.numel());
  // The averaged views keep the old buffers alive until they are used.
  Assign(rank0);
  return graph::Status::Ok();
}

}  // namespace trainer
