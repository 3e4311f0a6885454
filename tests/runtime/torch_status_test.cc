#include "runtime/torch_status.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace runtime {
namespace {

TEST(TorchStatusTest, NothingThrownIsOkWithoutBuildingTheMessage) {
  int built = 0, ran = 0;
  graph::Status st = Catching(
      [&] {
        ++built;
        return std::string("x");
      },
      [&] { ++ran; });
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(built, 0);
}

TEST(TorchStatusTest, ALibTorchErrorIsInternalWithItsFirstLine) {
  graph::Status st = Catching([] { return std::string("copying 'a'"); },
                              [] { TORCH_CHECK(false, "bad things\nat frame 2"); });
  EXPECT_EQ(st.code(), graph::StatusCode::kInternal);
  EXPECT_EQ(st.message(), "copying 'a': bad things");
}

TEST(TorchStatusTest, AnAllocatorRunningOutIsOutOfMemory) {
  graph::Status st =
      Catching([] { return std::string("feed 'x'"); },
               [] { TORCH_CHECK_WITH(OutOfMemoryError, false, "tried to allocate"); });
  EXPECT_EQ(st.code(), graph::StatusCode::kOutOfMemory);
  EXPECT_EQ(st.message(), "feed 'x': tried to allocate");
}

TEST(TorchStatusTest, OtherExceptionsAreInternalToo) {
  graph::Status st =
      Catching([] { return std::string("w"); }, [] { throw std::runtime_error("plain"); });
  EXPECT_EQ(st.code(), graph::StatusCode::kInternal);
  EXPECT_EQ(st.message(), "w: plain");
}

}  // namespace
}  // namespace runtime
