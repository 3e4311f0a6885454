// Forward kernels (kernels_forward.cc) against independent computations: naive
// loops written from TensorFlow's definitions, or values worked out by hand.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "graph/graphdef.h"
#include "runtime/kernel.h"
#include "tests/runtime/kernel_test_util.h"

namespace runtime {
namespace {

using namespace kernel_test;  // NOLINT: the helpers this file is written in

// ---- Naive references (NHWC images, HWIO filters) ----

// out[n,oy,ox,co] = sum x[n, oy*s - top + ky*d, ox*s - left + kx*d, ci] f[ky,kx,ci,co]
at::Tensor NaiveConv(const at::Tensor& x, const at::Tensor& f, int64_t stride, int64_t dilation,
                     int64_t top, int64_t left, int64_t out_h, int64_t out_w) {
  auto xa = x.accessor<float, 4>();
  auto fa = f.accessor<float, 4>();
  at::Tensor y = torch::zeros({x.size(0), out_h, out_w, f.size(3)});
  auto ya = y.accessor<float, 4>();
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t oy = 0; oy < out_h; ++oy)
      for (int64_t ox = 0; ox < out_w; ++ox)
        for (int64_t ky = 0; ky < f.size(0); ++ky)
          for (int64_t kx = 0; kx < f.size(1); ++kx) {
            const int64_t iy = oy * stride - top + ky * dilation;
            const int64_t ix = ox * stride - left + kx * dilation;
            if (iy < 0 || iy >= x.size(1) || ix < 0 || ix >= x.size(2)) continue;
            for (int64_t ci = 0; ci < f.size(2); ++ci)
              for (int64_t co = 0; co < f.size(3); ++co)
                ya[n][oy][ox][co] += xa[n][iy][ix][ci] * fa[ky][kx][ci][co];
          }
  return y;
}

// Depthwise: output channel c * mult + m reads input channel c with f[.., c, m].
at::Tensor NaiveDepthwise(const at::Tensor& x, const at::Tensor& f, int64_t stride, int64_t top,
                          int64_t left, int64_t out_h, int64_t out_w) {
  auto xa = x.accessor<float, 4>();
  auto fa = f.accessor<float, 4>();
  const int64_t mult = f.size(3);
  at::Tensor y = torch::zeros({x.size(0), out_h, out_w, x.size(3) * mult});
  auto ya = y.accessor<float, 4>();
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t oy = 0; oy < out_h; ++oy)
      for (int64_t ox = 0; ox < out_w; ++ox)
        for (int64_t ky = 0; ky < f.size(0); ++ky)
          for (int64_t kx = 0; kx < f.size(1); ++kx) {
            const int64_t iy = oy * stride - top + ky, ix = ox * stride - left + kx;
            if (iy < 0 || iy >= x.size(1) || ix < 0 || ix >= x.size(2)) continue;
            for (int64_t c = 0; c < x.size(3); ++c)
              for (int64_t m = 0; m < mult; ++m)
                ya[n][oy][ox][c * mult + m] += xa[n][iy][ix][c] * fa[ky][kx][c][m];
          }
  return y;
}

// The input gradient of a convolution: each out_backprop element scattered back
// through the filter onto the input positions its window read.
at::Tensor NaiveTransposedConv(const at::Tensor& dy, const at::Tensor& f, int64_t stride,
                               int64_t top, int64_t left, int64_t in_h, int64_t in_w) {
  auto da = dy.accessor<float, 4>();
  auto fa = f.accessor<float, 4>();
  at::Tensor dx = torch::zeros({dy.size(0), in_h, in_w, f.size(2)});
  auto xa = dx.accessor<float, 4>();
  for (int64_t n = 0; n < dy.size(0); ++n)
    for (int64_t oy = 0; oy < dy.size(1); ++oy)
      for (int64_t ox = 0; ox < dy.size(2); ++ox)
        for (int64_t ky = 0; ky < f.size(0); ++ky)
          for (int64_t kx = 0; kx < f.size(1); ++kx) {
            const int64_t iy = oy * stride - top + ky, ix = ox * stride - left + kx;
            if (iy < 0 || iy >= in_h || ix < 0 || ix >= in_w) continue;
            for (int64_t ci = 0; ci < f.size(2); ++ci)
              for (int64_t co = 0; co < f.size(3); ++co)
                xa[n][iy][ix][ci] += da[n][oy][ox][co] * fa[ky][kx][ci][co];
          }
  return dx;
}

// Max or mean over the real (non-padding) elements of each window, as TF defines
// SAME pooling.
at::Tensor NaivePool(const at::Tensor& x, bool max, int64_t k, int64_t stride, int64_t top,
                     int64_t left, int64_t out_h, int64_t out_w) {
  auto xa = x.accessor<float, 4>();
  at::Tensor y = torch::zeros({x.size(0), out_h, out_w, x.size(3)});
  auto ya = y.accessor<float, 4>();
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t oy = 0; oy < out_h; ++oy)
      for (int64_t ox = 0; ox < out_w; ++ox)
        for (int64_t c = 0; c < x.size(3); ++c) {
          float acc = max ? -INFINITY : 0;
          int count = 0;
          for (int64_t ky = 0; ky < k; ++ky)
            for (int64_t kx = 0; kx < k; ++kx) {
              const int64_t iy = oy * stride - top + ky, ix = ox * stride - left + kx;
              if (iy < 0 || iy >= x.size(1) || ix < 0 || ix >= x.size(2)) continue;
              acc = max ? std::max(acc, xa[n][iy][ix][c]) : acc + xa[n][iy][ix][c];
              ++count;
            }
          ya[n][oy][ox][c] = max ? acc : acc / count;
        }
  return y;
}

enum class Sampling { kLegacy, kAlignCorners, kHalfPixel };

// TF's ResizeBilinear, one output element at a time.
at::Tensor NaiveResize(const at::Tensor& x, int64_t out_h, int64_t out_w, Sampling mode) {
  struct Tap {
    int64_t lo, hi;
    float lerp;
  };
  auto tap = [&](int64_t dst, int64_t in, int64_t out) {
    const float scale = mode == Sampling::kAlignCorners && out > 1
                            ? static_cast<float>(in - 1) / (out - 1)
                            : static_cast<float>(in) / out;
    const float src = mode == Sampling::kHalfPixel ? (dst + 0.5f) * scale - 0.5f : dst * scale;
    const float fl = std::floor(src);
    return Tap{std::max<int64_t>(static_cast<int64_t>(fl), 0),
               std::min<int64_t>(static_cast<int64_t>(std::ceil(src)), in - 1), src - fl};
  };
  auto xa = x.accessor<float, 4>();
  at::Tensor y = torch::zeros({x.size(0), out_h, out_w, x.size(3)});
  auto ya = y.accessor<float, 4>();
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t oy = 0; oy < out_h; ++oy)
      for (int64_t ox = 0; ox < out_w; ++ox)
        for (int64_t c = 0; c < x.size(3); ++c) {
          const Tap ty = tap(oy, x.size(1), out_h), tx = tap(ox, x.size(2), out_w);
          const float tl = xa[n][ty.lo][tx.lo][c], tr = xa[n][ty.lo][tx.hi][c];
          const float bl = xa[n][ty.hi][tx.lo][c], br = xa[n][ty.hi][tx.hi][c];
          const float t = tl + (tr - tl) * tx.lerp, b = bl + (br - bl) * tx.lerp;
          ya[n][oy][ox][c] = t + (b - t) * ty.lerp;
        }
  return y;
}

