// Kernels of array and image ops beyond the basic set in kernels_forward.cc:
// depth/space rearrangements, TopKV2, mirror and constant-value padding,
// nearest-neighbour resizing, SplitV, Size/Rank, SparseToDense, and the
// TensorFlow gradient ops of these (MirrorPadGrad, ResizeNearestNeighborGrad),
// taken as vector-Jacobian products of the forward kernel so both share one
// implementation of TensorFlow's semantics.
#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/kernel.h"
#include "runtime/kernel_util.h"

namespace runtime {
namespace {

using graph::Status;

graph::Result<int64_t> BlockSize(const KernelContext& c, const at::Tensor& x) {
  if (c.node.attr_string("data_format", "NHWC") != "NHWC") {
    return c.Error("only data_format NHWC is supported");
  }
  const int64_t b = c.node.attr_int("block_size", 0);
  if (b < 2 || x.dim() != 4) return c.Error("needs a 4-D input and block_size >= 2");
  return b;
}

// DepthToSpace (NHWC, TensorFlow's DCR order): depth (i * b + j) * C' + k moves
// to offset (i, j) of each b x b block, channel k.
Status DepthToSpace(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(int64_t b, BlockSize(c, x));
  const int64_t n = x.size(0), h = x.size(1), w = x.size(2), d = x.size(3);
  if (d % (b * b) != 0) return c.Error("depth is not a multiple of block_size^2");
  c.outputs = {x.reshape({n, h, w, b, b, d / (b * b)})
                   .permute({0, 1, 3, 2, 4, 5})
                   .reshape({n, h * b, w * b, d / (b * b)})};
  return Status::Ok();
}

Status SpaceToDepth(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(int64_t b, BlockSize(c, x));
  const int64_t n = x.size(0), h = x.size(1), w = x.size(2), d = x.size(3);
  if (h % b != 0 || w % b != 0) return c.Error("height and width must be multiples of block_size");
  c.outputs = {x.reshape({n, h / b, b, w / b, b, d})
                   .permute({0, 1, 3, 2, 4, 5})
                   .reshape({n, h / b, w / b, b * b * d})};
  return Status::Ok();
}

// TopKV2(input, k): the k largest along the last dimension, largest first; among
// equal values the lower index first, as TensorFlow (a stable sort).
Status TopKV2(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(int64_t k, Int(c, 1));
  if (x.dim() < 1 || k < 0 || k > x.size(-1)) {
    return c.Error("k " + std::to_string(k) + " must be in [0, " +
                   std::to_string(x.dim() ? x.size(-1) : 0) + "]");
  }
  auto [values, indices] = at::sort(x, /*stable=*/true, /*dim=*/-1, /*descending=*/true);
  c.outputs = {values.narrow(-1, 0, k), indices.narrow(-1, 0, k).to(at::kInt)};
  return Status::Ok();
}

// Paddings [rank, 2] of non-negative integers from input `i`.
graph::Result<Int64s> Paddings(const KernelContext& c, size_t i, int64_t rank) {
  GRAPH_ASSIGN_OR_RETURN(Int64s p, Ints(c, i));
  if (c.inputs[i].dim() != 2 || p.size() != 2 * static_cast<size_t>(rank)) {
    return c.Error("paddings must be [rank, 2]");
  }
  if (std::any_of(p.begin(), p.end(), [](int64_t v) { return v < 0; })) {
    return c.Error("paddings must be non-negative");
  }
  return p;
}

// MirrorPad(input, paddings; mode): REFLECT repeats no edge element, SYMMETRIC
// repeats it. Gathers the source index of every output position, per dimension,
// so autograd gives MirrorPadGrad.
Status MirrorPad(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  at::Tensor y = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(Int64s p, Paddings(c, 1, y.dim()));
  const std::string mode = c.node.attr_string("mode", "");
  if (mode != "REFLECT" && mode != "SYMMETRIC") {
    return c.Error("mode must be REFLECT or SYMMETRIC, not '" + mode + "'");
  }
  const int64_t edge = mode == "REFLECT" ? 1 : 0;
  for (int64_t d = 0; d < y.dim(); ++d) {
    const int64_t n = y.size(d), before = p[2 * d], after = p[2 * d + 1];
    if (before == 0 && after == 0) continue;
    if (before > n - edge || after > n - edge) {
      return c.Error("padding of dimension " + std::to_string(d) + " exceeds its size " +
                     std::to_string(n) + (edge ? " - 1 (REFLECT)" : " (SYMMETRIC)"));
    }
    Int64s src;
    for (int64_t i = -before; i < n + after; ++i) {
      src.push_back(i < 0 ? -i - 1 + edge : i >= n ? 2 * n - 1 - i - edge : i);
    }
    y = y.index_select(d, at::tensor(src, at::kLong).to(y.device()));
  }
  c.outputs = {y};
  return Status::Ok();
}

Status MirrorPadGrad(KernelContext& c) {  // (dy, paddings; mode): the input's gradient
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  const at::Tensor& dy = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(Int64s p, Paddings(c, 1, dy.dim()));
  Int64s shape = dy.sizes().vec();
  for (size_t d = 0; d < shape.size(); ++d) shape[d] -= p[2 * d] + p[2 * d + 1];
  if (std::any_of(shape.begin(), shape.end(), [](int64_t v) { return v < 0; })) {
    return c.Error("paddings exceed the gradient's shape " + Str(dy.sizes()));
  }
  graph::Node f = AsForward(c.node, "MirrorPad");
  return Vjp(c, "MirrorPad", f, {at::zeros(shape, dy.options()), c.inputs[1]}, 0, dy,
             {at::Tensor(), c.HostInput(1)});
}

Status PadV2(KernelContext& c) {  // (input, paddings, constant_values)
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(Int64s p, Paddings(c, 1, x.dim()));
  if (c.inputs[2].numel() != 1) return c.Error("constant_values must be a scalar");
  Int64s pads;  // PyTorch lists the last dimension first
  for (int64_t d = x.dim() - 1; d >= 0; --d) pads.insert(pads.end(), {p[2 * d], p[2 * d + 1]});
  c.outputs = {at::constant_pad_nd(x, pads, c.inputs[2].item())};
  return Status::Ok();
}

// The source row of each of `out` output rows along a dimension of `in`, as
// TensorFlow's ResizeNearestNeighbor picks it: scale in/out ((in-1)/(out-1) with
// align_corners), the source coordinate dst * scale, or (dst + 0.5) * scale with
// half-pixel centres, floored (rounded half away from zero with align_corners)
// and clamped to the image.
at::Tensor NearestSource(int64_t in, int64_t out, bool align, bool half) {
  const float scale = align && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                       : static_cast<float>(in) / static_cast<float>(out);
  Int64s src(out);
  for (int64_t y = 0; y < out; ++y) {
    const float s = half ? (static_cast<float>(y) + 0.5f) * scale : static_cast<float>(y) * scale;
    int64_t i = static_cast<int64_t>(align ? std::round(s) : std::floor(s));
    src[y] = std::clamp<int64_t>(i, 0, in - 1);
  }
  return at::tensor(src, at::kLong);
}

Status ResizeNearestNeighbor(KernelContext& c) {  // (images NHWC, size)
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  GRAPH_ASSIGN_OR_RETURN(Int64s size, Ints(c, 1));
  const at::Tensor& x = c.inputs[0];
  if (x.dim() != 4 || size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
    return c.Error("needs a 4-D image and two positive sizes");
  }
  const bool align = c.node.attr_bool("align_corners", false);
  const bool half = c.node.attr_bool("half_pixel_centers", false);
  if (align && half) return c.Error("align_corners and half_pixel_centers are exclusive");
  c.outputs = {x.index_select(1, NearestSource(x.size(1), size[0], align, half).to(x.device()))
                   .index_select(2, NearestSource(x.size(2), size[1], align, half).to(x.device()))};
  return Status::Ok();
}

// ResizeNearestNeighborGrad(grads, size): size is the original image's [h, w].
Status ResizeNearestNeighborGrad(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 2));
  GRAPH_ASSIGN_OR_RETURN(Int64s size, Ints(c, 1));
  const at::Tensor& dy = c.inputs[0];
  if (dy.dim() != 4 || size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
    return c.Error("needs a 4-D gradient and two positive sizes");
  }
  const at::Tensor out_size = at::tensor({dy.size(1), dy.size(2)}, at::kInt);
  graph::Node f = AsForward(c.node, "ResizeNearestNeighbor");
  return Vjp(c, "ResizeNearestNeighbor", f,
             {at::zeros({dy.size(0), size[0], size[1], dy.size(3)}, dy.options()), out_size}, 0,
             dy);
}

