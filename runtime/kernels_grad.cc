// Kernels of TensorFlow's gradient ops (what graph/gradients.cc emits) and of the
// parameter updates.
//
// Convolution gradients call ATen's convolution_backward directly: they dominate a
// training step. The other gradient ops are vector-Jacobian products of our own
// forward kernel, taken through LibTorch autograd: forward and backward then share
// one implementation of TensorFlow's semantics (SAME padding, pooling divisors,
// resize coordinates, slice masks) and cannot drift apart.
#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <optional>

#include "runtime/kernel.h"
#include "runtime/kernel_util.h"
#include "runtime/window.h"

namespace runtime {

namespace {

using graph::Status;

std::vector<int64_t> Values(const at::Tensor& t) {
  at::Tensor c = t.to(at::kCPU, at::kLong).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

constexpr char kAvgPool[] = "AvgPool";
constexpr char kAvgPool3D[] = "AvgPool3D";

bool Nchw(const graph::Node& n) { return n.attr_string("data_format", "NHWC").rfind("NC", 0) == 0; }

// Gradient of a convolution of N spatial dims (grouped) with respect to its
// input or filter. x and dy are channels-first views; w is OI followed by the
// spatial dims. Asymmetric padding is applied explicitly.
template <size_t N>
Status ConvBackprop(KernelContext& c, bool want_input, const std::vector<int64_t>& x_sizes,
                    const at::Tensor& x, const at::Tensor& w, const at::Tensor& dy, int64_t groups,
                    at::Tensor* result) {
  Dims<N> in, size;
  for (size_t i = 0; i < N; ++i) {
    in[i] = x_sizes[2 + i];
    size[i] = w.size(2 + i);
  }
  GRAPH_ASSIGN_OR_RETURN(WindowOf<N> win, ReadWindowOf<N>(c, Nchw(c.node), in, size));
  const bool symmetric = win.before == win.after;
  std::vector<int64_t> padded = x_sizes, pads;  // pads: constant_pad_nd's, last dim first
  bool unit = true, strided = false;
  for (size_t i = 0; i < N; ++i) {
    padded[2 + i] += win.before[i] + win.after[i];
    pads.insert(pads.begin(), {win.before[i], win.after[i]});
    unit = unit && size[i] == 1;
    strided = strided || win.stride[i] > 1;
  }
  // A 1x1 filter with a stride reads every stride-th pixel: its filter gradient
  // is that of a stride-1 convolution of those pixels. oneDNN's strided 1x1
  // filter gradient on channels-last tensors crashes (SIGSEGV in libdnnl 2.7 for
  // a 60x60x8 input, stride 2), and the subsampled form is cheaper anyway.
  const bool subsample = !want_input && unit && strided;
  at::Tensor xin = x;
  if (!want_input && (!symmetric || subsample)) xin = at::constant_pad_nd(x, pads);
  if (want_input) xin = at::empty(symmetric ? x_sizes : padded, dy.options());
  std::vector<int64_t> pad(N, 0), stride(win.stride.begin(), win.stride.end());
  if (symmetric && !subsample) pad.assign(win.before.begin(), win.before.end());
  if (subsample) {
    for (size_t i = 0; i < N; ++i) {
      xin = xin.slice(2 + i, 0, (dy.size(2 + i) - 1) * stride[i] + 1, stride[i]);
    }
    stride.assign(N, 1);
  }
  auto grads = at::convolution_backward(dy, xin, w, c10::nullopt, stride, pad, win.dilation, false,
                                        std::vector<int64_t>(N, 0), groups,
                                        {want_input, !want_input, false});
  if (want_input) {
    at::Tensor gi = std::get<0>(grads);
    for (size_t i = 0; !symmetric && i < N; ++i) gi = gi.narrow(2 + i, win.before[i], in[i]);
    *result = gi;
  } else {
    *result = std::get<1>(grads);
  }
  return Status::Ok();
}

at::Tensor ToNchw(const graph::Node& n, const at::Tensor& t) {
  return Nchw(n) ? t : ChannelsLastToFirst(t);
}
at::Tensor FromNchw(const graph::Node& n, const at::Tensor& t) {
  return Nchw(n) ? t : ChannelsFirstToLast(t);
}
// Sizes in the node's data_format, channels first.
std::vector<int64_t> SizesToNchw(const graph::Node& n, std::vector<int64_t> s) {
  if (Nchw(n) || s.size() < 3) return s;
  s.insert(s.begin() + 1, s.back());
  s.pop_back();
  return s;
}

// Conv2DBackpropFilter(input, filter_sizes, out_backprop)
Status Conv2DBackpropFilter(KernelContext& c) {
  std::vector<int64_t> fs = Values(c.HostInput(1));
  if (fs.size() != 4) return c.Error("filter_sizes must have 4 entries");
  const at::Tensor& x = c.inputs[0];
  if (x.dim() != 4) return c.Error("input must be 4-D");
  const int64_t depth = ToNchw(c.node, x).size(1);
  GRAPH_ASSIGN_OR_RETURN(int64_t groups, ConvGroups(c, depth, fs));
  at::Tensor w = at::empty({fs[3], fs[2], fs[0], fs[1]}, x.options());
  at::Tensor gw;
  GRAPH_RETURN_IF_ERROR(ConvBackprop<2>(c, false, ToNchw(c.node, x).sizes().vec(),
                                        ToNchw(c.node, x), w, ToNchw(c.node, c.inputs[2]), groups,
                                        &gw));
  c.outputs = {gw.permute({2, 3, 1, 0})};  // OIHW -> HWIO
  return Status::Ok();
}

// Conv3DBackpropInputV2(input_sizes, filter, out_backprop); also a forward op
// (ONNX's 3-D ConvTranspose).
Status Conv3DBackpropInput(KernelContext& c) {
  std::vector<int64_t> sizes = Values(c.HostInput(0));
  const at::Tensor& f = c.inputs[1];
  if (sizes.size() != 5 || f.dim() != 5 || c.inputs[2].dim() != 5) {
    return c.Error("input_sizes must have 5 entries; filter and out_backprop must be 5-D");
  }
  const std::vector<int64_t> x_sizes = SizesToNchw(c.node, sizes);
  GRAPH_ASSIGN_OR_RETURN(int64_t groups, ConvGroups(c, x_sizes[1], f.sizes()));
  at::Tensor gi;
  GRAPH_RETURN_IF_ERROR(ConvBackprop<3>(c, true, x_sizes, at::Tensor(), f.permute({4, 3, 0, 1, 2}),
                                        ToNchw(c.node, c.inputs[2]), groups, &gi));
  c.outputs = {FromNchw(c.node, gi)};
  return Status::Ok();
}

// Conv3DBackpropFilterV2(input, filter_sizes, out_backprop)
Status Conv3DBackpropFilter(KernelContext& c) {
  std::vector<int64_t> fs = Values(c.HostInput(1));
  const at::Tensor& x = c.inputs[0];
  if (fs.size() != 5 || x.dim() != 5 || c.inputs[2].dim() != 5) {
    return c.Error("filter_sizes must have 5 entries; input and out_backprop must be 5-D");
  }
  const at::Tensor xn = ToNchw(c.node, x);
  GRAPH_ASSIGN_OR_RETURN(int64_t groups, ConvGroups(c, xn.size(1), fs));
  at::Tensor w = at::empty({fs[4], fs[3], fs[0], fs[1], fs[2]}, x.options());
  at::Tensor gw;
  GRAPH_RETURN_IF_ERROR(
      ConvBackprop<3>(c, false, xn.sizes().vec(), xn, w, ToNchw(c.node, c.inputs[2]), groups, &gw));
  c.outputs = {gw.permute({2, 3, 4, 1, 0})};  // OIDHW -> DHWIO
  return Status::Ok();
}

// Depthwise filters [kh, kw, C, M] are a grouped convolution with C groups whose
// output channel c*M + m is filter[:, :, c, m].
at::Tensor DepthwiseToOihw(const at::Tensor& f) {
  int64_t kh = f.size(0), kw = f.size(1), cm = f.size(2) * f.size(3);
  return f.reshape({kh, kw, cm}).permute({2, 0, 1}).unsqueeze(1);
}

Status DepthwiseBackpropInput(KernelContext& c) {
  std::vector<int64_t> sizes = Values(c.HostInput(0));
  if (sizes.size() != 4) return c.Error("input_sizes must have 4 entries");
  const at::Tensor& f = c.inputs[1];
  at::Tensor gi;
  GRAPH_RETURN_IF_ERROR(ConvBackprop<2>(c, true, SizesToNchw(c.node, sizes), at::Tensor(),
                                        DepthwiseToOihw(f), ToNchw(c.node, c.inputs[2]), f.size(2),
                                        &gi));
  c.outputs = {FromNchw(c.node, gi)};
  return Status::Ok();
}

Status DepthwiseBackpropFilter(KernelContext& c) {
  std::vector<int64_t> fs = Values(c.HostInput(1));
  if (fs.size() != 4) return c.Error("filter_sizes must have 4 entries");
  const at::Tensor& x = c.inputs[0];
  at::Tensor w = at::empty({fs[2] * fs[3], 1, fs[0], fs[1]}, x.options());
  at::Tensor gw;
  GRAPH_RETURN_IF_ERROR(ConvBackprop<2>(c, false, ToNchw(c.node, x).sizes().vec(),
                                        ToNchw(c.node, x), w, ToNchw(c.node, c.inputs[2]), fs[2],
                                        &gw));
  // [C*M, 1, kh, kw] -> [kh, kw, C, M]
  c.outputs = {gw.squeeze(1).permute({1, 2, 0}).reshape({fs[0], fs[1], fs[2], fs[3]})};
  return Status::Ok();
}

// FusedBatchNormGrad/V2/V3(dy, x, scale, reserve_space_1, reserve_space_2
// [, reserve_space_3]) -> (dx, dscale, doffset, empty, empty). Training mode:
// the reserve spaces are the batch mean and biased variance; inference mode
// (is_training false): the population mean and variance, held constant.
Status FusedBatchNormGrad(KernelContext& c) {
  if (c.inputs.size() < 5 || (c.inputs[0].dim() != 4 && c.inputs[0].dim() != 5) ||
      c.inputs[1].dim() != c.inputs[0].dim()) {
    return c.Error("expects a 4-D or 5-D gradient and input, scale, mean and variance");
  }
  const bool training = c.node.attr_bool("is_training", true);
  const at::Tensor dy = ToNchw(c.node, c.inputs[0]), x = ToNchw(c.node, c.inputs[1]);
  const double eps = c.node.attr_float("epsilon", 1e-4f);
  const at::Tensor invstd = (c.inputs[4] + eps).rsqrt();
  auto [dx, dscale, doffset] =
      training ? at::native_batch_norm_backward(dy, x, c.inputs[2], c10::nullopt, c10::nullopt,
                                                c.inputs[3], invstd, true, eps, {true, true, true})
               : at::native_batch_norm_backward(dy, x, c.inputs[2], c.inputs[3], c.inputs[4],
                                                c10::nullopt, c10::nullopt, false, eps,
                                                {true, true, true});
  at::Tensor empty = at::empty({0}, x.options());
  c.outputs = {FromNchw(c.node, dx), dscale, doffset, empty, empty};
  return Status::Ok();
}

Status BiasAddGrad(KernelContext& c) {
  const at::Tensor& dy = c.inputs[0];
  if (dy.dim() < 2) return c.Error("gradient must be at least 2-D");
  int64_t channel = Nchw(c.node) ? 1 : dy.dim() - 1;
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < dy.dim(); ++d) {
    if (d != channel) dims.push_back(d);
  }
  c.outputs = {dy.sum(dims)};
  return Status::Ok();
}

// The elementwise gradients, with TensorFlow's operand orders.
Status ReluGrad(KernelContext& c) {  // (dy, features): one fused pass
  c.outputs = {at::threshold_backward(c.inputs[0], c.inputs[1], 0)};
  return Status::Ok();
}
Status Relu6Grad(KernelContext& c) {  // (dy, features): dy where 0 < features < 6
  c.outputs = {at::hardtanh_backward(c.inputs[0], c.inputs[1], 0, 6)};
  return Status::Ok();
}
Status SigmoidGrad(KernelContext& c) {  // (y, dy)
  const at::Tensor& y = c.inputs[0];
  c.outputs = {c.inputs[1] * y * (1 - y)};
  return Status::Ok();
}
Status TanhGrad(KernelContext& c) {  // (y, dy)
  const at::Tensor& y = c.inputs[0];
  c.outputs = {c.inputs[1] * (1 - y * y)};
  return Status::Ok();
}
Status SqrtGrad(KernelContext& c) {  // (y, dy)
  c.outputs = {c.inputs[1] * 0.5 / c.inputs[0]};
  return Status::Ok();
}
Status RsqrtGrad(KernelContext& c) {  // (y, dy)
  const at::Tensor& y = c.inputs[0];
  c.outputs = {c.inputs[1] * -0.5 * y * y * y};
  return Status::Ok();
}

Status MaxPoolGrad(KernelContext& c) {  // (orig_input, orig_output, grad)
  const at::Tensor& x = c.inputs[0];
  if (x.dim() == 4) {
    at::Tensor xn = ToNchw(c.node, x);
    GRAPH_ASSIGN_OR_RETURN(Pair k, SpatialAttr(c, "ksize", Nchw(c.node), true));
    GRAPH_ASSIGN_OR_RETURN(Window w, ReadWindow(c, Nchw(c.node), {xn.size(2), xn.size(3)}, k));
    // PyTorch pads symmetrically and at most half a window; other cases take the
    // general path below.
    if (w.before == w.after && 2 * w.before[0] <= k[0] && 2 * w.before[1] <= k[1]) {
      auto [y, indices] = at::max_pool2d_with_indices(xn, {k[0], k[1]}, {w.stride[0], w.stride[1]},
                                                      {w.before[0], w.before[1]});
      at::Tensor gx = at::max_pool2d_with_indices_backward(
          ToNchw(c.node, c.inputs[2]), xn, {k[0], k[1]}, {w.stride[0], w.stride[1]},
          {w.before[0], w.before[1]}, {1, 1}, false, indices);
      c.outputs = {FromNchw(c.node, gx)};
      return Status::Ok();
    }
  }
  graph::Node f = AsForward(c.node, "MaxPool");
  return Vjp(c, "MaxPool", f, {x}, 0, c.inputs[2]);
}

// The pair the executor runs in place of MaxPool and MaxPoolGrad when the
// gradient reads the pool's own input and output (sim/rewrite.h): the pool
// keeps the position of each maximum, so its gradient scatters instead of
// searching every window again, as PyTorch does. The indices are PyTorch's:
// positions in the NCHW plane of the (padded) input, laid out like the output.
struct PoolGeometry {
  Pair k, pad;  // pad: PyTorch's symmetric padding, applied by the pool itself
  Window w;
  bool explicit_pad;  // TF's padding is applied to the input first, pad is zero
};

graph::Result<PoolGeometry> MaxPoolGeometry(const KernelContext& c, const at::Tensor& x_nchw) {
  PoolGeometry g;
  GRAPH_ASSIGN_OR_RETURN(g.k, SpatialAttr(c, "ksize", Nchw(c.node), true));
  GRAPH_ASSIGN_OR_RETURN(g.w, ReadWindow(c, Nchw(c.node), {x_nchw.size(2), x_nchw.size(3)}, g.k));
  // PyTorch pads symmetrically and at most half a window.
  g.explicit_pad =
      g.w.before != g.w.after || 2 * g.w.before[0] > g.k[0] || 2 * g.w.before[1] > g.k[1];
  g.pad = g.explicit_pad ? Pair{0, 0} : g.w.before;
  return g;
}

Status MaxPoolWithIndices(KernelContext& c) {  // (x) -> (y, indices)
  if (c.inputs.size() != 1 || c.inputs[0].dim() != 4) return c.Error("needs one 4-D input");
  at::Tensor x = ToNchw(c.node, c.inputs[0]);
  GRAPH_ASSIGN_OR_RETURN(PoolGeometry g, MaxPoolGeometry(c, x));
  if (g.explicit_pad) {
    x = at::constant_pad_nd(x, {g.w.before[1], g.w.after[1], g.w.before[0], g.w.after[0]},
                            -INFINITY);
  }
  auto [y, indices] = at::max_pool2d_with_indices(
      x, {g.k[0], g.k[1]}, {g.w.stride[0], g.w.stride[1]}, {g.pad[0], g.pad[1]});
  c.outputs = {FromNchw(c.node, y), FromNchw(c.node, indices)};
  return Status::Ok();
}

Status MaxPoolGradWithIndices(KernelContext& c) {  // (orig_input, grad, indices)
  if (c.inputs.size() != 3 || c.inputs[0].dim() != 4) return c.Error("needs a 4-D input");
  const at::Tensor x = ToNchw(c.node, c.inputs[0]);
  GRAPH_ASSIGN_OR_RETURN(PoolGeometry g, MaxPoolGeometry(c, x));
  // The backward reads only the input's sizes (and memory format).
  at::Tensor self = x;
  if (g.explicit_pad) {
    self = at::empty({x.size(0), x.size(1), x.size(2) + g.w.before[0] + g.w.after[0],
                      x.size(3) + g.w.before[1] + g.w.after[1]},
                     x.options());
  }
  at::Tensor gx = at::max_pool2d_with_indices_backward(
      ToNchw(c.node, c.inputs[1]), self, {g.k[0], g.k[1]}, {g.w.stride[0], g.w.stride[1]},
      {g.pad[0], g.pad[1]}, {1, 1}, false, ToNchw(c.node, c.inputs[2]));
  if (g.explicit_pad) {
    gx = gx.narrow(2, g.w.before[0], x.size(2)).narrow(3, g.w.before[1], x.size(3));
  }
  c.outputs = {FromNchw(c.node, gx)};
  return Status::Ok();
}

// AvgPoolGrad and AvgPool3DGrad: (orig_input_shape, grad).
template <const char* kForward>
Status AvgPoolGrad(KernelContext& c) {
  std::vector<int64_t> shape = Values(c.HostInput(0));
  graph::Node f = AsForward(c.node, kForward);
  return Vjp(c, kForward, f, {at::zeros(shape, c.inputs[1].options())}, 0, c.inputs[1]);
}

Status MaxPool3DGrad(KernelContext& c) {  // (orig_input, orig_output, grad)
  return Vjp(c, "MaxPool3D", AsForward(c.node, "MaxPool3D"), {c.inputs[0]}, 0, c.inputs[2]);
}

Status ResizeBilinearGrad(KernelContext& c) {  // (grads, original_image)
  const at::Tensor& img = c.inputs[1];
  at::Tensor size = at::tensor({c.inputs[0].size(1), c.inputs[0].size(2)}, at::kInt);
  graph::Node f = AsForward(c.node, "ResizeBilinear");
  return Vjp(c, "ResizeBilinear", f, {at::zeros_like(img, c.inputs[0].options()), size}, 0,
             c.inputs[0]);
}

Status StridedSliceGrad(KernelContext& c) {  // (shape, begin, end, strides, dy)
  std::vector<int64_t> shape = Values(c.HostInput(0));
  graph::Node f = AsForward(c.node, "StridedSlice");
  return Vjp(c, "StridedSlice", f,
             {at::zeros(shape, c.inputs[4].options()), c.inputs[1], c.inputs[2], c.inputs[3]}, 0,
             c.inputs[4], {at::Tensor(), c.HostInput(1), c.HostInput(2), c.HostInput(3)});
}

// ScatterNd(indices, updates, shape): the updates summed into a zero tensor at
// their indices (duplicates add up), as TensorFlow; written directly, not as
// GatherNd's VJP, so that autograd runs through it when it is a forward op.
Status ScatterNd(KernelContext& c) {
  if (c.inputs.size() != 3) return c.Error("expects indices, updates and shape");
  const at::Tensor &indices = c.inputs[0], &updates = c.inputs[1];
  std::vector<int64_t> shape = Values(c.HostInput(2));
  if (!at::isIntegralType(indices.scalar_type(), false) || indices.dim() < 1 ||
      indices.size(-1) > static_cast<int64_t>(shape.size())) {
    return c.Error("indices must be integers [..., k] with k <= the output's rank");
  }
  const int64_t k = indices.size(-1);
  const at::Tensor index = indices.to(at::kLong).reshape({-1, k});
  const int64_t num = index.size(0);
  GRAPH_ASSIGN_OR_RETURN(at::Tensor linear, RowMajorIndex(c, index, shape));
  int64_t rows = 1;
  for (int64_t j = 0; j < k; ++j) rows *= shape[j];
  int64_t slice = 1;
  for (size_t j = k; j < shape.size(); ++j) slice *= shape[j];
  if (updates.numel() != num * slice) {
    return c.Error("updates must hold one slice of the output per index");
  }
  at::Tensor out = at::zeros({rows, slice}, updates.options())
                       .index_add(0, linear, updates.reshape({num, slice}));
  c.outputs = {out.reshape(shape)};
  return Status::Ok();
}

// A rate (learning rate, momentum) on the host as a Scalar, so that `var -= lr
// * x` is one pass over var (Tensor::sub_'s alpha) instead of a temporary and a
// second pass; on a GPU the rate stays a tensor (reading it would wait for the
// GPU).
std::optional<at::Scalar> HostScalar(const KernelContext& c, size_t i) {
  const at::Tensor& t = c.HostInput(i);
  if (!t.defined() || !t.is_cpu() || t.numel() != 1) return std::nullopt;
  return t.item();
}

// var -= rate * x, in place.
void SubScaled(at::Tensor& var, const at::Tensor& x, const KernelContext& c, size_t rate) {
  if (std::optional<at::Scalar> r = HostScalar(c, rate)) {
    var.sub_(x, *r);
  } else {
    var.sub_(x * c.inputs[rate]);
  }
}

// Updates change the variable in place: parameters keep their storage across steps.
Status ApplyGradientDescent(KernelContext& c) {  // (var, alpha, delta)
  at::Tensor& var = c.inputs[0];
  if (!var.sizes().equals(c.inputs[2].sizes())) return c.Error("gradient shape differs from var");
  SubScaled(var, c.inputs[2], c, 1);
  c.outputs = {var};
  return Status::Ok();
}

Status ApplyMomentum(KernelContext& c) {  // (var, accum, lr, grad, momentum)
  at::Tensor &var = c.inputs[0], &accum = c.inputs[1];
  if (!var.sizes().equals(c.inputs[3].sizes()) || !accum.sizes().equals(var.sizes())) {
    return c.Error("gradient or accumulator shape differs from var");
  }
  // accum = grad + momentum * accum: one pass when the momentum is on the host.
  if (std::optional<at::Scalar> m = HostScalar(c, 4)) {
    at::add_out(accum, c.inputs[3], accum, *m);
  } else {
    accum.mul_(c.inputs[4]).add_(c.inputs[3]);
  }
  SubScaled(var, accum, c, 2);
  c.outputs = {var};
  return Status::Ok();
}

// A kernel whose node must have N inputs: a file's graph may give any number,
// and the kernel reads them by index.
template <size_t N, KernelFn F>
Status Inputs(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, N));
  return F(c);
}

}  // namespace

