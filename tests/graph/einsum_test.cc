#include "graph/einsum.h"

#include <gtest/gtest.h>

namespace graph {
namespace {

TEST(EinsumTest, ExplicitAndImplicitOutputs) {
  auto eq = ParseEinsum("ij,jk->ik");
  ASSERT_TRUE(eq.ok()) << eq.status().message();
  EXPECT_EQ(eq->inputs, (std::vector<std::string>{"ij", "jk"}));
  EXPECT_EQ(eq->output, "ik");
  // Implicit: the subscripts that appear once, alphabetically (NumPy's rule).
  auto implicit = ParseEinsum("ba,ac");
  ASSERT_TRUE(implicit.ok());
  EXPECT_EQ(implicit->output, "bc");
  EXPECT_EQ(implicit->ToString(), "ba,ac->bc");
}

TEST(EinsumTest, EllipsisCoversBroadcastDimensions) {
  auto eq = ParseEinsum("...ij,jk->...ik");
  ASSERT_TRUE(eq.ok());
  EXPECT_EQ(eq->inputs[0], ".ij");
  auto s = EinsumShape(*eq, {Shape({5, 1, 2, 3}), Shape({3, 4})});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(*s, Shape({5, 1, 2, 4}));
  auto b = EinsumShape(*ParseEinsum("...i,...i->..."), {Shape({4, 1, 3}), Shape({2, 3})});
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(*b, Shape({4, 2}));
}

TEST(EinsumTest, UnknownDimensionsStayUnknown) {
  auto s = EinsumShape(*ParseEinsum("ij,jk->ki"), {Shape({-1, 3}), Shape({3, 7})});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, Shape({7, -1}));
}

TEST(EinsumTest, MalformedEquationsAndMismatchedOperandsAreErrors) {
  EXPECT_FALSE(ParseEinsum("ij,jk->iz").ok());   // z belongs to no operand
  EXPECT_FALSE(ParseEinsum("ij->ii").ok());      // repeated output subscript
  EXPECT_FALSE(ParseEinsum("i1,jk->ik").ok());   // not a letter
  EXPECT_FALSE(ParseEinsum("...i...->i").ok());  // two ellipses in a term
  auto eq = ParseEinsum("ij,jk->ik");
  EXPECT_FALSE(EinsumShape(*eq, {Shape({2, 3}), Shape({4, 5})}).ok());     // j is 3 and 4
  EXPECT_FALSE(EinsumShape(*eq, {Shape({2, 3, 1}), Shape({3, 5})}).ok());  // rank
  EXPECT_FALSE(EinsumShape(*eq, {Shape({2, 3})}).ok());                    // one operand
}

}  // namespace
}  // namespace graph
