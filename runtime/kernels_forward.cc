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

// FusedBatchNorm/V2/V3(x, scale, offset, mean, variance). Training: normalises
// by the batch's statistics and outputs them (batch_variance Bessel-corrected, as
// TF does; reserve_space_1/2 the mean and the biased variance the gradient
// needs); inference: by the given mean and variance.
Status FusedBatchNorm(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 5));
  GRAPH_ASSIGN_OR_RETURN(bool nchw, IsNchw(c));
  if (c.inputs[0].dim() != 4) return c.Error("input must be 4-D");
  const at::Tensor x = nchw ? c.inputs[0] : NhwcToNchw(c.inputs[0]);
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
    var = save_invstd.pow(-2) - eps;  // biased batch variance
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
  c.outputs = {nchw ? y : NchwToNhwc(y), mean, batch_var, mean, var};
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
    // TF runs a grouped convolution when the input depth is a multiple of the filter's.
    if (f.size(2) == 0 || channels % f.size(2) != 0 || f.size(3) % (channels / f.size(2)) != 0) {
      return c.Error("filter " + Str(f.sizes()) + " does not fit input depth " +
                     std::to_string(channels));
    }
    weight = HwioToOihw(f);
    groups = channels / f.size(2);
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
  if (sizes[0] != dy.size(0) || sizes[nchw ? 1 : 3] != f.size(2) || dy.size(1) != f.size(3)) {
    return c.Error("input_sizes " + Str(sizes) + ", filter " + Str(f.sizes()) +
                   " and out_backprop " + Str(c.inputs[2].sizes()) + " disagree");
  }
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
  Int64s x_sizes = {sizes[0], f.size(2), in[0], in[1]};
  if (!symmetric) {
    x_sizes[2] += w.before[0] + w.after[0];
    x_sizes[3] += w.before[1] + w.after[1];
  }
  const Int64s pad = symmetric ? Int64s{w.before[0], w.before[1]} : Int64s{0, 0};
  at::Tensor y = std::get<0>(at::convolution_backward(
      dy, at::zeros({1, 1, 1, 1}, dy.options()).expand(x_sizes), HwioToOihw(f), c10::nullopt,
      w.stride, pad, w.dilation, false, {0, 0}, 1, {true, false, false}));
  if (!symmetric) y = y.narrow(2, w.before[0], in[0]).narrow(3, w.before[1], in[1]);
  c.outputs = {nchw ? y : NchwToNhwc(y)};
  return Status::Ok();
}

Status Pool(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  GRAPH_ASSIGN_OR_RETURN(bool nchw, IsNchw(c));
  if (c.inputs[0].dim() != 4) return c.Error("input must be 4-D");
  const at::Tensor x = nchw ? c.inputs[0] : NhwcToNchw(c.inputs[0]);
  GRAPH_ASSIGN_OR_RETURN(Pair k, SpatialAttr(c, "ksize", nchw, true));
  const Pair in = {x.size(2), x.size(3)};
  GRAPH_ASSIGN_OR_RETURN(Window w, ReadWindow(c, nchw, in, k));
  Pair pad;
  at::Tensor y;
  const Pair half = {k[0] / 2, k[1] / 2};  // the most padding PyTorch's pools take
  if (c.node.op == "MaxPool") {
    // Integer inputs (ONNX allows uint8 and int8) pool exactly as floats.
    const bool integral = !at::isFloatingType(x.scalar_type());
    at::Tensor xf = integral ? x.to(at::kFloat) : x;
    y = at::max_pool2d(PadAsymmetric(xf, w, -INFINITY, &pad, half), k, w.stride, pad);
    if (integral) y = y.to(x.scalar_type());
  } else if (w.before == w.after && w.before[0] <= half[0] && w.before[1] <= half[1]) {
    // TF divides by the number of real (non-padding) elements in each window.
    y = at::avg_pool2d(x, k, w.stride, w.before, false, /*count_include_pad=*/false);
  } else {
    // Window sums of the zero-padded input over each window's count of real elements.
    at::Tensor sum = at::avg_pool2d(PadAsymmetric(x, w, 0, &pad, half), k, w.stride, pad, false, true, 1);
    at::Tensor ones = at::ones({1, 1, x.size(2), x.size(3)}, x.options());
    y = sum / at::avg_pool2d(PadAsymmetric(ones, w, 0, &pad, half), k, w.stride, pad, false, true, 1);
  }
  c.outputs = {nchw ? y : NchwToNhwc(y)};
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

graph::Result<at::ScalarType> IndexType(const KernelContext& c, const char* attr,
                                        graph::DType dflt) {
  const graph::DType t = c.node.attr_type(attr, dflt);
  if (t != graph::DType::kInt32 && t != graph::DType::kInt64) {
    return c.Error(std::string(attr) + " must be int32 or int64");
  }
  return ToTorch(t);
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

// ---- Shapes ----

Status Reshape(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(Int64s shape, Ints(c, 1));
  int64_t known = 1;
  int unknown = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && unknown < 0) {
      unknown = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return c.Error("bad shape " + Str(shape) + " (one -1 at most, no other negatives)");
    } else {
      known *= shape[i];
    }
  }
  if (unknown >= 0 && known != 0) shape[unknown] = x.numel() / known;
  if (unknown >= 0 ? known == 0 || x.numel() % known != 0 : known != x.numel()) {
    return c.Error("cannot reshape " + Str(x.sizes()) + " to " + Str(shape));
  }
  c.outputs = {x.reshape(shape)};
  return Status::Ok();
}

