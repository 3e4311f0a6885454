#include "planner/deferred_gradient.h"

#include <ATen/ATen.h>

namespace planner {

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

void AccumulateGradient(const at::Tensor& param, const at::Tensor& grad) {
  at::Tensor& slot = param.mutable_grad();
  if (slot.defined()) {
    slot.add_(grad);
  } else {
    slot = grad.clone();
  }
}

}  // namespace planner
