// Forward kernels: TensorFlow's op semantics on LibTorch (contract in kernel.h).
//
// Where PyTorch and TensorFlow disagree, TensorFlow's behaviour is implemented and
// the place says so. Integer operands (axes, shapes, paddings, slice bounds) arrive
// as int32 or int64 tensors on any device and are read with Ints().
#include <ATen/Dispatch.h>
#include <ATen/Functions.h>
#include <ATen/TensorOperators.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "graph/fused_ops.h"
#include "runtime/kernel.h"
#include "runtime/kernel_util.h"
#include "runtime/window.h"

namespace runtime {
namespace {

using graph::Status;
// ---- Elementwise ----

at::Tensor Alias(const at::Tensor& x) { return x; }
at::Tensor Copy(const at::Tensor& x) { return x.clone(); }
// The same values, cut from autograd history: StopGradient's meaning when a
// forward graph is differentiated with LibTorch autograd (gradient checks).
at::Tensor Detach(const at::Tensor& x) { return x.detach(); }
at::Tensor Relu6(const at::Tensor& x) { return at::clamp(x, 0, 6); }
at::Tensor Softmax(const at::Tensor& x) { return at::softmax(x, -1); }
at::Tensor ZerosLike(const at::Tensor& x) { return at::zeros_like(x); }
at::Tensor L2Loss(const at::Tensor& x) { return at::sum(x * x) / 2; }
at::Tensor Add(const at::Tensor& a, const at::Tensor& b) { return a + b; }
at::Tensor Sub(const at::Tensor& a, const at::Tensor& b) { return a - b; }
at::Tensor SquaredDifference(const at::Tensor& a, const at::Tensor& b) { return at::square(a - b); }
// TF's Div truncates integers toward zero, as C does.
at::Tensor Div(const at::Tensor& a, const at::Tensor& b) {
  return IsInt(a) ? at::div(a, b, "trunc") : at::div(a, b);
}
// TF floors the float quotient; PyTorch's float floor division follows Python
// ((a - fmod(a, b)) / b), which differs: 1 // 0.1 is 9 there and 10 in TF.
at::Tensor FloorDiv(const at::Tensor& a, const at::Tensor& b) {
  return IsInt(a) ? at::div(a, b, "floor") : at::floor(a / b);
}

Status Cast(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  using graph::DType;
  const DType t = c.node.attr_type("DstT", DType::kInvalid);
  // LibTorch has no unsigned types wider than 8 bits.
  const bool has_torch_type =
      graph::IsFloating(t) || t == DType::kBool ||
      (graph::IsInteger(t) && t != DType::kUInt16 && t != DType::kUInt32 && t != DType::kUInt64);
  if (!has_torch_type) return c.Error("unsupported DstT " + graph::DTypeName(t));
  c.outputs = {c.inputs[0].to(ToTorch(t))};
  return Status::Ok();
}

Status SelectV2(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  if (c.inputs[0].scalar_type() != at::kBool) return c.Error("condition must be bool");
  c.outputs = {at::where(c.inputs[0], c.inputs[1], c.inputs[2])};
  return Status::Ok();
}

Status AddN(KernelContext& c) {
  if (c.inputs.empty()) return c.Error("expects at least one input");
  GRAPH_RETURN_IF_ERROR(SameShapes(c, c.inputs));
  at::Tensor sum = c.inputs.size() == 1 ? c.inputs[0] : c.inputs[0] + c.inputs[1];
  for (size_t i = 2; i < c.inputs.size(); ++i) sum.add_(c.inputs[i]);
  c.outputs = {sum};
  return Status::Ok();
}

Status BiasAdd(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  GRAPH_ASSIGN_OR_RETURN(bool nchw, IsNchw(c));
  const at::Tensor &x = c.inputs[0], &b = c.inputs[1];
  const int64_t channel = nchw ? 1 : x.dim() - 1;
  if (b.dim() != 1 || x.dim() < (nchw ? 3 : 2) || x.size(channel) != b.size(0)) {
    return c.Error("bias " + Str(b.sizes()) + " does not match input " + Str(x.sizes()));
  }
  Int64s shape(nchw ? x.dim() - 1 : 1, 1);
  shape[0] = b.size(0);
  c.outputs = {x + b.view(shape)};
  return Status::Ok();
}

// FusedBatchNorm/V2/V3(x, scale, offset, mean, variance), 4-D or 5-D (TF's
// NDHWC and NCDHW). Training: normalises
// by the batch's statistics and outputs them (batch_variance Bessel-corrected, as
// TF does; reserve_space_1/2 the mean and the biased variance the gradient
// needs); inference: by the given mean and variance.
Status FusedBatchNorm(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 5));
  const int64_t rank = c.inputs[0].dim();
  if (rank != 4 && rank != 5) return c.Error("input must be 4-D or 5-D");
  GRAPH_ASSIGN_OR_RETURN(bool nchw, IsChannelsFirst(c, static_cast<int>(rank) - 2));
  const at::Tensor x = nchw ? c.inputs[0] : ChannelsLastToFirst(c.inputs[0]);
  const int64_t channels = x.size(1);
  for (int i = 1; i < 3; ++i) {
    if (c.inputs[i].dim() != 1 || c.inputs[i].size(0) != channels) {
      return c.Error("scale and offset must have " + std::to_string(channels) + " elements");
    }
  }
  const double eps = c.node.attr_float("epsilon", 1e-4f);
  const bool training = c.node.attr_bool("is_training", true);
  at::Tensor y, mean, var;
  if (training) {
    auto [out, save_mean, save_invstd] = at::native_batch_norm(
        x, c.inputs[1], c.inputs[2], c10::nullopt, c10::nullopt, true, 0.0, eps);
    y = out;
    mean = save_mean;
    // The biased batch variance; rounding can take a constant channel's below 0.
    var = (save_invstd.pow(-2) - eps).clamp_min(0);
  } else {
    if (c.inputs[3].numel() != channels || c.inputs[4].numel() != channels) {
      return c.Error("inference needs a mean and a variance of " + std::to_string(channels));
    }
    y = std::get<0>(at::native_batch_norm(x, c.inputs[1], c.inputs[2], c.inputs[3], c.inputs[4],
                                          false, 0.0, eps));
    mean = c.inputs[3];
    var = c.inputs[4];
  }
  const double n = static_cast<double>(x.numel() / channels);
  at::Tensor batch_var = training && n > 1 ? var * (n / (n - 1)) : var;
  c.outputs = {nchw ? y : ChannelsFirstToLast(y), mean, batch_var, mean, var};
  if (c.node.op == "FusedBatchNormV3") c.outputs.push_back(at::zeros({channels}, x.options()));
  return Status::Ok();
}

