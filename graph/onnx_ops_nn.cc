// ONNX rules, neural-network family: convolution, pooling, normalisation,
// dropout, resizing. ONNX is NCHW with OIHW weights; the IR's Conv2D and pools
// run NCHW directly (data_format), with the weight transposed to HWIO by a
// Transpose node (its gradient transposes back), and ONNX's explicit pads as
// TF's EXPLICIT padding. 1-D ops run as 2-D ones over a unit height. 3-D ops
// run as TF's Conv3D and 3-D pools, NCDHW with DHWIO weights; those pad SAME
// or VALID only, so other explicit pads are a Pad node before a VALID window.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "graph/onnx_translate.h"

namespace graph::onnx_import {
namespace {

// A window of n = max(spatial, 2) entries: a 1-D op's gets a unit height.
struct Window2d {
  std::vector<int64_t> kernel;  // spatial sizes, n entries
  std::vector<int64_t> strides, dilations;
  std::string padding;          // "EXPLICIT", "SAME" or "VALID"
  std::vector<int64_t> pads;    // EXPLICIT: n begins, then n ends
};

// The spatial rank of a convolution or pool from its kernel_shape, or from the
// weight's rank.
Result<int> SpatialRank(NodeContext& c, int weight_input) {
  if (auto k = c.attr_ints("kernel_shape")) return static_cast<int>(k->size());
  if (weight_input >= 0 && c.rank(weight_input) >= 3) return c.rank(weight_input) - 2;
  if (c.rank(0) >= 3) return c.rank(0) - 2;
  return c.Unsupported("the spatial rank is unknown");
}

// The largest dimension a result may have.
constexpr int64_t kMaxSize = std::numeric_limits<int64_t>::max();

// Reads kernel_shape, strides, dilations, pads and auto_pad for 1, 2 or 3
// spatial dims (a 1-D op's as 2-D values over a unit height).
Result<Window2d> ReadWindow(NodeContext& c, int spatial, std::vector<int64_t> kernel) {
  Window2d w;
  const int n = std::max(spatial, 2);
  auto two = [&](const char* name, int64_t dflt) -> Result<std::vector<int64_t>> {
    std::vector<int64_t> v = c.attr_ints(name).value_or(std::vector<int64_t>(spatial, dflt));
    if (static_cast<int>(v.size()) != spatial) {
      return c.Error(std::string(name) + " has " + std::to_string(v.size()) + " entries, not " +
                     std::to_string(spatial));
    }
    if (spatial == 1) v.insert(v.begin(), 1);  // the unit height
    return v;
  };
  if (static_cast<int>(kernel.size()) != spatial) return c.Error("kernel_shape size mismatch");
  for (int64_t k : kernel) {
    if (k < 1) return c.Error("kernel sizes must be positive");
  }
  if (spatial == 1) kernel.insert(kernel.begin(), 1);
  w.kernel = kernel;
  GRAPH_ASSIGN_OR_RETURN(w.strides, two("strides", 1));
  GRAPH_ASSIGN_OR_RETURN(w.dilations, two("dilations", 1));
  for (int i = 0; i < n; ++i) {
    if (w.strides[i] < 1 || w.dilations[i] < 1) {
      return c.Error("strides and dilations must be positive");
    }
  }
  const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER") {
    w.padding = "SAME";  // TF's SAME puts the odd element at the end, as SAME_UPPER does
  } else if (auto_pad == "VALID") {
    w.padding = "VALID";
  } else if (auto_pad == "NOTSET" || auto_pad.empty()) {
    std::vector<int64_t> pads = c.attr_ints("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
    if (static_cast<int>(pads.size()) != 2 * spatial) return c.Error("pads size mismatch");
    for (int64_t p : pads) {
      if (p < 0) return c.Unsupported("negative pads are not supported");
    }
    if (spatial == 1) pads = {0, pads[0], 0, pads[1]};
    w.padding = "EXPLICIT";
    w.pads = pads;
  } else if (auto_pad == "SAME_LOWER") {
    // As SAME, with the odd element at the start: explicit pads from static dims.
    Shape s = c.shape(0);
    if (!s.known_rank() || s.rank() != spatial + 2) {
      return c.Unsupported("auto_pad SAME_LOWER needs a known input rank");
    }
    w.padding = "EXPLICIT";
    w.pads.assign(2 * n, 0);
    for (int i = 0; i < spatial; ++i) {
      const int k = i + n - spatial;  // the window's index
      const int64_t in = s.dim(2 + i);
      if (in < 0) return c.Unsupported("auto_pad SAME_LOWER needs static spatial dims");
      // In 128 bits: a file's sizes may be anything up to 2^63.
      using I = __int128;
      const I out = (in + I{w.strides[k]} - 1) / w.strides[k];
      const I window = I{w.kernel[k] - 1} * w.dilations[k] + 1;
      const I total = std::max<I>((out - 1) * w.strides[k] + window - in, 0);
      if (total > I{kMaxSize}) return c.Error("auto_pad SAME_LOWER pads past 2^63");
      w.pads[k] = static_cast<int64_t>(total - total / 2);
      w.pads[k + n] = static_cast<int64_t>(total / 2);
    }
  } else {
    return c.Error("unknown auto_pad '" + auto_pad + "'");
  }
  return w;
}

AttrMap WindowAttrs(const Window2d& w) {
  AttrMap a = {{"data_format", StrAttr("NCHW")},
               {"strides", IntList({1, 1, w.strides[0], w.strides[1]})},
               {"padding", MakeAttr(w.padding)}};
  std::vector<int64_t> explicit_pads;
  if (w.padding == "EXPLICIT") {
    explicit_pads = {0, 0, 0, 0, w.pads[0], w.pads[2], w.pads[1], w.pads[3]};
  }
  a["explicit_paddings"] = IntList(explicit_pads);
  return a;
}

// A 1-D op's input with a unit height; others' as they are.
std::string ToSpatial2d(NodeContext& c, int spatial, const std::string& x, const char* name) {
  if (spatial != 1) return x;
  return c.Emit(name, "ExpandDims", {x, c.IntScalar(std::string(name) + "_axis", 2)});
}

std::string FromSpatial2d(NodeContext& c, int spatial, const std::string& y) {
  if (spatial != 1) return y;
  return c.Emit("", "Squeeze", {y}, {{"squeeze_dims", IntList({2})}});
}

// ---- 3-D windows ----

bool NoPads(const Window2d& w) {
  return std::all_of(w.pads.begin(), w.pads.end(), [](int64_t p) { return p == 0; });
}

// Whether TF's SAME padding of the input's static dims is the window's
// explicit padding.
bool IsSamePadding(NodeContext& c, const Window2d& w) {
  const int n = static_cast<int>(w.kernel.size());
  Shape s = c.shape(0);
  if (!s.known_rank() || s.rank() != n + 2) return false;
  for (int i = 0; i < n; ++i) {
    const int64_t in = s.dim(2 + i);
    if (in < 0) return false;
    // In 128 bits: a file's sizes may be anything up to 2^63.
    using I = __int128;
    const I out = (in + I{w.strides[i]} - 1) / w.strides[i];
    const I window = I{w.kernel[i] - 1} * w.dilations[i] + 1;
    const I total = std::max<I>((out - 1) * w.strides[i] + window - in, 0);
    if (w.pads[i] != total / 2 || w.pads[i + n] != total - total / 2) return false;
  }
  return true;
}

// TF's 3-D ops pad SAME or VALID only: explicit pads of zero are VALID, and
// TF's SAME pads SAME where `same_ok` (an average leaves SAME's padding out of
// its count). Other pads pad the input by a Pad node (PadV2 with `value` when
// given) before a VALID window; the padded input is returned.
std::string ToTfPadding3d(NodeContext& c, Window2d* w, bool same_ok, const std::string& x,
                          const std::string& value) {
  if (w->padding != "EXPLICIT") return x;
  const bool zero = NoPads(*w);
  const bool same = !zero && same_ok && IsSamePadding(c, *w);
  std::vector<int64_t> paddings = {0, 0, 0, 0};
  for (int i = 0; i < 3; ++i) paddings.insert(paddings.end(), {w->pads[i], w->pads[i + 3]});
  w->padding = same ? "SAME" : "VALID";
  w->pads.assign(6, 0);
  if (zero || same) return x;
  std::string p =
      c.Constant("paddings", Tensor::FromInt64s(DType::kInt64, Shape({5, 2}), paddings));
  return value.empty() ? c.Emit("padded", "Pad", {x, p}) : c.Emit("padded", "PadV2", {x, p, value});
}

AttrMap WindowAttrs3d(const Window2d& w) {
  return {{"data_format", StrAttr("NCDHW")},
          {"strides", IntList({1, 1, w.strides[0], w.strides[1], w.strides[2]})},
          {"padding", MakeAttr(w.padding)}};
}

// Conv3D; a grouped filter [C_out, C_in / group, kd, kh, kw] is TF's grouped
// DHWIO filter once transposed.
Status Conv3d(NodeContext& c, Window2d w) {
  std::string x = ToTfPadding3d(c, &w, true, c.in(0), "");
  AttrMap attrs = WindowAttrs3d(w);
  attrs["dilations"] = IntList({1, 1, w.dilations[0], w.dilations[1], w.dilations[2]});
  std::string dhwio =
      c.Emit("weight_dhwio", "Transpose", {c.in(1), c.IntConst("dhwio", {2, 3, 4, 1, 0})});
  std::string y = c.Emit(c.has(2) ? "conv" : "", "Conv3D", {x, dhwio}, attrs);
  if (c.has(2)) y = c.Emit("", "BiasAdd", {y, c.in(2)}, {{"data_format", StrAttr("NCHW")}});
  c.Output(0, y);
  return Status::Ok();
}

// MaxPool3D and AvgPool3D, `ceil_extra` the end padding ceil_mode adds.
Status Pool3d(NodeContext& c, const char* op, Window2d w, const std::vector<int64_t>& ceil_extra) {
  const bool avg = std::string(op) == "AvgPool3D";
  const bool has_ceil =
      std::any_of(ceil_extra.begin(), ceil_extra.end(), [](int64_t e) { return e > 0; });
  std::string x = c.in(0), value;
  // Pads that TF's SAME or VALID cannot say and a Pad node must.
  auto needs_pad_node = [&] {
    return w.padding == "EXPLICIT" && !NoPads(w) && !IsSamePadding(c, w);
  };
  if (avg) {
    // Padding that counts (count_include_pad) is zeros padded first; ceil_mode's
    // extra never counts, which TF's 3-D pools cannot say with padding that does.
    const bool counted = c.attr_int("count_include_pad", 0) != 0;
    if (counted && w.padding == "SAME")
      return c.Unsupported("count_include_pad with auto_pad SAME");
    if (has_ceil) return c.Unsupported("ceil_mode on a 3-D average pool that ends past its input");
    if (!counted && needs_pad_node()) {
      return c.Unsupported(
          "3-D average pooling with pads other than SAME's, left out of the count");
    }
    x = ToTfPadding3d(c, &w, !counted, x, "");
  } else {
    if (w.padding == "EXPLICIT") {
      for (int i = 0; i < 3; ++i) w.pads[i + 3] += ceil_extra[i];
    }
    if (!IsFloating(c.dtype(0))) {
      if (needs_pad_node()) return c.Unsupported("integer 3-D max pooling with explicit pads");
    } else {
      value = c.ScalarConst("lowest", -std::numeric_limits<double>::infinity(), c.dtype(0));
    }
    x = ToTfPadding3d(c, &w, true, x, value);
  }
  AttrMap attrs = WindowAttrs3d(w);
  attrs["ksize"] = IntList({1, 1, w.kernel[0], w.kernel[1], w.kernel[2]});
  c.Output(0, c.Emit("", op, {x}, attrs));
  return Status::Ok();
}

// ---- convolution ----

Status Conv(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int spatial, SpatialRank(c, 1));
  if (spatial < 1 || spatial > 3) return c.Unsupported(std::to_string(spatial) + "-D convolution");
  Shape ws = c.shape(1);
  if (!ws.known_rank() || ws.rank() != spatial + 2 || !ws.FullyDefined()) {
    return c.Unsupported("the weight's shape must be static");
  }
  std::vector<int64_t> kernel(ws.dims().begin() + 2, ws.dims().end());
  GRAPH_ASSIGN_OR_RETURN(Window2d w, ReadWindow(c, spatial, kernel));
  const int64_t group = c.attr_int("group", 1);
  const int64_t out_ch = ws.dim(0), in_per_group = ws.dim(1);
  if (group < 1 || out_ch % group != 0) return c.Error("group does not divide the output channels");
  if (spatial == 3) return Conv3d(c, w);
  const bool last = !c.has(2) && spatial == 2;
  std::string x = ToSpatial2d(c, spatial, c.in(0), "input_2d");
  std::string wt = ToSpatial2d(c, spatial, c.in(1), "weight_2d");
  AttrMap attrs = WindowAttrs(w);
  attrs["dilations"] = IntList({1, 1, w.dilations[0], w.dilations[1]});
  std::string y;
  if (group == 1) {
    std::string hwio = c.Emit("weight_hwio", "Transpose", {wt, c.IntConst("hwio", {2, 3, 1, 0})});
    y = c.Emit(last ? "" : "conv", "Conv2D", {x, hwio}, attrs);
  } else if (in_per_group == 1) {
    // Depthwise: [C*m, 1, kh, kw] -> [kh, kw, C, m].
    const int64_t m = out_ch / group;
    std::string r = c.Emit("weight_cm", "Reshape",
                           {wt, c.IntConst("cm_shape", {group, m, w.kernel[0], w.kernel[1]})});
    std::string hwcm = c.Emit("weight_hwcm", "Transpose", {r, c.IntConst("hwcm", {2, 3, 0, 1})});
    y = c.Emit(last ? "" : "conv", "DepthwiseConv2dNative", {x, hwcm}, attrs);
  } else if (group > 1024) {
    return c.Unsupported(std::to_string(group) + " groups of more than one channel");
  } else {
    // Grouped: one convolution per group, concatenated along channels.
    std::string axis0 = c.IntScalar("weight_axis", 0);
    std::string axis1 = c.IntScalar("channel_axis", 1);
    AttrMap split = {{"num_split", MakeAttr(group)}, {"T", MakeAttr(c.dtype(0))}};
    std::string xs = c.Emit("split_input", "Split", {axis1, x}, split);
    std::string wsplit = c.Emit("split_weight", "Split", {axis0, wt}, split);
    std::vector<std::string> parts;
    std::string perm = c.IntConst("hwio", {2, 3, 1, 0});
    for (int64_t g = 0; g < group; ++g) {
      std::string sg = std::to_string(g);
      std::string wi = g == 0 ? wsplit : wsplit + ":" + sg;
      std::string xi = g == 0 ? xs : xs + ":" + sg;
      std::string hwio = c.Emit("weight_hwio_" + sg, "Transpose", {wi, perm});
      parts.push_back(c.Emit("conv_" + sg, "Conv2D", {xi, hwio}, attrs));
    }
    parts.push_back(axis1);
    y = c.Emit(last ? "" : "conv", "ConcatV2", parts, {{"N", MakeAttr(group)}});
  }
  if (c.has(2)) {
    y = c.Emit(spatial == 2 ? "" : "bias", "BiasAdd", {y, c.in(2)},
               {{"data_format", StrAttr("NCHW")}});
  }
  c.Output(0, FromSpatial2d(c, spatial, y));
  return Status::Ok();
}

// The gradient of a convolution with respect to its input, which is what
// ConvTranspose computes: weight [C_in, C_out, k...] read as the forward
// convolution's filter [k..., C_out, C_in]. In 3-D (whose TF op pads SAME or
// VALID only), the VALID gradient of the full size, cropped by the pads.
Status ConvTranspose(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int spatial, SpatialRank(c, 1));
  if (spatial < 1 || spatial > 3)
    return c.Unsupported(std::to_string(spatial) + "-D ConvTranspose");
  if (c.attr_int("group", 1) != 1) return c.Unsupported("grouped ConvTranspose");
  if (c.attr("output_shape")) return c.Unsupported("the output_shape attribute");
  const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") return c.Unsupported("auto_pad " + auto_pad);
  Shape ws = c.shape(1), xs = c.shape(0);
  if (!ws.known_rank() || ws.rank() != spatial + 2 || !ws.FullyDefined() || !xs.known_rank() ||
      xs.rank() != spatial + 2 || !xs.FullyDefined()) {
    return c.Unsupported("ConvTranspose needs static input and weight shapes");
  }
  std::vector<int64_t> kernel(ws.dims().begin() + 2, ws.dims().end());
  GRAPH_ASSIGN_OR_RETURN(Window2d w, ReadWindow(c, spatial, kernel));
  const int n = static_cast<int>(w.kernel.size());
  if (w.padding == "VALID") {
    w.padding = "EXPLICIT";
    w.pads.assign(2 * n, 0);
  }
  std::vector<int64_t> extra = c.attr_ints("output_padding").value_or(std::vector<int64_t>(spatial, 0));
  if (static_cast<int>(extra.size()) != spatial) return c.Error("output_padding size mismatch");
  std::vector<int64_t> in(xs.dims().begin() + 2, xs.dims().end());
  if (spatial == 1) {
    extra.insert(extra.begin(), 0);
    in.insert(in.begin(), 1);
  }
  std::vector<int64_t> sizes = {xs.dim(0), ws.dim(1)}, full = sizes, begin = {0, 0};
  for (int i = 0; i < n; ++i) {
    // PyTorch's and ONNX's rule; it also keeps the sums below in range.
    if (extra[i] < 0 || extra[i] >= std::max(w.strides[i], w.dilations[i])) {
      return c.Error("output_padding " + std::to_string(extra[i]) +
                     " is not from 0 to below the stride or the dilation");
    }
    // The output size; output_padding adds rows that the end padding absorbs.
    // In 128 bits: a file's sizes may be anything up to 2^63.
    using I = __int128;
    const I whole =
        I{in[i] - 1} * w.strides[i] + I{w.kernel[i] - 1} * w.dilations[i] + 1 + extra[i];
    const I size = whole - w.pads[i] - w.pads[i + n];
    if (size < 1 || whole > I{kMaxSize}) {
      return c.Error("the output's spatial size is not from 1 to 2^63 - 1");
    }
    sizes.push_back(static_cast<int64_t>(size));
    full.push_back(static_cast<int64_t>(whole));
    begin.push_back(w.pads[i]);
    w.pads[i + n] -= extra[i];
    if (n == 2 && w.pads[i + n] < 0) {
      return c.Unsupported("output_padding larger than the end padding");
    }
  }
  std::string x = ToSpatial2d(c, spatial, c.in(0), "input_2d");
  std::string wt = ToSpatial2d(c, spatial, c.in(1), "weight_2d");
  std::string y;
  if (n == 3) {
    std::string dhwio =
        c.Emit("weight_dhwio", "Transpose", {wt, c.IntConst("dhwio", {2, 3, 4, 1, 0})});
    AttrMap attrs = WindowAttrs3d(w);
    attrs["padding"] = MakeAttr("VALID");
    attrs["dilations"] = IntList({1, 1, w.dilations[0], w.dilations[1], w.dilations[2]});
    const bool crop = full != sizes;
    y = c.Emit(!c.has(2) && !crop ? "" : "conv", "Conv3DBackpropInputV2",
               {c.IntConst("input_sizes", full), dhwio, x}, attrs);
    if (crop) {
      std::vector<int64_t> size = sizes;
      size[0] = size[1] = -1;
      y = c.Emit(c.has(2) ? "crop" : "", "Slice",
                 {y, c.IntConst("begin", begin), c.IntConst("size", size)});
    }
  } else {
    std::string hwio = c.Emit("weight_hwio", "Transpose", {wt, c.IntConst("hwio", {2, 3, 1, 0})});
    AttrMap attrs = WindowAttrs(w);
    attrs["dilations"] = IntList({1, 1, w.dilations[0], w.dilations[1]});
    y = c.Emit(!c.has(2) && spatial == 2 ? "" : "conv", "Conv2DBackpropInput",
               {c.IntConst("input_sizes", sizes), hwio, x}, attrs);
  }
  if (c.has(2)) {
    y = c.Emit(spatial == 1 ? "bias" : "", "BiasAdd", {y, c.in(2)},
               {{"data_format", StrAttr("NCHW")}});
  }
  c.Output(0, FromSpatial2d(c, spatial, y));
  return Status::Ok();
}