// SplitV(value, size_splits, axis): one size may be -1, the rest of the axis.
Status SplitV(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(Int64s sizes, Ints(c, 1));
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, Int(c, 2));
  GRAPH_RETURN_IF_ERROR(Axis(c, x.dim(), &axis));
  int64_t known = 0, free = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1 && free < 0) {
      free = static_cast<int64_t>(i);
    } else if (sizes[i] < 0) {
      return c.Error("size_splits " + Str(sizes) + " has a negative size other than one -1");
    } else {
      known += sizes[i];
    }
  }
  if (free >= 0) sizes[free] = x.size(axis) - known;
  if (sizes.empty() || (free >= 0 ? sizes[free] < 0 : known != x.size(axis))) {
    return c.Error("size_splits " + Str(sizes) + " do not add up to dimension " +
                   std::to_string(x.size(axis)));
  }
  c.outputs = x.split_with_sizes(sizes, axis);
  return Status::Ok();
}

Status SizeOrRank(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  const at::Tensor& x = c.inputs[0];
  const graph::DType t = c.node.attr_type("out_type", graph::DType::kInt32);
  if (t != graph::DType::kInt32 && t != graph::DType::kInt64) {
    return c.Error("out_type must be int32 or int64");
  }
  const int64_t v = c.node.op == "Size" ? x.numel() : x.dim();
  c.outputs = {
      at::scalar_tensor(v, x.options().dtype(c.node.op == "Size" ? ToTorch(t) : at::kInt))};
  return Status::Ok();
}

