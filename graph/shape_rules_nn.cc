// Shape rules for neural-network ops: convolutions, pooling, matrix products,
// normalisation, resizing and losses. Layouts follow the "data_format" attr.
#include <algorithm>

#include "graph/einsum.h"
#include "graph/shape_rules.h"

namespace graph {

namespace {

// Positions of the batch, spatial and channel dimensions of a tensor with
// `spatial` (2 or 3) spatial dimensions: channels first (NCHW, NCDHW) or last.
struct Layout {
  int n = 0, c = 0;
  std::vector<int> spatial;
};

Layout LayoutOf(const Node& n, int spatial) {
  const bool first = n.attr_string("data_format", "NHWC").rfind("NC", 0) == 0;
  Layout l;
  l.c = first ? 1 : spatial + 1;
  for (int i = 0; i < spatial; ++i) l.spatial.push_back((first ? 2 : 1) + i);
  return l;
}

// An attr list (strides, ksize, dilations) of one entry per dimension, read in
// the node's layout as its spatial entries.
Result<std::vector<int64_t>> SpatialAttr(const InferenceContext& c, const char* attr,
                                         const Layout& l, int64_t dflt) {
  const size_t rank = l.spatial.size() + 2;
  const std::vector<int64_t>* v = c.node().attr_ints(attr);
  if (!v || v->empty()) return std::vector<int64_t>(l.spatial.size(), dflt);
  if (v->size() != rank) {
    return c.Error(std::string("attr '") + attr + "' must have " + std::to_string(rank) +
                   " entries");
  }
  std::vector<int64_t> out;
  for (int d : l.spatial) {
    if ((*v)[d] < 1) return c.Error(std::string("attr '") + attr + "' must be positive");
    out.push_back((*v)[d]);
  }
  return out;
}

// Output size of one spatial dimension under TensorFlow's padding rules.
Result<int64_t> WindowOutput(const InferenceContext& c, int64_t in, int64_t k, int64_t stride,
                             int64_t dilation, const std::string& padding, int64_t pad_lo,
                             int64_t pad_hi) {
  if (in < 0 || k < 0) return kUnknownDim;
  // 128-bit: every operand comes from the file.
  using I = __int128;
  I eff = (static_cast<I>(k) - 1) * dilation + 1;
  I out;
  if (padding == "SAME") {
    out = (static_cast<I>(in) + stride - 1) / stride;
  } else if (padding == "VALID") {
    if (in < eff) return c.Error("window exceeds input " + std::to_string(in));
    out = (in - eff) / stride + 1;
  } else if (padding == "EXPLICIT") {
    I padded = static_cast<I>(in) + pad_lo + pad_hi;
    if (pad_lo < 0 || pad_hi < 0 || padded < eff) return c.Error("window exceeds padded input");
    out = (padded - eff) / stride + 1;
  } else {
    return c.Error("unknown padding '" + padding + "'");
  }
  if (out > INT64_MAX) return c.Error("output dimension overflows");
  return static_cast<int64_t>(out);
}

// The explicit paddings of a node (TF's EXPLICIT padding), two per dimension;
// zeros for SAME and VALID.
Result<std::vector<int64_t>> ExplicitPads(const InferenceContext& c, const std::string& padding,
                                          size_t rank) {
  if (padding != "EXPLICIT") return std::vector<int64_t>(2 * rank, 0);
  const std::vector<int64_t>* p = c.node().attr_ints("explicit_paddings");
  if (!p || p->size() != 2 * rank) {
    return c.Error("explicit_paddings must have " + std::to_string(2 * rank) + " entries");
  }
  return *p;
}

// The output's spatial sizes of a window op of kernel sizes `k`, written into `dims`.
Status WindowOutputs(const InferenceContext& c, const Shape& in, const Layout& l,
                     const std::vector<int64_t>& k, const char* dilations_attr,
                     std::vector<int64_t>* dims) {
  GRAPH_ASSIGN_OR_RETURN(auto strides, SpatialAttr(c, "strides", l, 1));
  std::vector<int64_t> dil(l.spatial.size(), 1);
  if (dilations_attr) {
    GRAPH_ASSIGN_OR_RETURN(dil, SpatialAttr(c, dilations_attr, l, 1));
  }
  const std::string padding = c.node().attr_string("padding", "VALID");
  GRAPH_ASSIGN_OR_RETURN(auto pads, ExplicitPads(c, padding, in.rank()));
  for (size_t i = 0; i < l.spatial.size(); ++i) {
    const int d = l.spatial[i];
    GRAPH_ASSIGN_OR_RETURN((*dims)[d], WindowOutput(c, in.dim(d), k[i], strides[i], dil[i], padding,
                                                    pads[2 * d], pads[2 * d + 1]));
  }
  return Status::Ok();
}

// Shared by regular and depthwise convolutions (plain and fused) of `spatial`
// dims: filter [spatial..., in, out] (depthwise: [kh, kw, in, multiplier]).
Status ConvShape(InferenceContext& c, int spatial, bool depthwise) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& in = c.in(0);
  const Shape& filter = c.in(1);
  DType t = c.t_attr();
  const int rank = spatial + 2;
  if ((in.known_rank() && in.rank() != rank) || (filter.known_rank() && filter.rank() != rank)) {
    return c.Error("input " + in.ToString() + " and filter " + filter.ToString() + " must be " +
                   std::to_string(rank) + "-D");
  }
  if (!in.known_rank()) {
    c.set_output(0, t, Shape::UnknownDims(rank));
    return Status::Ok();
  }
  Layout l = LayoutOf(c.node(), spatial);
  std::vector<int64_t> k(spatial, kUnknownDim);
  int64_t fin = kUnknownDim, fout = kUnknownDim;
  if (filter.known_rank()) {
    for (int i = 0; i < spatial; ++i) k[i] = filter.dim(i);
    fin = filter.dim(spatial);
    fout = filter.dim(spatial + 1);
  }
  int64_t cin = in.dim(l.c);
  if (cin >= 0 && fin > 0) {
    bool ok = depthwise ? cin == fin : cin % fin == 0;  // grouped convolution allowed
    if (!ok) {
      return c.Error("input has " + std::to_string(cin) + " channels but the filter expects " +
                     std::to_string(fin));
    }
  }
  std::vector<int64_t> dims(rank);
  GRAPH_RETURN_IF_ERROR(WindowOutputs(c, in, l, k, "dilations", &dims));
  dims[l.n] = in.dim(l.n);
  dims[l.c] = depthwise ? (fin >= 0 && fout >= 0 ? fin * fout : kUnknownDim) : fout;
  c.set_output(0, t, Shape(dims));
  return Status::Ok();
}

// MaxPool and AvgPool (2 spatial dims), MaxPool3D and AvgPool3D (3).
Status PoolShape(InferenceContext& c, int spatial) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  const Shape& in = c.in(0);
  DType t = c.t_attr();
  if (!in.known_rank()) {
    c.set_output(0, t, Shape::UnknownDims(spatial + 2));
    return Status::Ok();
  }
  if (in.rank() != spatial + 2) {
    return c.Error("input " + in.ToString() + " must be " + std::to_string(spatial + 2) + "-D");
  }
  Layout l = LayoutOf(c.node(), spatial);
  GRAPH_ASSIGN_OR_RETURN(auto k, SpatialAttr(c, "ksize", l, 1));
  std::vector<int64_t> dims = in.dims();
  GRAPH_RETURN_IF_ERROR(WindowOutputs(c, in, l, k, nullptr, &dims));
  c.set_output(0, t, Shape(dims));
  return Status::Ok();
}

}  // namespace