// ---- pooling ----

Status Pool(NodeContext& c, const char* op) {
  auto kernel = c.attr_ints("kernel_shape");
  if (!kernel) return c.Error("kernel_shape is required");
  const int spatial = static_cast<int>(kernel->size());
  if (spatial < 1 || spatial > 3) return c.Unsupported(std::to_string(spatial) + "-D pooling");
  GRAPH_ASSIGN_OR_RETURN(Window2d w, ReadWindow(c, spatial, *kernel));
  const int n = static_cast<int>(w.kernel.size());
  for (int i = 0; i < n; ++i) {
    if (w.dilations[i] != 1) return c.Unsupported("dilated pooling");
  }
  if (c.has_output(1)) return c.Unsupported("the Indices output is not supported");
  const bool avg = std::string(op) == "AvgPool";
  // ceil_mode: extra end padding so that floor division gives ceil's output
  // size. It never counts as elements, even where ONNX's pads do.
  std::vector<int64_t> ceil_extra(n, 0);
  if (c.attr_int("ceil_mode", 0) != 0) {
    Shape s = c.shape(0);
    if (w.padding != "EXPLICIT" || !s.known_rank() || s.rank() != spatial + 2 ||
        !s.FullyDefined()) {
      return c.Unsupported("ceil_mode needs explicit pads and a static input shape");
    }
    for (int i = 0; i < n; ++i) {
      // In 128 bits: a file's sizes and pads may be anything up to 2^63.
      using I = __int128;
      const int64_t in = spatial == 1 ? (i == 0 ? 1 : s.dim(2)) : s.dim(2 + i);
      const I padded = I{in} + w.pads[i] + w.pads[i + n];
      if (padded < w.kernel[i]) return c.Error("the window exceeds the padded input");
      if (padded > I{kMaxSize}) return c.Error("the padded input's size is past 2^63 - 1");
      I out = (padded - w.kernel[i] + w.strides[i] - 1) / w.strides[i] + 1;
      // PyTorch's rule: the last window must start inside the input or left pad.
      if ((out - 1) * w.strides[i] >= I{in} + w.pads[i]) --out;
      // The last window starts inside the input or its left pad, so this is
      // below the kernel less the end pad: the end pad plus it fits.
      ceil_extra[i] =
          static_cast<int64_t>(std::max<I>((out - 1) * w.strides[i] + w.kernel[i] - padded, 0));
    }
  }
  if (spatial == 3) return Pool3d(c, avg ? "AvgPool3D" : "MaxPool3D", w, ceil_extra);
  std::string x = ToSpatial2d(c, spatial, c.in(0), "input_2d");
  if (avg && c.attr_int("count_include_pad", 0) != 0) {
    if (w.padding == "SAME") return c.Unsupported("count_include_pad with auto_pad SAME");
    if (w.padding == "EXPLICIT") {
      // ONNX's pads count as zeros: pad explicitly, then pool the padded input.
      std::string pads = c.Constant(
          "paddings", Tensor::FromInt64s(DType::kInt64, Shape({4, 2}),
                                         {0, 0, 0, 0, w.pads[0], w.pads[2], w.pads[1], w.pads[3]}));
      x = c.Emit("padded", "Pad", {x, pads});
      w.pads = {0, 0, 0, 0};
    }
  }
  if (w.padding == "EXPLICIT") {
    w.pads[2] += ceil_extra[0];
    w.pads[3] += ceil_extra[1];
  }
  AttrMap attrs = WindowAttrs(w);
  attrs["ksize"] = IntList({1, 1, w.kernel[0], w.kernel[1]});
  std::string y = c.Emit(spatial == 2 ? "" : "pool", op, {x}, attrs);
  c.Output(0, FromSpatial2d(c, spatial, y));
  return Status::Ok();
}