Status Squeeze(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  const at::Tensor& x = c.inputs[0];
  const Int64s* dims = c.node.attr_ints("squeeze_dims");
  std::vector<bool> drop(x.dim(), dims == nullptr || dims->empty());
  for (int64_t a : dims ? *dims : Int64s{}) {
    GRAPH_RETURN_IF_ERROR(Axis(c, x.dim(), &a));
    if (x.size(a) != 1) return c.Error("cannot squeeze dimension " + std::to_string(a));
    drop[a] = true;
  }
  Int64s shape;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (!drop[d] || x.size(d) != 1) shape.push_back(x.size(d));
  }
  c.outputs = {x.reshape(shape)};
  return Status::Ok();
}

Status ExpandDims(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, Int(c, 1));
  GRAPH_RETURN_IF_ERROR(Axis(c, c.inputs[0].dim() + 1, &axis));
  c.outputs = {c.inputs[0].unsqueeze(axis)};
  return Status::Ok();
}

Status Pad(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(Int64s p, Ints(c, 1));
  if (c.inputs[1].dim() != 2 || p.size() != 2 * static_cast<size_t>(x.dim())) {
    return c.Error("paddings must be [rank, 2]");
  }
  if (std::any_of(p.begin(), p.end(), [](int64_t v) { return v < 0; })) {
    return c.Error("paddings must be non-negative");
  }
  Int64s pads;  // PyTorch lists the last dimension first
  for (int64_t d = x.dim() - 1; d >= 0; --d) pads.insert(pads.end(), {p[2 * d], p[2 * d + 1]});
  c.outputs = {at::constant_pad_nd(x, pads, 0)};
  return Status::Ok();
}

Status ConcatV2(KernelContext& c) {
  if (c.inputs.size() < 2) return c.Error("expects values and an axis");
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, Int(c, c.inputs.size() - 1));
  const std::vector<at::Tensor> xs(c.inputs.begin(), c.inputs.end() - 1);
  GRAPH_RETURN_IF_ERROR(Axis(c, xs[0].dim(), &axis));
  for (const at::Tensor& t : xs) {
    Int64s a = xs[0].sizes().vec(), b = t.sizes().vec();
    if (a.size() == b.size()) a[axis] = b[axis];
    if (a != b) return c.Error("cannot concatenate " + Str(xs[0].sizes()) + " and " + Str(b));
  }
  c.outputs = {at::cat(xs, axis)};
  return Status::Ok();
}

// Concat (v1): the axis comes first.
Status Concat(KernelContext& c) {
  if (c.inputs.size() < 2) return c.Error("expects an axis and values");
  std::rotate(c.inputs.begin(), c.inputs.begin() + 1, c.inputs.end());
  return ConcatV2(c);
}

// Split(axis, value): num_split equal parts.
Status Split(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, Int(c, 0));
  const at::Tensor& x = c.inputs[1];
  GRAPH_RETURN_IF_ERROR(Axis(c, x.dim(), &axis));
  const int64_t n = c.node.attr_int("num_split", 0);
  if (n < 1 || x.size(axis) % n != 0) {
    return c.Error("num_split " + std::to_string(n) + " does not divide dimension " +
                   std::to_string(x.size(axis)));
  }
  c.outputs = x.split(x.size(axis) / n, axis);
  return Status::Ok();
}