// SparseToDense(sparse_indices, output_shape, sparse_values, default_value):
// indices a scalar or vector (for a 1-D output) or [N, rank]; values a scalar
// or [N]. TF rejects indices out of range, and so do we.
Status SparseToDense(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 4));
  const at::Tensor &indices = c.inputs[0], &values = c.inputs[2], &dflt = c.inputs[3];
  GRAPH_ASSIGN_OR_RETURN(Int64s shape, Ints(c, 1));
  if (!IsInt(indices) || indices.dim() > 2 || dflt.numel() != 1 ||
      std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; })) {
    return c.Error("needs integer indices of rank <= 2, a non-negative shape, a scalar default");
  }
  const int64_t rank = static_cast<int64_t>(shape.size());
  const at::Tensor idx = indices.to(at::kLong).reshape(
      {indices.dim() < 2 ? -1 : indices.size(0), indices.dim() < 2 ? 1 : indices.size(1)});
  if (idx.size(1) != rank) {
    return c.Error("indices have " + std::to_string(idx.size(1)) + " columns for a rank-" +
                   std::to_string(rank) + " output");
  }
  const int64_t n = idx.size(0);
  if (values.numel() != 1 && values.numel() != n) {
    return c.Error("values must be a scalar or one per index");
  }
  GRAPH_ASSIGN_OR_RETURN(at::Tensor linear, RowMajorIndex(c, idx, shape));
  at::Tensor out =
      dflt.reshape({}).to(values.scalar_type()).expand(shape).clone(at::MemoryFormat::Contiguous);
  out.view({-1}).index_put_({linear}, values.reshape({-1}).expand({n}));
  c.outputs = {out};
  return Status::Ok();
}

// SpaceToBatchND(input, block_shape, paddings) and BatchToSpaceND(input,
// block_shape, crops): the M spatial dimensions after the batch are padded (or,
// going back, cropped) and split into blocks that move to (from) the batch,
// block offsets outermost, as TensorFlow orders them.
graph::Result<Int64s> BlockShape(const KernelContext& c, const at::Tensor& x, Int64s* pads) {
  GRAPH_ASSIGN_OR_RETURN(Int64s block, Ints(c, 1));
  GRAPH_ASSIGN_OR_RETURN(*pads, Ints(c, 2));
  const int64_t m = static_cast<int64_t>(block.size());
  if (m < 1 || x.dim() < m + 1 || static_cast<int64_t>(pads->size()) != 2 * m ||
      std::any_of(block.begin(), block.end(), [](int64_t b) { return b < 1; }) ||
      std::any_of(pads->begin(), pads->end(), [](int64_t p) { return p < 0; })) {
    return c.Error("needs block_shape [M] >= 1, paddings/crops [M, 2] >= 0 and rank > M");
  }
  return block;
}

