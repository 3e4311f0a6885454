// Shape kernels: reshapes, concatenation and splits, gathers and slices,
// padding, resizing, transposes and the ops that make shapes and ranges;
// TensorFlow's op semantics on LibTorch (contract in kernel.h), as
// kernels_forward.cc's.
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

#include "runtime/kernel.h"
#include "runtime/kernel_util.h"

namespace runtime {
namespace {

using graph::Status;

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
    // waiting for the GPU to check them. A dropped row is sent to segment 0
    // as zeros (where, not a product: a dropped NaN or infinity times 0 is
    // NaN); with no segments there is no segment 0 to send it to.
    at::Tensor out = at::zeros({n, values.size(1)}, data.options());
    if (n > 0) {
      const at::Tensor keep = (flat >= 0) & (flat < n);
      out.index_add_(0, flat.masked_fill(keep.logical_not(), 0),
                     at::where(keep.unsqueeze(1), values, at::zeros({}, values.options())));
    }
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

// RandomUniform(shape): values uniform in [0, 1) of the float `dtype`, on the
// op's device, drawn anew each step from LibTorch's generator (TF's seed and
// seed2 are not read: its default of both 0 also draws anew each run).
Status RandomUniform(KernelContext& c) {
  GRAPH_RETURN_IF_ERROR(Arity(c, 1));
  GRAPH_ASSIGN_OR_RETURN(Int64s dims, Ints(c, 0));
  if (std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) {
    return c.Error("needs non-negative dims");
  }
  const graph::DType t = c.node.attr_type("dtype", graph::DType::kFloat);
  if (!graph::IsFloating(t) || !HasTorchType(t)) return c.Error("dtype must be a float type");
  c.outputs = {at::rand(dims, c.inputs[0].options().dtype(ToTorch(t)))};
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

const KernelEntry kShapeKernels[] = {
    {"RandomUniform", RandomUniform},
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
    {nullptr, nullptr},
};

}  // namespace runtime