// The activation a fused contraction applies to its product plus bias, `z`, in
// the graph's layout (graph/fused_ops.h). Prelu's alpha broadcasts against z.
at::Tensor Activate(const graph::FusedOps& f, const at::Tensor& z, const at::Tensor& alpha) {
  using A = graph::FusedActivation;
  switch (f.activation) {
    case A::kNone:
      return z;
    case A::kRelu:
      return at::relu(z);
    case A::kRelu6:
      return at::clamp(z, 0, 6);
    case A::kElu:
      return at::elu(z);
    case A::kLeakyRelu:
      return at::leaky_relu(z, f.leakyrelu_alpha);
    case A::kSigmoid:
      return at::sigmoid(z);
    case A::kTanh:
      return at::tanh(z);
    case A::kGeluApproximate:
      return at::gelu(z, "tanh");
    case A::kGeluExact:
      return at::gelu(z, "none");
    case A::kPrelu:
      return at::where(z > 0, z, z * alpha);
  }
  return z;
}

graph::Result<graph::FusedOps> ReadFusedOps(const KernelContext& c) {
  auto f = graph::ParseFusedOps(c.node);
  if (!f.ok()) return graph::Status(f.status().code(), f.status().message());
  return f;
}

// ---- Matrix products ----

Status MatMul(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  at::Tensor a = c.inputs[0], b = c.inputs[1];
  if (a.dim() != 2 || b.dim() != 2) return c.Error("operands must be matrices");
  if (c.node.attr_bool("transpose_a", false)) a = a.t();
  if (c.node.attr_bool("transpose_b", false)) b = b.t();
  if (a.size(1) != b.size(0)) return c.Error("shapes " + Str(a.sizes()) + " and " + Str(b.sizes()));
  c.outputs = {at::mm(a, b)};
  return Status::Ok();
}