Status SpaceToBatchND(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  Int64s pads;
  GRAPH_ASSIGN_OR_RETURN(Int64s block, BlockShape(c, c.inputs[0], &pads));
  const int64_t m = static_cast<int64_t>(block.size());
  Int64s torch_pads;  // last padded dimension first
  for (int64_t d = m - 1; d >= 0; --d)
    torch_pads.insert(torch_pads.end(), {pads[2 * d], pads[2 * d + 1]});
  at::Tensor x = c.inputs[0];
  const Int64s rest(x.sizes().begin() + m + 1, x.sizes().end());
  // constant_pad_nd pads the trailing dimensions: move the spatial ones last.
  Int64s to_back, from_back;
  to_back.push_back(0);
  for (int64_t d = m + 1; d < x.dim(); ++d) to_back.push_back(d);
  for (int64_t d = 1; d <= m; ++d) to_back.push_back(d);
  at::Tensor p = at::constant_pad_nd(x.permute(to_back), torch_pads, 0);
  for (int64_t d = 0; d < x.dim(); ++d) {
    from_back.push_back(std::find(to_back.begin(), to_back.end(), d) - to_back.begin());
  }
  p = p.permute(from_back);
  Int64s split = {p.size(0)}, perm, out = {p.size(0)};
  for (int64_t d = 0; d < m; ++d) {
    if (p.size(d + 1) % block[d] != 0) {
      return c.Error("padded dimension " + std::to_string(d + 1) + " is not a multiple of " +
                     std::to_string(block[d]));
    }
    split.insert(split.end(), {p.size(d + 1) / block[d], block[d]});
    out[0] *= block[d];
    out.push_back(p.size(d + 1) / block[d]);
  }
  split.insert(split.end(), rest.begin(), rest.end());
  out.insert(out.end(), rest.begin(), rest.end());
  for (int64_t d = 0; d < m; ++d) perm.push_back(2 + 2 * d);
  perm.push_back(0);
  for (int64_t d = 0; d < m; ++d) perm.push_back(1 + 2 * d);
  for (size_t r = 0; r < rest.size(); ++r) perm.push_back(1 + 2 * m + static_cast<int64_t>(r));
  c.outputs = {p.reshape(split).permute(perm).reshape(out)};
  return Status::Ok();
}

Status BatchToSpaceND(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 3));
  Int64s crops;
  const at::Tensor& x = c.inputs[0];
  GRAPH_ASSIGN_OR_RETURN(Int64s block, BlockShape(c, x, &crops));
  const int64_t m = static_cast<int64_t>(block.size());
  int64_t blocks = 1;
  for (int64_t b : block) blocks *= b;
  if (x.size(0) % blocks != 0) return c.Error("batch is not a multiple of the blocks");
  const int64_t batch = x.size(0) / blocks;
  const Int64s rest(x.sizes().begin() + m + 1, x.sizes().end());
  Int64s split(block.begin(), block.end()), perm = {m}, out = {batch};
  split.push_back(batch);
  for (int64_t d = 0; d < m; ++d) split.push_back(x.size(d + 1));
  split.insert(split.end(), rest.begin(), rest.end());
  for (int64_t d = 0; d < m; ++d) {
    perm.insert(perm.end(), {m + 1 + d, d});
    out.push_back(x.size(d + 1) * block[d]);
  }
  for (size_t r = 0; r < rest.size(); ++r) perm.push_back(2 * m + 1 + static_cast<int64_t>(r));
  out.insert(out.end(), rest.begin(), rest.end());
  at::Tensor y = x.reshape(split).permute(perm).reshape(out);
  for (int64_t d = 0; d < m; ++d) {
    const int64_t len = y.size(d + 1) - crops[2 * d] - crops[2 * d + 1];
    if (len < 0) return c.Error("crops exceed dimension " + std::to_string(d + 1));
    y = y.narrow(d + 1, crops[2 * d], len);
  }
  c.outputs = {y};
  return Status::Ok();
}

}  // namespace

const KernelEntry kArrayKernels[] = {
    {"DepthToSpace", DepthToSpace},
    {"SpaceToDepth", SpaceToDepth},
    {"TopKV2", TopKV2},
    {"MirrorPad", MirrorPad},
    {"MirrorPadGrad", MirrorPadGrad},
    {"PadV2", PadV2},
    {"ResizeNearestNeighbor", ResizeNearestNeighbor},
    {"ResizeNearestNeighborGrad", ResizeNearestNeighborGrad},
    {"SplitV", SplitV},
    {"Size", SizeOrRank},
    {"Rank", SizeOrRank},
    {"SparseToDense", SparseToDense},
    {"SpaceToBatchND", SpaceToBatchND},
    {"BatchToSpaceND", BatchToSpaceND},
    {nullptr, nullptr},
};

}  // namespace runtime
