// Internal to runtime/: TensorFlow's 2-D window geometry (strides, dilations,
// output size, SAME/VALID/EXPLICIT padding), shared by the forward kernels and
// their gradients so both read a node's window the same way.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>

#include "runtime/kernel.h"

namespace runtime {

using Pair = std::array<int64_t, 2>;  // (height, width)

struct Window {
  Pair stride, dilation, before{}, after{}, out{};
};

// A 4-element attribute in data_format order, as (height, width); TF requires 1
// for batch and depth. Absent and not required: (1, 1).
graph::Result<Pair> SpatialAttr(const KernelContext& c, const char* name, bool nchw, bool required);

// The window of a node with input spatial size `in` and window size `size`.
graph::Result<Window> ReadWindow(const KernelContext& c, bool nchw, Pair in, Pair size);

// PyTorch pads both sides of a dimension equally; where TF's padding is
// asymmetric, or larger than `max_sym` (PyTorch's pools take at most half the
// window), pads the NCHW input with `value` and sets `sym` to zero padding.
at::Tensor PadAsymmetric(const at::Tensor& x, const Window& w, const at::Scalar& value, Pair* sym,
                         Pair max_sym = {INT64_MAX, INT64_MAX});

}  // namespace runtime
