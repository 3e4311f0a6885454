// Kernels: each op type's computation as LibTorch calls, in one table.
//
// Contract: a kernel reads ctx.inputs (one at::Tensor per data input, in the
// graph's layout: TensorFlow's NHWC for images, HWIO for filters) and the node's
// attributes, and sets ctx.outputs (one per node output, same layout, any
// strides). Update ops (ApplyGradientDescent, ApplyMomentum) modify inputs[0]
// (and the accumulator) in place and output the variable. Kernels return a Status
// for input they cannot handle; LibTorch exceptions are caught by the executor,
// the one adapter that calls kernels.
//
// Layout: convolution-like kernels view NHWC data as NCHW with channels-last
// strides (a permute, no copy), which is the memory format oneDNN prefers, and
// permute results back the same way; see docs/runtime.md.
// Thread safety: kernels are pure functions of their context.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/status.h"
#include "sim/op_kind.h"

namespace runtime {

struct KernelContext {
  const graph::Node& node;
  std::vector<at::Tensor> inputs;
  std::vector<at::Tensor> outputs;
  // Empty, or one per input: a host copy of an input that lives on a GPU, where
  // the executor keeps one (a constant integer tensor: a shape, an axis), as
  // TensorFlow keeps int32 tensors in host memory. Kernels that read an
  // input's values on the host read HostInput(i), so that a GPU op does not
  // wait for the GPU to copy a shape back.
  std::vector<at::Tensor> host_inputs;

  const at::Tensor& HostInput(size_t i) const {
    return i < host_inputs.size() && host_inputs[i].defined() ? host_inputs[i] : inputs[i];
  }

  graph::Status Error(const std::string& msg) const {
    return graph::InvalidArgument("node '" + node.name + "' (" + node.op + "): " + msg);
  }
};

using KernelFn = graph::Status (*)(KernelContext&);

struct KernelEntry {
  const char* op;
  KernelFn fn;
};

// The table: forward kernels (kernels_forward.cc) and gradient and update
// kernels (kernels_grad.cc). nullptr when the op has no kernel.
const KernelFn* FindKernel(const std::string& op);

// Runs the node's kernel: the one place LibTorch exceptions are caught, turned
// into a one-line error naming the node. The kernel must exist.
graph::Status RunKernel(KernelContext& ctx);
std::vector<std::string> KernelOps();

// Which ops run a kernel (state ops, Placeholder and NoOp do not) is
// sim/op_kind.h's, shared with the simulator.
using sim::IsStateOp;
using sim::RunsKernel;

// Each list ends with {nullptr, nullptr}: kernels_forward.cc, kernels_grad.cc,
// kernels_math.cc, kernels_array.cc and kernels_shape.cc.
extern const KernelEntry kForwardKernels[];
extern const KernelEntry kGradKernels[];
extern const KernelEntry kMathKernels[];
extern const KernelEntry kArrayKernels[];
extern const KernelEntry kShapeKernels[];

// Helpers shared by kernel files.
// Whether `t` has a LibTorch type (strings, complex and quantized types do not):
// a model's input or variable of another type is refused, not run.
bool HasTorchType(graph::DType t);
at::ScalarType ToTorch(graph::DType t);  // HasTorchType(t) or it asserts
graph::DType FromTorch(at::ScalarType t);
// NHWC <-> NCHW views (no copy).
inline at::Tensor NhwcToNchw(const at::Tensor& t) { return t.permute({0, 3, 1, 2}); }
inline at::Tensor NchwToNhwc(const at::Tensor& t) { return t.permute({0, 2, 3, 1}); }
// TensorFlow filters HWIO -> PyTorch OIHW (view).
inline at::Tensor HwioToOihw(const at::Tensor& f) { return f.permute({3, 2, 0, 1}); }

}  // namespace runtime
