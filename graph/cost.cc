#include "graph/cost.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string_view>
#include <unordered_map>

#include "graph/einsum.h"

namespace graph {

namespace {

// What a FLOP rule sees: the node with its input and output shapes.
struct CostView {
  const Node& node;
  std::vector<const Shape*> in;
  int64_t in_elems(int i) const {
    return i < static_cast<int>(in.size()) ? in[i]->NumElements() : -1;
  }
  int64_t out_elems(int i = 0) const {
    return i < node.num_outputs() ? node.output_shapes[i].NumElements() : -1;
  }
};

// Returns FLOPs, or a negative value when the shapes needed are unknown.
using FlopFn = std::function<double(const CostView&)>;

FlopFn Free() {
  return [](const CostView&) { return 0.0; };
}
// `per` FLOPs per output element.
FlopFn PerOutput(double per) {
  return [per](const CostView& v) {
    int64_t n = v.out_elems();
    return n < 0 ? -1.0 : per * static_cast<double>(n);
  };
}
// `per` FLOPs per element of input 0 (reductions, losses).
FlopFn PerInput(double per) {
  return [per](const CostView& v) {
    int64_t n = v.in_elems(0);
    return n < 0 ? -1.0 : per * static_cast<double>(n);
  };
}

// The product of a filter's dims [first, last).
double Product(const Shape& s, int first, int last) {
  double p = 1;
  for (int i = first; i < last; ++i) p *= static_cast<double>(s.dim(i));
  return p;
}

// Taps per output element of a filter [spatial..., in, out]: every spatial tap
// of every input channel of its group (a grouped filter's input depth is its
// group's); a depthwise filter [kh, kw, in, multiplier] reads one channel.
double FilterTaps(const Node& n, const Shape& filter) {
  const bool depthwise = n.op.find("Depthwise") != std::string::npos;
  return Product(filter, 0, filter.rank() - (depthwise ? 2 : 1));
}

// 2 FLOPs (multiply, add) per filter tap per output element, plus one per output
// element for each fused epilogue op (bias, activation).
double ConvFlops(const CostView& v) {
  if (v.in.size() < 2) return -1;
  const Shape& filter = *v.in[1];
  int64_t out = v.out_elems();
  if (out < 0 || !filter.FullyDefined() || filter.rank() < 4) return -1;
  double flops = 2.0 * FilterTaps(v.node, filter) * static_cast<double>(out);
  if (const AttrValue* f = v.node.attr("fused_ops")) {
    if (const AttrList* l = f->get<AttrList>())
      flops += static_cast<double>(l->s.size()) * static_cast<double>(out);
  }
  return flops;
}

// Gradient convolutions cost what the forward one does: each output-gradient
// element meets every filter tap once.
double ConvBackpropFlops(const CostView& v) {
  if (v.in.size() < 3) return -1;
  int64_t dy = v.in_elems(2);
  const Shape* filter = v.node.op.find("Filter") != std::string::npos ? nullptr : v.in[1];
  const Shape& weights_like = filter ? *filter : v.node.output_shapes[0];
  if (dy < 0 || !weights_like.FullyDefined() || weights_like.rank() < 4) return -1;
  return 2.0 * FilterTaps(v.node, weights_like) * static_cast<double>(dy);
}

double MatMulFlops(const CostView& v) {
  if (v.in.size() < 2 || !v.in[0]->FullyDefined()) return -1;
  int64_t out = v.out_elems();
  if (out < 0) return -1;
  const Shape& a = *v.in[0];
  bool ta = v.node.attr_bool("transpose_a", false) || v.node.attr_bool("adj_x", false);
  int64_t k = a.dim(a.rank() - (ta ? 2 : 1));
  double flops = 2.0 * static_cast<double>(k) * static_cast<double>(out);
  if (const AttrValue* f = v.node.attr("fused_ops")) {
    if (const AttrList* l = f->get<AttrList>())
      flops += static_cast<double>(l->s.size()) * static_cast<double>(out);
  }
  return flops;
}

// Each output element of a pooling window reads every tap once.
double PoolFlops(const CostView& v) {
  int64_t out = v.out_elems();
  const std::vector<int64_t>* k = v.node.attr_ints("ksize");
  if (out < 0 || !k || k->size() < 4) return -1;
  return static_cast<double>(out) * Product(Shape(*k), 0, static_cast<int>(k->size()));
}

double PoolGradFlops(const CostView& v) {
  const std::vector<int64_t>* k = v.node.attr_ints("ksize");
  int64_t dy = v.in_elems(static_cast<int>(v.in.size()) - 1);
  if (dy < 0 || !k || k->size() < 4) return -1;
  return static_cast<double>(dy) * Product(Shape(*k), 0, static_cast<int>(k->size()));
}

double AddNFlops(const CostView& v) {
  int64_t n = v.out_elems();
  return n < 0 ? -1.0 : static_cast<double>(n) * static_cast<double>(v.in.size() - 1);
}

double TopKFlops(const CostView& v) {
  int64_t n = v.in_elems(0);
  int64_t k = v.out_elems() >= 0 && v.node.output_shapes[0].rank() > 0
                  ? v.node.output_shapes[0].dims().back()
                  : -1;
  return n < 0 || k < 1 ? -1.0 : static_cast<double>(n) * std::log2(static_cast<double>(k) + 1);
}

// 2 FLOPs (multiply, add) per point of the product space: every subscript of
// the equation, each at its size (one operand: one add per input element).
double EinsumFlops(const CostView& v) {
  auto eq = ParseEinsum(v.node.attr_string("equation", ""));
  if (!eq.ok() || eq->inputs.size() != v.in.size()) return -1;
  std::map<char, int64_t> size;
  double ellipsis = 1;
  for (size_t k = 0; k < v.in.size(); ++k) {
    const Shape& s = *v.in[k];
    const std::string& t = eq->inputs[k];
    if (!s.FullyDefined()) return -1;
    const int extra = s.rank() - static_cast<int>(t.size()) + 1;
    int d = 0;
    for (char ch : t) {
      if (ch == '.') {
        double e = 1;
        for (int i = 0; i < extra; ++i) e *= static_cast<double>(s.dim(d++));
        ellipsis = std::max(ellipsis, e);
      } else {
        size[ch] = std::max(size[ch], s.dim(d++));
      }
    }
  }
  double points = ellipsis;
  for (const auto& [ch, n] : size) points *= static_cast<double>(n);
  return (v.in.size() > 1 ? 2.0 : 1.0) * points;
}

// The one table of FLOP rules.
const std::unordered_map<std::string_view, FlopFn>& FlopTable() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string_view, FlopFn>();
    for (const char* op : {"Const",
                           "Placeholder",
                           "PlaceholderWithDefault",
                           "VariableV2",
                           "Variable",
                           "VarHandleOp",
                           "ReadVariableOp",
                           "NoOp",
                           "Identity",
                           "IdentityN",
                           "StopGradient",
                           "PreventGradient",
                           "Snapshot",
                           "CheckNumerics",
                           "Shape",
                           "Size",
                           "Rank",
                           "Reshape",
                           "ExpandDims",
                           "Squeeze",
                           "Transpose",
                           "ConcatV2",
                           "Concat",
                           "Pack",
                           "Unpack",
                           "Split",
                           "SplitV",
                           "Slice",
                           "StridedSlice",
                           "Pad",
                           "PadV2",
                           "MirrorPad",
                           "Tile",
                           "Fill",
                           "Range",
                           "Gather",
                           "GatherV2",
                           "ResourceGather",
                           "GatherNd",
                           "ZerosLike",
                           "OnesLike",
                           "BroadcastTo",
                           "DepthToSpace",
                           "SpaceToBatchND",
                           "BatchToSpaceND",
                           "SparseToDense",
                           "SpaceToDepth",
                           "OneHot",
                           "AssignVariableOp",
                           "AssignAddVariableOp",
                           "AssignSubVariableOp",
                           "Cast"}) {
      (*t)[op] = Free();
    }
    for (const char* op : {"Relu",         "Relu6",        "Elu",         "Selu",
                           "LeakyRelu",    "Sigmoid",      "Tanh",        "Softplus",
                           "Softsign",     "Abs",          "Neg",         "Sqrt",
                           "Rsqrt",        "Square",       "Exp",         "Log",
                           "Log1p",        "Expm1",        "Floor",       "Ceil",
                           "Round",        "Rint",         "Sign",        "Reciprocal",
                           "Inv",          "Erf",          "Sin",         "Cos",
                           "Tan",          "Atan",         "LogicalNot",  "BiasAdd",
                           "BiasAddV1",    "Prelu",        "Add",         "AddV2",
                           "Sub",          "Mul",          "Div",         "RealDiv",
                           "DivNoNan",     "FloorDiv",     "TruncateDiv", "FloorMod",
                           "Mod",          "TruncateMod",  "Maximum",     "Minimum",
                           "Pow",          "Atan2",        "LogicalAnd",  "LogicalOr",
                           "Equal",        "NotEqual",     "Less",        "LessEqual",
                           "Greater",      "GreaterEqual", "Select",      "SelectV2",
                           "Cumsum",       "Cumprod",      "MaxPoolGrad", "_MaxPoolGradWithIndices",
                           "MaxPool3DGrad"}) {
      (*t)[op] = PerOutput(1);
    }
    (*t)["SquaredDifference"] = PerOutput(2);
    (*t)["RandomUniform"] = PerOutput(1);  // memory-bound: one write per element
    (*t)["ClipByValue"] = PerOutput(2);
    // Softmax: max, subtract, exp, sum, divide per element.
    (*t)["Softmax"] = PerOutput(5);
    (*t)["LogSoftmax"] = PerOutput(5);
    (*t)["LRN"] = PerOutput(6);
    (*t)["ResizeBilinear"] = PerOutput(8);  // 4 taps, 3 lerps of 2 FLOPs each + rounding
    (*t)["ResizeBicubic"] = PerOutput(32);  // 16 taps
    (*t)["ResizeNearestNeighbor"] = Free();
    (*t)["ResizeArea"] = PerOutput(8);
    for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "ArgMax", "ArgMin"}) {
      (*t)[op] = PerInput(1);
    }
    (*t)["EuclideanNorm"] = PerInput(2);
    (*t)["UnsortedSegmentSum"] = PerInput(1);  // one add per data element
    (*t)["L2Loss"] = PerInput(2);
    (*t)["SoftmaxCrossEntropyWithLogits"] = PerInput(6);
    (*t)["SparseSoftmaxCrossEntropyWithLogits"] = PerInput(6);
    // Batch norm: mean, variance, normalise, scale and shift per element.
    for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
      (*t)[op] = PerInput(5);
    }
    for (const char* op : {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
      (*t)[op] = PerInput(8);
    }
    for (const char* op : {"Conv2D", "_FusedConv2D", "DepthwiseConv2dNative",
                           "FusedDepthwiseConv2dNative", "Conv3D"}) {
      (*t)[op] = ConvFlops;
    }
    for (const char* op :
         {"Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNativeBackpropInput",
          "DepthwiseConv2dNativeBackpropFilter", "Conv3DBackpropInputV2",
          "Conv3DBackpropFilterV2"}) {
      (*t)[op] = ConvBackpropFlops;
    }
    for (const char* op :
         {"MatMul", "_FusedMatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"}) {
      (*t)[op] = MatMulFlops;
    }
    (*t)["MaxPool"] = PoolFlops;
    (*t)["_MaxPoolWithIndices"] = PoolFlops;
    (*t)["AvgPool"] = PoolFlops;
    (*t)["AvgPoolGrad"] = PoolGradFlops;
    (*t)["MaxPool3D"] = PoolFlops;
    (*t)["AvgPool3D"] = PoolFlops;
    (*t)["AvgPool3DGrad"] = PoolGradFlops;
    (*t)["AddN"] = AddNFlops;
    (*t)["TopKV2"] = TopKFlops;
    // Gradient ops: the arithmetic of their derivative per element.
    (*t)["ReluGrad"] = PerOutput(1);
    (*t)["Relu6Grad"] = PerOutput(2);
    (*t)["SigmoidGrad"] = PerOutput(3);  // dy * y * (1 - y)
    (*t)["TanhGrad"] = PerOutput(3);     // dy * (1 - y^2)
    (*t)["SqrtGrad"] = PerOutput(2);     // dy * 0.5 / y
    (*t)["RsqrtGrad"] = PerOutput(4);    // dy * -0.5 * y^3
    for (const char* op : {"EluGrad", "SeluGrad", "LeakyReluGrad", "SoftsignGrad"}) {
      (*t)[op] = PerOutput(2);
    }
    (*t)["SoftplusGrad"] = PerOutput(5);    // dy * sigmoid(x)
    (*t)["ReciprocalGrad"] = PerOutput(3);  // -dy * y^2
    (*t)["InvGrad"] = PerOutput(3);
    (*t)["MirrorPadGrad"] = PerInput(1);
    (*t)["ResizeNearestNeighborGrad"] = PerInput(1);
    (*t)["Einsum"] = EinsumFlops;
    (*t)["BiasAddGrad"] = PerInput(1);
    (*t)["ResizeBilinearGrad"] = PerInput(8);
    (*t)["StridedSliceGrad"] = Free();
    (*t)["ScatterNd"] = Free();
    // Updates: var -= lr * g; accum = m * accum + g, var -= lr * accum.
    (*t)["ApplyGradientDescent"] = PerOutput(2);
    (*t)["ApplyMomentum"] = PerOutput(4);
    return t;
  }();
  return *table;
}

}  // namespace

