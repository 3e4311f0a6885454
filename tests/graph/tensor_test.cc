#include "graph/tensor.h"

#include <gtest/gtest.h>

#include <cmath>

namespace graph {
namespace {

TEST(TensorTest, HalfConversionIsExactForRepresentableValues) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f, 5.9604645e-08f}) {
    EXPECT_EQ(HalfToFloat(FloatToHalf(f)), f) << f;
  }
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7c00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
}

TEST(TensorTest, HalfConversionRoundsToNearestTiesToEven) {
  EXPECT_NEAR(HalfToFloat(FloatToHalf(0.1f)), 0.1f, 1e-4);
  EXPECT_EQ(HalfToFloat(FloatToHalf(2049.0f)), 2048.0f);  // tie: down to even
  EXPECT_EQ(HalfToFloat(FloatToHalf(2051.0f)), 2052.0f);  // tie: up to even
  EXPECT_EQ(HalfToFloat(FloatToHalf(2049.5f)), 2050.0f);  // above the tie
  EXPECT_EQ(HalfToFloat(FloatToHalf(1e6f)), INFINITY);
}

TEST(TensorTest, IntegersWidenToInt64) {
  Tensor t = Tensor::FromInt64s(DType::kInt32, Shape({3}), {1, -2, 3});
  EXPECT_EQ(t.ToInt64s(), (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(t.byte_size(), 12);
}

TEST(TensorTest, EmptyIntegerTensorsHaveNoBytes) {  // nanodet has an empty int64 Const
  for (DType type : {DType::kInt32, DType::kInt64}) {
    Tensor t = Tensor::FromInt64s(type, Shape({0}), {});
    EXPECT_EQ(t.byte_size(), 0);
    EXPECT_TRUE(t.ToInt64s().empty());
  }
}

TEST(TensorTest, EqualityComparesTypeShapeAndBytes) {
  Tensor a = Tensor::FromInt64s(DType::kInt32, Shape({2}), {1, 2});
  Tensor b = Tensor::FromInt64s(DType::kInt32, Shape({2}), {1, 2});
  Tensor c = Tensor::FromInt64s(DType::kInt64, Shape({2}), {1, 2});
  Tensor d = Tensor::FromInt64s(DType::kInt32, Shape({1, 2}), {1, 2});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
}

TEST(TensorTest, FloatsConvertToDoubles) {
  float v[2] = {1.5f, -3.0f};
  Tensor t(DType::kFloat, Shape({2}), std::string(reinterpret_cast<char*>(v), 8));
  EXPECT_EQ(t.ToDoubles(), (std::vector<double>{1.5, -3.0}));
  EXPECT_TRUE(t.ToInt64s().empty());
}

// Integers were converted to doubles by converting the whole tensor once per
// element: a million-element OneHot depth or Resize scales took 10^12 steps.
TEST(TensorTest, AMillionIntegersConvertToDoublesInOnePass) {
  std::vector<int64_t> values(1000000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i) - 500000;
  const Tensor t = Tensor::FromInt64s(DType::kInt64, Shape({1000000}), values);
  const std::vector<double> d = t.ToDoubles();
  ASSERT_EQ(d.size(), values.size());
  EXPECT_EQ(d.front(), -500000.0);
  EXPECT_EQ(d.back(), 499999.0);
  EXPECT_EQ(Tensor(DType::kBool, Shape({2}), std::string("\x01\x00", 2)).ToDoubles(),
            (std::vector<double>{1.0, 0.0}));
}

}  // namespace
}  // namespace graph
