// Shape rules for indexing, reductions and the ops that build a tensor from
// indices or a target shape: segment sums, gathers, reductions, arg-min/max,
// one-hot, broadcasts, sparse-to-dense and space-to-batch. With constant
// evaluation where a gather's result is small (shape_rules_array.cc's policy).
#include <algorithm>
#include <optional>

#include "graph/shape_rules.h"

namespace graph {

Status UnsortedSegmentSumRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(3));
  const Shape& data = c.in(0);
  const Shape& ids = c.in(1);
  DType t = c.t_attr();
  auto n = c.ints(2);
  if (!data.known_rank() || !ids.known_rank() || !n || n->size() != 1) {
    c.set_output(0, t, Shape());
    return Status::Ok();
  }
  if (ids.rank() > data.rank()) return c.Error("segment_ids has a higher rank than data");
  if ((*n)[0] < 0) return c.Error("num_segments must not be negative");
  std::vector<int64_t> dims = {(*n)[0]};
  dims.insert(dims.end(), data.dims().begin() + ids.rank(), data.dims().end());
  c.set_output(0, t, Shape(dims));
  return Status::Ok();
}

Status GatherRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& params = c.in(0);
  const Shape& indices = c.in(1);
  DType t = c.node().attr_type("Tparams", c.dtype(0));
  int64_t axis_v = 0;
  if (c.num_inputs() >= 3) {
    auto a = c.ints(2);
    if (!a || a->size() != 1) {
      c.set_output(0, t, Shape());
      return Status::Ok();
    }
    axis_v = (*a)[0];
  }
  int64_t batch_dims = c.node().attr_int("batch_dims", 0);
  if (!params.known_rank() || !indices.known_rank()) {
    c.set_output(0, t, Shape());
    return Status::Ok();
  }
  auto axis = NormalizeAxis(axis_v, params.rank());
  if (!axis.ok()) return c.Error(axis.status().message());
  if (batch_dims < 0) batch_dims += indices.rank();
  if (batch_dims < 0 || batch_dims > *axis || batch_dims > indices.rank()) {
    return c.Error("invalid batch_dims");
  }
  std::vector<int64_t> dims(params.dims().begin(), params.dims().begin() + *axis);
  dims.insert(dims.end(), indices.dims().begin() + batch_dims, indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + *axis + 1, params.dims().end());
  Shape out(dims);
  c.set_output(0, t, out);
  auto pv = c.ints(0), iv = c.ints(1);
  if (pv && iv && batch_dims == 0 && params.FullyDefined() && out.FullyDefined() &&
      EvaluableSize(out, c) && out.NumElements() > 0) {
    int64_t outer = 1, inner = 1;  // bounded: out is small and not empty, params' values known
    for (int d = 0; d < *axis; ++d) outer *= params.dim(d);
    for (int d = *axis + 1; d < params.rank(); ++d) inner *= params.dim(d);
    int64_t size = params.dim(*axis);
    std::vector<int64_t> result;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t idx : *iv) {
        if (idx < 0 || idx >= size)
          return c.Error("index " + std::to_string(idx) + " out of range");
        auto base = pv->begin() + (o * size + idx) * inner;
        result.insert(result.end(), base, base + inner);
      }
    }
    c.set_int_value(0, t, out, result);
  }
  return Status::Ok();
}

Status GatherNdRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& params = c.in(0);
  const Shape& indices = c.in(1);
  DType t = c.node().attr_type("Tparams", c.dtype(0));
  if (!params.known_rank() || !indices.known_rank() || indices.rank() < 1 ||
      indices.dim(indices.rank() - 1) < 0) {
    c.set_output(0, t, Shape());
    return Status::Ok();
  }
  int64_t k = indices.dim(indices.rank() - 1);
  if (k > params.rank()) return c.Error("index depth exceeds the rank of params");
  std::vector<int64_t> dims(indices.dims().begin(), indices.dims().end() - 1);
  dims.insert(dims.end(), params.dims().begin() + k, params.dims().end());
  c.set_output(0, t, Shape(dims));
  return Status::Ok();
}