Status ConvRule(InferenceContext& c) { return ConvShape(c, 2, /*depthwise=*/false); }
Status DepthwiseConvRule(InferenceContext& c) { return ConvShape(c, 2, /*depthwise=*/true); }
Status Conv3DRule(InferenceContext& c) { return ConvShape(c, 3, /*depthwise=*/false); }
Status PoolRule(InferenceContext& c) { return PoolShape(c, 2); }
Status Pool3DRule(InferenceContext& c) { return PoolShape(c, 3); }

Status PoolWithIndicesRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(PoolRule(c));
  c.set_output(1, DType::kInt64, c.out_shapes[0]);
  return Status::Ok();
}

Status MatMulRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& a = c.in(0);
  const Shape& b = c.in(1);
  DType t = c.t_attr();
  if ((a.known_rank() && a.rank() != 2) || (b.known_rank() && b.rank() != 2)) {
    return c.Error("operands " + a.ToString() + " and " + b.ToString() + " must be 2-D");
  }
  bool ta = c.node().attr_bool("transpose_a", false), tb = c.node().attr_bool("transpose_b", false);
  int64_t m = a.known_rank() ? a.dim(ta ? 1 : 0) : kUnknownDim;
  int64_t ka = a.known_rank() ? a.dim(ta ? 0 : 1) : kUnknownDim;
  int64_t kb = b.known_rank() ? b.dim(tb ? 1 : 0) : kUnknownDim;
  int64_t n = b.known_rank() ? b.dim(tb ? 0 : 1) : kUnknownDim;
  if (ka >= 0 && kb >= 0 && ka != kb) {
    return c.Error("inner dimensions differ: " + a.ToString() + " x " + b.ToString());
  }
  c.set_output(0, t, Shape({m, n}));
  return Status::Ok();
}

