// 3-D convolution and pooling kernels (Conv3D, MaxPool3D, AvgPool3D) against
// naive loops written from TensorFlow's definitions. Their gradient kernels are
// checked against autograd through these in gradients_test.cc.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "tests/runtime/kernel_test_util.h"

namespace runtime {
namespace {

using namespace kernel_test;  // NOLINT: the helpers this file is written in
using D3 = std::array<int64_t, 3>;

// The window of each spatial dimension: stride, dilation, padding before, output size.
struct Geometry {
  D3 stride{1, 1, 1}, dilation{1, 1, 1}, before{0, 0, 0}, out{};
};

// out[n,o,co] = sum x[n, o*s - before + k*d, g*cig + ci] f[k, ci, co] over the
// taps k and the input channels ci of co's group g (NDHWC input, DHWIO filter).
at::Tensor NaiveConv3d(const at::Tensor& x, const at::Tensor& f, const Geometry& g) {
  auto xa = x.accessor<float, 5>();
  auto fa = f.accessor<float, 5>();
  const int64_t cig = f.size(3), cout = f.size(4), groups = x.size(4) / cig;
  at::Tensor y = torch::zeros({x.size(0), g.out[0], g.out[1], g.out[2], cout});
  auto ya = y.accessor<float, 5>();
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow = 0; ow < g.out[2]; ++ow)
          for (int64_t kd = 0; kd < f.size(0); ++kd)
            for (int64_t kh = 0; kh < f.size(1); ++kh)
              for (int64_t kw = 0; kw < f.size(2); ++kw) {
                const int64_t id = od * g.stride[0] - g.before[0] + kd * g.dilation[0];
                const int64_t ih = oh * g.stride[1] - g.before[1] + kh * g.dilation[1];
                const int64_t iw = ow * g.stride[2] - g.before[2] + kw * g.dilation[2];
                if (id < 0 || id >= x.size(1) || ih < 0 || ih >= x.size(2) || iw < 0 ||
                    iw >= x.size(3)) {
                  continue;
                }
                for (int64_t co = 0; co < cout; ++co) {
                  const int64_t group = co / (cout / groups);
                  for (int64_t ci = 0; ci < cig; ++ci) {
                    ya[n][od][oh][ow][co] +=
                        xa[n][id][ih][iw][group * cig + ci] * fa[kd][kh][kw][ci][co];
                  }
                }
              }
  return y;
}

// Max or mean over the real (non-padding) elements of each window, as TF
// defines SAME pooling (NDHWC).
at::Tensor NaivePool3d(const at::Tensor& x, bool max, const D3& k, const Geometry& g) {
  auto xa = x.accessor<float, 5>();
  at::Tensor y = torch::zeros({x.size(0), g.out[0], g.out[1], g.out[2], x.size(4)});
  auto ya = y.accessor<float, 5>();
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow = 0; ow < g.out[2]; ++ow)
          for (int64_t c = 0; c < x.size(4); ++c) {
            float acc = max ? -INFINITY : 0;
            int count = 0;
            for (int64_t kd = 0; kd < k[0]; ++kd)
              for (int64_t kh = 0; kh < k[1]; ++kh)
                for (int64_t kw = 0; kw < k[2]; ++kw) {
                  const int64_t id = od * g.stride[0] - g.before[0] + kd;
                  const int64_t ih = oh * g.stride[1] - g.before[1] + kh;
                  const int64_t iw = ow * g.stride[2] - g.before[2] + kw;
                  if (id < 0 || id >= x.size(1) || ih < 0 || ih >= x.size(2) || iw < 0 ||
                      iw >= x.size(3)) {
                    continue;
                  }
                  const float v = xa[n][id][ih][iw][c];
                  acc = max ? std::max(acc, v) : acc + v;
                  ++count;
                }
            ya[n][od][oh][ow][c] = max ? acc : acc / count;
          }
  return y;
}

std::string Five(const D3& v) { return IntList({1, v[0], v[1], v[2], 1}); }

TEST(Forward3dKernelsTest, Conv3DSamePutsTheOddPaddingAtTheEndAndMatchesNaiveLoop) {
  // Depth 6, window 3, stride 2: output 3, one padding row, after. Height 5,
  // window 3 dilated by 2 (5 wide), stride 1: two rows each side. Width 4,
  // window 2: one column, after.
  const at::Tensor x = Random({2, 6, 5, 4, 3}, 1), f = Random({3, 3, 2, 3, 4}, 2);
  Geometry g;
  g.stride = {2, 1, 1};
  g.dilation = {1, 2, 1};
  g.before = {0, 2, 0};
  g.out = {3, 5, 4};
  const std::string attrs = Attr("strides", Five(g.stride)) + Attr("dilations", Five(g.dilation)) +
                            Attr("padding", Str("SAME"));
  ExpectClose(Eval("Conv3D", {x, f}, attrs), NaiveConv3d(x, f, g));
}

