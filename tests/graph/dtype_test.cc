#include "graph/dtype.h"

#include <gtest/gtest.h>

namespace graph {
namespace {

TEST(DTypeTest, SizesMatchTensorFlowElementWidths) {
  EXPECT_EQ(DTypeSize(DType::kFloat), 4);
  EXPECT_EQ(DTypeSize(DType::kHalf), 2);
  EXPECT_EQ(DTypeSize(DType::kInt64), 8);
  EXPECT_EQ(DTypeSize(DType::kBool), 1);
  EXPECT_EQ(DTypeSize(DType::kString), 0);
}

TEST(DTypeTest, ReferenceTypesFoldIntoValueTypes) {
  EXPECT_EQ(DTypeFromTf(101), DType::kFloat);
  EXPECT_EQ(DTypeFromTf(3), DType::kInt32);
  EXPECT_EQ(DTypeFromTf(99), DType::kInvalid);
}

TEST(DTypeTest, NamesRoundTripThroughTfjsSpelling) {
  for (DType t : {DType::kFloat, DType::kInt32, DType::kHalf, DType::kBool, DType::kInt64}) {
    EXPECT_EQ(DTypeFromName(DTypeName(t)), t);
  }
  EXPECT_EQ(DTypeFromName("float128"), DType::kInvalid);
}

}  // namespace
}  // namespace graph