const KernelEntry kGradKernels[] = {
    {"Conv2DBackpropFilter", Inputs<3, Conv2DBackpropFilter>},
    {"DepthwiseConv2dNativeBackpropInput", Inputs<3, DepthwiseBackpropInput>},
    {"DepthwiseConv2dNativeBackpropFilter", Inputs<3, DepthwiseBackpropFilter>},
    {"BiasAddGrad", Inputs<1, BiasAddGrad>},
    {"FusedBatchNormGrad", FusedBatchNormGrad},
    {"FusedBatchNormGradV2", FusedBatchNormGrad},
    {"FusedBatchNormGradV3", FusedBatchNormGrad},
    {"ReluGrad", Inputs<2, ReluGrad>},
    {"Relu6Grad", Inputs<2, Relu6Grad>},
    {"SigmoidGrad", Inputs<2, SigmoidGrad>},
    {"TanhGrad", Inputs<2, TanhGrad>},
    {"SqrtGrad", Inputs<2, SqrtGrad>},
    {"RsqrtGrad", Inputs<2, RsqrtGrad>},
    {"MaxPoolGrad", Inputs<3, MaxPoolGrad>},
    {"_MaxPoolWithIndices", MaxPoolWithIndices},
    {"_MaxPoolGradWithIndices", MaxPoolGradWithIndices},
    {"AvgPoolGrad", Inputs<2, AvgPoolGrad<kAvgPool>>},
    {"Conv3DBackpropInputV2", Inputs<3, Conv3DBackpropInput>},
    {"Conv3DBackpropFilterV2", Inputs<3, Conv3DBackpropFilter>},
    {"MaxPool3DGrad", Inputs<3, MaxPool3DGrad>},
    {"AvgPool3DGrad", Inputs<2, AvgPoolGrad<kAvgPool3D>>},
    {"ResizeBilinearGrad", Inputs<2, ResizeBilinearGrad>},
    {"StridedSliceGrad", Inputs<5, StridedSliceGrad>},
    {"ScatterNd", ScatterNd},
    {"ApplyGradientDescent", Inputs<3, ApplyGradientDescent>},
    {"ApplyMomentum", Inputs<5, ApplyMomentum>},
    {nullptr, nullptr},
};

}  // namespace runtime
