#include "graph/shape_inference.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace graph {
namespace {

using testing::FloatConst;
using testing::Inferred;
using testing::IntConst;
using testing::OutShape;
using testing::Placeholder;

std::string Conv(const std::string& op, const std::string& padding, int stride,
                 const std::string& extra = "") {
  return "node { name: 'y' op: '" + op + "' input: 'x' input: 'f' " +
         "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'padding' value { s: '" + padding +
         "' } } attr { key: 'strides' value { list { i: 1 i: " + std::to_string(stride) +
         " i: " + std::to_string(stride) + " i: 1 } } } " + extra + "}\n";
}

// A [n, 2] paddings constant.
std::string Paddings(const std::string& name, const std::vector<int64_t>& v, const char* dtype) {
  bool wide = std::string(dtype) == "DT_INT64";
  std::string s = "node { name: '" + name +
                  "' op: 'Const' attr { key: 'value' value { tensor { dtype: " + dtype +
                  " tensor_shape { dim { size: " + std::to_string(v.size() / 2) +
                  " } dim { size: 2 } }";
  for (int64_t x : v) s += (wide ? " int64_val: " : " int_val: ") + std::to_string(x);
  return s + " } } } }\n";
}

TEST(ShapeInferenceTest, ConvSameRoundsUp) {
  Graph g = Inferred(Placeholder("x", {1, 225, 225, 3}) + FloatConst("f", {3, 3, 3, 32}) +
                     Conv("Conv2D", "SAME", 2));
  EXPECT_EQ(OutShape(g, "y"), Shape({1, 113, 113, 32}));
}

TEST(ShapeInferenceTest, ConvValidShrinksByTheDilatedWindow) {
  Graph g = Inferred(Placeholder("x", {2, 32, 32, 8}) + FloatConst("f", {3, 3, 8, 4}) +
                     Conv("Conv2D", "VALID", 1,
                          "attr { key: 'dilations' value { list { i: 1 i: 2 i: 2 i: 1 } } }"));
  EXPECT_EQ(OutShape(g, "y"), Shape({2, 28, 28, 4}));
}

TEST(ShapeInferenceTest, ConvExplicitPaddingAddsPads) {
  Graph g = Inferred(Placeholder("x", {1, 10, 10, 1}) + FloatConst("f", {3, 3, 1, 1}) +
                     Conv("Conv2D", "EXPLICIT", 1,
                          "attr { key: 'explicit_paddings' value { list { i: 0 i: 0 i: 2 i: 2 i: "
                          "1 i: 1 i: 0 i: 0 } } }"));
  EXPECT_EQ(OutShape(g, "y"), Shape({1, 12, 10, 1}));
}

TEST(ShapeInferenceTest, ConvHonoursNchwLayout) {
  Graph g = Inferred(Placeholder("x", {1, 3, 64, 64}) + FloatConst("f", {5, 5, 3, 16}) +
                     "node { name: 'y' op: 'Conv2D' input: 'x' input: 'f' attr { key: 'padding' "
                     "value { s: 'VALID' } } attr { key: 'data_format' value { s: 'NCHW' } } "
                     "attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } } }");
  EXPECT_EQ(OutShape(g, "y"), Shape({1, 16, 60, 60}));
}

TEST(ShapeInferenceTest, Conv3DAndThe3dPoolsReadTheirDepthInEitherLayout) {
  // NDHWC: depth 9, window 3 at stride 2 SAME: 5; height and width 8 VALID 3: 6.
  Graph g = Inferred(
      Placeholder("x", {2, 9, 8, 8, 4}) + FloatConst("f", {3, 3, 3, 2, 6}) +
      "node { name: 'y' op: 'Conv3D' input: 'x' input: 'f' attr { key: 'padding' value { s: "
      "'VALID' } } attr { key: 'strides' value { list { i: 1 i: 2 i: 1 i: 1 i: 1 } } } }\n" +
      "node { name: 'p' op: 'MaxPool3D' input: 'y' attr { key: 'padding' value { s: 'SAME' } } "
      "attr { key: 'ksize' value { list { i: 1 i: 1 i: 3 i: 3 i: 1 } } } attr { key: 'strides' "
      "value { list { i: 1 i: 1 i: 2 i: 2 i: 1 } } } }\n" +
      "node { name: 't' op: 'Placeholder' attr { key: 'shape' value { shape { dim { size: 2 } "
      "dim { size: 6 } dim { size: 4 } dim { size: 3 } dim { size: 3 } } } } }\n" +
      "node { name: 'a' op: 'AvgPool3D' input: 't' attr { key: 'padding' value { s: 'VALID' } } "
      "attr { key: 'data_format' value { s: 'NCDHW' } } attr { key: 'ksize' value { list { i: "
      "1 i: 1 i: 2 i: 3 i: 3 } } } attr { key: 'strides' value { list { i: 1 i: 1 i: 2 i: 1 i: "
      "1 } } } }\n");
  EXPECT_EQ(OutShape(g, "y"), Shape({2, 4, 6, 6, 6}));  // grouped: depth 4 on filter depth 2
  EXPECT_EQ(OutShape(g, "p"), Shape({2, 4, 3, 3, 6}));
  EXPECT_EQ(OutShape(g, "a"), Shape({2, 6, 2, 1, 1}));
}

TEST(ShapeInferenceTest, DepthwiseMultipliesChannels) {
  Graph g = Inferred(Placeholder("x", {1, 16, 16, 8}) + FloatConst("f", {3, 3, 8, 2}) +
                     Conv("DepthwiseConv2dNative", "SAME", 1));
  EXPECT_EQ(OutShape(g, "y"), Shape({1, 16, 16, 16}));
}

TEST(ShapeInferenceTest, ChannelMismatchIsReportedNotFatal) {
  InferenceReport r;
  Graph g = Inferred(
      Placeholder("x", {1, 8, 8, 3}) + FloatConst("f", {3, 3, 4, 8}) + Conv("Conv2D", "SAME", 1),
      &r);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("node 'y' (Conv2D): input has 3 channels"), std::string::npos)
      << r.problems[0];
  EXPECT_FALSE(OutShape(g, "y").known_rank());
}