// GatherV2(params, indices, axis), batch_dims 0: TF rejects out-of-range indices
// on CPU, and so do we.
Status GatherV2(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  const at::Tensor &params = c.inputs[0], &indices = c.inputs[1];
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, Int(c, 2));
  GRAPH_RETURN_IF_ERROR(Axis(c, params.dim(), &axis));
  if (!IsInt(indices)) return c.Error("indices must be integers");
  if (c.node.attr_int("batch_dims", 0) != 0) return c.Error("batch_dims other than 0");
  at::Tensor flat = indices.reshape({-1}).to(at::kLong);
  const at::Tensor bad = (flat < 0) | (flat >= params.size(axis));
  // On a GPU, as TF's GPU kernel does, an out-of-range index gathers zeros:
  // checking would make the host wait for the GPU.
  const bool on_host = !indices.is_cuda();
  if (on_host && flat.numel() > 0 && bad.any().item<bool>()) {
    return c.Error("an index is out of range [0, " + std::to_string(params.size(axis)) + ")");
  }
  if (!on_host) flat = flat.masked_fill(bad, 0);
  Int64s shape(params.sizes().begin(), params.sizes().begin() + axis);
  shape.insert(shape.end(), indices.sizes().begin(), indices.sizes().end());
  shape.insert(shape.end(), params.sizes().begin() + axis + 1, params.sizes().end());
  at::Tensor out = at::index_select(params, axis, flat);
  if (!on_host) {
    Int64s mask_shape(out.dim(), 1);
    mask_shape[axis] = flat.numel();
    out = out.masked_fill(bad.reshape(mask_shape), 0);
  }
  c.outputs = {out.reshape(shape)};
  return Status::Ok();
}

// Gather (v1): GatherV2 on axis 0.
Status Gather(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  c.inputs.push_back(at::zeros({}, at::kInt));
  return GatherV2(c);
}

// UnsortedSegmentSum(data, segment_ids, num_segments): negative ids are dropped,
// as in TF; ids >= num_segments are an error.
Status UnsortedSegmentSum(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  const at::Tensor &data = c.inputs[0], &ids = c.inputs[1];
  GRAPH_ASSIGN_OR_RETURN(int64_t n, Int(c, 2));
  if (!IsInt(ids)) return c.Error("segment_ids must be integers");
  if (n < 0 || ids.dim() > data.dim() ||
      !std::equal(ids.sizes().begin(), ids.sizes().end(), data.sizes().begin())) {
    return c.Error("segment_ids " + Str(ids.sizes()) + " must be a prefix of data " +
                   Str(data.sizes()) + " and num_segments >= 0");
  }
  at::Tensor flat = ids.reshape({-1}).to(at::kLong);
  Int64s rest(data.sizes().begin() + ids.dim(), data.sizes().end());
  Int64s out_shape = {n};
  out_shape.insert(out_shape.end(), rest.begin(), rest.end());
  at::Tensor values = data.reshape({flat.numel(), -1});
  if (ids.is_cuda()) {
    // As TF's GPU kernel: ids outside [0, n) are dropped, without the host
    // waiting for the GPU to check them.
    const at::Tensor keep = (flat >= 0) & (flat < n);
    at::Tensor out = at::zeros({n, values.size(1)}, data.options());
    out.index_add_(0, flat.masked_fill(keep.logical_not(), 0),
                   values * keep.unsqueeze(1).to(values.dtype()));
    c.outputs = {out.reshape(out_shape)};
    return Status::Ok();
  }
  if (flat.numel() > 0 && (flat >= n).any().item<bool>()) {
    return c.Error("a segment id is >= num_segments " + std::to_string(n));
  }
  const at::Tensor keep = flat >= 0;
  if (!keep.all().item<bool>()) {
    values = values.index({keep});
    flat = flat.index({keep});
  }
  at::Tensor out = at::zeros({n, values.size(1)}, data.options());
  out.index_add_(0, flat, values);
  c.outputs = {out.reshape(out_shape)};
  return Status::Ok();
}

Status Pack(KernelContext& c) {
  if (c.inputs.empty()) return c.Error("expects at least one input");
  GRAPH_RETURN_IF_ERROR(SameShapes(c, c.inputs));
  int64_t axis = c.node.attr_int("axis", 0);
  GRAPH_RETURN_IF_ERROR(Axis(c, c.inputs[0].dim() + 1, &axis));
  c.outputs = {at::stack(c.inputs, axis)};
  return Status::Ok();
}

