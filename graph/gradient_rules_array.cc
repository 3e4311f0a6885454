// Gradient rules of array and image ops: TensorFlow's rules (array_grad.py,
// image_grad.py, nn_grad.py), written with TensorFlow's ops. Shape-carrying
// operands of the gradient ops are constants computed from the forward graph's
// static shapes; forward operands that carry shapes (perm, begin, block sizes)
// must be constants.
#include <numeric>

#include "graph/gradient_rules.h"

namespace graph {

namespace {

Result<std::vector<int64_t>> ConstInts(GradContext& c, int i, const char* what) {
  const Tensor* t = c.x_const(i);
  if (!t) return c.Error(std::string(what) + " must be a constant");
  return t->ToInt64s();
}

}  // namespace

Status TransposeGradient(GradContext& c, std::vector<std::string>* dx) {
  GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ConstInts(c, 1, "perm"));
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(perm.size())) {
      return c.Error("perm is not a permutation");
    }
    inverse[perm[i]] = static_cast<int64_t>(i);
  }
  AttrMap attrs = WithAttrs(c, {"Tperm"});
  (*dx)[0] = c.b.Add("Transpose", "Transpose", {c.dy[0], c.b.IntConst("perm", inverse)}, attrs);
  return Status::Ok();
}

Status DepthToSpaceGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.b.Add("SpaceToDepth", "SpaceToDepth", {c.dy[0]},
                     WithAttrs(c, {"block_size", "data_format"}));
  return Status::Ok();
}

Status SpaceToDepthGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.b.Add("DepthToSpace", "DepthToSpace", {c.dy[0]},
                     WithAttrs(c, {"block_size", "data_format"}));
  return Status::Ok();
}

Status SpaceToBatchGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.b.Add("BatchToSpaceND", "BatchToSpaceND", {c.dy[0], c.x(1), c.x(2)},
                     WithAttrs(c, {"Tblock_shape", "Tpaddings"}));
  return Status::Ok();
}

Status BatchToSpaceGradient(GradContext& c, std::vector<std::string>* dx) {
  AttrMap attrs = WithAttrs(c, {"Tblock_shape"});
  if (const AttrValue* v = c.node().attr("Tcrops")) attrs["Tpaddings"] = *v;
  (*dx)[0] = c.b.Add("SpaceToBatchND", "SpaceToBatchND", {c.dy[0], c.x(1), c.x(2)}, attrs);
  return Status::Ok();
}

// TopKV2: the values' gradient goes back to the positions they came from; the
// indices have none. Each row's indices are offset to positions in the
// flattened input and the gradient summed into them.
Status TopKGradient(GradContext& c, std::vector<std::string>* dx) {
  if (c.dy[0].empty()) return Status::Ok();
  const Shape& in = c.x_shape(0);
  const Shape& out = c.y_shape(0);
  if (!in.FullyDefined() || in.rank() < 1)
    return c.Error("gradient needs the input's static shape");
  const int64_t n = in.dims().back(), k = out.dims().back();
  const int64_t rows = n == 0 ? 0 : in.NumElements() / n;
  std::vector<int64_t> offsets(rows);
  for (int64_t r = 0; r < rows; ++r) offsets[r] = r * n;
  std::vector<int64_t> offsets_shape(out.dims().begin(), out.dims().end() - 1);
  offsets_shape.push_back(1);
  std::string offs = c.b.IntConst("row_offsets", offsets);
  offs = c.b.Add("Reshape", "Reshape", {offs, c.b.IntConst("shape", offsets_shape)},
                 {{"T", MakeAttr(DType::kInt32)}});
  std::string positions =
      c.b.Add("AddV2", "positions", {c.y(1), offs}, {{"T", MakeAttr(DType::kInt32)}});
  positions = c.b.Add("Reshape", "Reshape", {positions, c.b.IntConst("shape", {rows * k})},
                      {{"T", MakeAttr(DType::kInt32)}});
  std::string values = ReshapeTo(c, c.dy[0], Shape({rows * k}));
  AttrMap attrs = TAttr(c);
  attrs["Tindices"] = MakeAttr(DType::kInt32);
  attrs["Tnumsegments"] = MakeAttr(DType::kInt32);
  std::string sum = c.b.Add(
      "UnsortedSegmentSum", "UnsortedSegmentSum",
      {values, positions, c.b.IntConst("num_segments", {rows * n}, /*scalar=*/true)}, attrs);
  (*dx)[0] = ReshapeTo(c, sum, in);
  return Status::Ok();
}

Status MirrorPadGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = c.b.Add("MirrorPadGrad", "MirrorPadGrad", {c.dy[0], c.x(1)},
                     WithAttrs(c, {"mode", "Tpaddings"}));
  return Status::Ok();
}

Status ResizeNearestNeighborGradient(GradContext& c, std::vector<std::string>* dx) {
  const Shape& in = c.x_shape(0);
  if (!in.FullyDefined() || in.rank() != 4) return c.Error("gradient needs a static 4-D image");
  (*dx)[0] = c.b.Add("ResizeNearestNeighborGrad", "ResizeNearestNeighborGrad",
                     {c.dy[0], c.b.IntConst("size", {in.dim(1), in.dim(2)})},
                     WithAttrs(c, {"align_corners", "half_pixel_centers"}));
  return Status::Ok();
}