TEST(ShapeInferenceTest, MatMulHonoursTransposes) {
  Graph g = Inferred(Placeholder("a", {5, 3}) + Placeholder("b", {7, 3}) +
                     "node { name: 'y' op: 'MatMul' input: 'a' input: 'b' attr { key: "
                     "'transpose_b' value { b: true } } }");
  EXPECT_EQ(OutShape(g, "y"), Shape({5, 7}));
}

TEST(ShapeInferenceTest, BatchMatMulBroadcastsBatchDimensions) {
  Graph g = Inferred(Placeholder("a", {4, 1, 5, 3}) + Placeholder("b", {6, 3, 2}) +
                     "node { name: 'y' op: 'BatchMatMulV2' input: 'a' input: 'b' }");
  EXPECT_EQ(OutShape(g, "y"), Shape({4, 6, 5, 2}));
}

TEST(ShapeInferenceTest, ReshapeInfersMinusOne) {
  Graph g = Inferred(Placeholder("x", {2, 3, 4}) + IntConst("s", {-1, 6}) +
                     "node { name: 'y' op: 'Reshape' input: 'x' input: 's' }");
  EXPECT_EQ(OutShape(g, "y"), Shape({4, 6}));
}

TEST(ShapeInferenceTest, ReshapeToWrongSizeIsReported) {
  InferenceReport r;
  Inferred(Placeholder("x", {2, 3}) + IntConst("s", {4, 2}) +
               "node { name: 'y' op: 'Reshape' input: 'x' input: 's' }",
           &r);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("cannot reshape [2,3]"), std::string::npos);
}