// _FusedMatMul(a, b, bias[, alpha]): MatMul, BiasAdd, then the fused activation.
Status FusedMatMul(KernelContext& c) {
  GRAPH_ASSIGN_OR_RETURN(graph::FusedOps ops, ReadFusedOps(c));
  GRAPH_RETURN_IF_ERROR(Arity(c, 3 + (ops.alpha_input >= 0)));
  KernelContext product{c.node, {c.inputs[0], c.inputs[1]}, {}, {}};
  GRAPH_RETURN_IF_ERROR(MatMul(product));
  const at::Tensor& bias = c.inputs[ops.bias_input];
  const at::Tensor& y = product.outputs[0];
  if (bias.dim() != 1 || bias.size(0) != y.size(1)) {
    return c.Error("bias " + Str(bias.sizes()) + " does not match the product " + Str(y.sizes()));
  }
  c.outputs = {
      Activate(ops, y + bias, ops.alpha_input >= 0 ? c.inputs[ops.alpha_input] : at::Tensor())};
  return Status::Ok();
}

Status BatchMatMulV2(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  at::Tensor a = c.inputs[0], b = c.inputs[1];
  if (a.dim() < 2 || b.dim() < 2) return c.Error("operands must have rank >= 2");
  if (c.node.attr_bool("adj_x", false)) a = a.transpose(-2, -1).conj();
  if (c.node.attr_bool("adj_y", false)) b = b.transpose(-2, -1).conj();
  if (a.size(-1) != b.size(-2)) {
    return c.Error("shapes " + Str(a.sizes()) + " and " + Str(b.sizes()));
  }
  c.outputs = {at::matmul(a, b)};
  return Status::Ok();
}

// ---- Convolution and pooling ----

// Conv2D, DepthwiseConv2dNative and their fused forms.
template <bool kDepthwise>
Status Conv(KernelContext& c) {
  const bool fused = c.node.op != "Conv2D" && c.node.op != "DepthwiseConv2dNative";
  graph::FusedOps ops;
  if (fused) {
    GRAPH_ASSIGN_OR_RETURN(ops, ReadFusedOps(c));
  }
  GRAPH_RETURN_IF_ERROR(Arity(c, fused ? 3 + (ops.alpha_input >= 0) : 2));
  GRAPH_ASSIGN_OR_RETURN(bool nchw, IsNchw(c));
  const at::Tensor& f = c.inputs[1];
  if (c.inputs[0].dim() != 4 || f.dim() != 4) return c.Error("input and filter must be 4-D");
  const at::Tensor x = nchw ? c.inputs[0] : NhwcToNchw(c.inputs[0]);
  const int64_t channels = x.size(1);
  at::Tensor weight;
  int64_t groups = 1;
  if (kDepthwise) {
    if (f.size(2) != channels) return c.Error("filter input depth differs from the input's");
    // TF's output channel c * multiplier + m is PyTorch's group c, member m.
    weight = f.permute({2, 3, 0, 1}).reshape({channels * f.size(3), 1, f.size(0), f.size(1)});
    groups = channels;
  } else {
    GRAPH_ASSIGN_OR_RETURN(groups, ConvGroups(c, channels, f.sizes()));
    weight = HwioToOihw(f);
  }
  const Pair in = {x.size(2), x.size(3)}, size = {f.size(0), f.size(1)};
  GRAPH_ASSIGN_OR_RETURN(Window w, ReadWindow(c, nchw, in, size));
  c10::optional<at::Tensor> bias;
  if (fused) {
    bias = c.inputs[ops.bias_input];
    if (bias->dim() != 1 || bias->size(0) != weight.size(0)) return c.Error("bias size mismatch");
  }
  Pair pad;
  at::Tensor xin = PadAsymmetric(x, w, 0, &pad);
  Pair stride = w.stride;
  if (size == Pair{1, 1} && (stride[0] > 1 || stride[1] > 1)) {
    // A strided 1x1 filter reads every stride-th pixel: convolve those at stride
    // 1. Cheaper, and autograd's gradient of it avoids oneDNN's crashing strided
    // 1x1 filter gradient (see kernels_grad.cc).
    xin = at::constant_pad_nd(xin, {pad[1], pad[1], pad[0], pad[0]}, 0)
              .slice(2, 0, (w.out[0] - 1) * stride[0] + 1, stride[0])
              .slice(3, 0, (w.out[1] - 1) * stride[1] + 1, stride[1]);
    pad = {0, 0};
    stride = {1, 1};
  }
  at::Tensor y = at::convolution(xin, weight, bias, stride, pad, w.dilation, false, {0, 0}, groups);
  if (!nchw) y = NchwToNhwc(y);
  c.outputs = {Activate(ops, y, ops.alpha_input >= 0 ? c.inputs[ops.alpha_input] : at::Tensor())};
  return Status::Ok();
}

