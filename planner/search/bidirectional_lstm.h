// The Placer's encoder step by step: torch::nn::LSTM's forward for one layer,
// both directions, a batch of one, with the recurrent weights' gradients
// formed once per call instead of once per step.
//
// Why: LibTorch's CPU LSTM multiplies by `weight_hh.t()` at every step, so
// backward forms and adds one transposed [4h, h] gradient per step (1 MiB at
// h = 256, 360 of them over NMT-8's 180 groups: a large share of a policy
// update's backward pass; docs/search.md).
//
// Contract: the same outputs and, with AddBidirectionalLstmGradients after
// backward(), the same gradients as `lstm->forward(x.unsqueeze(1))` (to float
// rounding); `lstm` is bidirectional, one layer, with biases.
// Ownership: reads the module's parameters. Thread safety: as the module's
// forward (no state of its own).
#pragma once
#include <ATen/core/Tensor.h>
#include <torch/nn/modules/rnn.h>

#include <array>

#include "planner/search/deferred_gradient.h"

namespace planner::search {

// Each direction's recurrent weight's steps (forward, then backward).
using LstmSteps = std::array<DeferredSteps, 2>;

// x: [T, input] -> [T, 2 h]: each step's forward then backward hidden state.
// The recurrent weights enter without gradient; their steps go to `steps`.
at::Tensor BidirectionalLstm(const torch::nn::LSTM& lstm, const at::Tensor& x, LstmSteps* steps);

// After backward() through BidirectionalLstm's outputs: adds the recurrent
// weights' gradients to theirs and clears `steps`' taps.
void AddBidirectionalLstmGradients(const torch::nn::LSTM& lstm, LstmSteps* steps);

}  // namespace planner::search