TEST(ShapeInferenceTest, ShapeSliceStackChainIsEvaluatedToAStaticReshape) {
  // What facemesh does: Reshape(x, Pack(StridedSlice(Shape(x), [0], [1], [1]), -1, 2)).
  Graph g =
      Inferred(Placeholder("x", {-1, 16, 16, 12}) + IntConst("b", {0}) + IntConst("e", {1}) +
                   IntConst("st", {1}) + IntConst("m1", {-1}, true) + IntConst("two", {2}, true) +
                   "node { name: 'shape' op: 'Shape' input: 'x' }"
                   "node { name: 'n' op: 'StridedSlice' input: 'shape' input: 'b' input: 'e' "
                   "input: 'st' attr { key: 'shrink_axis_mask' value { i: 1 } } }"
                   "node { name: 'target' op: 'Pack' input: 'n' input: 'm1' input: 'two' attr "
                   "{ key: 'N' value { i: 3 } } }"
                   "node { name: 'y' op: 'Reshape' input: 'x' input: 'target' }",
               nullptr, InferenceOptions{4});
  EXPECT_EQ(OutShape(g, "n"), Shape::Scalar());
  EXPECT_EQ(OutShape(g, "y"), Shape({4, 1536, 2}));
}

TEST(ShapeInferenceTest, StridedSliceHandlesMasksEllipsisAndNegativeStride) {
  std::string base = Placeholder("x", {8, 6, 4});
  // x[..., ::-1] with a new axis in front: [1, 8, 6, 4]
  Graph g = Inferred(base + IntConst("b", {0, 0, 0}) + IntConst("e", {0, 0, 0}) +
                     IntConst("s", {1, 1, -1}) +
                     "node { name: 'y' op: 'StridedSlice' input: 'x' input: 'b' input: 'e' input: "
                     "'s' attr { key: 'new_axis_mask' value { i: 1 } } attr { key: "
                     "'ellipsis_mask' value { i: 2 } } attr { key: 'begin_mask' value { i: 4 } } "
                     "attr { key: 'end_mask' value { i: 4 } } }");
  EXPECT_EQ(OutShape(g, "y"), Shape({1, 8, 6, 4}));
  // x[1:7:2, -1] -> [3, 4]
  Graph h = Inferred(base + IntConst("b", {1, -1}) + IntConst("e", {7, 0}) + IntConst("s", {2, 1}) +
                     "node { name: 'y' op: 'StridedSlice' input: 'x' input: 'b' input: 'e' input: "
                     "'s' attr { key: 'shrink_axis_mask' value { i: 2 } } }");
  EXPECT_EQ(OutShape(h, "y"), Shape({3, 4}));
}

TEST(ShapeInferenceTest, ConcatSumsTheAxisAndEvaluatesConstants) {
  Graph g =
      Inferred(IntConst("a", {1, 2}) + IntConst("b", {3}) + IntConst("axis", {0}, true) +
               "node { name: 'c' op: 'ConcatV2' input: 'a' input: 'b' input: 'axis' }" +
               Placeholder("x", {6}) + "node { name: 'y' op: 'Reshape' input: 'x' input: 'c' }");
  EXPECT_EQ(OutShape(g, "c"), Shape({3}));
  // [1,2,3] has 6 elements: the reshape target was evaluated from the concat.
  EXPECT_EQ(OutShape(g, "y"), Shape({1, 2, 3}));
}

// An empty constant may have huge sizes before its 0: folding Concat, Pack or
// Gather of it looped over the product of those (2^40 and more iterations
// of nothing) before it reached the 0.
TEST(ShapeInferenceTest, FoldingEmptyConstantsDoesNotLoopOverTheirOtherSizes) {
  const std::string big = std::to_string((int64_t{1} << 40) + 1);
  const std::string empty =
      "node { name: 'e' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: "
      "'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: " +
      big + " } dim { size: " + big + " } dim { size: 0 } } } } } }\n";
  Graph g = Inferred(empty + IntConst("two", {2}, true) + IntConst("one", {1}, true) +
                     IntConst("idx", {0}) +
                     "node { name: 'c' op: 'ConcatV2' input: 'e' input: 'e' input: 'two' }"
                     "node { name: 'p' op: 'Pack' input: 'e' input: 'e' }"
                     "node { name: 'g' op: 'GatherV2' input: 'e' input: 'idx' input: 'one' }");
  EXPECT_EQ(OutShape(g, "c").ToString(), "[" + big + "," + big + ",0]");
  EXPECT_EQ(OutShape(g, "p").ToString(), "[2," + big + "," + big + ",0]");
  EXPECT_EQ(OutShape(g, "g").ToString(), "[" + big + ",1,0]");
}