TEST(Forward3dKernelsTest, GroupedConv3DReadsEachGroupsChannels) {
  // Input depth 4 on a filter of depth 2: two groups of 3 output channels.
  const at::Tensor x = Random({1, 3, 4, 4, 4}, 3), f = Random({2, 2, 2, 2, 6}, 4);
  Geometry g;
  g.out = {2, 3, 3};
  const std::string attrs = Attr("strides", Five({1, 1, 1})) + Attr("padding", Str("VALID"));
  ExpectClose(Eval("Conv3D", {x, f}, attrs), NaiveConv3d(x, f, g));
}

TEST(Forward3dKernelsTest, Conv3DNcdhwMatchesNdhwc) {
  const at::Tensor x = Random({1, 4, 5, 6, 2}, 5), f = Random({2, 3, 3, 2, 3}, 6);
  Geometry g;
  g.stride = {1, 2, 2};
  g.before = {0, 1, 0};
  g.out = {4, 3, 3};
  const at::Tensor ncdhw =
      Eval("Conv3D", {x.permute({0, 4, 1, 2, 3}).contiguous(), f},
           Attr("strides", IntList({1, 1, 1, 2, 2})) + Attr("padding", Str("SAME")) +
               Attr("data_format", Str("NCDHW")));
  ExpectClose(ncdhw.permute({0, 2, 3, 4, 1}), NaiveConv3d(x, f, g));
}

TEST(Forward3dKernelsTest, SamePoolsReadOnlyRealElements) {
  // Windows 2x3x2 at strides 2x2x1 on 5x5x3: SAME pads depth 1 (after),
  // height 2 (one each side), width 1 (after).
  const at::Tensor x = Random({2, 5, 5, 3, 2}, 7);
  const D3 k = {2, 3, 2};
  Geometry g;
  g.stride = {2, 2, 1};
  g.before = {0, 1, 0};
  g.out = {3, 3, 3};
  const std::string attrs =
      Attr("ksize", Five(k)) + Attr("strides", Five(g.stride)) + Attr("padding", Str("SAME"));
  ExpectClose(Eval("MaxPool3D", {x}, attrs), NaivePool3d(x, true, k, g));
  ExpectClose(Eval("AvgPool3D", {x}, attrs), NaivePool3d(x, false, k, g));
  // Channels first: the same numbers.
  const at::Tensor ncdhw =
      Eval("AvgPool3D", {x.permute({0, 4, 1, 2, 3}).contiguous()},
           Attr("ksize", IntList({1, 1, 2, 3, 2})) + Attr("strides", IntList({1, 1, 2, 2, 1})) +
               Attr("padding", Str("SAME")) + Attr("data_format", Str("NCDHW")));
  ExpectClose(ncdhw.permute({0, 2, 3, 4, 1}), NaivePool3d(x, false, k, g));
}

TEST(Forward3dKernelsTest, MalformedNodesAreErrorsNamingTheProblem) {
  const at::Tensor x = Random({1, 3, 3, 3, 4}, 8), f = Random({2, 2, 2, 3, 2}, 9);
  const std::string valid = Attr("strides", Five({1, 1, 1})) + Attr("padding", Str("VALID"));
  EXPECT_NE(EvalError("Conv3D", {x, f}, valid).find("does not fit input depth 4"),
            std::string::npos);
  EXPECT_NE(EvalError("Conv3D", {Random({1, 3, 3, 4}, 10), f}, valid).find("must be 5-D"),
            std::string::npos);
  EXPECT_NE(EvalError("Conv3D", {x, Random({2, 2, 2, 4, 2}, 11)},
                      valid + Attr("data_format", Str("NHWC")))
                .find("unsupported data_format 'NHWC'"),
            std::string::npos);
  EXPECT_NE(EvalError("Conv3D", {x, Random({2, 2, 2, 4, 2}, 11)},
                      Attr("strides", IntList({1, 1, 1, 1})) + Attr("padding", Str("VALID")))
                .find("strides must have 5 entries"),
            std::string::npos);
  EXPECT_NE(EvalError("MaxPool3D", {x},
                      Attr("ksize", Five({4, 1, 1})) + Attr("strides", Five({1, 1, 1})) +
                          Attr("padding", Str("VALID")))
                .find("exceeds padded input"),
            std::string::npos);
}

}  // namespace
}  // namespace runtime