Status MaxPool(NodeContext& c) {
  if (c.attr_int("storage_order", 0) != 0) return c.Unsupported("storage_order = 1");
  return Pool(c, "MaxPool");
}
Status AveragePool(NodeContext& c) { return Pool(c, "AvgPool"); }

Status GlobalPool(NodeContext& c, const char* op) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  if (r < 3) return c.Error("input must have a spatial dimension");
  std::vector<int64_t> axes;
  for (int i = 2; i < r; ++i) axes.push_back(i);
  c.Output(0, c.Emit("", op, {c.in(0), c.IntConst("axes", axes)},
                     {{"keep_dims", MakeAttr(true)}, {"Tidx", MakeAttr(DType::kInt32)}}));
  return Status::Ok();
}

Status GlobalAveragePool(NodeContext& c) { return GlobalPool(c, "Mean"); }
Status GlobalMaxPool(NodeContext& c) { return GlobalPool(c, "Max"); }

// ---- normalisation ----

// [C] -> [C, 1, ..., 1] so that it broadcasts along axis 1 of a rank-r input.
std::string PerChannel(NodeContext& c, const std::string& v, int r, const std::string& name) {
  if (r <= 2) return v;
  std::vector<int64_t> shape(r - 1, 1);
  shape[0] = -1;
  return c.Emit(name, "Reshape", {v, c.IntConst(name + "_shape", shape)});
}