Status ReductionRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& in = c.in(0);
  bool keep = c.node().attr_bool("keep_dims", false);
  DType t = c.t_attr();
  auto axes = c.ints(1);
  if (!axes || !in.known_rank()) {
    c.set_output(0, t, keep ? SameRankUnknown(in) : Shape());
    return Status::Ok();
  }
  std::vector<char> reduce(in.rank(), 0);
  for (int64_t a : *axes) {
    auto ax = NormalizeAxis(a, in.rank());
    if (!ax.ok()) return c.Error(ax.status().message());
    reduce[*ax] = 1;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < in.rank(); ++d) {
    if (!reduce[d]) {
      dims.push_back(in.dim(d));
    } else if (keep) {
      dims.push_back(1);
    }
  }
  Shape out(dims);
  c.set_output(0, t, out);
  // Flattening computes Prod(Shape(x)[1:]); evaluate whole-vector Sum/Prod/Max/Min.
  auto v = c.ints(0);
  const std::string& op = c.node().op;
  if (v && in.rank() == 1 && reduce[0] && !v->empty()) {
    int64_t r = op == "Prod" ? 1 : (op == "Sum" ? 0 : (*v)[0]);
    for (int64_t x : *v) {
      if (op == "Prod") {
        if (!CheckedMul(r, x, &r)) return Status::Ok();
      } else if (op == "Sum") {
        if (!CheckedAdd(r, x, &r)) return Status::Ok();
      } else if (op == "Max")
        r = std::max(r, x);
      else if (op == "Min")
        r = std::min(r, x);
      else
        return Status::Ok();
    }
    c.set_int_value(0, t, out, {r});
  }
  return Status::Ok();
}

Status ArgMinMaxRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& in = c.in(0);
  DType t = c.node().attr_type("output_type", DType::kInt64);
  auto axis_v = c.ints(1);
  if (!axis_v || axis_v->size() != 1 || !in.known_rank()) {
    c.set_output(0, t,
                 in.known_rank() && in.rank() > 0 ? Shape::UnknownDims(in.rank() - 1) : Shape());
    return Status::Ok();
  }
  auto axis = NormalizeAxis((*axis_v)[0], in.rank());
  if (!axis.ok()) return c.Error(axis.status().message());
  std::vector<int64_t> dims = in.dims();
  dims.erase(dims.begin() + *axis);
  c.set_output(0, t, Shape(dims));
  return Status::Ok();
}

Status OneHotRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(4));
  const Shape& in = c.in(0);
  DType t = c.t_attr();
  if (t == DType::kInvalid || t == c.dtype(0)) t = c.dtype(2);
  auto depth = c.ints(1);
  if (!in.known_rank()) {
    c.set_output(0, t, Shape());
    return Status::Ok();
  }
  auto axis = NormalizeAxis(c.node().attr_int("axis", -1), in.rank() + 1);
  if (!axis.ok()) return c.Error(axis.status().message());
  if (depth && depth->size() == 1 && (*depth)[0] < 0) return c.Error("negative depth");
  std::vector<int64_t> dims = in.dims();
  dims.insert(dims.begin() + *axis, depth && depth->size() == 1 ? (*depth)[0] : kUnknownDim);
  c.set_output(0, t, Shape(dims));
  return Status::Ok();
}

Status BroadcastToRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  auto target = c.ints(1);
  if (!target) {
    c.set_output(0, c.t_attr(), Shape());
    return Status::Ok();
  }
  auto b = BroadcastShapes(c.in(0), Shape(*target));
  if (!b.ok() || *b != Shape(*target))
    return c.Error("cannot broadcast to " + Shape(*target).ToString());
  c.set_output(0, c.t_attr(), Shape(*target));
  return Status::Ok();
}