// Tile: the gradient reshaped to [m0, d0, m1, d1, ...] and summed over the
// multiples.
Status TileGradient(GradContext& c, std::vector<std::string>* dx) {
  GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> m, ConstInts(c, 1, "multiples"));
  const Shape& in = c.x_shape(0);
  if (static_cast<int>(m.size()) != in.rank()) return c.Error("multiples must match the rank");
  std::vector<int64_t> split, axes;
  for (int d = 0; d < in.rank(); ++d) {
    split.insert(split.end(), {m[d], in.dim(d)});
    axes.push_back(2 * d);
  }
  std::string g = ReshapeTo(c, c.dy[0], Shape(split));
  g = c.b.Add("Sum", "Sum", {g, c.b.IntConst("axes", axes)},
              {{"T", MakeAttr(DType::kFloat)}, {"keep_dims", MakeAttr(false)}});
  (*dx)[0] = ReshapeTo(c, g, in);
  return Status::Ok();
}

// Slice: the gradient padded back to the input's shape.
Status SliceGradient(GradContext& c, std::vector<std::string>* dx) {
  GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ConstInts(c, 1, "begin"));
  const Shape &in = c.x_shape(0), &out = c.y_shape();
  if (static_cast<int>(begin.size()) != in.rank()) return c.Error("begin must match the rank");
  std::vector<int64_t> pads;
  for (int d = 0; d < in.rank(); ++d) {
    pads.insert(pads.end(), {begin[d], in.dim(d) - begin[d] - out.dim(d)});
  }
  std::string p = c.b.IntConst("paddings", pads);
  p = c.b.Add("Reshape", "Reshape",
              {p, c.b.IntConst("shape", {static_cast<int64_t>(in.rank()), 2})},
              {{"T", MakeAttr(DType::kInt32)}});
  (*dx)[0] = c.b.Add("Pad", "Pad", {c.dy[0], p}, TAttr(c));
  return Status::Ok();
}

// SplitV(value, size_splits, axis): the outputs' gradients concatenated (zeros
// where an output gets none).
Status SplitVGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = ConcatOutputGradients(c, c.x(2));
  return Status::Ok();
}

Status BroadcastToGradient(GradContext& c, std::vector<std::string>* dx) {
  (*dx)[0] = ReduceTo(c, c.dy[0], c.y_shape(), c.x_shape(0));
  return Status::Ok();
}

// Fill(dims, value): the value gets the sum of the gradient.
Status FillGradient(GradContext& c, std::vector<std::string>* dx) {
  std::vector<int64_t> axes(c.y_shape().rank());
  std::iota(axes.begin(), axes.end(), 0);
  (*dx)[1] = c.b.Add("Sum", "Sum", {c.dy[0], c.b.IntConst("axes", axes)},
                     {{"T", MakeAttr(DType::kFloat)}, {"keep_dims", MakeAttr(false)}});
  return Status::Ok();
}

// ScatterNd(indices, updates, shape): each update's gradient is the output
// gradient at its index.
Status ScatterNdGradient(GradContext& c, std::vector<std::string>* dx) {
  AttrMap attrs = {{"Tparams", MakeAttr(c.node().attr_type("T", DType::kFloat))},
                   {"Tindices", MakeAttr(c.node().attr_type("Tindices", DType::kInt32))}};
  (*dx)[1] = c.b.Add("GatherNd", "GatherNd", {c.dy[0], c.x(0)}, attrs);
  return Status::Ok();
}

// SparseToDense(indices, shape, values, default): the values get the gradient
// at their indices, the default value the rest (TensorFlow's rule; a scalar
// value broadcast to every index gets their sum).
Status SparseToDenseGradient(GradContext& c, std::vector<std::string>* dx) {
  const Shape& idx = c.x_shape(0);
  const int rank = c.y_shape().rank();
  if (!idx.FullyDefined()) return c.Error("gradient needs the indices' static shape");
  const int64_t n = idx.rank() == 0 ? 1 : idx.dim(0);
  std::string indices = c.x(0);
  const DType tindices = c.node().attr_type("Tindices", DType::kInt32);
  if (idx.rank() < 2) {
    indices = c.b.Add("Reshape", "Reshape", {indices, c.b.IntConst("shape", {n, rank})},
                      {{"T", MakeAttr(tindices)}});
  }
  std::string g = c.b.Add("GatherNd", "GatherNd", {c.dy[0], indices},
                          {{"Tparams", MakeAttr(c.node().attr_type("T", DType::kFloat))},
                           {"Tindices", MakeAttr(tindices)}});
  auto sum_all = [&](const std::string& t, int r) {
    std::vector<int64_t> axes(r);
    std::iota(axes.begin(), axes.end(), 0);
    return c.b.Add("Sum", "Sum", {t, c.b.IntConst("axes", axes)},
                   {{"T", MakeAttr(DType::kFloat)}, {"keep_dims", MakeAttr(false)}});
  };
  std::string g_sum = sum_all(g, 1);
  (*dx)[2] = c.x_shape(2).rank() == 0 ? g_sum : g;
  (*dx)[3] = c.b.Add("Sub", "Sub", {sum_all(c.dy[0], rank), g_sum}, TAttr(c));
  return Status::Ok();
}

}  // namespace graph