Status BatchMatMulRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& a = c.in(0);
  const Shape& b = c.in(1);
  DType t = c.node().attr_type("Tout", c.t_attr());
  if (!a.known_rank() || !b.known_rank()) {
    c.set_output(0, t, Shape());
    return Status::Ok();
  }
  if (a.rank() < 2 || b.rank() < 2) return c.Error("operands must be at least 2-D");
  bool adj_x = c.node().attr_bool("adj_x", false), adj_y = c.node().attr_bool("adj_y", false);
  int64_t m = a.dim(a.rank() - (adj_x ? 1 : 2)), ka = a.dim(a.rank() - (adj_x ? 2 : 1));
  int64_t kb = b.dim(b.rank() - (adj_y ? 1 : 2)), n = b.dim(b.rank() - (adj_y ? 2 : 1));
  if (ka >= 0 && kb >= 0 && ka != kb) {
    return c.Error("inner dimensions differ: " + a.ToString() + " x " + b.ToString());
  }
  Shape ba(std::vector<int64_t>(a.dims().begin(), a.dims().end() - 2));
  Shape bb(std::vector<int64_t>(b.dims().begin(), b.dims().end() - 2));
  auto batch = BroadcastShapes(ba, bb);
  if (!batch.ok()) return c.Error(batch.status().message());
  std::vector<int64_t> dims = batch->dims();
  dims.push_back(m);
  dims.push_back(n);
  c.set_output(0, t, Shape(dims));
  return Status::Ok();
}

Status FusedBatchNormRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(5));
  const Shape& x = c.in(0);
  DType t = c.t_attr();
  DType u = c.node().attr_type("U", DType::kFloat);
  int64_t channels = kUnknownDim;
  if (x.known_rank()) {
    if (x.rank() != 4 && x.rank() != 5) {
      return c.Error("input " + x.ToString() + " must be 4-D or 5-D");
    }
    channels = x.dim(LayoutOf(c.node(), x.rank() - 2).c);
  }
  c.set_output(0, t, x);
  int outputs = c.node().op == "FusedBatchNormV3" ? 6 : 5;
  for (int i = 1; i < outputs; ++i) c.set_output(i, u, Shape({channels}));
  return Status::Ok();
}

Status FusedBatchNormGradRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(5));
  const Shape& x = c.in(1);
  int64_t channels = x.known_rank() && (x.rank() == 4 || x.rank() == 5)
                         ? x.dim(LayoutOf(c.node(), x.rank() - 2).c)
                         : kUnknownDim;
  DType u = c.node().attr_type("U", DType::kFloat);
  c.set_output(0, c.t_attr(), x);
  c.set_output(1, u, Shape({channels}));
  c.set_output(2, u, Shape({channels}));
  c.set_output(3, u, Shape({0}));
  c.set_output(4, u, Shape({0}));
  return Status::Ok();
}

Status ResizeRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& in = c.in(0);
  // Only nearest-neighbour keeps the input type; the others interpolate in float.
  DType t = c.node().op == "ResizeNearestNeighbor" ? c.t_attr() : DType::kFloat;
  if (in.known_rank() && in.rank() != 4) return c.Error("images " + in.ToString() + " must be 4-D");
  std::vector<int64_t> dims = in.known_rank() ? in.dims() : std::vector<int64_t>(4, kUnknownDim);
  auto size = c.ints(1);
  if (size) {
    if (size->size() != 2 || (*size)[0] < 0 || (*size)[1] < 0) {
      return c.Error("size must be two non-negative integers");
    }
    dims[1] = (*size)[0];
    dims[2] = (*size)[1];
  } else {
    dims[1] = dims[2] = kUnknownDim;
  }
  c.set_output(0, t, Shape(dims));
  return Status::Ok();
}

Status SoftmaxXentRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& logits = c.in(0);
  DType t = c.t_attr();
  if (logits.known_rank() && logits.rank() != 2) {
    return c.Error("logits " + logits.ToString() + " must be 2-D");
  }
  Shape two = logits.known_rank() ? logits : Shape::UnknownDims(2);
  c.set_output(0, t, Shape({two.dim(0)}));
  c.set_output(1, t, two);
  return Status::Ok();
}