Status SparseToDenseRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(4));
  auto shape = c.ints(1);
  const DType t = c.node().attr_type("T", c.dtype(2));
  if (!shape) {
    const Shape& s = c.in(1);
    c.set_output(0, t, s.known_rank() && s.rank() == 1 ? UnknownDimsOfRank(s.dim(0)) : Shape());
    return Status::Ok();
  }
  for (int64_t d : *shape) {
    if (d < 0) return c.Error("output_shape must be non-negative");
  }
  const Shape out(*shape);
  c.set_output(0, t, out);
  // Converters (onnx-tf) build shapes this way: evaluate small integer results.
  auto indices = c.ints(0);
  auto values = c.ints(2);
  auto dflt = c.ints(3);
  if (!indices || !values || !dflt || dflt->size() != 1 || !EvaluableSize(out, c))
    return Status::Ok();
  const int64_t rank = out.rank();
  const int64_t n =
      rank == 0 ? 0 : static_cast<int64_t>(indices->size()) / std::max<int64_t>(rank, 1);
  if (rank == 0 || static_cast<int64_t>(indices->size()) != n * rank ||
      (values->size() != 1 && static_cast<int64_t>(values->size()) != n)) {
    return Status::Ok();
  }
  std::vector<int64_t> v(static_cast<size_t>(out.NumElements()), (*dflt)[0]);
  for (int64_t i = 0; i < n; ++i) {
    int64_t linear = 0;
    for (int64_t j = 0; j < rank; ++j) {
      const int64_t x = (*indices)[i * rank + j];
      if (x < 0 || x >= out.dim(static_cast<int>(j))) return c.Error("an index is out of range");
      linear = linear * out.dim(static_cast<int>(j)) + x;
    }
    v[linear] = (*values)[values->size() == 1 ? 0 : i];
  }
  c.set_int_value(0, t, out, v);
  return Status::Ok();
}

// SpaceToBatchND(input, block_shape, paddings) / BatchToSpaceND(input,
// block_shape, crops): the M dimensions after the batch are padded and divided
// by the blocks, whose product multiplies the batch (or the reverse).
Status SpaceBatchRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(3));
  const Shape& in = c.in(0);
  auto block = c.ints(1);
  auto pads = c.ints(2);
  if (!in.known_rank() || !block || !pads) {
    c.set_output(0, c.t_attr(), SameRankUnknown(in));
    return Status::Ok();
  }
  const int m = static_cast<int>(block->size());
  if (m < 1 || in.rank() < m + 1 || static_cast<int>(pads->size()) != 2 * m) {
    return c.Error("block_shape [M] and paddings [M, 2] must fit the input's rank");
  }
  const bool to_batch = c.node().op == "SpaceToBatchND";
  std::vector<int64_t> dims = in.dims();
  int64_t blocks = 1;
  for (int d = 0; d < m; ++d) {
    const int64_t b = (*block)[d], lo = (*pads)[2 * d], hi = (*pads)[2 * d + 1];
    if (b < 1 || lo < 0 || hi < 0) return c.Error("block sizes must be >= 1 and paddings >= 0");
    blocks *= b;
    int64_t& x = dims[d + 1];
    if (x < 0) continue;
    if (to_batch) {
      if ((x + lo + hi) % b != 0) return c.Error("padded dimension is not a multiple of its block");
      x = (x + lo + hi) / b;
    } else {
      x = x * b - lo - hi;
      if (x < 0) return c.Error("crops exceed the dimension");
    }
  }
  if (dims[0] >= 0) {
    if (!to_batch && dims[0] % blocks != 0) return c.Error("batch is not a multiple of the blocks");
    dims[0] = to_batch ? dims[0] * blocks : dims[0] / blocks;
  }
  c.set_output(0, c.t_attr(), Shape(dims));
  return Status::Ok();
}

}  // namespace graph
