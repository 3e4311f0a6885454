// Kernels of kernels_array.cc against the examples of TensorFlow's op
// documentation and values worked out by hand from its definitions.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/runtime/kernel_test_util.h"

namespace runtime {
namespace {

using namespace kernel_test;  // NOLINT: the helpers this file is written in

at::Tensor Seq(int64_t n, const Int64s& shape) {
  return at::arange(1, n + 1, at::kFloat).reshape(shape);
}

TEST(ArrayKernelsTest, DepthToSpaceMovesDepthIntoBlocksInTensorFlowsOrder) {
  // tf.nn.depth_to_space's documented example: [1, 1, 1, 12] with block 2.
  const at::Tensor x = Seq(12, {1, 1, 1, 12});
  const at::Tensor want = F({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {1, 2, 2, 3});
  ExpectClose(Eval("DepthToSpace", {x}, Attr("block_size", Int(2))), want);
  ExpectClose(Eval("SpaceToDepth", {want}, Attr("block_size", Int(2))), x);
  // A larger round trip.
  const at::Tensor y = Random({2, 4, 6, 3}, 51);
  ExpectClose(Eval("DepthToSpace", {Eval("SpaceToDepth", {y}, Attr("block_size", Int(2)))},
                   Attr("block_size", Int(2))),
              y);
  EXPECT_NE(EvalError("DepthToSpace", {Seq(6, {1, 1, 1, 6})}, Attr("block_size", Int(2))), "");
}

TEST(ArrayKernelsTest, TopKPutsEqualValuesInIndexOrder) {
  auto out = EvalAll("TopKV2", {F({1, 3, 3, 2, 0, 5, 5, 5}, {2, 4}), Scalar(2)});
  ASSERT_EQ(out.size(), 2u);
  ExpectClose(out[0], F({3, 3, 5, 5}, {2, 2}));
  ExpectEqual(out[1], I({1, 2, 1, 2}, {2, 2}));
  EXPECT_NE(EvalError("TopKV2", {F({1, 2}, {2}), Scalar(3)}), "");
}

TEST(ArrayKernelsTest, MirrorPadReflectsOrRepeatsTheEdge) {
  // tf.pad's documented REFLECT and SYMMETRIC examples.
  const at::Tensor t = Seq(6, {2, 3});
  const at::Tensor p = I({1, 1, 2, 2}, {2, 2});
  ExpectClose(
      Eval("MirrorPad", {t, p}, Attr("mode", Str("REFLECT"))),
      F({6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1},
        {4, 7}));
  ExpectClose(
      Eval("MirrorPad", {t, p}, Attr("mode", Str("SYMMETRIC"))),
      F({2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6, 6, 5},
        {4, 7}));
  // REFLECT pads at most size - 1.
  EXPECT_NE(EvalError("MirrorPad", {t, I({2, 0, 0, 0}, {2, 2})}, Attr("mode", Str("REFLECT"))), "");
  // The gradient counts how often each element was copied: [b, a, b, c, b].
  ExpectClose(
      Eval("MirrorPadGrad", {at::ones({5}), I({1, 1}, {1, 2})}, Attr("mode", Str("REFLECT"))),
      F({1, 3, 1}, {3}));
}

// Gradients computed as their forward op's VJP ran the forward kernel without
// the executor's host copies, so on a GPU it read the paddings (or the
// slice's begin, end and strides) off the device: a sync every step. Here the
// device copies are wrong and only the host copies right.
TEST(ArrayKernelsTest, GradientsThroughTheirForwardOpReadTheHostCopiesTheyAreGiven) {
  std::vector<at::Tensor> out;
  const at::Tensor none;
  ASSERT_TRUE(RunKernel("MirrorPadGrad", {at::ones({5}), I({0, 0}, {1, 2})},
                        Attr("mode", Str("REFLECT")), &out, {none, I({1, 1}, {1, 2})})
                  .ok());
  ASSERT_EQ(out.size(), 1u);
  ExpectClose(out[0], F({1, 3, 1}, {3}));
  // x[1:3] of a [4]: dy lands at 1 and 2.
  out.clear();
  ASSERT_TRUE(RunKernel("StridedSliceGrad",
                        {I({4}, {1}), I({0}, {1}), I({4}, {1}), I({1}, {1}), F({5, 7}, {2})}, "",
                        &out, {I({4}, {1}), I({1}, {1}), I({3}, {1}), I({1}, {1}), none})
                  .ok());
  ASSERT_EQ(out.size(), 1u);
  ExpectClose(out[0], F({0, 5, 7, 0}, {4}));
}

// A dropped row's values reach no segment, NaN and infinity included; the
// GPU path (run where there is one) multiplied them by 0 into segment 0.
TEST(ArrayKernelsTest, UnsortedSegmentSumDropsNegativeIdsAndTheirValues) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<at::Device> devices = {at::kCPU};
  if (at::hasCUDA()) devices.push_back(at::Device(at::kCUDA, 0));
  for (const at::Device& d : devices) {
    const at::Tensor data = F({1, 2, nan, std::numeric_limits<float>::infinity(), 5, 6}, {3, 2});
    const at::Tensor sum =
        Eval("UnsortedSegmentSum", {data.to(d), I({1, -1, 1}, {3}).to(d), Scalar(2)});
    ExpectClose(sum.cpu(), F({0, 0, 6, 8}, {2, 2}));
    // No segment: nothing to sum into (on a GPU, no device-side assert).
    ExpectClose(
        Eval("UnsortedSegmentSum", {data.to(d), I({-1, -1, -1}, {3}).to(d), Scalar(0)}).cpu(),
        at::zeros({0, 2}));
  }
}

TEST(ArrayKernelsTest, PadV2FillsWithItsConstant) {
  ExpectClose(Eval("PadV2", {F({1, 2}, {2}), I({1, 2}, {1, 2}), F({7}, {})}),
              F({7, 1, 2, 7, 7}, {5}));
}

TEST(ArrayKernelsTest, ResizeNearestNeighborPicksTensorFlowsSourcePixels) {
  // 3 -> 5 rows: legacy floor(y * 0.6), half-pixel floor((y + 0.5) * 0.6), align
  // corners round(y * 0.5) half away from zero.
  const at::Tensor x = Seq(3, {1, 3, 1, 1});
  const at::Tensor size = I({5, 1}, {2});
  auto rows = [&](const std::string& attrs) {
    return Eval("ResizeNearestNeighbor", {x, size}, attrs).reshape({5});
  };
  ExpectClose(rows(""), F({1, 1, 2, 2, 3}, {5}));
  ExpectClose(rows(Attr("half_pixel_centers", Bool(true))), F({1, 1, 2, 3, 3}, {5}));
  ExpectClose(rows(Attr("align_corners", Bool(true))), F({1, 2, 2, 3, 3}, {5}));
  // The gradient sums each output row into its source row.
  ExpectClose(
      Eval("ResizeNearestNeighborGrad", {Seq(5, {1, 5, 1, 1}), I({3, 1}, {2})}).reshape({3}),
      F({1 + 2, 3 + 4, 5}, {3}));
}

TEST(ArrayKernelsTest, SplitVTakesOneFreeSize) {
  auto out = EvalAll("SplitV", {Seq(6, {6}), I({1, -1, 2}, {3}), Scalar(0)});
  ASSERT_EQ(out.size(), 3u);
  ExpectClose(out[1], F({2, 3, 4}, {3}));
  EXPECT_NE(EvalError("SplitV", {Seq(6, {6}), I({1, 2}, {2}), Scalar(0)}), "");
}

TEST(ArrayKernelsTest, SizeAndRank) {
  ExpectEqual(Eval("Size", {at::zeros({2, 3})}), at::scalar_tensor(6, at::kInt));
  ExpectEqual(Eval("Size", {at::zeros({2, 3})}, Attr("out_type", Type("DT_INT64"))),
              at::scalar_tensor(6, at::kLong));
  ExpectEqual(Eval("Rank", {at::zeros({2, 3})}), at::scalar_tensor(2, at::kInt));
}

TEST(ArrayKernelsTest, SparseToDenseScattersValuesOverTheDefault) {
  ExpectClose(
      Eval("SparseToDense", {I({0, 1, 2, 0}, {2, 2}), I({3, 2}, {2}), F({5, 6}, {2}), F({-1}, {})}),
      F({-1, 5, -1, -1, -1, -1}, {3, 2}).index_put_({2, 0}, 6));
  ExpectClose(Eval("SparseToDense", {I({1, 3}, {2}), I({4}, {1}), F({2}, {}), F({0}, {})}),
              F({0, 2, 0, 2}, {4}));
  EXPECT_NE(EvalError("SparseToDense", {I({4}, {1}), I({4}, {1}), F({2}, {}), F({0}, {})}), "");
}

TEST(ArrayKernelsTest, SpaceToBatchAndBackFollowTensorFlowsDocumentedExamples) {
  // tf.space_to_batch_nd's example: [1, 4, 4, 1] with blocks [2, 2].
  const at::Tensor x = Seq(16, {1, 4, 4, 1});
  const at::Tensor want = F({1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16}, {4, 2, 2, 1});
  const at::Tensor block = I({2, 2}, {2}), zero = I({0, 0, 0, 0}, {2, 2});
  ExpectClose(Eval("SpaceToBatchND", {x, block, zero}), want);
  ExpectClose(Eval("BatchToSpaceND", {want, block, zero}), x);
  // Padding then cropping the same amounts is the identity.
  const at::Tensor y = Random({2, 3, 5, 2}, 52), pads = I({1, 0, 0, 1}, {2, 2});
  const at::Tensor s = Eval("SpaceToBatchND", {y, block, pads});
  EXPECT_EQ(s.sizes(), (at::IntArrayRef{8, 2, 3, 2}));
  ExpectClose(Eval("BatchToSpaceND", {s, block, pads}), y);
}

}  // namespace
}  // namespace runtime
