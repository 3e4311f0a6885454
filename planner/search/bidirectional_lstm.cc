#include "planner/search/bidirectional_lstm.h"

#include <ATen/ATen.h>

#include <cassert>
#include <string>
#include <vector>

namespace planner::search {
namespace {

// By value: named_parameters() returns a dictionary that dies with the call.
at::Tensor Param(const torch::nn::LSTM& lstm, const std::string& name, bool reverse) {
  const auto params = lstm->named_parameters(/*recurse=*/false);
  const at::Tensor* p = params.find(name + (reverse ? "_l0_reverse" : "_l0"));
  assert(p != nullptr);
  return *p;
}

// One direction over x [T, input]: torch's equations, gates in the order
// i, f, g, o; returns [T, h] in x's order.
at::Tensor Direction(const torch::nn::LSTM& lstm, const at::Tensor& x, bool reverse,
                     DeferredSteps* steps) {
  // The input's share of every step's gates at once (through autograd: one
  // product), the recurrent weight's without gradient.
  const std::vector<at::Tensor> inputs =
      at::linear(x, Param(lstm, "weight_ih", reverse),
                 Param(lstm, "bias_ih", reverse) + Param(lstm, "bias_hh", reverse))
          .unbind(0);
  // Shares the parameter's storage: backward() must run before the optimizer
  // updates it (as every update does), or autograd reports the in-place change.
  const at::Tensor w_hh = Param(lstm, "weight_hh", reverse).detach();
  const int64_t length = x.size(0), hidden = w_hh.size(1);
  at::Tensor h = at::zeros({1, hidden}, x.options()), c = at::zeros({1, hidden}, x.options());
  std::vector<at::Tensor> out(length);
  for (int64_t i = 0; i < length; ++i) {
    const int64_t t = reverse ? length - 1 - i : i;
    const at::Tensor tap = steps->Tap(h, 4 * hidden);
    const std::vector<at::Tensor> gates =
        (inputs[t].unsqueeze(0) + FewRowsTimesWeight(h, w_hh) + tap).chunk(4, 1);
    c = at::sigmoid(gates[1]) * c + at::sigmoid(gates[0]) * at::tanh(gates[2]);
    h = at::sigmoid(gates[3]) * at::tanh(c);
    out[t] = h;
  }
  return at::cat(out, 0);
}

}  // namespace

at::Tensor BidirectionalLstm(const torch::nn::LSTM& lstm, const at::Tensor& x, LstmSteps* steps) {
  assert(lstm->options.bidirectional() && lstm->options.num_layers() == 1);
  return at::cat({Direction(lstm, x, false, &(*steps)[0]), Direction(lstm, x, true, &(*steps)[1])},
                 1);
}

void AddBidirectionalLstmGradients(const torch::nn::LSTM& lstm, LstmSteps* steps) {
  for (bool reverse : {false, true}) {
    const at::Tensor w = (*steps)[reverse].Product();
    if (w.defined()) AccumulateGradient(Param(lstm, "weight_hh", reverse), w);
  }
}

}  // namespace planner::search