std::string ConvAttrs(int64_t stride, const std::string& padding, int64_t dilation = 1) {
  return Attr("strides", IntList({1, stride, stride, 1})) + Attr("padding", Str(padding)) +
         Attr("dilations", IntList({1, dilation, dilation, 1}));
}
std::string PoolAttrs(int64_t k, int64_t stride, const std::string& padding) {
  return Attr("ksize", IntList({1, k, k, 1})) + Attr("strides", IntList({1, stride, stride, 1})) +
         Attr("padding", Str(padding));
}

// ---- Table ----

// The forward ops' tables: kernels_forward.cc's and kernels_shape.cc's.
TEST(ForwardKernelsTest, TableListsEveryOpOnceAndEndsWithNull) {
  std::set<std::string> ops;
  for (const KernelEntry* table : {kForwardKernels, kShapeKernels}) {
    const KernelEntry* e = table;
    for (; e->op != nullptr; ++e) {
      EXPECT_NE(e->fn, nullptr) << e->op;
      EXPECT_TRUE(ops.insert(e->op).second) << e->op << " listed twice";
    }
    EXPECT_EQ(e->fn, nullptr);
  }
  for (const char* op : {"Identity",
                         "StopGradient",
                         "Snapshot",
                         "Relu",
                         "Relu6",
                         "Sigmoid",
                         "Tanh",
                         "Abs",
                         "Neg",
                         "Sqrt",
                         "Rsqrt",
                         "Square",
                         "Exp",
                         "Log",
                         "Sign",
                         "Floor",
                         "Softmax",
                         "Cast",
                         "Add",
                         "AddV2",
                         "Sub",
                         "Mul",
                         "RealDiv",
                         "Div",
                         "FloorDiv",
                         "Maximum",
                         "Minimum",
                         "SquaredDifference",
                         "GreaterEqual",
                         "LessEqual",
                         "Greater",
                         "Less",
                         "Equal",
                         "SelectV2",
                         "ZerosLike",
                         "AddN",
                         "BiasAdd",
                         "MatMul",
                         "BatchMatMulV2",
                         "Conv2D",
                         "_FusedConv2D",
                         "DepthwiseConv2dNative",
                         "FusedDepthwiseConv2dNative",
                         "Conv2DBackpropInput",
                         "MaxPool",
                         "AvgPool",
                         "Conv3D",
                         "MaxPool3D",
                         "AvgPool3D",
                         "Mean",
                         "Sum",
                         "Max",
                         "ArgMax",
                         "Reshape",
                         "Squeeze",
                         "ExpandDims",
                         "Pad",
                         "ConcatV2",
                         "Pack",
                         "Unpack",
                         "StridedSlice",
                         "Slice",
                         "GatherNd",
                         "ResizeBilinear",
                         "Transpose",
                         "BroadcastTo",
                         "Shape",
                         "Fill",
                         "RandomUniform",
                         "Range",
                         "Tile",
                         "SparseSoftmaxCrossEntropyWithLogits",
                         "L2Loss"}) {
    EXPECT_EQ(ops.count(op), 1u) << op;
  }
}

TEST(ForwardKernelsTest, WrongInputCountIsAnErrorNotACrash) {
  EXPECT_NE(EvalError("Relu", {F({1}, {1}), F({1}, {1})}).find("expects 1 inputs"),
            std::string::npos);
  EXPECT_NE(EvalError("Conv2D", {Random({1, 3, 3, 1}, 0)}).find("expects 2 inputs"),
            std::string::npos);
}

// Kernels read their inputs by index, and a graph file's node may have any
// number: ReluGrad given one input read past the end of its inputs. Every
// kernel of the table, given none and then one, returns (an error naming the
// node, or a result where one input is its arity).
TEST(ForwardKernelsTest, EveryKernelGivenTooFewInputsReturnsInsteadOfReadingPastThem) {
  for (const std::string& op : KernelOps()) {
    for (size_t n : {0, 1}) {
      std::string text, node = "node { name: 'y' op: '" + op + "'";
      for (size_t i = 0; i < n; ++i) {
        text += "node { name: 'x" + std::to_string(i) + "' op: 'Placeholder' }\n";
        node += " input: 'x" + std::to_string(i) + "'";
      }
      auto g = graph::ParseTextGraphDef(text + node + " }", "few.pbtxt");
      ASSERT_TRUE(g.ok()) << op << ": " << g.status().message();
      KernelContext c{g->node(g->Find("y")), std::vector<at::Tensor>(n, at::ones({2, 2})), {}};
      const graph::Status st = runtime::RunKernel(c);
      if (!st.ok()) {
        EXPECT_EQ(st.message().rfind("node 'y' (" + op + ")", 0), 0u) << st.message();
      }
    }
  }
}

// ---- Elementwise ----

TEST(ForwardKernelsTest, UnaryOpsMatchTheirScalarFormulas) {
  const std::vector<float> v = {-2.5f, -0.5f, 0.25f, 1.5f, 7.f};
  const std::vector<float> pos = {0.25f, 1.f, 2.f, 9.f};
  struct Case {
    const char* op;
    float (*f)(float);
    bool positive_only;
  };
  const Case cases[] = {
      {"Relu", [](float x) { return std::max(x, 0.f); }, false},
      {"Relu6", [](float x) { return std::min(std::max(x, 0.f), 6.f); }, false},
      {"Sigmoid", [](float x) { return 1 / (1 + std::exp(-x)); }, false},
      {"Tanh", [](float x) { return std::tanh(x); }, false},
      {"Abs", [](float x) { return std::fabs(x); }, false},
      {"Neg", [](float x) { return -x; }, false},
      {"Square", [](float x) { return x * x; }, false},
      {"Exp", [](float x) { return std::exp(x); }, false},
      {"Sign", [](float x) { return x > 0   ? 1.f
                                    : x < 0 ? -1.f
                                            : 0.f; }, false},
      {"Floor", [](float x) { return std::floor(x); }, false},
      {"Sqrt", [](float x) { return std::sqrt(x); }, true},
      {"Rsqrt", [](float x) { return 1 / std::sqrt(x); }, true},
      {"Log", [](float x) { return std::log(x); }, true},
  };
  for (const Case& c : cases) {
    const std::vector<float>& in = c.positive_only ? pos : v;
    std::vector<float> want;
    for (float x : in) want.push_back(c.f(x));
    SCOPED_TRACE(c.op);
    ExpectClose(Eval(c.op, {F(in, {static_cast<int64_t>(in.size())})}),
                F(want, {static_cast<int64_t>(want.size())}));
  }
}