// Training mode (what torch.onnx.export writes for a model in train mode:
// `training_mode` from opset 14, the running statistics' outputs before it):
// normalised by the batch's statistics, FusedBatchNormV3 with is_training.
// The running statistics it outputs are ONNX's update, weighted by momentum,
// of the batch's mean and population variance (PyTorch's own buffers take the
// unbiased variance), and take no gradient; PyTorch's files read none of them,
// and they are pruned. Before opset 14, saved_mean and saved_var (outputs 3,
// 4) are left unmade: a node reading them is an error naming the value.
Status TrainingBatchNorm(NodeContext& c, int r, float eps) {
  if ((r != 4 && r != 5) || c.dtype(0) != DType::kFloat) {
    return c.Unsupported(
        "training-mode batch normalization of other than a 4-D or 5-D float input");
  }
  const std::string bn =
      c.Emit("", "FusedBatchNormV3", {c.in(0), c.in(1), c.in(2), c.in(3), c.in(4)},
             {{"epsilon", MakeAttr(eps)},
              {"is_training", MakeAttr(true)},
              {"data_format", StrAttr(r == 4 ? "NCHW" : "NCDHW")},
              {"U", MakeAttr(DType::kFloat)}});
  c.Output(0, bn);
  const float momentum = c.attr_float("momentum", 0.9f);
  for (int k = 1; k <= 2; ++k) {
    if (!c.has_output(k)) continue;
    const std::string name = k == 1 ? "running_mean" : "running_var";
    std::string batch;
    if (k == 1) {
      batch = c.Emit(name + "_batch", "StopGradient", {bn + ":1"});
    } else {
      // FusedBatchNorm's batch variance is unbiased: the population one anew.
      std::vector<int64_t> axes = {0};
      for (int i = 2; i < r; ++i) axes.push_back(i);
      const std::string ax = c.IntConst(name + "_axes", axes);
      AttrMap keep = {{"keep_dims", MakeAttr(true)}, {"Tidx", MakeAttr(DType::kInt32)}};
      std::string x = c.Emit(name + "_input", "StopGradient", {c.in(0)});
      std::string centred =
          c.Emit(name + "_centred", "Sub", {x, c.Emit(name + "_mean", "Mean", {x, ax}, keep)});
      keep["keep_dims"] = MakeAttr(false);
      batch = c.Emit(name + "_batch", "Mean", {c.Emit(name + "_square", "Square", {centred}), ax},
                     keep);
    }
    std::string kept = c.Emit(name + "_kept", "Mul",
                              {c.Emit(name + "_old", "StopGradient", {c.in(2 + k)}),
                               c.ScalarConst(name + "_momentum", momentum, DType::kFloat)});
    std::string added =
        c.Emit(name + "_added", "Mul",
               {batch, c.ScalarConst(name + "_rate", 1.0 - momentum, DType::kFloat)});
    c.Output(k, c.Emit(name, "AddV2", {kept, added}));
  }
  return Status::Ok();
}

