#include "runtime/flush_denormals.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

namespace runtime {
namespace {

// Computed at run time, so that the compiler cannot fold it under its own mode.
float Halve(float x) {
  volatile float v = x;
  return v / 2;
}

#ifdef RUNTIME_HAS_MXCSR
TEST(ScopedFlushDenormalsTest, DenormalsBecomeZeroOnlyWhileTheGuardLives) {
  const float smallest_normal = FLT_MIN;
  EXPECT_EQ(std::fpclassify(Halve(smallest_normal)), FP_SUBNORMAL);
  {
    ScopedFlushDenormals flush;
    EXPECT_EQ(Halve(smallest_normal), 0.0f);
    EXPECT_EQ(Halve(2 * smallest_normal), smallest_normal) << "normal results are untouched";
  }
  EXPECT_EQ(std::fpclassify(Halve(smallest_normal)), FP_SUBNORMAL);
}

TEST(ScopedFlushDenormalsTest, NestedGuardsRestoreTheModeTheyFound) {
  const unsigned before = _mm_getcsr();
  {
    ScopedFlushDenormals outer;
    const unsigned flushed = _mm_getcsr();
    {
      ScopedFlushDenormals inner;
      EXPECT_EQ(_mm_getcsr(), flushed);
    }
    EXPECT_EQ(_mm_getcsr(), flushed);
    EXPECT_EQ(Halve(FLT_MIN), 0.0f);
  }
  EXPECT_EQ(_mm_getcsr(), before);
}
#else
TEST(ScopedFlushDenormalsTest, SkippedWithoutMxcsr) { GTEST_SKIP() << "not an x86 target"; }
#endif

}  // namespace
}  // namespace runtime
