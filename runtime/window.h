// Internal to runtime/: TensorFlow's window geometry (strides, dilations,
// output size, SAME/VALID/EXPLICIT padding) over N spatial dimensions (2 for
// Conv2D and the pools, 3 for Conv3D and the 3-D pools), shared by the forward
// kernels and their gradients so both read a node's window the same way.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstddef>

#include "runtime/kernel.h"

namespace runtime {

template <size_t N>
using Dims = std::array<int64_t, N>;  // one entry per spatial dimension, outermost first
using Pair = Dims<2>;                 // (height, width)

template <size_t N>
struct WindowOf {
  Dims<N> stride{}, dilation{}, before{}, after{}, out{};
};
using Window = WindowOf<2>;

// An (N + 2)-element attribute in data_format order (channels first or last),
// as its N spatial entries; TF requires 1 for batch and channels. Absent and
// not required: all 1.
template <size_t N>
graph::Result<Dims<N>> SpatialAttrOf(const KernelContext& c, const char* name, bool channels_first,
                                     bool required);

// The window of a node with input spatial sizes `in` and window sizes `size`.
template <size_t N>
graph::Result<WindowOf<N>> ReadWindowOf(const KernelContext& c, bool channels_first, Dims<N> in,
                                        Dims<N> size);

// PyTorch pads both sides of a dimension equally; where TF's padding is
// asymmetric, or larger than `max_sym` (PyTorch's pools take at most half the
// window), pads the channels-first input with `value` and sets `sym` to zero
// padding. Without `max_sym`, any symmetric padding is left to PyTorch.
template <size_t N>
at::Tensor PadAsymmetricOf(const at::Tensor& x, const WindowOf<N>& w, const at::Scalar& value,
                           Dims<N>* sym, const Dims<N>* max_sym = nullptr);

// The 2-D forms the 2-D kernels call.
inline graph::Result<Pair> SpatialAttr(const KernelContext& c, const char* name, bool nchw,
                                       bool required) {
  return SpatialAttrOf<2>(c, name, nchw, required);
}
inline graph::Result<Window> ReadWindow(const KernelContext& c, bool nchw, Pair in, Pair size) {
  return ReadWindowOf<2>(c, nchw, in, size);
}
inline at::Tensor PadAsymmetric(const at::Tensor& x, const Window& w, const at::Scalar& value,
                                Pair* sym) {
  return PadAsymmetricOf<2>(x, w, value, sym);
}
inline at::Tensor PadAsymmetric(const at::Tensor& x, const Window& w, const at::Scalar& value,
                                Pair* sym, Pair max_sym) {
  return PadAsymmetricOf<2>(x, w, value, sym, &max_sym);
}

}  // namespace runtime