Status BatchNormalization(NodeContext& c) {
  if (c.opset() < 9 && c.attr_int("spatial", 1) == 0) {
    return c.Unsupported("per-activation batch normalization (spatial = 0)");
  }
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  const float eps = c.attr_float("epsilon", 1e-5f);
  if (c.attr_int("training_mode", 0) != 0 || c.has_output(1)) return TrainingBatchNorm(c, r, eps);
  if ((r == 4 || r == 5) && c.dtype(0) == DType::kFloat) {
    c.Output(0, c.Emit("", "FusedBatchNormV3", {c.in(0), c.in(1), c.in(2), c.in(3), c.in(4)},
                       {{"epsilon", MakeAttr(eps)},
                        {"is_training", MakeAttr(false)},
                        {"data_format", StrAttr(r == 4 ? "NCHW" : "NCDHW")},
                        {"U", MakeAttr(DType::kFloat)}}));
    return Status::Ok();
  }
  // y = x * a + b with a = scale / sqrt(var + eps), b = bias - mean * a. The
  // running statistics are not trained (as FusedBatchNorm's gradient leaves them).
  const DType t = c.dtype(0);
  std::string mean = c.Emit("mean_fixed", "StopGradient", {c.in(3)});
  std::string var = c.Emit(
      "variance_eps", "AddV2",
      {c.Emit("variance_fixed", "StopGradient", {c.in(4)}), c.ScalarConst("epsilon", eps, t)});
  std::string a = c.Emit("multiplier", "Mul", {c.in(1), c.Emit("rsqrt", "Rsqrt", {var})});
  std::string b = c.Emit("offset", "Sub", {c.in(2), c.Emit("mean_scaled", "Mul", {mean, a})});
  std::string ax = c.Emit("scaled", "Mul", {c.in(0), PerChannel(c, a, r, "multiplier_c")});
  c.Output(0, c.Emit("", "AddV2", {ax, PerChannel(c, b, r, "offset_c")}));
  return Status::Ok();
}

// (x - mean) / sqrt(var + eps) over `axes`, keeping dims; the mean and the
// reciprocal deviation are returned through the pointers when given.
std::string Normalize(NodeContext& c, const std::string& x, const std::vector<int64_t>& axes,
                      float eps, DType t, std::string* mean_out = nullptr,
                      std::string* inv_out = nullptr) {
  AttrMap keep = {{"keep_dims", MakeAttr(true)}, {"Tidx", MakeAttr(DType::kInt32)}};
  std::string ax = c.IntConst("axes", axes);
  std::string mean = c.Emit("mean", "Mean", {x, ax}, keep);
  std::string centred = c.Emit("centred", "Sub", {x, mean});
  std::string var = c.Emit("variance", "Mean", {c.Emit("square", "Square", {centred}), ax}, keep);
  std::string inv = c.Emit("rsqrt", "Rsqrt",
                           {c.Emit("variance_eps", "AddV2", {var, c.ScalarConst("epsilon", eps, t)})});
  if (mean_out) *mean_out = mean;
  if (inv_out) *inv_out = inv;
  return c.Emit("normalized", "Mul", {centred, inv});
}

Status LayerNormalization(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  GRAPH_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c, c.attr_int("axis", -1), r));
  std::vector<int64_t> axes;
  for (int64_t i = axis; i < r; ++i) axes.push_back(i);
  std::string mean, inv;
  std::string y =
      Normalize(c, c.in(0), axes, c.attr_float("epsilon", 1e-5f), c.dtype(0), &mean, &inv);
  c.Output(1, mean);
  c.Output(2, inv);
  y = c.Emit(c.has(2) ? "scaled" : "", "Mul", {y, c.in(1)});
  if (c.has(2)) y = c.Emit("", "AddV2", {y, c.in(2)});
  c.Output(0, y);
  return Status::Ok();
}