namespace {
Status SpaceDepth(InferenceContext& c, bool to_depth) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  const Shape& in = c.in(0);
  int64_t b = c.node().attr_int("block_size", 0);
  if (b < 2 || b > (1 << 16)) return c.Error("block_size must be in [2, 65536]");
  if (!in.known_rank()) {
    c.set_output(0, c.t_attr(), Shape::UnknownDims(4));
    return Status::Ok();
  }
  if (in.rank() != 4) return c.Error("input " + in.ToString() + " must be 4-D");
  Layout l = LayoutOf(c.node(), 2);
  const int h = l.spatial[0], w = l.spatial[1];
  std::vector<int64_t> dims = in.dims();
  auto scale = [&](int64_t d, bool down) -> int64_t {
    if (d < 0) return kUnknownDim;
    int64_t r;
    return down ? d / b : (CheckedMul(d, b, &r) ? r : kUnknownDim);
  };
  if (to_depth && ((dims[h] >= 0 && dims[h] % b) || (dims[w] >= 0 && dims[w] % b))) {
    return c.Error("spatial dimensions must divide by block_size");
  }
  if (!to_depth && dims[l.c] >= 0 && dims[l.c] % (b * b)) {
    return c.Error("channels must divide by block_size squared");
  }
  dims[h] = scale(dims[h], to_depth);
  dims[w] = scale(dims[w], to_depth);
  int64_t deep = kUnknownDim;
  if (dims[l.c] >= 0 && to_depth && !CheckedMul(dims[l.c], b * b, &deep)) deep = kUnknownDim;
  dims[l.c] = dims[l.c] < 0 ? kUnknownDim : (to_depth ? deep : dims[l.c] / (b * b));
  c.set_output(0, c.t_attr(), Shape(dims));
  return Status::Ok();
}
}  // namespace

Status DepthToSpaceRule(InferenceContext& c) { return SpaceDepth(c, /*to_depth=*/false); }
Status SpaceToDepthRule(InferenceContext& c) { return SpaceDepth(c, /*to_depth=*/true); }

Status BiasAddGradRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  const Shape& dy = c.in(0);
  int64_t channels = kUnknownDim;
  if (dy.known_rank()) {
    if (dy.rank() < 2) return c.Error("gradient " + dy.ToString() + " must be at least 2-D");
    bool nchw = c.node().attr_string("data_format", "NHWC") == "NCHW";
    channels = dy.dim(nchw ? 1 : dy.rank() - 1);
  }
  c.set_output(0, c.t_attr(), Shape({channels}));
  return Status::Ok();
}

// ApplyGradientDescent(var, alpha, delta), ApplyMomentum(var, accum, lr, grad,
// momentum): the gradient (and accumulator) must have the variable's shape.
Status ApplyUpdateRule(InferenceContext& c) {
  bool momentum = c.node().op == "ApplyMomentum";
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(momentum ? 5 : 3));
  const Shape& var = c.in(0);
  for (int i : momentum ? std::vector<int>{1, 3} : std::vector<int>{2}) {
    if (var.FullyDefined() && c.in(i).FullyDefined() && c.in(i) != var) {
      return c.Error("input " + std::to_string(i) + " " + c.in(i).ToString() +
                     " does not match the variable's " + var.ToString());
    }
  }
  c.set_output(0, c.t_attr(), var);
  return Status::Ok();
}

Status TopKRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(2));
  const Shape& in = c.in(0);
  auto k = c.ints(1);
  if (k && k->size() == 1 && (*k)[0] < 0) return c.Error("negative k");
  Shape out = in.known_rank() ? in : Shape();
  if (in.known_rank()) {
    if (in.rank() < 1) return c.Error("input must be at least 1-D");
    out.set_dim(in.rank() - 1, k && k->size() == 1 ? (*k)[0] : kUnknownDim);
  }
  c.set_output(0, c.t_attr(), out);
  c.set_output(1, DType::kInt32, out);
  return Status::Ok();
}

Status EinsumRule(InferenceContext& c) {
  GRAPH_RETURN_IF_ERROR(c.RequireInputs(1));
  auto eq = ParseEinsum(c.node().attr_string("equation", ""));
  if (!eq.ok()) return c.Error(eq.status().message());
  std::vector<Shape> shapes;
  for (int i = 0; i < c.num_inputs(); ++i) shapes.push_back(c.in(i));
  auto out = EinsumShape(*eq, shapes);
  if (!out.ok()) return c.Error(out.status().message());
  c.set_output(0, c.t_attr(), *out);
  return Status::Ok();
}

}  // namespace graph