// Conv3D(input, filter): filter DHWIO; TF's padding is SAME or VALID.
Status Conv3D(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  GRAPH_ASSIGN_OR_RETURN(bool channels_first, IsChannelsFirst(c, 3));
  const at::Tensor& f = c.inputs[1];
  if (c.inputs[0].dim() != 5 || f.dim() != 5) return c.Error("input and filter must be 5-D");
  const at::Tensor x = channels_first ? c.inputs[0] : ChannelsLastToFirst(c.inputs[0]);
  GRAPH_ASSIGN_OR_RETURN(int64_t groups, ConvGroups(c, x.size(1), f.sizes()));
  GRAPH_ASSIGN_OR_RETURN(WindowOf<3> w,
                         ReadWindowOf<3>(c, channels_first, {x.size(2), x.size(3), x.size(4)},
                                         {f.size(0), f.size(1), f.size(2)}));
  Dims<3> pad;
  at::Tensor xin = PadAsymmetricOf<3>(x, w, 0, &pad);
  at::Tensor y = at::convolution(xin, f.permute({4, 3, 0, 1, 2}), c10::nullopt, w.stride, pad,
                                 w.dilation, false, {0, 0, 0}, groups);
  c.outputs = {channels_first ? y : ChannelsFirstToLast(y)};
  return Status::Ok();
}

// Used as a forward op: the transposed convolution of out_backprop, whose forward
// convolution maps an input of input_sizes to out_backprop's size.
Status Conv2DBackpropInput(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  GRAPH_ASSIGN_OR_RETURN(bool nchw, IsNchw(c));
  GRAPH_ASSIGN_OR_RETURN(Int64s sizes, Ints(c, 0));
  const at::Tensor& f = c.inputs[1];
  if (sizes.size() != 4 || f.dim() != 4 || c.inputs[2].dim() != 4) {
    return c.Error("input_sizes must have 4 entries; filter and out_backprop must be 4-D");
  }
  const at::Tensor dy = nchw ? c.inputs[2] : NhwcToNchw(c.inputs[2]);
  const int h = nchw ? 2 : 1;
  const Pair in = {sizes[h], sizes[h + 1]};
  // A grouped convolution's input depth is a multiple of the filter's, as in Conv2D.
  const int64_t depth = sizes[nchw ? 1 : 3];
  if (sizes[0] != dy.size(0) || f.size(2) <= 0 || depth % f.size(2) != 0 ||
      dy.size(1) != f.size(3) || f.size(3) % (depth / f.size(2)) != 0) {
    return c.Error("input_sizes " + Str(sizes) + ", filter " + Str(f.sizes()) +
                   " and out_backprop " + Str(c.inputs[2].sizes()) + " disagree");
  }
  const int64_t groups = depth / f.size(2);
  const Pair size = {f.size(0), f.size(1)};
  GRAPH_ASSIGN_OR_RETURN(Window w, ReadWindow(c, nchw, in, size));
  if (w.out[0] != dy.size(2) || w.out[1] != dy.size(3)) {
    return c.Error("out_backprop is " + Str(c.inputs[2].sizes()) + " but the convolution gives " +
                   Str(w.out));
  }
  // The gradient of the forward convolution with respect to its input: ATen's
  // convolution_backward is about twice as fast here as the equivalent transposed
  // convolution. It reads only the input's sizes, so the input is a broadcast
  // scalar. PyTorch pads symmetrically: other padding runs on the explicitly
  // padded input, whose padding is then cut off.
  const bool symmetric = w.before == w.after;
  Int64s x_sizes = {sizes[0], depth, in[0], in[1]};
  if (!symmetric) {
    x_sizes[2] += w.before[0] + w.after[0];
    x_sizes[3] += w.before[1] + w.after[1];
  }
  const Int64s pad = symmetric ? Int64s{w.before[0], w.before[1]} : Int64s{0, 0};
  at::Tensor y = std::get<0>(at::convolution_backward(
      dy, at::zeros({1, 1, 1, 1}, dy.options()).expand(x_sizes), HwioToOihw(f), c10::nullopt,
      w.stride, pad, w.dilation, false, {0, 0}, groups, {true, false, false}));
  if (!symmetric) y = y.narrow(2, w.before[0], in[0]).narrow(3, w.before[1], in[1]);
  c.outputs = {nchw ? y : NchwToNhwc(y)};
  return Status::Ok();
}