Status InstanceNormalization(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(int r, c.known_rank(0));
  std::vector<int64_t> axes;
  for (int i = 2; i < r; ++i) axes.push_back(i);
  std::string y = Normalize(c, c.in(0), axes, c.attr_float("epsilon", 1e-5f), c.dtype(0));
  y = c.Emit("scaled", "Mul", {y, PerChannel(c, c.in(1), r, "scale_c")});
  c.Output(0, c.Emit("", "AddV2", {y, PerChannel(c, c.in(2), r, "bias_c")}));
  return Status::Ok();
}

// Training-mode Dropout: each element kept with probability 1 - ratio and
// scaled by 1 / (1 - ratio) (inverted dropout, PyTorch's and ONNX's), by a mask
// of a RandomUniform drawn each step; the mask is output 1.
Status TrainingDropout(NodeContext& c, double ratio) {
  const DType t = c.dtype(0);
  if (!IsFloating(t)) return c.Unsupported("training-mode Dropout of a non-float input");
  if (!(ratio >= 0 && ratio <= 1)) return c.Error("ratio must be from 0 to 1");
  std::string shape = c.Emit("shape", "Shape", {c.in(0)}, {{"out_type", MakeAttr(DType::kInt32)}});
  std::string u = c.Emit("uniform", "RandomUniform", {shape}, {{"dtype", MakeAttr(t)}});
  std::string keep = c.Emit("keep", "GreaterEqual", {u, c.ScalarConst("ratio", ratio, t)});
  std::string kept =
      c.Emit("kept", "Cast", {keep}, {{"SrcT", MakeAttr(DType::kBool)}, {"DstT", MakeAttr(t)}});
  std::string scale = c.ScalarConst("scale", ratio < 1 ? 1 / (1 - ratio) : 0, t);
  c.Output(0, c.Emit("", "Mul", {c.Emit("masked", "Mul", {c.in(0), kept}), scale}));
  if (c.has_output(1)) c.Output(1, keep);
  return Status::Ok();
}

Status Dropout(NodeContext& c) {
  // Inference: the identity. Training mode (opset 12's input 2 true, or
  // is_test = 0 before opset 7) drops by a known ratio; a known ratio of 0 (as
  // F.dropout's default training=True with p=0, in torchvision's Swin
  // attention) drops nothing and is the identity too.
  std::optional<double> ratio = 0.5;  // unknown: nullopt
  if (c.opset() >= 12 && c.has(1)) {
    const Tensor* r = c.value(1);
    ratio.reset();
    if (r && r->num_elements() == 1) ratio = r->ToDoubles()[0];
  } else if (c.opset() < 12) {
    ratio = c.attr_float("ratio", 0.5f);
  }
  bool training = c.opset() < 7 && c.attr_int("is_test", 0) == 0;
  if (c.has(2) && ratio != 0.0) {
    const Tensor* mode = c.value(2);
    std::vector<int64_t> v = mode ? mode->ToInt64s() : std::vector<int64_t>{};
    if (v.size() != 1) return c.Unsupported("a training_mode that is not a known scalar");
    training = v[0] != 0;
  }
  if (training && ratio != 0.0) {
    if (!ratio) return c.Unsupported("training-mode Dropout of a ratio not known at import");
    // A seeded mask is the seed's in ONNX's generator, which LibTorch's is not.
    if (c.attr("seed")) return c.Unsupported("training-mode Dropout with a seed");
    return TrainingDropout(c, *ratio);
  }
  c.Output(0, c.Emit("", "Identity", {c.in(0)}));
  if (c.has_output(1)) {
    std::string shape = c.Emit("shape", "Shape", {c.in(0)}, {{"out_type", MakeAttr(DType::kInt32)}});
    c.Output(1, c.Emit("mask", "Fill", {shape, c.ScalarConst("true", 1, DType::kBool)}));
  }
  return Status::Ok();
}

// ---- resizing ----

// TF's 2-D resize `op` of `images` [batch, h, w, channels] to `hw`.
std::string Resize2d(NodeContext& c, const char* op, const std::string& images,
                     const std::vector<int64_t>& hw, bool align, bool half, const std::string& name,
                     const std::string& size_name) {
  return c.Emit(name, op, {images, c.IntConst(size_name, hw)},
                {{"align_corners", MakeAttr(align)}, {"half_pixel_centers", MakeAttr(half)}});
}

// A 3-D resize of NCDHW `x` (static C, D, H, W) to `dhw` by TF's 2-D resize
// `op` twice: nearest and linear sampling are separable by axis, so height and
// width are resized as images [N*C*D, H, W, 1], then depth as images
// [N*C, D, H'*W', 1] (the second axis keeps its size, which every sampling
// mode maps onto itself).
std::string Resize3d(NodeContext& c, const char* op, const Shape& s,
                     const std::vector<int64_t>& dhw, bool align, bool half) {
  const int64_t ch = s.dim(1), d = s.dim(2), h = s.dim(3), w = s.dim(4);
  std::string y = c.in(0);
  if (dhw[1] != h || dhw[2] != w) {
    y = c.Emit("planes", "Reshape", {y, c.IntConst("planes_shape", {-1, h, w, 1})});
    y = Resize2d(c, op, y, {dhw[1], dhw[2]}, align, half, "resize_hw", "size_hw");
  }
  if (dhw[0] != d) {
    y = c.Emit("depths", "Reshape", {y, c.IntConst("depths_shape", {-1, d, dhw[1] * dhw[2], 1})});
    y = Resize2d(c, op, y, {dhw[0], dhw[1] * dhw[2]}, align, half, "resize_d", "size_d");
  }
  return c.Emit("", "Reshape", {y, c.IntConst("shape", {-1, ch, dhw[0], dhw[1], dhw[2]})});
}

