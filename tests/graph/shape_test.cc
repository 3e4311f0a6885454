#include "graph/shape.h"

#include <gtest/gtest.h>

namespace graph {
namespace {

TEST(ShapeTest, UnknownRankIsNotFullyDefined) {
  Shape s;
  EXPECT_FALSE(s.known_rank());
  EXPECT_FALSE(s.FullyDefined());
  EXPECT_EQ(s.NumElements(), -1);
  EXPECT_EQ(s.ToString(), "<unknown>");
}

TEST(ShapeTest, ScalarHasOneElement) {
  EXPECT_EQ(Shape::Scalar().NumElements(), 1);
  EXPECT_EQ(Shape::Scalar().ToString(), "[]");
}

TEST(ShapeTest, UnknownDimensionPrintsAsQuestionMark) {
  Shape s({-1, 10});
  EXPECT_FALSE(s.FullyDefined());
  EXPECT_EQ(s.ToString(), "[?,10]");
}

TEST(ShapeTest, OverflowingElementCountIsUnknown) {
  Shape s({int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_EQ(s.NumElements(), -1);
}

// The product overflowed before reaching the 0, and an empty tensor was
// counted as one too large to count.
TEST(ShapeTest, AShapeWithAZeroHasNoElementsWhateverItsOtherSizes) {
  EXPECT_EQ(Shape({int64_t{1} << 40, int64_t{1} << 40, 0}).NumElements(), 0);
  EXPECT_EQ(Shape({0, int64_t{1} << 40, int64_t{1} << 40}).NumElements(), 0);
}

}  // namespace
}  // namespace graph