// ATen's pools of N spatial dimensions.
template <size_t N>
at::Tensor MaxPoolOf(const at::Tensor& x, const Dims<N>& k, const Dims<N>& s, const Dims<N>& p) {
  if constexpr (N == 2) {
    return at::max_pool2d(x, k, s, p);
  } else {
    return at::max_pool3d(x, k, s, p);
  }
}
template <size_t N>
at::Tensor AvgPoolOf(const at::Tensor& x, const Dims<N>& k, const Dims<N>& s, const Dims<N>& p,
                     bool count_include_pad, c10::optional<int64_t> divisor) {
  if constexpr (N == 2) {
    return at::avg_pool2d(x, k, s, p, false, count_include_pad, divisor);
  } else {
    return at::avg_pool3d(x, k, s, p, false, count_include_pad, divisor);
  }
}

// MaxPool and AvgPool (N = 2), MaxPool3D and AvgPool3D (N = 3).
template <size_t N>
Status Pool(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  GRAPH_ASSIGN_OR_RETURN(bool channels_first, IsChannelsFirst(c, N));
  if (c.inputs[0].dim() != static_cast<int64_t>(N) + 2) {
    return c.Error("input must be " + std::to_string(N + 2) + "-D");
  }
  const at::Tensor x = channels_first ? c.inputs[0] : ChannelsLastToFirst(c.inputs[0]);
  GRAPH_ASSIGN_OR_RETURN(Dims<N> k, SpatialAttrOf<N>(c, "ksize", channels_first, true));
  Dims<N> in, half;  // half: the most padding PyTorch's pools take
  for (size_t i = 0; i < N; ++i) {
    in[i] = x.size(2 + i);
    half[i] = k[i] / 2;
  }
  GRAPH_ASSIGN_OR_RETURN(WindowOf<N> w, ReadWindowOf<N>(c, channels_first, in, k));
  Dims<N> pad;
  at::Tensor y;
  bool within_half = w.before == w.after;
  for (size_t i = 0; i < N; ++i) within_half = within_half && w.before[i] <= half[i];
  if (c.node.op.rfind("MaxPool", 0) == 0) {
    // Integer inputs (ONNX allows them) pool exactly as floats of a wider
    // mantissa: 8 and 16 bits as float, 32 as double (float rounded 2^24 + 1).
    const bool integral = !at::isFloatingType(x.scalar_type());
    at::Tensor xf =
        integral ? x.to(at::elementSize(x.scalar_type()) >= 4 ? at::kDouble : at::kFloat) : x;
    y = MaxPoolOf<N>(PadAsymmetricOf<N>(xf, w, -INFINITY, &pad, &half), k, w.stride, pad);
    if (integral) y = y.to(x.scalar_type());
  } else if (within_half) {
    // TF divides by the number of real (non-padding) elements in each window.
    y = AvgPoolOf<N>(x, k, w.stride, w.before, /*count_include_pad=*/false, c10::nullopt);
  } else {
    // Window sums of the zero-padded input over each window's count of real elements.
    at::Tensor sum =
        AvgPoolOf<N>(PadAsymmetricOf<N>(x, w, 0, &pad, &half), k, w.stride, pad, true, 1);
    Int64s ones_sizes = {1, 1};
    ones_sizes.insert(ones_sizes.end(), in.begin(), in.end());
    at::Tensor ones = at::ones(ones_sizes, x.options());
    y = sum / AvgPoolOf<N>(PadAsymmetricOf<N>(ones, w, 0, &pad, &half), k, w.stride, pad, true, 1);
  }
  c.outputs = {channels_first ? y : ChannelsFirstToLast(y)};
  return Status::Ok();
}