// Nearest or (bi/tri)linear resizing of the spatial dims of an NCHW or NCDHW
// tensor, through TF's NHWC ResizeNearestNeighbor / ResizeBilinear.
Status ResizeImpl(NodeContext& c, const std::string& mode, const std::vector<int64_t>& out) {
  // Upsample and Resize before opset 11 sample asymmetrically (nearest: floor).
  const bool legacy = c.node().op_type() == "Upsample" || c.opset() < 11;
  const std::string ctm =
      legacy ? "asymmetric" : c.attr_string("coordinate_transformation_mode", "half_pixel");
  bool align = false, half = false;
  if (ctm == "align_corners") {
    align = true;
  } else if (ctm == "half_pixel" || ctm == "pytorch_half_pixel") {
    // pytorch_half_pixel samples position 0 where an output size is 1.
    if (ctm == "pytorch_half_pixel" && std::count(out.begin(), out.end(), 1) > 0) {
      return c.Unsupported("pytorch_half_pixel with an output size of 1");
    }
    half = true;
  } else if (ctm != "asymmetric") {
    return c.Unsupported("coordinate_transformation_mode '" + ctm + "'");
  }
  const char* op;
  if (mode == "nearest") {
    const std::string nm = legacy ? "floor" : c.attr_string("nearest_mode", "round_prefer_floor");
    // TF's nearest: floor for asymmetric sampling; with half-pixel or aligned
    // corners it rounds halves up, which is ONNX's round_prefer_ceil.
    if (!half && !align && nm != "floor") return c.Unsupported("nearest_mode '" + nm + "'");
    if ((half || align) && nm != "round_prefer_ceil") {
      return c.Unsupported("nearest_mode '" + nm + "' with " + ctm + " sampling");
    }
    op = "ResizeNearestNeighbor";
  } else if (mode == "linear" || mode == "bilinear") {
    op = "ResizeBilinear";
  } else {
    return c.Unsupported("mode '" + mode + "'");
  }
  const Shape in = c.shape(0);
  std::vector<int64_t> dims = {in.dim(0), in.dim(1)};
  dims.insert(dims.end(), out.begin(), out.end());
  if (out.size() == 3) {
    // The depth pass reads H' * W' as one size (sizes are at most 2^24 each).
    if (out[1] * out[2] > (int64_t{1} << 24)) {
      return c.Unsupported("a 3-D resize to more than 2^24 positions per plane");
    }
    c.Output(0, Resize3d(c, op, in, out, align, half));
  } else {
    std::string nhwc = c.Emit("nhwc", "Transpose", {c.in(0), c.IntConst("to_nhwc", {0, 2, 3, 1})});
    std::string y = Resize2d(c, op, nhwc, out, align, half, "resize", "size");
    c.Output(0, c.Emit("", "Transpose", {y, c.IntConst("to_nchw", {0, 3, 1, 2})}));
  }
  // ONNX 1.12 sizes the output only from constant scales or sizes; folded
  // ones (torchvision's interpolate to another tensor's size) leave every dim
  // unknown, the batch too, and shape arithmetic downstream unfoldable.
  c.RefineOutputShape(0, Shape(dims));
  return Status::Ok();
}

// The output's spatial sizes from static input dims and scales, or from sizes,
// of an NCHW or NCDHW input (a 3-D one's channels and spatial dims static).
Result<std::vector<int64_t>> ResizeSizes(NodeContext& c, int scales_in, int sizes_in) {
  Shape s = c.shape(0);
  if (!s.known_rank() || (s.rank() != 4 && s.rank() != 5)) {
    return c.Unsupported("resizing needs a 4-D NCHW or 5-D NCDHW input");
  }
  const int r = s.rank();
  if (r == 5) {
    for (int i = 1; i < r; ++i) {
      if (s.dim(i) < 0) return c.Unsupported("3-D resizing needs static channels and spatial dims");
    }
  }
  if (sizes_in >= 0 && c.has(sizes_in)) {
    GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, c.ints(sizes_in, "sizes"));
    if (static_cast<int>(sizes.size()) != r) {
      return c.Error("sizes must have " + std::to_string(r) + " entries");
    }
    // Each known dim on its own: a batch that is unknown does not excuse the channels.
    if ((s.dim(0) >= 0 && sizes[0] != s.dim(0)) || (s.dim(1) >= 0 && sizes[1] != s.dim(1))) {
      return c.Unsupported("resizing the batch or channel dimension");
    }
    // The same range as a size from scales: the IR's size input is int32.
    for (int i = 2; i < r; ++i) {
      if (sizes[i] < 1 || sizes[i] > (1 << 24)) {
        return c.Error("output size " + std::to_string(sizes[i]) + " (1.." +
                       std::to_string(1 << 24) + " are read)");
      }
    }
    return std::vector<int64_t>(sizes.begin() + 2, sizes.end());
  }
  const Tensor* scales = c.value(scales_in);
  std::vector<double> sc;
  if (scales) {
    sc = scales->ToDoubles();
  } else if (auto a = c.attr_floats("scales")) {
    sc.assign(a->begin(), a->end());
  }
  if (static_cast<int>(sc.size()) != r) {
    return c.Unsupported("scales must be a constant of " + std::to_string(r) + " entries");
  }
  if (sc[0] != 1 || sc[1] != 1) return c.Unsupported("resizing the batch or channel dimension");
  // ONNX maps coordinates with the given scale; TF with in / out: they agree
  // only when the scale gives a whole output size.
  std::vector<int64_t> out;
  for (int i = 2; i < r; ++i) {
    if (s.dim(i) < 0) return c.Unsupported("resizing needs static spatial dims");
    const double size = s.dim(i) * sc[i];
    if (size < 1 || size > (1 << 24) || size != std::floor(size)) {
      return c.Unsupported("scale " + std::to_string(sc[i]) + " gives a fractional output size");
    }
    out.push_back(static_cast<int64_t>(size));
  }
  return out;
}

Status Resize(NodeContext& c) {
  const int scales_in = c.opset() >= 11 ? 2 : 1;
  const int sizes_in = c.opset() >= 11 ? 3 : -1;
  GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> hw, ResizeSizes(c, scales_in, sizes_in));
  return ResizeImpl(c, c.attr_string("mode", "nearest"), hw);
}

Status Upsample(NodeContext& c) {
  GRAPH_ASSIGN_OR_RETURN(std::vector<int64_t> hw, ResizeSizes(c, c.opset() >= 9 ? 1 : 99, -1));
  return ResizeImpl(c, c.attr_string("mode", "nearest"), hw);
}

// DepthToSpace (DCR: TF's order) and SpaceToDepth through TF's NHWC ops; CRD
// as reshape, transpose, reshape over static dims.
Status BlockRearrange(NodeContext& c, const char* op) {
  const int64_t b = c.attr_int("blocksize", 0);
  if (b < 1) return c.Error("blocksize must be positive");
  const std::string mode = c.attr_string("mode", "DCR");
  if (mode == "CRD") {
    Shape s = c.shape(0);
    if (!s.known_rank() || s.rank() != 4 || !s.FullyDefined()) {
      return c.Unsupported("CRD mode needs a static 4-D input");
    }
    const int64_t n = s.dim(0), ch = s.dim(1), h = s.dim(2), w = s.dim(3);
    std::string r = c.Emit("split", "Reshape", {c.in(0), c.IntConst("split_shape", {n, ch / (b * b), b, b, h, w})});
    std::string t = c.Emit("interleave", "Transpose", {r, c.IntConst("perm", {0, 1, 4, 2, 5, 3})});
    c.Output(0, c.Emit("", "Reshape", {t, c.IntConst("shape", {n, ch / (b * b), h * b, w * b})}));
    return Status::Ok();
  }
  std::string nhwc = c.Emit("nhwc", "Transpose", {c.in(0), c.IntConst("to_nhwc", {0, 2, 3, 1})});
  std::string y = c.Emit("rearrange", op, {nhwc},
                         {{"block_size", MakeAttr(b)}, {"data_format", StrAttr("NHWC")}});
  c.Output(0, c.Emit("", "Transpose", {y, c.IntConst("to_nchw", {0, 3, 1, 2})}));
  return Status::Ok();
}