TEST(ForwardKernelsTest, IdentityAliasesAndSnapshotCopies) {
  const at::Tensor x = F({1, 2, 3}, {3});
  EXPECT_EQ(Eval("Identity", {x}).data_ptr(), x.data_ptr());
  EXPECT_EQ(Eval("StopGradient", {x}).data_ptr(), x.data_ptr());
  const at::Tensor s = Eval("Snapshot", {x});
  EXPECT_NE(s.data_ptr(), x.data_ptr());
  ExpectEqual(s, x);
  ExpectEqual(Eval("ZerosLike", {x}), F({0, 0, 0}, {3}));
}

TEST(ForwardKernelsTest, SoftmaxNormalizesTheLastAxis) {
  const at::Tensor x = F({1, 2, 3, 0, 0, 0}, {2, 3});
  const float z = std::exp(1.f) + std::exp(2.f) + std::exp(3.f);
  ExpectClose(Eval("Softmax", {x}), F({std::exp(1.f) / z, std::exp(2.f) / z, std::exp(3.f) / z,
                                       1 / 3.f, 1 / 3.f, 1 / 3.f},
                                      {2, 3}));
}

TEST(ForwardKernelsTest, CastTruncatesTowardZeroAndMapsNonzeroToTrue) {
  const at::Tensor x = F({-2.7f, -0.5f, 0.f, 2.7f}, {4});
  ExpectEqual(Eval("Cast", {x}, Attr("DstT", Type("DT_INT32"))), I({-2, 0, 0, 2}, {4}));
  ExpectEqual(Eval("Cast", {x}, Attr("DstT", Type("DT_BOOL"))),
              torch::tensor({true, true, false, true}));
  EXPECT_NE(EvalError("Cast", {x}, Attr("DstT", Type("DT_STRING"))), "");
}

TEST(ForwardKernelsTest, BinaryOpsBroadcastAColumnAgainstARow) {
  const at::Tensor a = F({1, -2}, {2, 1}), b = F({3, -4, 0.5f}, {3});
  struct Case {
    const char* op;
    float (*f)(float, float);
  };
  const Case cases[] = {
      {"Add", [](float x, float y) { return x + y; }},
      {"AddV2", [](float x, float y) { return x + y; }},
      {"Sub", [](float x, float y) { return x - y; }},
      {"Mul", [](float x, float y) { return x * y; }},
      {"RealDiv", [](float x, float y) { return x / y; }},
      {"Div", [](float x, float y) { return x / y; }},
      {"Maximum", [](float x, float y) { return std::max(x, y); }},
      {"Minimum", [](float x, float y) { return std::min(x, y); }},
      {"SquaredDifference", [](float x, float y) { return (x - y) * (x - y); }},
      {"GreaterEqual", [](float x, float y) { return float(x >= y); }},
      {"LessEqual", [](float x, float y) { return float(x <= y); }},
      {"Greater", [](float x, float y) { return float(x > y); }},
      {"Less", [](float x, float y) { return float(x < y); }},
      {"Equal", [](float x, float y) { return float(x == y); }},
  };
  for (const Case& c : cases) {
    std::vector<float> want;
    for (float x : {1.f, -2.f})
      for (float y : {3.f, -4.f, 0.5f}) want.push_back(c.f(x, y));
    SCOPED_TRACE(c.op);
    ExpectClose(Eval(c.op, {a, b}), F(want, {2, 3}));
  }
  EXPECT_EQ(Eval("Less", {a, b}).scalar_type(), torch::kBool);
  ExpectEqual(Eval("Equal", {I({1, 2}, {2}), I({2}, {1})}), torch::tensor({false, true}));
}

TEST(ForwardKernelsTest, FloorDivRoundsIntsTowardMinusInfinityAndDivTruncates) {
  const at::Tensor a = I({-7, 7, -7, 7, -6}, {5}), b = I({2, 2, -2, -2, 3}, {5});
  ExpectEqual(Eval("FloorDiv", {a, b}), I({-4, 3, 3, -4, -2}, {5}));
  ExpectEqual(Eval("Div", {a, b}), I({-3, 3, 3, -3, -2}, {5}));
}

TEST(ForwardKernelsTest, FloorDivOfFloatsIsTheFloorOfTheQuotient) {
  // 1 / 0.1f rounds to 10 in float; Python-style floor division would give 9.
  ExpectEqual(Eval("FloorDiv", {F({1.f, -7.f}, {2}), F({0.1f, 2.f}, {2})}), F({10.f, -4.f}, {2}));
}

TEST(ForwardKernelsTest, SelectV2BroadcastsConditionAndBranches) {
  const at::Tensor cond = torch::tensor({true, false}).reshape({2, 1});
  ExpectEqual(Eval("SelectV2", {cond, F({1, 2, 3}, {1, 3}), F({-1}, {})}),
              F({1, 2, 3, -1, -1, -1}, {2, 3}));
  EXPECT_NE(EvalError("SelectV2", {F({1}, {1}), F({1}, {1}), F({1}, {1})}), "");
}

TEST(ForwardKernelsTest, AddNSumsEqualShapesAndRejectsOthers) {
  ExpectEqual(Eval("AddN", {F({1, 2}, {2}), F({10, 20}, {2}), F({100, 200}, {2})}),
              F({111, 222}, {2}));
  ExpectEqual(Eval("AddN", {F({1, 2}, {2})}), F({1, 2}, {2}));
  EXPECT_NE(EvalError("AddN", {F({1, 2}, {2}), F({1}, {1})}), "");
}

TEST(ForwardKernelsTest, BiasAddUsesTheChannelAxisOfTheDataFormat) {
  const at::Tensor x = torch::zeros({1, 2, 2, 3}), b = F({1, 2, 3}, {3});
  ExpectEqual(Eval("BiasAdd", {x, b}), b.view({1, 1, 1, 3}).expand({1, 2, 2, 3}));
  ExpectEqual(Eval("BiasAdd", {torch::zeros({1, 3, 2, 2}), b}, Attr("data_format", Str("NCHW"))),
              b.view({1, 3, 1, 1}).expand({1, 3, 2, 2}));
  EXPECT_NE(EvalError("BiasAdd", {x, F({1, 2}, {2})}), "");
}

TEST(ForwardKernelsTest, L2LossIsHalfTheSumOfSquares) {
  ExpectClose(Eval("L2Loss", {F({1, 2, 3}, {3})}), F({7}, {}));
}

// ---- Matrix products ----

at::Tensor NaiveMatMul(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor y = torch::zeros({a.size(0), b.size(1)});
  for (int64_t i = 0; i < a.size(0); ++i)
    for (int64_t j = 0; j < b.size(1); ++j)
      for (int64_t k = 0; k < a.size(1); ++k)
        y[i][j] += a[i][k].item<float>() * b[k][j].item<float>();
  return y;
}

