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

}  // namespace
}  // namespace graph