// ---- Reductions ----

Status Reduce(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(Int64s axes, Ints(c, 1));
  Int64s dims;
  int64_t count = 1;
  for (int64_t a : axes) {
    GRAPH_RETURN_IF_ERROR(Axis(c, x.dim(), &a));
    // TF accepts repeated axes; PyTorch rejects them.
    if (std::find(dims.begin(), dims.end(), a) != dims.end()) continue;
    dims.push_back(a);
    count *= x.size(a);
  }
  // PyTorch reduces every dimension when given none; TF reduces none.
  if (dims.empty()) {
    c.outputs = {x};
    return Status::Ok();
  }
  const bool keep = c.node.attr_bool("keep_dims", false);
  const std::string& op = c.node.op;
  if (op == "Max" || op == "Min") {
    c.outputs = {op == "Max" ? at::amax(x, dims, keep) : at::amin(x, dims, keep)};
  } else if (op == "All" || op == "Any") {
    at::Tensor r = x;
    std::sort(dims.rbegin(), dims.rend());
    for (int64_t d : dims) r = op == "All" ? at::all(r, d, keep) : at::any(r, d, keep);
    c.outputs = {r};
  } else if (op == "Prod") {
    // One dimension at a time (at::prod takes one); in the input type, as TF.
    at::Tensor r = x;
    std::sort(dims.rbegin(), dims.rend());
    for (int64_t d : dims) r = at::prod(r, d, keep, x.scalar_type());
    c.outputs = {r};
  } else if (c.node.op == "Mean" && !IsInt(x)) {
    c.outputs = {at::mean(x, dims, keep)};
  } else {
    // TF sums in the input type (PyTorch widens integers to int64) and its integer
    // mean truncates.
    at::Tensor sum = at::sum(x, dims, keep, x.scalar_type());
    c.outputs = {c.node.op == "Mean" ? at::div(sum, count, "trunc") : sum};
  }
  return Status::Ok();
}

// ArgMax and ArgMin: the first position of the extreme, as TF.
Status ArgMinMax(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, Int(c, 1));
  GRAPH_RETURN_IF_ERROR(Axis(c, x.dim(), &axis));
  if (x.size(axis) == 0) return c.Error("reduces an empty dimension");
  GRAPH_ASSIGN_OR_RETURN(at::ScalarType type, IndexType(c, "output_type", graph::DType::kInt64));
  c.outputs = {(c.node.op == "ArgMax" ? at::argmax(x, axis) : at::argmin(x, axis)).to(type)};
  return Status::Ok();
}

// SoftmaxCrossEntropyWithLogits(features, labels): dense label distributions;
// (loss [batch], backprop [batch, classes]).
Status SoftmaxCrossEntropyWithLogits(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor &logits = c.inputs[0], &labels = c.inputs[1];
  if (logits.dim() != 2 || !labels.sizes().equals(logits.sizes())) {
    return c.Error("needs logits and labels of one shape [batch, classes]");
  }
  const at::Tensor log_softmax = at::log_softmax(logits, 1);
  c.outputs = {-(labels * log_softmax).sum(1), log_softmax.exp() - labels};
  return Status::Ok();
}