Status Unpack(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  const at::Tensor& x = c.inputs[0];
  int64_t axis = c.node.attr_int("axis", 0);
  GRAPH_RETURN_IF_ERROR(Axis(c, x.dim(), &axis));
  if (x.size(axis) != c.node.attr_int("num", -1)) return c.Error("num differs from the axis size");
  c.outputs = x.unbind(axis);
  return Status::Ok();
}

// TensorFlow's full strided-slice semantics (ValidateStridedSliceOp): a sparse
// spec with at most one ellipsis (implicitly at the end) expands to one range per
// input dimension; new axes add size-1 dimensions and shrunk ones are removed.
Status StridedSlice(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 4));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(Int64s begin, Ints(c, 1));
  GRAPH_ASSIGN_OR_RETURN(Int64s end, Ints(c, 2));
  GRAPH_ASSIGN_OR_RETURN(Int64s strides, Ints(c, 3));
  const size_t n = begin.size();
  if (end.size() != n || strides.size() != n || n > 63) {
    return c.Error("begin, end and strides must have the same length (at most 63)");
  }
  auto bit = [&](const char* mask, size_t i) { return (c.node.attr_int(mask, 0) >> i) & 1; };
  auto ellipsis = [&](size_t i) { return i == n || bit("ellipsis_mask", i); };
  auto new_axis = [&](size_t i) { return !ellipsis(i) && bit("new_axis_mask", i); };
  size_t first_ellipsis = n;
  for (size_t i = n; i-- > 0;) first_ellipsis = ellipsis(i) ? i : first_ellipsis;
  for (size_t i = first_ellipsis + 1; i < n; ++i) {
    if (ellipsis(i)) return c.Error("more than one ellipsis");
  }
  at::Tensor y = x;
  Int64s shape, flips;
  int64_t dim = 0;
  for (size_t i = 0; i <= n; ++i) {
    if (i == n && first_ellipsis != n) break;
    if (ellipsis(i)) {
      int64_t stop = x.dim();
      for (size_t j = i + 1; j < n; ++j) stop -= !new_axis(j);
      for (; dim < stop; ++dim) shape.push_back(x.size(dim));
      continue;
    }
    if (new_axis(i)) {
      shape.push_back(1);
      continue;
    }
    if (dim >= x.dim()) return c.Error("index " + std::to_string(i) + " out of range");
    const int64_t size = x.size(dim), s = strides[i];
    int64_t b = begin[i], e = end[i];
    if (s == 0) return c.Error("strides must be non-zero");
    if (bit("shrink_axis_mask", i)) {
      // The mask bits are ignored here, as in TF: x[-1] is begin -1, end 0.
      b += b < 0 ? size : 0;
      if (s < 0 || b < 0 || b >= size) {
        return c.Error("shrinking index " + std::to_string(begin[i]) + " of dimension " +
                       std::to_string(dim) + " is out of range or has a negative stride");
      }
      y = y.narrow(dim++, b, 1);
      continue;
    }
    // Masked bounds take the full range in the stride's direction; others count
    // from the end when negative and clamp to [0, size] (stride > 0) or
    // [-1, size - 1] (stride < 0).
    const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? size : size - 1;
    auto canonical = [&](int64_t v, bool masked, bool is_end) {
      if (masked) return (s > 0) == is_end ? hi : lo;
      return std::clamp(v < 0 ? v + size : v, lo, hi);
    };
    b = canonical(b, bit("begin_mask", i), false);
    e = canonical(e, bit("end_mask", i), true);
    const int64_t len = e - b;
    const int64_t count = (len == 0 || (len < 0) != (s < 0)) ? 0 : len / s + (len % s != 0);
    if (count == 0) {
      y = y.narrow(dim, 0, 0);
    } else if (s > 0) {
      y = y.slice(dim, b, b + (count - 1) * s + 1, s);
    } else {
      // PyTorch has no negative strides: take the elements ascending, flip later.
      y = y.slice(dim, b + (count - 1) * s, b + 1, -s);
      flips.push_back(dim);
    }
    shape.push_back(count);
    ++dim;
  }
  if (!flips.empty()) y = y.flip(flips);
  c.outputs = {y.reshape(shape)};
  return Status::Ok();
}