Status DepthToSpace(NodeContext& c) { return BlockRearrange(c, "DepthToSpace"); }
Status SpaceToDepth(NodeContext& c) { return BlockRearrange(c, "SpaceToDepth"); }

// ---- losses (what nn.CrossEntropyLoss and nn.NLLLoss export) ----

// The class axis (1) moved last, `op` applied, and moved back.
std::string AlongAxis1(NodeContext& c, const std::string& x, int r, const char* op,
                       const std::string& name) {
  if (r == 2) return c.Emit(name, op, {x});
  std::vector<int64_t> perm(r);
  for (int i = 0; i < r; ++i) perm[i] = i;
  std::swap(perm[1], perm[r - 1]);
  std::string p = c.IntConst(name + "_perm", perm);
  std::string t = c.Emit(name + "_last", "Transpose", {x, p});
  return c.Emit(name, "Transpose", {c.Emit(name + "_op", op, {t}), p});
}

// Negative log-likelihood of `logp` [N, C, d...] at `labels` [N, d...], with
// ONNX's optional class weights, ignore_index and reduction.
Status NllLoss(NodeContext& c, const std::string& logp, int r, int64_t classes) {
  const DType t = c.dtype(0);
  const DType lt = c.dtype(1);
  std::string labels = c.in(1);
  std::string mask;  // float, 0 where the label is ignored
  if (const onnx::AttributeProto* ii = c.attr("ignore_index")) {
    std::string keep = c.Emit("kept", "NotEqual", {labels, c.ScalarConst("ignore_index", ii->i(), lt)});
    labels = c.Emit("safe_labels", "SelectV2", {keep, labels, c.ScalarConst("label_zero", 0, lt)});
    mask = c.Emit("mask", "Cast", {keep}, {{"SrcT", MakeAttr(DType::kBool)}, {"DstT", MakeAttr(t)}});
  }
  std::string onehot = c.Emit("onehot", "OneHot",
                              {labels, c.IntScalar("depth", classes), c.ScalarConst("on", 1, t),
                               c.ScalarConst("off", 0, t)},
                              {{"axis", MakeAttr(int64_t{1})}, {"T", MakeAttr(t)}});
  AttrMap sum = {{"keep_dims", MakeAttr(false)}, {"Tidx", MakeAttr(DType::kInt32)}};
  std::string picked = c.Emit("picked", "Sum", {c.Emit("masked_logp", "Mul", {logp, onehot}),
                                                c.IntConst("class_axis", {1})}, sum);
  std::string loss = c.Emit("nll", "Neg", {picked});
  std::string weight = mask;
  if (c.has(2)) {
    std::string w = c.Emit("label_weight", "GatherV2", {c.in(2), labels, c.IntScalar("axis0", 0)},
                           {{"batch_dims", MakeAttr(int64_t{0})}});
    weight = mask.empty() ? w : c.Emit("weight", "Mul", {w, mask});
  }
  if (!weight.empty()) loss = c.Emit("weighted", "Mul", {loss, weight});
  const std::string reduction = c.attr_string("reduction", "mean");
  std::vector<int64_t> all(r - 1);
  for (int i = 0; i < r - 1; ++i) all[i] = i;
  if (reduction == "none") {
    c.Output(0, c.Emit("", "Identity", {loss}));
  } else if (reduction == "sum") {
    c.Output(0, c.Emit("", "Sum", {loss, c.IntConst("all", all)}, sum));
  } else if (reduction == "mean") {
    if (weight.empty()) {
      c.Output(0, c.Emit("", "Mean", {loss, c.IntConst("all", all)}, sum));
    } else {
      std::string total = c.Emit("total", "Sum", {loss, c.IntConst("all", all)}, sum);
      std::string norm = c.Emit("weight_total", "Sum", {weight, c.IntConst("all_w", all)}, sum);
      c.Output(0, c.Emit("", "RealDiv", {total, norm}));
    }
  } else {
    return c.Error("unknown reduction '" + reduction + "'");
  }
  return Status::Ok();
}

Result<int64_t> ClassCount(NodeContext& c, int* rank) {
  GRAPH_ASSIGN_OR_RETURN(*rank, c.known_rank(0));
  if (*rank < 2) return c.Error("scores need a class axis");
  const int64_t classes = c.shape(0).dim(1);
  if (classes < 1) return c.Unsupported("a class count unknown at import");
  if (c.rank(1) != *rank - 1) return c.Error("labels must have one rank less than the scores");
  return classes;
}

Status SoftmaxCrossEntropyLoss(NodeContext& c) {
  int r = 0;
  GRAPH_ASSIGN_OR_RETURN(int64_t classes, ClassCount(c, &r));
  std::string logp = AlongAxis1(c, c.in(0), r, "LogSoftmax", "log_prob");
  c.Output(1, logp);
  return NllLoss(c, logp, r, classes);
}

Status NegativeLogLikelihoodLoss(NodeContext& c) {
  int r = 0;
  GRAPH_ASSIGN_OR_RETURN(int64_t classes, ClassCount(c, &r));
  return NllLoss(c, c.in(0), r, classes);
}

}  // namespace

const std::vector<OpRule>& NnRules() {
  static const std::vector<OpRule> rules = {
      {"Conv", Conv},
      {"ConvTranspose", ConvTranspose},
      {"MaxPool", MaxPool},
      {"AveragePool", AveragePool},
      {"GlobalAveragePool", GlobalAveragePool},
      {"GlobalMaxPool", GlobalMaxPool},
      {"BatchNormalization", BatchNormalization},
      {"LayerNormalization", LayerNormalization},
      {"InstanceNormalization", InstanceNormalization},
      {"Dropout", Dropout},
      {"Resize", Resize},
      {"Upsample", Upsample},
      {"SoftmaxCrossEntropyLoss", SoftmaxCrossEntropyLoss},
      {"NegativeLogLikelihoodLoss", NegativeLogLikelihoodLoss},
      {"DepthToSpace", DepthToSpace},
      {"SpaceToDepth", SpaceToDepth},
  };
  return rules;
}

}  // namespace graph::onnx_import
