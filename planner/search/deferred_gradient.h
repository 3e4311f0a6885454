// Deferred weight gradients of a recurrence: a weight that enters every step
// of a loop without gradient, and its gradient formed after backward() in one
// product over all steps.
//
// Why: through autograd, each step's `x_t W^T` forms and sums a full-size
// weight gradient (an outer product for a batch of a few rows) at every step:
// for the Placer's decoder ([2048, 1040]) and encoder ([1024, 256] per
// direction) over NMT-8's 180 groups, most of a policy update's backward pass
// (docs/search.md). Instead, each step adds a zero leaf, the tap, to its
// product: the tap's gradient is the product's, and the weight's gradient is
// sum_t tap_grad_t^T x_t.
//
// Ownership: holds the steps' taps and inputs until Product() clears them.
// Thread safety: none; the thread that runs the loop and backward() uses it.
#pragma once
#include <ATen/core/Tensor.h>

#include <vector>

namespace planner::search {

struct DeferredSteps {
  std::vector<at::Tensor> taps;    // [batch, out] zero leaves, requires_grad
  std::vector<at::Tensor> inputs;  // [batch, in], no gradient

  // A fresh tap for a step whose product has `out` columns over `input`
  // ([batch, in]), recorded with a detached copy of that input.
  at::Tensor Tap(const at::Tensor& input, int64_t out);
  // After backward(): sum_t tap_grad_t^T input_t ([out, in]) and, through
  // `bias_grad` when given, sum_t of the taps' gradients over rows ([out]);
  // undefined when backward reached no step. Clears the taps' gradients, so a
  // second call adds nothing.
  at::Tensor Product(at::Tensor* bias_grad = nullptr);
};

// x W^T for `x` [rows, in] and a `weight` [out, in] that takes no gradient
// (as in the loops above); gradients flow into x. With few rows, one
// matrix-vector product per row: OpenBLAS's gemm copies (packs) the whole
// weight into its own layout at every call, which for a batch of one to a few
// rows costs more than reading the weight once per row, and gemv reads it in
// place, forward and backward (W^T g). NMT-8's decoder weight (8.5 MB), one
// thread, AMD EPYC (bench/few_rows_product.py), forward / backward: 1 row 0.07 / 0.07
// ms by gemv against 0.29 / 0.23 by gemm; 4 rows 0.25 / 0.28 against 0.50 /
// 0.48; 8 rows 0.51 / 0.55 against 0.52 / 0.47; 17 rows gemm well ahead.
// kGemvRows is that crossover.
constexpr int64_t kGemvRows = 8;
at::Tensor FewRowsTimesWeight(const at::Tensor& x, const at::Tensor& weight);

// Adds `grad` to `param`'s gradient (or sets it).
void AccumulateGradient(const at::Tensor& param, const at::Tensor& grad);

}  // namespace planner::search