TEST(ShapeInferenceTest, SplitAndSplitVDivideTheAxis) {
  Graph g = Inferred(Placeholder("x", {4, 12}) + IntConst("axis", {1}, true) +
                     IntConst("sizes", {2, -1, 3}) +
                     "node { name: 's' op: 'Split' input: 'axis' input: 'x' attr { key: "
                     "'num_split' value { i: 4 } } }"
                     "node { name: 'v' op: 'SplitV' input: 'x' input: 'sizes' input: 'axis' "
                     "attr { key: 'num_split' value { i: 3 } } }");
  EXPECT_EQ(OutShape(g, "s", 3), Shape({4, 3}));
  EXPECT_EQ(OutShape(g, "v", 1), Shape({4, 7}));
}

TEST(ShapeInferenceTest, PoolingAndReductions) {
  Graph g = Inferred(Placeholder("x", {1, 7, 7, 5}) + IntConst("axes", {1, 2}) +
                     "node { name: 'p' op: 'MaxPool' input: 'x' attr { key: 'ksize' value { list "
                     "{ i: 1 i: 3 i: 3 i: 1 } } } attr { key: 'strides' value { list { i: 1 i: 2 "
                     "i: 2 i: 1 } } } attr { key: 'padding' value { s: 'VALID' } } }"
                     "node { name: 'm' op: 'Mean' input: 'x' input: 'axes' attr { key: "
                     "'keep_dims' value { b: true } } }"
                     "node { name: 's' op: 'Sum' input: 'x' input: 'axes' }");
  EXPECT_EQ(OutShape(g, "p"), Shape({1, 3, 3, 5}));
  EXPECT_EQ(OutShape(g, "m"), Shape({1, 1, 1, 5}));
  EXPECT_EQ(OutShape(g, "s"), Shape({1, 5}));
}

TEST(ShapeInferenceTest, GatherReplacesTheAxisWithIndexDims) {
  Graph g =
      Inferred(Placeholder("params", {100, 16}) + Placeholder("ids", {8, 20}, "DT_INT32") +
               IntConst("axis", {0}, true) +
               "node { name: 'y' op: 'GatherV2' input: 'params' input: 'ids' input: 'axis' }");
  EXPECT_EQ(OutShape(g, "y"), Shape({8, 20, 16}));
}

// ScatterNd(indices, updates, shape) without its "T" attribute (as the ONNX
// importer writes it) is of its updates' type, not its shape's: read as int64
// it fell off the training graph's float path, and scatter_add's inputs got no
// gradient.
TEST(ShapeInferenceTest, ScatterNdIsOfItsUpdatesType) {
  Graph g = Inferred(Placeholder("indices", {3, 1}, "DT_INT64") + Placeholder("updates", {3, 4}) +
                     IntConst("shape", {5, 4}) +
                     "node { name: 'y' op: 'ScatterNd' input: 'indices' input: 'updates' "
                     "input: 'shape' }");
  EXPECT_EQ(OutShape(g, "y"), Shape({5, 4}));
  EXPECT_EQ(g.node(g.Find("y")).output_dtypes[0], DType::kFloat);
}