Status Slice(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  at::Tensor y = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(Int64s begin, Ints(c, 1));
  GRAPH_ASSIGN_OR_RETURN(Int64s size, Ints(c, 2));
  if (begin.size() != static_cast<size_t>(y.dim()) || size.size() != begin.size()) {
    return c.Error("begin and size must have one entry per dimension");
  }
  for (int64_t d = 0; d < y.dim(); ++d) {
    const int64_t len = size[d] == -1 ? y.size(d) - begin[d] : size[d];
    if (begin[d] < 0 || len < 0 || begin[d] + len > y.size(d)) {
      return c.Error("slice " + Str(begin) + " + " + Str(size) + " exceeds " + Str(y.sizes()));
    }
    y = y.narrow(d, begin[d], len);
  }
  c.outputs = {y};
  return Status::Ok();
}

Status GatherNd(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor &params = c.inputs[0], &indices = c.inputs[1];
  if (!IsInt(indices) || indices.dim() < 1 || indices.size(-1) > params.dim()) {
    return c.Error("indices must be integers [..., k] with k <= params rank");
  }
  const int64_t k = indices.size(-1);
  int64_t num = 1;
  for (int64_t d = 0; d + 1 < indices.dim(); ++d) num *= indices.size(d);
  const at::Tensor index = indices.to(at::kLong).reshape({num, k});
  // Row-major position among the first k dimensions; TF rejects out-of-range
  // indices on CPU.
  GRAPH_ASSIGN_OR_RETURN(at::Tensor linear, RowMajorIndex(c, index, params.sizes()));
  int64_t rows = 1;
  for (int64_t j = 0; j < k; ++j) rows *= params.size(j);
  Int64s flat = {rows}, shape = indices.sizes().vec();
  flat.insert(flat.end(), params.sizes().begin() + k, params.sizes().end());
  shape.pop_back();
  shape.insert(shape.end(), params.sizes().begin() + k, params.sizes().end());
  c.outputs = {params.reshape(flat).index_select(0, linear).reshape(shape)};
  return Status::Ok();
}

// TF's legacy sampling (neither align_corners nor half_pixel_centers): source
// coordinate dst * in / out, interpolated as TF does, top and bottom rows from
// left/right lerps. `x` is NCHW float.
at::Tensor LegacyBilinear(const at::Tensor& x, int64_t out_h, int64_t out_w) {
  auto axis = [&](int64_t dim, int64_t out, at::Tensor* lo, at::Tensor* hi) {
    const int64_t in = x.size(dim);
    const at::Tensor src = at::arange(out, x.options()) * (static_cast<float>(in) / out);
    const at::Tensor floor = src.floor();
    *lo = floor.to(at::kLong);
    *hi = src.ceil().clamp_max(in - 1).to(at::kLong);
    return src - floor;
  };
  at::Tensor y_lo, y_hi, x_lo, x_hi;
  const at::Tensor y_lerp = axis(2, out_h, &y_lo, &y_hi).unsqueeze(1);
  const at::Tensor x_lerp = axis(3, out_w, &x_lo, &x_hi);
  auto row = [&](const at::Tensor& r) {
    const at::Tensor left = r.index_select(3, x_lo);
    return left + (r.index_select(3, x_hi) - left) * x_lerp;
  };
  const at::Tensor top = row(x.index_select(2, y_lo));
  return top + (row(x.index_select(2, y_hi)) - top) * y_lerp;
}

Status ResizeBilinear(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  GRAPH_ASSIGN_OR_RETURN(Int64s size, Ints(c, 1));
  if (c.inputs[0].dim() != 4 || size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
    return c.Error("needs a 4-D image and two positive sizes");
  }
  const bool align = c.node.attr_bool("align_corners", false);
  const bool half = c.node.attr_bool("half_pixel_centers", false);
  if (align && half) return c.Error("align_corners and half_pixel_centers are exclusive");
  // TF resizes in float whatever the input type.
  const at::Tensor x = NhwcToNchw(c.inputs[0].to(at::kFloat));
  // TF's half-pixel transform ((dst + 0.5) * in / out - 0.5, lower index clamped
  // at 0) is PyTorch's align_corners=false; align_corners is the same in both.
  at::Tensor y = align || half ? at::upsample_bilinear2d(x, Int64s{size[0], size[1]}, align)
                               : LegacyBilinear(x, size[0], size[1]);
  c.outputs = {NchwToNhwc(y)};
  return Status::Ok();
}

