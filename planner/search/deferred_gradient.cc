#include "planner/search/deferred_gradient.h"

#include <ATen/ATen.h>

#include <cassert>
#include <vector>

namespace planner::search {

at::Tensor DeferredSteps::Tap(const at::Tensor& input, int64_t out) {
  at::Tensor tap = at::zeros({input.size(0), out}, input.options()).requires_grad_(true);
  taps.push_back(tap);
  inputs.push_back(input.detach());
  return tap;
}

at::Tensor DeferredSteps::Product(at::Tensor* bias_grad) {
  std::vector<at::Tensor> grads, xs;
  for (size_t t = 0; t < taps.size(); ++t) {
    const at::Tensor& g = taps[t].grad();
    if (!g.defined()) continue;  // a step the loss did not reach
    grads.push_back(g);
    xs.push_back(inputs[t]);
    taps[t].mutable_grad() = at::Tensor();
  }
  if (grads.empty()) return at::Tensor();
  const at::Tensor g = at::cat(grads);  // [steps x batch, out]
  if (bias_grad) *bias_grad = g.sum(0);
  return g.t().mm(at::cat(xs));
}

at::Tensor FewRowsTimesWeight(const at::Tensor& x, const at::Tensor& weight) {
  assert(!weight.requires_grad());  // per row, its gradient would be formed row by row
  const int64_t rows = x.size(0);
  if (rows >= kGemvRows) return at::mm(x, weight.t());
  if (rows == 1) return at::mv(weight, x.squeeze(0)).unsqueeze(0);
  std::vector<at::Tensor> out;
  out.reserve(rows);
  for (int64_t r = 0; r < rows; ++r) out.push_back(at::mv(weight, x.select(0, r)));
  return at::stack(out);
}

void AccumulateGradient(const at::Tensor& param, const at::Tensor& grad) {
  at::Tensor& slot = param.mutable_grad();
  if (slot.defined()) {
    slot.add_(grad);
  } else {
    slot = grad.clone();
  }
}

}  // namespace planner::search