TEST(ShapeInferenceTest, PadTileTransposeFollowTheirConstants) {
  Graph g = Inferred(Placeholder("x", {2, 3}) + Paddings("pads", {1, 1, 0, 2}, "DT_INT32") +
                     IntConst("mult", {2, 1}) + IntConst("perm", {1, 0}) +
                     "node { name: 'p' op: 'Pad' input: 'x' input: 'pads' }"
                     "node { name: 't' op: 'Tile' input: 'x' input: 'mult' }"
                     "node { name: 'r' op: 'Transpose' input: 'x' input: 'perm' }");
  EXPECT_EQ(OutShape(g, "p"), Shape({4, 5}));
  EXPECT_EQ(OutShape(g, "t"), Shape({4, 3}));
  EXPECT_EQ(OutShape(g, "r"), Shape({3, 2}));
}

TEST(ShapeInferenceTest, ResizeTakesItsSizeFromAComputedConstant) {
  Graph g = Inferred(Placeholder("x", {1, 12, 12, 4}) + IntConst("hw", {12, 12}) +
                     IntConst("two", {2}, true) +
                     "node { name: 'size' op: 'Mul' input: 'hw' input: 'two' }"
                     "node { name: 'y' op: 'ResizeBilinear' input: 'x' input: 'size' }");
  EXPECT_EQ(OutShape(g, "y"), Shape({1, 24, 24, 4}));
}

TEST(ShapeInferenceTest, FusedBatchNormV3HasSixOutputs) {
  Graph g = Inferred(Placeholder("x", {2, 4, 4, 8}) + FloatConst("s", {8}) +
                     "node { name: 'bn' op: 'FusedBatchNormV3' input: 'x' input: 's' input: 's' "
                     "input: 's' input: 's' }");
  EXPECT_EQ(g.node(g.Find("bn")).num_outputs(), 6);
  EXPECT_EQ(OutShape(g, "bn", 2), Shape({8}));
}

TEST(ShapeInferenceTest, UnknownOpIsListedAndSizedByItsConsumers) {
  InferenceReport r;
  Graph g = Inferred(Placeholder("x", {2}) +
                         "node { name: 'u' op: 'FancyCustomOp' input: 'x' }"
                         "node { name: 'y' op: 'Relu' input: 'u:2' }",
                     &r);
  EXPECT_EQ(r.unknown_ops, std::vector<std::string>{"FancyCustomOp"});
  EXPECT_EQ(g.node(g.Find("u")).num_outputs(), 3);
  EXPECT_FALSE(OutShape(g, "y").known_rank());
  EXPECT_EQ(r.unknown_shape_nodes.size(), 2u);
}

TEST(ShapeInferenceTest, PlaceholderBatchDimensionIsBoundToTheOption) {
  InferenceReport r;
  Graph g = Inferred(Placeholder("x", {-1, 10}), &r, InferenceOptions{32});
  EXPECT_EQ(OutShape(g, "x"), Shape({32, 10}));
  EXPECT_EQ(r.bound_placeholders.size(), 1u);
}

TEST(ShapeInferenceTest, IncompatibleBroadcastIsReported) {
  InferenceReport r;
  Inferred(Placeholder("a", {3, 4}) + Placeholder("b", {5}) +
               "node { name: 'y' op: 'AddV2' input: 'a' input: 'b' }",
           &r);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("do not broadcast"), std::string::npos);
}

TEST(ShapeInferenceTest, ReadingAMissingOutputIsReported) {
  InferenceReport r;
  Inferred(Placeholder("a", {3}) + "node { name: 'y' op: 'Relu' input: 'a:1' }", &r);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("reads output 1 of 'a', which has 1"), std::string::npos);
}

