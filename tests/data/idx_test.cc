#include "data/idx.h"

#include <gtest/gtest.h>

#include "tests/data/test_util.h"

namespace data {
namespace {

using testing::FailsWith;
using testing::Gzip;
using testing::Idx;
using testing::ScratchDir;
using testing::Write;

TEST(ParseIdx, ReadsDimsAndValuesBigEndian) {
  auto a = ParseIdx(Idx({2, 3, 1}, "abcdef"), 3, "x.idx");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->dims, (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(std::string(a->values.begin(), a->values.end()), "abcdef");

  // 0x00000102 = 258: the high byte must weigh most.
  auto big = ParseIdx(Idx({258}, std::string(258, '\x07')), 1, "y.idx");
  ASSERT_TRUE(big.ok()) << big.status().message();
  EXPECT_EQ(big->dims[0], 258);
}

TEST(ParseIdx, RejectsWrongMagic) {
  // An image file (rank 3) read where labels (rank 1) are expected.
  auto a = ParseIdx(Idx({1, 1, 1}, "z"), 1, "labels.idx");
  EXPECT_EQ(a.status().code(), graph::StatusCode::kInvalidArgument);
  EXPECT_TRUE(FailsWith(a.status(), "labels.idx: IDX magic is 0x00000803, expected 0x00000801"));
  // Right rank, float elements (type 0x0d): only unsigned bytes are accepted.
  auto f = ParseIdx(Idx({1}, "abcd", 0x00000d01), 1, "f.idx");
  EXPECT_TRUE(FailsWith(f.status(), "f.idx: IDX magic is 0x00000d01"));
}

TEST(ParseIdx, RejectsShortAndTruncatedInput) {
  auto tiny = ParseIdx(std::string("\0\0", 2), 1, "t.idx");
  EXPECT_TRUE(FailsWith(tiny.status(), "t.idx: 2 bytes is too short"));

  std::string header_cut = Idx({5, 28, 28}, "").substr(0, 10);
  auto h = ParseIdx(header_cut, 3, "h.idx");
  EXPECT_TRUE(FailsWith(h.status(), "h.idx: truncated IDX header"));

  auto data = ParseIdx(Idx({2, 2, 2}, "1234567"), 3, "d.idx");
  EXPECT_TRUE(FailsWith(data.status(),
                        "d.idx: IDX dimensions [2,2,2] need 8 data bytes, file has 7 (truncated)"));

  auto extra = ParseIdx(Idx({3}, "1234"), 1, "e.idx");
  EXPECT_TRUE(FailsWith(extra.status(), "file has 4 (trailing bytes)"));
}

TEST(ParseIdx, RejectsHugeDimensionsBeforeAllocating) {
  auto a = ParseIdx(Idx({0xffffffffu, 0xffffffffu, 0xffffffffu}, ""), 3, "huge.idx");
  EXPECT_TRUE(FailsWith(a.status(), "huge.idx: IDX dimensions describe more than"));
}

TEST(ParseIdx, AcceptsEmptyArray) {
  auto a = ParseIdx(Idx({0, 28, 28}, ""), 3, "empty.idx");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE(a->values.empty());
}

TEST(ReadIdx, PlainAndGzippedFilesGiveTheSameArray) {
  std::string dir = ScratchDir();
  std::string bytes = Idx({4, 2, 2}, std::string("0123456789abcdef"));
  auto plain = ReadIdx(Write(dir, "a-idx3-ubyte", bytes), 3);
  auto gz = ReadIdx(Write(dir, "b-idx3-ubyte.gz", Gzip(bytes)), 3);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  ASSERT_TRUE(gz.ok()) << gz.status().message();
  EXPECT_EQ(plain->dims, gz->dims);
  EXPECT_EQ(plain->values, gz->values);
}

TEST(ReadIdx, GzipIsRecognisedByContentNotName) {
  std::string dir = ScratchDir();
  std::string bytes = Idx({3}, "xyz");
  auto a = ReadIdx(Write(dir, "labels.idx", Gzip(bytes)), 1);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->dims[0], 3);
}

TEST(ReadMaybeGzip, ReadsConcatenatedMembersAsOneStream) {
  std::string dir = ScratchDir();
  auto s = ReadMaybeGzip(Write(dir, "two.gz", Gzip("hello, ") + Gzip("world")));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(*s, "hello, world");
}

TEST(ReadMaybeGzip, RejectsTruncatedGzip) {
  std::string dir = ScratchDir();
  std::string gz = Gzip(Idx({1000}, std::string(1000, 'q')));
  std::string path = Write(dir, "cut.gz", gz.substr(0, gz.size() - 6));
  auto s = ReadMaybeGzip(path);
  EXPECT_EQ(s.status().message(), path + ": truncated gzip stream");
  // Cut inside the deflate data rather than in the trailer.
  std::string half = Write(dir, "half.gz", gz.substr(0, gz.size() / 2));
  EXPECT_EQ(ReadMaybeGzip(half).status().message(), half + ": truncated gzip stream");
}

TEST(ReadMaybeGzip, RejectsCorruptGzip) {
  std::string dir = ScratchDir();
  std::string raw;
  for (int i = 0; i < 4000; ++i) raw.push_back(static_cast<char>(i * 7919 % 251));
  std::string gz = Gzip(raw);
  // A flipped byte in the deflate data is caught by the decoder or by the CRC.
  gz[gz.size() / 2] = static_cast<char>(gz[gz.size() / 2] ^ 0x55);
  std::string path = Write(dir, "bad.gz", gz);
  auto s = ReadMaybeGzip(path);
  EXPECT_TRUE(FailsWith(s.status(), path + ": corrupt gzip data ("));

  // A bad checksum alone: the data decode fine, the trailer's CRC-32 does not match.
  std::string crc = Gzip(raw);
  crc[crc.size() - 8] = static_cast<char>(crc[crc.size() - 8] ^ 1);
  auto c = ReadMaybeGzip(Write(dir, "crc.gz", crc));
  EXPECT_TRUE(FailsWith(c.status(), "corrupt gzip data (incorrect data check)"));
}

TEST(ReadMaybeGzip, RejectsGarbageAfterAMember) {
  std::string dir = ScratchDir();
  auto s = ReadMaybeGzip(Write(dir, "tail.gz", Gzip("abc") + "junk"));
  EXPECT_TRUE(FailsWith(s.status(), "tail.gz: corrupt gzip data"));
}

TEST(ReadIdx, MissingFileNamesThePath) {
  auto a = ReadIdx("/nonexistent/dir/x-idx1-ubyte.gz", 1);
  EXPECT_EQ(a.status().code(), graph::StatusCode::kIoError);
  EXPECT_TRUE(FailsWith(a.status(), "/nonexistent/dir/x-idx1-ubyte.gz: cannot open"));
}

TEST(ReadIdx, ErrorsInsideAGzipNameTheFile) {
  std::string dir = ScratchDir();
  std::string path = Write(dir, "short-idx1-ubyte.gz", Gzip(Idx({10}, "12345")));
  auto a = ReadIdx(path, 1);
  EXPECT_TRUE(FailsWith(a.status(), path + ": IDX dimensions [10] need 10 data bytes"));
}

}  // namespace
}  // namespace data