bool HasCostRule(const std::string& op) { return FlopTable().count(op) > 0; }

bool IsTrainableParameter(const Node& n) {
  if (n.op == "VariableV2" || n.op == "Variable" || n.op == "VarHandleOp") return true;
  // Importers mark the constants they make themselves (ONNX's, onnx.h).
  return n.op == "Const" && n.num_outputs() == 1 && IsFloating(n.output_dtypes[0]) &&
         !n.attr_bool("_untrainable", false);
}

std::vector<char> TrainableParameters(const Graph& g) {
  bool variables = false;
  for (const Node& n : g.nodes()) {
    variables |= n.op == "VariableV2" || n.op == "Variable" || n.op == "VarHandleOp";
  }
  std::vector<char> out(g.size(), 0);
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    out[id] = IsTrainableParameter(n) && (!variables || n.op != "Const");
  }
  return out;
}

int64_t OutputBytes(const Node& n, int index) {
  if (index >= n.num_outputs()) return -1;
  int64_t elems = n.output_shapes[index].NumElements();
  int size = DTypeSize(n.output_dtypes[index]);
  int64_t bytes;
  if (elems < 0 || size == 0 || __builtin_mul_overflow(elems, size, &bytes)) return -1;
  return bytes;
}

std::vector<OpCost> ComputeCosts(const Graph& g) {
  const auto& table = FlopTable();
  const std::vector<char> trainable = TrainableParameters(g);
  std::vector<OpCost> costs(g.size());
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    OpCost& c = costs[id];
    CostView view{n, {}};
    view.in.reserve(n.inputs.size());
    static const Shape kUnknown;
    for (const TensorRef& in : n.inputs) {
      const Node& src = g.node(in.node);
      view.in.push_back(in.index < src.num_outputs() ? &src.output_shapes[in.index] : &kUnknown);
      int64_t b = OutputBytes(src, in.index);
      if (b < 0) {
        c.known = false;
      } else {
        if (__builtin_add_overflow(c.bytes_read, b, &c.bytes_read)) c.known = false;
        if (trainable[in.node] && __builtin_add_overflow(c.param_bytes, b, &c.param_bytes)) {
          c.known = false;
        }
      }
    }
    for (int i = 0; i < n.num_outputs(); ++i) {
      int64_t b = OutputBytes(n, i);
      if (b < 0) {
        c.known = false;
      } else {
        if (__builtin_add_overflow(c.bytes_written, b, &c.bytes_written)) c.known = false;
      }
    }
    if (trainable[id]) c.param_bytes = c.bytes_written;
    auto rule = table.find(n.op);
    if (rule == table.end()) {
      c.known = false;
      continue;
    }
    double flops = rule->second(view);
    if (flops < 0) {
      c.known = false;
    } else {
      c.flops = flops;
    }
  }
  return costs;
}

}  // namespace graph