TEST(ShapeInferenceTest, UnpackRangeFillAndExpandDims) {
  Graph g =
      Inferred(Placeholder("x", {3, 5}) + IntConst("zero", {0}, true) +
               IntConst("ten", {10}, true) + IntConst("two", {2}, true) + IntConst("dims", {2, 3}) +
               "node { name: 'u' op: 'Unpack' input: 'x' attr { key: 'num' value { i: 3 } } }"
               "node { name: 'r' op: 'Range' input: 'zero' input: 'ten' input: 'two' }"
               "node { name: 'f' op: 'Fill' input: 'dims' input: 'two' }"
               "node { name: 'e' op: 'ExpandDims' input: 'x' input: 'zero' }");
  EXPECT_EQ(OutShape(g, "u", 2), Shape({5}));
  EXPECT_EQ(OutShape(g, "r"), Shape({5}));
  EXPECT_EQ(OutShape(g, "f"), Shape({2, 3}));
  EXPECT_EQ(OutShape(g, "e"), Shape({1, 3, 5}));
}

TEST(ShapeInferenceTest, EinsumSparseToDenseAndSpaceToBatchShapes) {
  Graph g = Inferred(
      Placeholder("a", {2, 3}) + Placeholder("b", {5, 3, 4}) + Placeholder("img", {2, 5, 6, 3}) +
      IntConst("block", {2, 2}) + Paddings("pads", {1, 0, 0, 2}, "DT_INT32") +
      IntConst("idx", {0, 2}) + IntConst("shape", {4}) + IntConst("vals", {7, 9}) +
      IntConst("dflt", {1}, true) +
      "node { name: 'e' op: 'Einsum' input: 'a' input: 'b' attr { key: 'equation' value { s: "
      "'ij,kjl->kil' } } attr { key: 'T' value { type: DT_FLOAT } } }"
      "node { name: 'e2' op: 'Einsum' input: 'a' attr { key: 'equation' value { s: 'ij' } } }"
      "node { name: 'sd' op: 'SparseToDense' input: 'idx' input: 'shape' input: 'vals' "
      "input: 'dflt' }"
      "node { name: 's2b' op: 'SpaceToBatchND' input: 'img' input: 'block' input: 'pads' }"
      "node { name: 'b2s' op: 'BatchToSpaceND' input: 's2b' input: 'block' input: 'pads' }");
  EXPECT_EQ(OutShape(g, "e"), Shape({5, 2, 4}));
  EXPECT_EQ(OutShape(g, "e2"), Shape({2, 3}));  // implicit output: subscripts in order
  EXPECT_EQ(OutShape(g, "sd"), Shape({4}));
  EXPECT_EQ(OutShape(g, "s2b"), Shape({8, 3, 4, 3}));
  EXPECT_EQ(OutShape(g, "b2s"), Shape({2, 5, 6, 3}));
  // Integer SparseToDense results are evaluated: converters build shapes this way.
  const Node& sd = g.node(g.Find("sd"));
  ASSERT_TRUE(sd.output_values[0].valid());
  EXPECT_EQ(sd.output_values[0].ToInt64s(), (std::vector<int64_t>{7, 1, 9, 1}));
}

TEST(ShapeInferenceTest, FloatRangeFromACastShapeIsStatic) {
  // movenet-multipose's grid: Range(0.0, float(height), 1.0).
  Graph g = Inferred(
      Placeholder("x", {1, 6, 4}) +
      "node { name: 's' op: 'Shape' input: 'x' attr { key: 'out_type' value { type: DT_INT32 } } "
      "}" +
      IntConst("one", {1}) + IntConst("two", {2}) +
      "node { name: 'h' op: 'StridedSlice' input: 's' input: 'one' input: 'two' input: 'one' "
      "attr { key: 'shrink_axis_mask' value { i: 1 } } }"
      "node { name: 'hf' op: 'Cast' input: 'h' attr { key: 'SrcT' value { type: DT_INT32 } } "
      "attr { key: 'DstT' value { type: DT_FLOAT } } }"
      "node { name: 'zero' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: "
      "'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }"
      "node { name: 'step' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: "
      "'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }"
      "node { name: 'r' op: 'Range' input: 'zero' input: 'hf' input: 'step' "
      "attr { key: 'Tidx' value { type: DT_FLOAT } } }");
  EXPECT_EQ(OutShape(g, "r"), Shape({6}));
}