TEST(ForwardKernelsTest, MatMulHonoursBothTransposeFlags) {
  const at::Tensor a = Random({2, 3}, 1), b = Random({3, 4}, 2);
  const at::Tensor want = NaiveMatMul(a, b);
  ExpectClose(Eval("MatMul", {a, b}), want);
  ExpectClose(Eval("MatMul", {a.t().contiguous(), b.t().contiguous()},
                   Attr("transpose_a", Bool(true)) + Attr("transpose_b", Bool(true))),
              want);
  EXPECT_NE(EvalError("MatMul", {a, a}), "");
}

TEST(ForwardKernelsTest, BatchMatMulV2BroadcastsBatchesAndAppliesAdjoints) {
  const at::Tensor a = Random({2, 1, 2, 3}, 3), b = Random({3, 3, 4}, 4);
  const at::Tensor y =
      Eval("BatchMatMulV2", {a.transpose(-2, -1).contiguous(), b}, Attr("adj_x", Bool(true)));
  ASSERT_EQ(y.sizes(), (Int64s{2, 3, 2, 4}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) ExpectClose(y[i][j], NaiveMatMul(a[i][0], b[j]));
  ExpectClose(
      Eval("BatchMatMulV2", {a, b.transpose(-2, -1).contiguous()}, Attr("adj_y", Bool(true))), y);
}

// ---- Convolutions ----

TEST(ForwardKernelsTest, Conv2DSameStride2MatchesNaiveLoop) {
  // 5x5, 3x3 window, stride 2: output 3x3, padding 1 on each side.
  const at::Tensor x = Random({2, 5, 5, 3}, 5), f = Random({3, 3, 3, 4}, 6);
  ExpectClose(Eval("Conv2D", {x, f}, ConvAttrs(2, "SAME")), NaiveConv(x, f, 2, 1, 1, 1, 3, 3));
}

TEST(ForwardKernelsTest, Conv2DSamePutsTheOddPaddingAtTheEnd) {
  // 6x6, 3x3, stride 2: output 3x3 needs 1 padding row, which TF puts after.
  const at::Tensor x = Random({1, 6, 6, 2}, 7), f = Random({3, 3, 2, 3}, 8);
  ExpectClose(Eval("Conv2D", {x, f}, ConvAttrs(2, "SAME")), NaiveConv(x, f, 2, 1, 0, 0, 3, 3));
  // 2x2 window, stride 1: one padding row and column, after.
  const at::Tensor f2 = Random({2, 2, 2, 3}, 9);
  ExpectClose(Eval("Conv2D", {x, f2}, ConvAttrs(1, "SAME")), NaiveConv(x, f2, 1, 1, 0, 0, 6, 6));
}

TEST(ForwardKernelsTest, Conv2DExplicitAndDilatedValidMatchNaiveLoop) {
  const at::Tensor x = Random({1, 7, 6, 2}, 10), f = Random({3, 3, 2, 2}, 11);
  // Rows padded 1 before, 2 after; columns 0 before, 1 after: 8x5 outputs.
  const std::string attrs = Attr("strides", IntList({1, 1, 1, 1})) +
                            Attr("padding", Str("EXPLICIT")) +
                            Attr("explicit_paddings", IntList({0, 0, 1, 2, 0, 1, 0, 0}));
  at::Tensor want = NaiveConv(x, f, 1, 1, 1, 0, 8, 5);
  ExpectClose(Eval("Conv2D", {x, f}, attrs), want);
  // Dilation 2: a 5x5 window; 7x6 VALID gives 3x2.
  ExpectClose(Eval("Conv2D", {x, f}, ConvAttrs(1, "VALID", 2)), NaiveConv(x, f, 1, 2, 0, 0, 3, 2));
}

TEST(ForwardKernelsTest, Conv2DNchwMatchesNhwc) {
  const at::Tensor x = Random({1, 6, 6, 2}, 12), f = Random({3, 3, 2, 3}, 13);
  const at::Tensor nchw = Eval("Conv2D", {x.permute({0, 3, 1, 2}).contiguous(), f},
                               Attr("strides", IntList({1, 1, 2, 2})) +
                                   Attr("padding", Str("SAME")) + Attr("data_format", Str("NCHW")));
  ExpectClose(nchw.permute({0, 2, 3, 1}), NaiveConv(x, f, 2, 1, 0, 0, 3, 3));
}

TEST(ForwardKernelsTest, FusedConv2DAddsBiasThenActivation) {
  const at::Tensor x = Random({1, 5, 5, 2}, 14) * 4, f = Random({3, 3, 2, 3}, 15);
  const at::Tensor bias = F({0.5f, -1.f, 2.f}, {3});
  const at::Tensor conv = NaiveConv(x, f, 1, 1, 1, 1, 5, 5) + bias;
  const std::string attrs = ConvAttrs(1, "SAME") + Attr("num_args", Int(1));
  ExpectClose(Eval("_FusedConv2D", {x, f, bias}, attrs + Attr("fused_ops", StrList({"BiasAdd"}))),
              conv);
  ExpectClose(
      Eval("_FusedConv2D", {x, f, bias}, attrs + Attr("fused_ops", StrList({"BiasAdd", "Relu"}))),
      conv.clamp_min(0));
  const at::Tensor relu6 =
      Eval("_FusedConv2D", {x, f, bias}, attrs + Attr("fused_ops", StrList({"BiasAdd", "Relu6"})));
  ExpectClose(relu6, conv.clamp(0, 6));
  EXPECT_GT((conv > 6).sum().item<int64_t>(), 0) << "the test should exercise the upper clamp";
  auto fused = [&](const std::string& act) {
    return Eval("_FusedConv2D", {x, f, bias}, attrs + Attr("fused_ops", StrList({"BiasAdd", act})));
  };
  ExpectClose(fused("Elu"), at::where(conv > 0, conv, at::exp(conv) - 1));
  ExpectClose(fused("Sigmoid"), 1 / (1 + at::exp(-conv)));
  ExpectClose(fused("Tanh"), at::tanh(conv));
  ExpectClose(fused("LeakyRelu"), at::where(conv > 0, conv, conv * 0.2));  // TF's default alpha
  ExpectClose(Eval("_FusedConv2D", {x, f, bias},
                   attrs + Attr("fused_ops", StrList({"BiasAdd", "LeakyRelu"})) +
                       Attr("leakyrelu_alpha", "f: 0.5")),
              at::where(conv > 0, conv, conv * 0.5));
  ExpectClose(fused("GeluExact"), conv * 0.5 * (1 + at::erf(conv / std::sqrt(2.0))));
  ExpectClose(
      fused("GeluApproximate"),
      conv * 0.5 * (1 + at::tanh(std::sqrt(2 / M_PI) * (conv + 0.044715 * conv * conv * conv))));
  // TF.js's Prelu: its alpha is a second extra operand after the bias.
  const at::Tensor alpha = F({0.1f, -0.5f, 2.f}, {1, 1, 3});
  ExpectClose(Eval("_FusedConv2D", {x, f, bias, alpha},
                   ConvAttrs(1, "SAME") + Attr("num_args", Int(2)) +
                       Attr("fused_ops", StrList({"BiasAdd", "Prelu"}))),
              at::where(conv > 0, conv, conv * alpha));
  EXPECT_NE(EvalError("_FusedConv2D", {x, f, bias},
                      attrs + Attr("fused_ops", StrList({"BiasAdd", "Swish"}))),
            "");
  // Prelu needs num_args 2 and its operand.
  EXPECT_NE(EvalError("_FusedConv2D", {x, f, bias},
                      attrs + Attr("fused_ops", StrList({"BiasAdd", "Prelu"}))),
            "");
}

TEST(ForwardKernelsTest, FusedMatMulIsMatMulBiasThenActivation) {
  const at::Tensor a = Random({3, 4}, 21), b = Random({5, 4}, 22), bias = Random({5}, 23);
  const at::Tensor z = at::mm(a, b.t()) + bias;
  const std::string attrs =
      Attr("transpose_b", Bool(true)) + Attr("num_args", Int(1)) + Attr("T", Type("DT_FLOAT"));
  ExpectClose(Eval("_FusedMatMul", {a, b, bias}, attrs + Attr("fused_ops", StrList({"BiasAdd"}))),
              z);
  ExpectClose(
      Eval("_FusedMatMul", {a, b, bias}, attrs + Attr("fused_ops", StrList({"BiasAdd", "Relu6"}))),
      z.clamp(0, 6));
  EXPECT_NE(EvalError("_FusedMatMul", {a, b, F({1.f, 2.f}, {2})},
                      attrs + Attr("fused_ops", StrList({"BiasAdd"}))),
            "");
}

TEST(ForwardKernelsTest, DepthwiseOutputChannelIsInputChannelTimesMultiplierPlusM) {
  const at::Tensor x = Random({2, 5, 5, 2}, 16), f = Random({3, 3, 2, 3}, 17);
  ExpectClose(Eval("DepthwiseConv2dNative", {x, f}, ConvAttrs(1, "SAME")),
              NaiveDepthwise(x, f, 1, 1, 1, 5, 5));
  const at::Tensor x6 = Random({1, 6, 6, 2}, 18);
  ExpectClose(Eval("DepthwiseConv2dNative", {x6, f}, ConvAttrs(2, "SAME")),
              NaiveDepthwise(x6, f, 2, 0, 0, 3, 3));
  const at::Tensor bias = Random({6}, 19);
  ExpectClose(Eval("FusedDepthwiseConv2dNative", {x, f, bias},
                   ConvAttrs(1, "VALID") + Attr("num_args", Int(1)) +
                       Attr("fused_ops", StrList({"BiasAdd", "Relu"}))),
              (NaiveDepthwise(x, f, 1, 0, 0, 3, 3) + bias).clamp_min(0));
}

TEST(ForwardKernelsTest, Conv2DBackpropInputIsTheNaiveScatter) {
  const at::Tensor f = Random({3, 3, 2, 4}, 20);
  // 6x6 input, stride 2, SAME: 3x3 out_backprop, padding 0 before and 1 after.
  const at::Tensor dy = Random({1, 3, 3, 4}, 21);
  ExpectClose(Eval("Conv2DBackpropInput", {I({1, 6, 6, 2}, {4}), f, dy}, ConvAttrs(2, "SAME")),
              NaiveTransposedConv(dy, f, 2, 0, 0, 6, 6));
  // 5x5 input, stride 2, SAME: 3x3 out_backprop, padding 1 on each side.
  ExpectClose(Eval("Conv2DBackpropInput", {I({1, 5, 5, 2}, {4}), f, dy}, ConvAttrs(2, "SAME")),
              NaiveTransposedConv(dy, f, 2, 1, 1, 5, 5));
  // 8x8 input, stride 2, VALID: 3x3 out_backprop; the last row and column are
  // never read by the forward convolution, so they are zero.
  const at::Tensor want = NaiveTransposedConv(dy, f, 2, 0, 0, 8, 8);
  ExpectClose(Eval("Conv2DBackpropInput", {I({1, 8, 8, 2}, {4}), f, dy}, ConvAttrs(2, "VALID")),
              want);
  EXPECT_EQ(want.select(1, 7).abs().sum().item<float>(), 0.f);
  // Explicit padding, larger before than after: rows (2, 1), columns (0, 1).
  const at::Tensor dy32 = Random({1, 3, 2, 4}, 26);
  ExpectClose(Eval("Conv2DBackpropInput", {I({1, 5, 5, 2}, {4}), f, dy32},
                   Attr("strides", IntList({1, 2, 2, 1})) + Attr("padding", Str("EXPLICIT")) +
                       Attr("explicit_paddings", IntList({0, 0, 2, 1, 0, 1, 0, 0}))),
              NaiveTransposedConv(dy32, f, 2, 2, 0, 5, 5));
  EXPECT_NE(EvalError("Conv2DBackpropInput", {I({1, 9, 9, 2}, {4}), f, dy}, ConvAttrs(2, "SAME")),
            "");
}

// TensorFlow's outputs: y, the batch mean, the batch variance with Bessel's
// correction, then the mean and the biased variance; a constant channel's
// variances were rebuilt from 1/sqrt(var + eps) and could come out below 0.
TEST(ForwardKernelsTest, FusedBatchNormGivesBothVariancesOfTheBatchAndNoneNegative) {
  at::Tensor x = Random({2, 3, 3, 2}, 31);
  x.select(3, 0).fill_(0.1f);  // a constant channel
  const at::Tensor ones = torch::ones({2}), zeros = torch::zeros({2});
  const std::vector<at::Tensor> out =
      EvalAll("FusedBatchNormV3", {x, ones, zeros, zeros, ones},
              Attr("epsilon", "f: 0.001") + Attr("is_training", Bool(true)));
  ASSERT_EQ(out.size(), 6u);
  auto [biased, mean] = at::var_mean(x, {0, 1, 2}, /*unbiased=*/false);
  ExpectClose(out[1], mean);
  ExpectClose(out[2], at::var(x, {0, 1, 2}, /*unbiased=*/true));
  ExpectClose(out[4], biased);
  EXPECT_GE(out[2].min().item<float>(), 0.f);
  EXPECT_GE(out[4].min().item<float>(), 0.f);
}

// ---- Pooling ----

TEST(ForwardKernelsTest, MaxPoolSameIgnoresPaddingEvenForNegativeInputs) {
  const at::Tensor x = -Random({2, 6, 6, 3}, 22).abs() - 1;
  ExpectClose(Eval("MaxPool", {x}, PoolAttrs(3, 2, "SAME")), NaivePool(x, true, 3, 2, 0, 0, 3, 3));
  ExpectClose(Eval("MaxPool", {x}, PoolAttrs(3, 1, "SAME")), NaivePool(x, true, 3, 1, 1, 1, 6, 6));
  ExpectClose(Eval("MaxPool", {x}, PoolAttrs(2, 2, "VALID")), NaivePool(x, true, 2, 2, 0, 0, 3, 3));
}

// Integers were pooled through float32: 2^24 + 1 came back as 2^24.
TEST(ForwardKernelsTest, MaxPoolOfInt32KeepsEveryValueExact) {
  const at::Tensor x =
      torch::tensor({16777217, 16777216, 3, -2147483647}, torch::kInt).reshape({1, 2, 2, 1});
  const at::Tensor y = Eval("MaxPool", {x}, PoolAttrs(2, 2, "VALID"));
  ASSERT_EQ(y.scalar_type(), torch::kInt);
  EXPECT_EQ(y.item<int>(), 16777217);
}

TEST(ForwardKernelsTest, AvgPoolSameDividesByTheCountOfRealElements) {
  const at::Tensor x = Random({2, 6, 6, 3}, 23);
  // Asymmetric (0 before, 1 after) and symmetric (1, 1) SAME padding.
  ExpectClose(Eval("AvgPool", {x}, PoolAttrs(3, 2, "SAME")), NaivePool(x, false, 3, 2, 0, 0, 3, 3));
  ExpectClose(Eval("AvgPool", {x}, PoolAttrs(3, 1, "SAME")), NaivePool(x, false, 3, 1, 1, 1, 6, 6));
  ExpectClose(Eval("AvgPool", {x}, PoolAttrs(2, 2, "VALID")),
              NaivePool(x, false, 2, 2, 0, 0, 3, 3));
  // A corner window of a 2x2 SAME pool on ones averages to exactly 1.
  ExpectClose(Eval("AvgPool", {torch::ones({1, 3, 3, 1})}, PoolAttrs(2, 1, "SAME")),
              torch::ones({1, 3, 3, 1}));
}

TEST(ForwardKernelsTest, PoolRejectsBatchWindowsAndUnknownPadding) {
  const at::Tensor x = Random({1, 4, 4, 1}, 24);
  EXPECT_NE(EvalError("MaxPool", {x},
                      Attr("ksize", IntList({2, 2, 2, 1})) +
                          Attr("strides", IntList({1, 1, 1, 1})) + Attr("padding", Str("SAME"))),
            "");
  EXPECT_NE(EvalError("AvgPool", {x}, PoolAttrs(2, 1, "FULL")), "");
  EXPECT_NE(EvalError("MaxPool", {x}, PoolAttrs(5, 1, "VALID")), "");
}

// ---- Reductions ----

TEST(ForwardKernelsTest, ReductionsHonourAxesAndKeepDims) {
  const at::Tensor x = Cube().to(torch::kFloat);
  ExpectClose(Eval("Sum", {x, I({0, -1}, {2})}, Attr("keep_dims", Bool(true))),
              F({60, 92, 124}, {1, 3, 1}));
  ExpectClose(Eval("Mean", {x, Scalar(1)}), F({4, 5, 6, 7, 16, 17, 18, 19}, {2, 4}));
  ExpectClose(Eval("Max", {x, I({1, 1}, {2})}), F({8, 9, 10, 11, 20, 21, 22, 23}, {2, 4}));
  // No axes: TF reduces nothing (PyTorch would reduce everything).
  ExpectEqual(Eval("Sum", {x, I({}, {0})}), x);
  EXPECT_NE(EvalError("Sum", {x, Scalar(3)}), "");
}

TEST(ForwardKernelsTest, MinProdAllAnyReduceSeveralAxes) {
  const at::Tensor x = Cube().to(torch::kFloat);
  ExpectClose(Eval("Min", {x, I({0, 2}, {2})}), F({0, 4, 8}, {3}));
  // Products of 1..4 and 5..8 in each of two rows.
  ExpectClose(Eval("Prod", {F({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}), I({1, 2}, {2})},
                   Attr("keep_dims", Bool(true))),
              F({24, 1680}, {2, 1, 1}));
  ExpectEqual(Eval("Prod", {I({2, 3, 4}, {3}), Scalar(0)}), torch::tensor(24, torch::kInt));
  const at::Tensor b = torch::tensor({true, false, true, true}).reshape({2, 2});
  ExpectEqual(Eval("All", {b, I({1}, {1})}), torch::tensor({false, true}));
  ExpectEqual(Eval("Any", {b, I({0, 1}, {2})}), torch::tensor(true));
}

TEST(ForwardKernelsTest, IntegerReductionsKeepTheTypeAndTruncateMeans) {
  const at::Tensor x = I({-3, -4, 3, 4}, {2, 2});
  ExpectEqual(Eval("Mean", {x, Scalar(1)}), I({-3, 3}, {2}));
  ExpectEqual(Eval("Sum", {x, Scalar(0)}), I({0, 0}, {2}));
}

TEST(ForwardKernelsTest, ArgMaxTakesTheFirstMaximumInTheRequestedType) {
  const at::Tensor x = F({1, 5, 3, 7, 2, 7}, {2, 3});
  ExpectEqual(Eval("ArgMax", {x, Scalar(1)}, Attr("output_type", Type("DT_INT32"))),
              I({1, 0}, {2}));
  ExpectEqual(Eval("ArgMax", {x, Scalar(0)}), torch::tensor({1, 0, 1}, torch::kLong));
}

TEST(ForwardKernelsTest, TensorFlowV1ArgMinConcatGatherAndBatchMatMul) {
  const at::Tensor x = F({4, 1, 3, 1, 0, 7}, {2, 3});
  ExpectEqual(Eval("ArgMin", {x, Scalar(1)}), torch::tensor({1, 1}, torch::kLong));
  ExpectClose(Eval("Concat", {Scalar(0), x, x}), torch::cat({x, x}, 0));
  ExpectClose(Eval("Gather", {x, I({1, 0, 1}, {3})}), torch::stack({x[1], x[0], x[1]}));
  const at::Tensor a = Random({2, 3, 4}, 61), b = Random({2, 4, 5}, 62);
  ExpectClose(Eval("BatchMatMul", {a, b}), torch::matmul(a, b));
}

TEST(ForwardKernelsTest, DenseSoftmaxCrossEntropyMatchesTheFormula) {
  const at::Tensor logits = F({1, 2, 3, 1, 1, 1}, {2, 3}),
                   labels = F({0, 0.5, 0.5, 1, 0, 0}, {2, 3});
  const std::vector<at::Tensor> out = EvalAll("SoftmaxCrossEntropyWithLogits", {logits, labels});
  ASSERT_EQ(out.size(), 2u);
  const at::Tensor log_softmax = torch::log_softmax(logits, 1);
  ExpectClose(out[0], -(labels * log_softmax).sum(1));
  ExpectClose(out[1], log_softmax.exp() - labels);
}

TEST(ForwardKernelsTest, SparseSoftmaxCrossEntropyMatchesTheFormula) {
  const at::Tensor logits = F({1, 2, 3, 1, 1, 1}, {2, 3});
  const std::vector<at::Tensor> out =
      EvalAll("SparseSoftmaxCrossEntropyWithLogits", {logits, I({2, 0}, {2})});
  ASSERT_EQ(out.size(), 2u);
  const float z = std::exp(1.f) + std::exp(2.f) + std::exp(3.f);
  ExpectClose(out[0], F({std::log(z) - 3, std::log(3.f)}, {2}));
  ExpectClose(out[1], F({std::exp(1.f) / z, std::exp(2.f) / z, std::exp(3.f) / z - 1, 1 / 3.f - 1,
                         1 / 3.f, 1 / 3.f},
                        {2, 3}));
  EXPECT_NE(EvalError("SparseSoftmaxCrossEntropyWithLogits", {logits, I({3, 0}, {2})}), "");
}

// ---- Shapes ----

TEST(ForwardKernelsTest, ReshapeInfersOneMinusOne) {
  const at::Tensor x = Cube();
  ExpectEqual(Eval("Reshape", {x, I({-1, 4}, {2})}), x.reshape({6, 4}));
  EXPECT_NE(EvalError("Reshape", {x, I({-1, -1}, {2})}), "");
  EXPECT_NE(EvalError("Reshape", {x, I({5, -1}, {2})}), "");
  EXPECT_NE(EvalError("Reshape", {x, I({5, 5}, {2})}), "");
}

TEST(ForwardKernelsTest, SqueezeRemovesListedOrAllUnitDimensions) {
  const at::Tensor x = torch::zeros({1, 2, 1, 3});
  EXPECT_EQ(Eval("Squeeze", {x}).sizes(), (Int64s{2, 3}));
  EXPECT_EQ(Eval("Squeeze", {x}, Attr("squeeze_dims", IntList({-2}))).sizes(), (Int64s{1, 2, 3}));
  EXPECT_NE(EvalError("Squeeze", {x}, Attr("squeeze_dims", IntList({1}))), "");
}

TEST(ForwardKernelsTest, ExpandDimsAcceptsRankPlusOnePositions) {
  const at::Tensor x = torch::zeros({2, 3});
  EXPECT_EQ(Eval("ExpandDims", {x, Scalar(-1)}).sizes(), (Int64s{2, 3, 1}));
  EXPECT_EQ(Eval("ExpandDims", {x, Scalar(0)}).sizes(), (Int64s{1, 2, 3}));
  EXPECT_NE(EvalError("ExpandDims", {x, Scalar(3)}), "");
}

TEST(ForwardKernelsTest, PadAddsZerosBeforeAndAfterEachDimension) {
  ExpectEqual(Eval("Pad", {F({1, 2, 3, 4}, {2, 2}), I({1, 0, 0, 2}, {2, 2})}),
              F({0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0}, {3, 4}));
  EXPECT_NE(EvalError("Pad", {F({1, 2}, {2}), I({-1, 0}, {1, 2})}), "");
}

TEST(ForwardKernelsTest, ConcatV2TakesTheAxisLast) {
  ExpectEqual(Eval("ConcatV2", {F({1, 2}, {2, 1}), F({3, 4, 5, 6}, {2, 2}), Scalar(-1)}),
              F({1, 3, 4, 2, 5, 6}, {2, 3}));
  EXPECT_NE(EvalError("ConcatV2", {F({1, 2}, {2, 1}), F({3, 4, 5}, {3, 1}), Scalar(1)}), "");
}

TEST(ForwardKernelsTest, PackAndUnpackAreInverse) {
  const at::Tensor y = Eval("Pack", {F({1, 2}, {2}), F({3, 4}, {2}), F({5, 6}, {2})},
                            Attr("axis", Int(1)) + Attr("N", Int(3)));
  ExpectEqual(y, F({1, 3, 5, 2, 4, 6}, {2, 3}));
  const std::vector<at::Tensor> parts =
      EvalAll("Unpack", {y}, Attr("axis", Int(-1)) + Attr("num", Int(3)));
  ASSERT_EQ(parts.size(), 3u);
  ExpectEqual(parts[2], F({5, 6}, {2}));
  EXPECT_NE(EvalError("Unpack", {y}, Attr("num", Int(3))), "");
}

struct SliceCase {
  const char* what;
  Int64s begin, end, strides;
  int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  Int64s shape;
  std::vector<int> values;
};

TEST(ForwardKernelsTest, StridedSliceImplementsEveryMask) {
  // Cube()[i, j, k] = 12i + 4j + k.
  const SliceCase cases[] = {
      {"x[1, -2:, ::-2]",
       {1, -2, 0},
       {2, 0, 0},
       {1, 1, -2},
       4,
       6,
       0,
       0,
       1,
       {2, 2},
       {19, 17, 23, 21}},
      {"x[..., newaxis, 1]",
       {0, 0, 1},
       {0, 0, 2},
       {1, 1, 1},
       0,
       0,
       1,
       2,
       4,
       {2, 3, 1},
       {1, 5, 9, 13, 17, 21}},
      {"x[:, 10:-10:-1, 0] clamps",
       {0, 10, 0},
       {0, -10, 1},
       {1, -1, 1},
       1,
       1,
       0,
       0,
       4,
       {2, 3},
       {8, 4, 0, 20, 16, 12}},
      {"x[-1]",
       {-1},
       {0},
       {1},
       0,
       0,
       0,
       0,
       1,
       {3, 4},
       {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
      {"x[newaxis, 0:1]",
       {0, 0},
       {0, 1},
       {1, 1},
       0,
       0,
       0,
       1,
       0,
       {1, 1, 3, 4},
       {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
      {"x[:, 2:1] is empty", {0, 2}, {0, 1}, {1, 1}, 1, 1, 0, 0, 0, {2, 0, 4}, {}},
      {"x[0, 0, 0:4:3]", {0, 0, 0}, {1, 1, 4}, {1, 1, 3}, 0, 0, 0, 0, 3, {2}, {0, 3}},
      {"x[1, ..., 3]", {1, 0, 3}, {2, 0, 4}, {1, 1, 1}, 0, 0, 2, 0, 5, {3}, {15, 19, 23}},
      {"x[:, -1:, 1:3] with a stride-3 tail",
       {0, -1, 1},
       {2, 3, 3},
       {3, 1, 1},
       0,
       0,
       0,
       0,
       0,
       {1, 1, 2},
       {9, 10}},
  };
  for (const SliceCase& s : cases) {
    SCOPED_TRACE(s.what);
    const auto n = static_cast<int64_t>(s.begin.size());
    std::vector<int> b(s.begin.begin(), s.begin.end()), e(s.end.begin(), s.end.end()),
        st(s.strides.begin(), s.strides.end());
    const at::Tensor y =
        Eval("StridedSlice", {Cube(), I(b, {n}), I(e, {n}), I(st, {n})},
             Attr("begin_mask", Int(s.begin_mask)) + Attr("end_mask", Int(s.end_mask)) +
                 Attr("ellipsis_mask", Int(s.ellipsis_mask)) +
                 Attr("new_axis_mask", Int(s.new_axis_mask)) +
                 Attr("shrink_axis_mask", Int(s.shrink_axis_mask)));
    ExpectEqual(y, I(s.values, s.shape));
  }
}

TEST(ForwardKernelsTest, StridedSliceRejectsBadSpecs) {
  auto error = [](Int64s b, Int64s st, int64_t ellipsis, int64_t shrink) {
    const auto n = static_cast<int64_t>(b.size());
    std::vector<int> bi(b.begin(), b.end()), si(st.begin(), st.end());
    return EvalError("StridedSlice", {Cube(), I(bi, {n}), I(bi, {n}), I(si, {n})},
                     Attr("ellipsis_mask", Int(ellipsis)) + Attr("shrink_axis_mask", Int(shrink)));
  };
  EXPECT_NE(error({0}, {0}, 0, 0), "") << "zero stride";
  EXPECT_NE(error({5}, {1}, 0, 1), "") << "shrinking index out of range";
  EXPECT_NE(error({0, 0, 0, 0}, {1, 1, 1, 1}, 0, 0), "") << "more indices than dimensions";
  EXPECT_NE(error({0, 0}, {1, 1}, 3, 0), "") << "two ellipses";
}

TEST(ForwardKernelsTest, SliceSizeMinusOneRunsToTheEnd) {
  const at::Tensor x = F({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4});
  ExpectEqual(Eval("Slice", {x, I({0, 1}, {2}), I({-1, 2}, {2})}), F({1, 2, 5, 6}, {2, 2}));
  EXPECT_NE(EvalError("Slice", {x, I({0, 3}, {2}), I({1, 2}, {2})}), "");
}

TEST(ForwardKernelsTest, GatherNdIndexesLeadingDimensions) {
  const at::Tensor p = F({0, 1, 2, 3, 4, 5}, {2, 3});
  ExpectEqual(Eval("GatherNd", {p, I({1, 2, 0, 0}, {2, 2})}), F({5, 0}, {2}));
  ExpectEqual(Eval("GatherNd", {p, I({1}, {1, 1})}), F({3, 4, 5}, {1, 3}));
  ExpectEqual(Eval("GatherNd", {p, I({}, {2, 0})}), torch::stack({p, p}));
  EXPECT_NE(EvalError("GatherNd", {p, I({0, 3}, {1, 2})}), "");
}

TEST(ForwardKernelsTest, ResizeBilinearLegacyHalfPixelAndAlignCornersOnAKnownRow) {
  const at::Tensor x = F({0, 10}, {1, 1, 2, 1});
  const at::Tensor size = I({1, 4}, {2});
  ExpectClose(Eval("ResizeBilinear", {x, size}), F({0, 5, 10, 10}, {1, 1, 4, 1}));
  ExpectClose(Eval("ResizeBilinear", {x, size}, Attr("half_pixel_centers", Bool(true))),
              F({0, 2.5f, 7.5f, 10}, {1, 1, 4, 1}));
  ExpectClose(Eval("ResizeBilinear", {x, size}, Attr("align_corners", Bool(true))),
              F({0, 10 / 3.f, 20 / 3.f, 10}, {1, 1, 4, 1}));
}

TEST(ForwardKernelsTest, ResizeBilinearMatchesTfSamplingInAllModes) {
  const at::Tensor x = Random({2, 3, 4, 2}, 25);
  for (Int64s size : {Int64s{5, 7}, Int64s{2, 3}, Int64s{1, 1}, Int64s{3, 4}}) {
    const at::Tensor s = I({static_cast<int>(size[0]), static_cast<int>(size[1])}, {2});
    SCOPED_TRACE(std::to_string(size[0]) + "x" + std::to_string(size[1]));
    ExpectClose(Eval("ResizeBilinear", {x, s}),
                NaiveResize(x, size[0], size[1], Sampling::kLegacy));
    ExpectClose(Eval("ResizeBilinear", {x, s}, Attr("align_corners", Bool(true))),
                NaiveResize(x, size[0], size[1], Sampling::kAlignCorners));
    ExpectClose(Eval("ResizeBilinear", {x, s}, Attr("half_pixel_centers", Bool(true))),
                NaiveResize(x, size[0], size[1], Sampling::kHalfPixel));
  }
  EXPECT_NE(EvalError("ResizeBilinear", {x, I({2, 2}, {2})},
                      Attr("align_corners", Bool(true)) + Attr("half_pixel_centers", Bool(true))),
            "");
}

TEST(ForwardKernelsTest, TransposeBroadcastToAndTile) {
  const at::Tensor x = Cube();
  ExpectEqual(Eval("Transpose", {x, I({2, 0, 1}, {3})}), x.permute({2, 0, 1}));
  EXPECT_NE(EvalError("Transpose", {x, I({0, 0, 1}, {3})}), "");
  ExpectEqual(Eval("BroadcastTo", {F({1, 2, 3}, {3}), I({2, 3}, {2})}),
              F({1, 2, 3, 1, 2, 3}, {2, 3}));
  EXPECT_NE(EvalError("BroadcastTo", {F({1, 2}, {2}), I({3}, {1})}), "");
  ExpectEqual(Eval("Tile", {F({1, 2}, {2, 1}), I({2, 3}, {2})}),
              F({1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}, {4, 3}));
}

TEST(ForwardKernelsTest, ShapeFillAndRange) {
  ExpectEqual(Eval("Shape", {Cube()}), I({2, 3, 4}, {3}));
  ExpectEqual(Eval("Shape", {Cube()}, Attr("out_type", Type("DT_INT64"))),
              torch::tensor({2, 3, 4}, torch::kLong));
  ExpectEqual(Eval("Fill", {I({2, 3}, {2}), F({7}, {})}), torch::full({2, 3}, 7.f));
  ExpectEqual(Eval("Range", {Scalar(0), Scalar(10), Scalar(3)}), I({0, 3, 6, 9}, {4}));
  ExpectEqual(Eval("Range", {Scalar(5), Scalar(1), Scalar(-2)}), I({5, 3}, {2}));
  EXPECT_NE(EvalError("Range", {Scalar(0), Scalar(1), Scalar(0)}), "");
  EXPECT_NE(EvalError("Range", {Scalar(0), Scalar(-1), Scalar(1)}), "");
}

TEST(ForwardKernelsTest, FloatRangeAccumulatesDeltaLikeTf) {
  // ceil(1 / 0.1f) elements, each the previous plus delta in float.
  std::vector<float> want;
  for (float v = 0; want.size() < 10; v += 0.1f) want.push_back(v);
  ExpectEqual(Eval("Range", {F({0}, {}), F({1}, {}), F({0.1f}, {})}), F(want, {10}));
}

}  // namespace
}  // namespace runtime
