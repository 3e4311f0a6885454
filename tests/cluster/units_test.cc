#include "cluster/units.h"

#include <gtest/gtest.h>

#include <string>

namespace cluster {
namespace {

// Checks that parsing fails with a one-line message containing `problem`.
template <typename T>
void ExpectRejected(const graph::Result<T>& result, const std::string& problem) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), graph::StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find(problem), std::string::npos)
      << result.status().message();
  EXPECT_EQ(result.status().message().find('\n'), std::string::npos);
}

TEST(ParseBytesTest, ReadsPlainNumberAsBytes) {
  EXPECT_EQ(*ParseBytes("1048576"), 1048576);
  EXPECT_EQ(*ParseBytes("0"), 0);
  EXPECT_EQ(*ParseBytes("1e3"), 1000);
  EXPECT_EQ(*ParseBytes("64B"), 64);
}

TEST(ParseBytesTest, SiPrefixesArePowersOfThousand) {
  EXPECT_EQ(*ParseBytes("12GB"), 12000000000);
  EXPECT_EQ(*ParseBytes("12 GB"), 12000000000);
  EXPECT_EQ(*ParseBytes("2kB"), 2000);
  EXPECT_EQ(*ParseBytes("2KB"), 2000);
  EXPECT_EQ(*ParseBytes("3MB"), 3000000);
  EXPECT_EQ(*ParseBytes("1TB"), 1000000000000);
}

TEST(ParseBytesTest, IecPrefixesArePowersOf1024) {
  EXPECT_EQ(*ParseBytes("2KiB"), 2048);
  EXPECT_EQ(*ParseBytes("512MiB"), 536870912);
  EXPECT_EQ(*ParseBytes("12GiB"), 12884901888);
  EXPECT_EQ(*ParseBytes("1.5GiB"), 1610612736);
  EXPECT_EQ(*ParseBytes("1TiB"), 1099511627776);
}

TEST(ParseBytesTest, IgnoresSurroundingWhitespace) {
  EXPECT_EQ(*ParseBytes("  8 GiB "), 8589934592);
}

TEST(ParseBytesTest, RejectsNegativeQuotingTheInput) {
  ExpectRejected(ParseBytes("-1GiB"), "'-1GiB' is negative");
}

TEST(ParseBytesTest, RejectsEmpty) {
  ExpectRejected(ParseBytes(""), "empty");
  ExpectRejected(ParseBytes("   "), "empty");
}

TEST(ParseBytesTest, RejectsUnknownSuffixListingTheKnownOnes) {
  ExpectRejected(ParseBytes("12GX"), "unknown unit 'GX' (expected B, kB");
  ExpectRejected(ParseBytes("12 G"), "unknown unit 'G'");
}

TEST(ParseBytesTest, RejectsOverflow) {
  ExpectRejected(ParseBytes("9000000TiB"), "too large");
  ExpectRejected(ParseBytes("1e400"), "out of range");
}

TEST(ParseBytesTest, RejectsWhatIsNotANumber) {
  for (const char* text : {"abc", "GiB", "inf", "nan", ".", "+5"}) {
    SCOPED_TRACE(text);
    ExpectRejected(ParseBytes(text), "is not a number");
  }
  ExpectRejected(ParseBytes("0x10"), "unknown unit 'x10'");
}

TEST(ParseBandwidthTest, ReadsBytesPerSecondInSiAndIec) {
  EXPECT_DOUBLE_EQ(*ParseBandwidth("15.75GB/s"), 15.75e9);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("12 GiB/s"), 12.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("3.35 TB/s"), 3.35e12);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("500 MB/s"), 500e6);
}

TEST(ParseBandwidthTest, ConvertsBitsToBytes) {
  EXPECT_DOUBLE_EQ(*ParseBandwidth("100Gbit/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("8 bit/s"), 1);
}

TEST(ParseBandwidthTest, ReadsPlainNumberAsBytesPerSecond) {
  EXPECT_DOUBLE_EQ(*ParseBandwidth("1000"), 1000);
}

TEST(ParseBandwidthTest, RejectsSizeWithoutPerSecond) {
  ExpectRejected(ParseBandwidth("12 GB"), "unknown unit 'GB'");
}

TEST(ParseBandwidthTest, RejectsNegative) { ExpectRejected(ParseBandwidth("-1GB/s"), "negative"); }

TEST(ParseDurationTest, ReadsEveryUnit) {
  EXPECT_DOUBLE_EQ(*ParseDuration("10us"), 10e-6);
  EXPECT_DOUBLE_EQ(*ParseDuration("10\xC2\xB5s"), 10e-6);
  EXPECT_DOUBLE_EQ(*ParseDuration("1.5ms"), 1.5e-3);
  EXPECT_DOUBLE_EQ(*ParseDuration("2s"), 2);
  EXPECT_DOUBLE_EQ(*ParseDuration("500ns"), 500e-9);
}

TEST(ParseDurationTest, ReadsPlainNumberAsSeconds) {
  EXPECT_DOUBLE_EQ(*ParseDuration("0.25"), 0.25);
}

TEST(ParseDurationTest, RejectsUnknownUnitAndNegative) {
  ExpectRejected(ParseDuration("10 min"), "unknown unit 'min'");
  ExpectRejected(ParseDuration("-1s"), "negative");
}

TEST(ParseFlopsTest, ReadsPrefixesWithOrWithoutFlopSuffix) {
  EXPECT_DOUBLE_EQ(*ParseFlops("4.29T"), 4.29e12);
  EXPECT_DOUBLE_EQ(*ParseFlops("4.29e12"), 4.29e12);
  EXPECT_DOUBLE_EQ(*ParseFlops("67 TFLOP/s"), 67e12);
  EXPECT_DOUBLE_EQ(*ParseFlops("1.3 TFLOPS"), 1.3e12);
  EXPECT_DOUBLE_EQ(*ParseFlops("500 GFLOP/s"), 500e9);
  EXPECT_DOUBLE_EQ(*ParseFlops("1 PFLOP/s"), 1e15);
  EXPECT_DOUBLE_EQ(*ParseFlops("7 FLOP/s"), 7);
}

TEST(ParseFlopsTest, RejectsUnknownPrefixAndNegative) {
  ExpectRejected(ParseFlops("4.29 X"), "unknown unit 'X'");
  ExpectRejected(ParseFlops("-1T"), "negative");
}

}  // namespace
}  // namespace cluster