Status SparseSoftmaxCrossEntropyWithLogits(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor &logits = c.inputs[0], &labels = c.inputs[1];
  if (logits.dim() != 2 || labels.dim() != 1 || !IsInt(labels) ||
      labels.size(0) != logits.size(0)) {
    return c.Error("needs logits [batch, classes] and integer labels [batch]");
  }
  const int64_t classes = logits.size(1);
  at::Tensor index = labels.to(at::kLong).unsqueeze(1);
  const at::Tensor bad = (index < 0) | (index >= classes);
  // TF rejects out-of-range labels on CPU, and its GPU kernel returns NaN for
  // their rows instead: so do we, since checking on a GPU would make the host
  // wait for it in the middle of every step.
  const bool on_host = !labels.is_cuda();
  if (on_host && bad.any().item<bool>()) {
    return c.Error("a label is outside [0, " + std::to_string(classes) + ")");
  }
  if (!on_host) index = index.masked_fill(bad, 0);
  const at::Tensor log_softmax = at::log_softmax(logits, 1);
  at::Tensor loss = -log_softmax.gather(1, index).squeeze(1);
  at::Tensor grad = log_softmax.exp() - at::one_hot(index.squeeze(1), classes).to(logits.dtype());
  if (!on_host) {
    loss = loss.masked_fill(bad.squeeze(1), std::numeric_limits<double>::quiet_NaN());
    grad = grad.masked_fill(bad, std::numeric_limits<double>::quiet_NaN());
  }
  c.outputs = {loss, grad};
  return Status::Ok();
}

}  // namespace

const KernelEntry kForwardKernels[] = {
    {"Identity", Unary<Alias>},
    {"StopGradient", Unary<Detach>},
    {"Snapshot", Unary<Copy>},
    {"Relu", Unary<at::relu>},
    {"Relu6", Unary<Relu6>},
    {"Sigmoid", Unary<at::sigmoid>},
    {"Tanh", Unary<at::tanh>},
    {"Abs", Unary<at::abs>},
    {"Neg", Unary<at::neg>},
    {"Sqrt", Unary<at::sqrt>},
    {"Rsqrt", Unary<at::rsqrt>},
    {"Square", Unary<at::square>},
    {"Exp", Unary<at::exp>},
    {"Log", Unary<at::log>},
    {"Sign", Unary<at::sign>},
    {"Floor", Unary<at::floor>},
    {"Softmax", Unary<Softmax>},
    {"ZerosLike", Unary<ZerosLike>},
    {"L2Loss", Unary<L2Loss>},
    {"Cast", Cast},
    {"Add", Binary<Add>},
    {"AddV2", Binary<Add>},
    {"Sub", Binary<Sub>},
    {"Mul", Binary<at::mul>},
    {"RealDiv", Binary<at::div>},
    {"Div", Binary<Div>},
    {"FloorDiv", Binary<FloorDiv>},
    {"Maximum", Binary<at::maximum>},
    {"Minimum", Binary<at::minimum>},
    {"SquaredDifference", Binary<SquaredDifference>},
    {"GreaterEqual", Binary<at::ge>},
    {"LessEqual", Binary<at::le>},
    {"Greater", Binary<at::gt>},
    {"Less", Binary<at::lt>},
    {"Equal", Binary<at::eq>},
    {"SelectV2", SelectV2},
    {"AddN", AddN},
    {"BiasAdd", BiasAdd},
    {"FusedBatchNorm", FusedBatchNorm},
    {"FusedBatchNormV2", FusedBatchNorm},
    {"FusedBatchNormV3", FusedBatchNorm},
    {"MatMul", MatMul},
    {"_FusedMatMul", FusedMatMul},
    {"BatchMatMulV2", BatchMatMulV2},
    {"BatchMatMulV3", BatchMatMulV2},
    {"BatchMatMul", BatchMatMulV2},
    {"Conv2D", Conv<false>},
    {"_FusedConv2D", Conv<false>},
    {"DepthwiseConv2dNative", Conv<true>},
    {"FusedDepthwiseConv2dNative", Conv<true>},
    {"Conv2DBackpropInput", Conv2DBackpropInput},
    {"MaxPool", Pool<2>},
    {"AvgPool", Pool<2>},
    {"Conv3D", Conv3D},
    {"MaxPool3D", Pool<3>},
    {"AvgPool3D", Pool<3>},
    {"Mean", Reduce},
    {"Sum", Reduce},
    {"Max", Reduce},
    {"Min", Reduce},
    {"Prod", Reduce},
    {"All", Reduce},
    {"Any", Reduce},
    {"ArgMax", ArgMinMax},
    {"ArgMin", ArgMinMax},
    {"SoftmaxCrossEntropyWithLogits", SoftmaxCrossEntropyWithLogits},
    {"SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxCrossEntropyWithLogits},
    {nullptr, nullptr},
};

}  // namespace runtime
