// Internal to runtime/: helpers the kernel files share to read a KernelContext
// the same way (arity, integer operands, axes, layouts) and to take a forward
// kernel's vector-Jacobian product. Errors name the node (KernelContext::Error).
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "runtime/kernel.h"

namespace runtime {

using Int64s = std::vector<int64_t>;

// "[1,2,3]", for messages.
std::string Str(at::IntArrayRef v);

graph::Status Arity(const KernelContext& c, size_t n);

bool IsInt(const at::Tensor& t);

// The elements of integer input `i`, flattened.
graph::Result<Int64s> Ints(const KernelContext& c, size_t i);
// One integer from input `i` (a scalar or a one-element vector).
graph::Result<int64_t> Int(const KernelContext& c, size_t i);

// Maps a TensorFlow axis in [-rank, rank) to [0, rank).
graph::Status Axis(const KernelContext& c, int64_t rank, int64_t* axis);

graph::Status SameShapes(const KernelContext& c, const std::vector<at::Tensor>& ts);

// Whether the node's data_format is NCHW (else NHWC; others are an error).
graph::Result<bool> IsNchw(const KernelContext& c);
// The same for an op over `spatial` (2 or 3) spatial dimensions: channels first
// (NCHW, NCDHW) or last (NHWC, NDHWC: TensorFlow's default).
graph::Result<bool> IsChannelsFirst(const KernelContext& c, int spatial);
// Channels-last <-> channels-first views (no copy) of a tensor of rank >= 3.
at::Tensor ChannelsLastToFirst(const at::Tensor& t);
at::Tensor ChannelsFirstToLast(const at::Tensor& t);

// The groups of a convolution of an input of `depth` channels by a TensorFlow
// filter (spatial dims, then input and output depth): TF runs a grouped
// convolution when the input depth is a multiple of the filter's, and each
// group's output depth is a share of the filter's. An error names the sizes.
graph::Result<int64_t> ConvGroups(const KernelContext& c, int64_t depth, at::IntArrayRef filter);

// The integer type an index-producing op's attribute `attr` asks for (int32 or
// int64; `dflt` when absent); any other type is an error naming the node.
graph::Result<at::ScalarType> IndexType(const KernelContext& c, const char* attr,
                                        graph::DType dflt);

// Kernels of elementwise ops that are one LibTorch function of their inputs.
template <at::Tensor (*F)(const at::Tensor&)>
graph::Status Unary(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  c.outputs = {F(c.inputs[0])};
  return graph::Status::Ok();
}
template <at::Tensor (*F)(const at::Tensor&, const at::Tensor&)>
graph::Status Binary(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  c.outputs = {F(c.inputs[0], c.inputs[1])};
  return graph::Status::Ok();
}

// The row-major position of each row of `index` ([n, k] int64) among the first
// k dimensions of `dims`; the error names the node when an index is out of range.
graph::Result<at::Tensor> RowMajorIndex(const KernelContext& c, const at::Tensor& index,
                                        at::IntArrayRef dims);

// The vector-Jacobian product of forward op `op` (run as `forward_node`) with
// respect to its input `wrt`: `inputs` are the forward op's inputs (the one at
// `wrt` gives only the shape and type when the op is linear in it) and `dy` the
// gradient of its output 0. Sets c.outputs to the one gradient.
// `host_inputs`: the forward op's KernelContext::host_inputs (empty, or one
// per input), so that a forward kernel reading a shape or paddings on the
// host reads the copy the executor keeps, not the GPU's (a sync each step).
graph::Status Vjp(KernelContext& c, const char* op, const graph::Node& forward_node,
                  std::vector<at::Tensor> inputs, int wrt, const at::Tensor& dy,
                  std::vector<at::Tensor> host_inputs = {});

// A node identical to `n` but of type `op`: the forward op whose VJP a gradient
// op is, with the same attributes.
graph::Node AsForward(const graph::Node& n, const char* op);

}  // namespace runtime