TEST(ShapeInferenceTest, InputShapesReplaceDeclaredOnesAndAreChecked) {
  const std::string text = Placeholder("img", {1, -1, -1, 3});
  InferenceOptions opts;
  opts.input_shapes["img"] = {1, 8, 6, 3};
  Graph g = Inferred(text, nullptr, opts);
  EXPECT_EQ(OutShape(g, "img"), Shape({1, 8, 6, 3}));
  EXPECT_EQ(FirstUnknownInput(g), -1);
  EXPECT_TRUE(CheckInputShapes(g, opts).ok());
  Graph open = Inferred(text);
  EXPECT_EQ(FirstUnknownInput(open), open.Find("img"));

  InferenceOptions bad;
  bad.input_shapes["img"] = {1, 8, 6};
  EXPECT_EQ(CheckInputShapes(g, bad).message(),
            "--input-shape img=[1,8,6] does not fit its declared shape [1,?,?,3]");
  bad.input_shapes = {{"image", {1, 8, 6, 3}}};
  EXPECT_EQ(CheckInputShapes(g, bad).message(),
            "--input-shape names 'image', which is not an input (inputs: img)");
}

}  // namespace
}  // namespace graph

namespace graph {
namespace {

using testing::Inferred;
using testing::IntConst;
using testing::OutShape;
using testing::Placeholder;

// Sizes a hostile file can ask for must be refused or left unknown, never
// allocated or overflowed (these ran out of memory or overflowed before).
struct Hostile {
  const char* what;
  std::string graph;
};

class HostileSizeTest : public ::testing::TestWithParam<Hostile> {};

TEST_P(HostileSizeTest, IsReportedOrUnknownWithoutAllocating) {
  InferenceReport r;
  Graph g = Inferred(GetParam().graph, &r);
  const Shape& y = OutShape(g, "y");
  // Either the rule refused it, or the shape is well-formed (no dimension below -1).
  if (r.problems.empty()) {
    for (int64_t d : y.dims()) EXPECT_GE(d, -1) << GetParam().what;
  }
}

std::string Int64Const(const std::string& name, const std::vector<int64_t>& vals, bool scalar) {
  std::string s = "node { name: '" + name +
                  "' op: 'Const' attr { key: 'value' value { tensor { dtype: DT_INT64 "
                  "tensor_shape {";
  if (!scalar) s += " dim { size: " + std::to_string(vals.size()) + " }";
  s += " }";
  for (int64_t v : vals) s += " int64_val: " + std::to_string(v);
  return s + " } } } }\n";
}

INSTANTIATE_TEST_SUITE_P(
    ShapeRules, HostileSizeTest,
    ::testing::Values(
        Hostile{"slice of an unknown dim by 1e15",
                Placeholder("x", {2, -1}) + IntConst("b", {0, 0}) +
                    Int64Const("s", {1, 1000000000000000}, false) +
                    "node { name: 'y' op: 'Slice' input: 'x' input: 'b' input: 's' }"},
        Hostile{"strided slice of a 4e9 dimension",
                Placeholder("x", {5, 4000000000}) + IntConst("b", {0}) + IntConst("e", {2}) +
                    IntConst("s", {1}) +
                    "node { name: 'y' op: 'StridedSlice' input: 'x' input: 'b' input: 'e' "
                    "input: 's' }"},
        Hostile{"strided slice with int64 extremes",
                Placeholder("x", {5}) + Int64Const("b", {INT64_MAX}, false) +
                    Int64Const("e", {INT64_MIN + 1}, false) +
                    Int64Const("s", {INT64_MIN + 1}, false) +
                    "node { name: 'y' op: 'StridedSlice' input: 'x' input: 'b' input: 'e' "
                    "input: 's' }"},
        Hostile{"range of 2e9 elements",
                IntConst("a", {0}, true) + IntConst("b", {2000000000}, true) +
                    IntConst("d", {1}, true) +
                    "node { name: 'y' op: 'Range' input: 'a' input: 'b' input: 'd' }"},
        Hostile{"range of 1e18 elements",
                Int64Const("a", {0}, true) + Int64Const("b", {1000000000000000000}, true) +
                    Int64Const("d", {1}, true) +
                    "node { name: 'y' op: 'Range' input: 'a' input: 'b' input: 'd' }"},
        Hostile{"fill whose shape vector has 3e9 entries",
                Placeholder("dims", {3000000000}, "DT_INT32") + IntConst("v", {1}, true) +
                    "node { name: 'y' op: 'Fill' input: 'dims' input: 'v' }"},
        Hostile{"reshape to an overflowing target",
                Placeholder("x", {4}) + Int64Const("s", {4611686018427387904, 4, -1}, false) +
                    "node { name: 'y' op: 'Reshape' input: 'x' input: 's' }"},
        Hostile{"tile overflowing int64",
                Placeholder("x", {3037000500}) + Int64Const("m", {3037000500}, false) +
                    "node { name: 'y' op: 'Tile' input: 'x' input: 'm' }"},
        Hostile{"pad overflowing int64", Placeholder("x", {9223372036854775000}) +
                                             Paddings("p", {1000, 1000}, "DT_INT64") +
                                             "node { name: 'y' op: 'Pad' input: 'x' input: 'p' }"},
        Hostile{"split into a billion outputs",
                Placeholder("x", {4}) + IntConst("a", {0}, true) +
                    "node { name: 'y' op: 'Split' input: 'a' input: 'x' attr { key: "
                    "'num_split' value { i: 1000000000 } } }"},
        Hostile{"unpack into a billion outputs",
                Placeholder("x", {-1, 2}) +
                    "node { name: 'y' op: 'Unpack' input: 'x' attr { key: 'num' value { i: "
                    "1000000000 } } }"},
        Hostile{"floor division of INT64_MIN by -1",
                Int64Const("a", {INT64_MIN}, false) + Int64Const("b", {-1}, false) +
                    "node { name: 'y' op: 'FloorDiv' input: 'a' input: 'b' }"},
        Hostile{"product overflowing int64",
                Int64Const("a", {INT64_MAX, 2}, false) + IntConst("axis", {0}, true) +
                    "node { name: 'y' op: 'Prod' input: 'a' input: 'axis' }"},
        Hostile{"depth to space with a 2^32 block",
                Placeholder("x", {1, 2, 2, 16}) +
                    "node { name: 'y' op: 'DepthToSpace' input: 'x' attr { key: 'block_size' "
                    "value { i: 4294967296 } } }"},
        Hostile{"conv with a huge dilation",
                Placeholder("x", {1, 8, 8, 1}) + testing::FloatConst("f", {3, 3, 1, 1}) +
                    "node { name: 'y' op: 'Conv2D' input: 'x' input: 'f' attr { key: 'padding' "
                    "value { s: 'VALID' } } attr { key: 'dilations' value { list { i: 1 i: "
                    "9223372036854775807 i: 1 i: 1 } } } }"},
        Hostile{"strided slice with 65 dimensions",
                Placeholder("x", {2}) + IntConst("b", std::vector<int64_t>(65, 0)) +
                    IntConst("e", std::vector<int64_t>(65, 1)) +
                    IntConst("s", std::vector<int64_t>(65, 1)) +
                    "node { name: 'y' op: 'StridedSlice' input: 'x' input: 'b' input: 'e' "
                    "input: 's' attr { key: 'new_axis_mask' value { i: -1 } } }"}),
    [](const auto& info) { return "Case" + std::to_string(info.index); });

TEST(ShapeInferenceTest, HugeOutputIndexIsAMalformedInput) {
  auto g = ParseTextGraphDef(
      Placeholder("a", {1}) + "node { name: 'y' op: 'Relu' input: 'a:99999999' }", "idx.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("malformed input 'a:99999999'"), std::string::npos);
}

}  // namespace
}  // namespace graph