Status Transpose(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  GRAPH_ASSIGN_OR_RETURN(Int64s perm, Ints(c, 1));
  Int64s sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int64_t>(i)) sorted.clear();
  }
  if (sorted.size() != static_cast<size_t>(c.inputs[0].dim())) {
    return c.Error(Str(perm) + " is not a permutation of the input's dimensions");
  }
  c.outputs = {c.inputs[0].permute(perm)};
  return Status::Ok();
}

Status BroadcastTo(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(Int64s shape, Ints(c, 1));
  bool ok = shape.size() >= static_cast<size_t>(x.dim());
  for (int64_t i = 0; ok && i < x.dim(); ++i) {
    const int64_t from = x.size(-1 - i), to = shape[shape.size() - 1 - i];
    ok = from == to || from == 1;
  }
  ok = ok && std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d >= 0; });
  if (!ok) return c.Error("cannot broadcast " + Str(x.sizes()) + " to " + Str(shape));
  c.outputs = {x.expand(shape)};
  return Status::Ok();
}

Status Shape(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  GRAPH_ASSIGN_OR_RETURN(at::ScalarType type, IndexType(c, "out_type", graph::DType::kInt32));
  c.outputs = {at::tensor(c.inputs[0].sizes(), c.inputs[0].options().dtype(type))};
  return Status::Ok();
}

Status Fill(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  GRAPH_ASSIGN_OR_RETURN(Int64s dims, Ints(c, 0));
  const at::Tensor& value = c.inputs[1];
  if (value.dim() != 0 || std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) {
    return c.Error("needs non-negative dims and a scalar value");
  }
  c.outputs = {value.expand(dims).clone(at::MemoryFormat::Contiguous)};
  return Status::Ok();
}

Status Range(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  for (const at::Tensor& t : c.inputs) {
    if (t.numel() != 1) return c.Error("start, limit and delta must be scalars");
  }
  const at::ScalarType type = c.inputs[0].scalar_type();
  std::string error;
  at::Tensor out;
  AT_DISPATCH_ALL_TYPES(type, "Range", [&] {
    const scalar_t start = c.HostInput(0).item<scalar_t>(), limit = c.HostInput(1).item<scalar_t>(),
                   delta = c.HostInput(2).item<scalar_t>();
    if (delta == 0 || (delta > 0 ? start > limit : start < limit)) {
      error = "delta must be non-zero and point from start to limit";
      return;
    }
    int64_t n;
    if constexpr (std::is_integral_v<scalar_t>) {
      n = (std::abs(limit - start) + std::abs(delta) - 1) / std::abs(delta);
    } else {
      n = static_cast<int64_t>(std::ceil(std::abs((limit - start) / delta)));
    }
    out = at::empty({n}, at::dtype(type));
    // TF accumulates (v += delta) rather than computing start + i * delta; float
    // results differ.
    scalar_t v = start;
    for (scalar_t* p = out.data_ptr<scalar_t>(); p != out.data_ptr<scalar_t>() + n; ++p) {
      *p = v;
      v += delta;
    }
  });
  if (!error.empty()) return c.Error(error);
  c.outputs = {out.to(c.inputs[0].device())};
  return Status::Ok();
}

Status Tile(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  GRAPH_ASSIGN_OR_RETURN(Int64s m, Ints(c, 1));
  if (m.size() != static_cast<size_t>(c.inputs[0].dim()) ||
      std::any_of(m.begin(), m.end(), [](int64_t v) { return v < 0; })) {
    return c.Error("multiples must be one non-negative value per dimension");
  }
  c.outputs = {c.inputs[0].repeat(m)};
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
    {"MaxPool", Pool},
    {"AvgPool", Pool},
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
    {"Reshape", Reshape},
    {"Squeeze", Squeeze},
    {"ExpandDims", ExpandDims},
    {"Pad", Pad},
    {"ConcatV2", ConcatV2},
    {"Concat", Concat},
    {"Pack", Pack},
    {"Unpack", Unpack},
    {"Split", Split},
    {"GatherV2", GatherV2},
    {"Gather", Gather},
    {"UnsortedSegmentSum", UnsortedSegmentSum},
    {"StridedSlice", StridedSlice},
    {"Slice", Slice},
    {"GatherNd", GatherNd},
    {"ResizeBilinear", ResizeBilinear},
    {"Transpose", Transpose},
    {"BroadcastTo", BroadcastTo},
    {"Shape", Shape},
    {"Fill", Fill},
    {"Range", Range},
    {"Tile", Tile},
    {"SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxCrossEntropyWithLogits},
    {nullptr, nullptr},
};

}  // namespace runtime
