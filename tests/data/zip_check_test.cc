// data/zip_check.h: every entry of a zip archive is checked against its
// CRC-32. The archives are built here byte by byte (stored and deflated entries,
// plain and zip64 directories, sizes deferred to data descriptors as LibTorch's
// writer does); tests/planner/search checks a real LibTorch checkpoint.
#include "data/zip_check.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/data/test_util.h"

namespace data {
namespace {

using testing::FailsWith;
using testing::ScratchDir;
using testing::Write;

void PutLe(std::string* s, uint64_t v, int n) {
  ASSERT_LE(n, 8);
  for (int i = 0; i < n; ++i) s->push_back(static_cast<char>(v >> (8 * i) & 0xff));
}

struct Item {
  std::string name;
  std::string bytes;
  bool deflate = false;
};

// A zip archive of `items`. With `zip64` the directory's sizes and offsets read
// all ones and the real ones are in zip64 records, as a writer does past 4 GiB.
std::string Zip(const std::vector<Item>& items, bool zip64 = false) {
  std::string zip, dir;
  for (const Item& it : items) {
    const std::string packed = it.deflate ? testing::Deflate(it.bytes, -15) : it.bytes;
    const uint32_t crc = static_cast<uint32_t>(crc32(
        0, reinterpret_cast<const Bytef*>(it.bytes.data()), static_cast<uInt>(it.bytes.size())));
    const uint64_t local = zip.size();
    zip += "PK\x03\x04";
    PutLe(&zip, 20, 2);
    PutLe(&zip, 8, 2);  // sizes in a data descriptor
    PutLe(&zip, it.deflate ? 8 : 0, 2);
    PutLe(&zip, 0, 4);  // time, date
    PutLe(&zip, 0, 4);  // crc (deferred)
    PutLe(&zip, 0, 8);  // packed and unpacked sizes (deferred)
    PutLe(&zip, it.name.size(), 2);
    PutLe(&zip, 0, 2);
    zip += it.name + packed;
    zip += "PK\x07\x08";
    PutLe(&zip, crc, 4);
    PutLe(&zip, packed.size(), 4);
    PutLe(&zip, it.bytes.size(), 4);

    std::string extra;
    if (zip64) {
      PutLe(&extra, 1, 2);
      PutLe(&extra, 24, 2);
      PutLe(&extra, it.bytes.size(), 8);
      PutLe(&extra, packed.size(), 8);
      PutLe(&extra, local, 8);
    }
    dir += "PK\x01\x02";
    PutLe(&dir, 45, 2);
    PutLe(&dir, 45, 2);
    PutLe(&dir, 8, 2);
    PutLe(&dir, it.deflate ? 8 : 0, 2);
    PutLe(&dir, 0, 4);
    PutLe(&dir, crc, 4);
    PutLe(&dir, zip64 ? 0xffffffffu : packed.size(), 4);
    PutLe(&dir, zip64 ? 0xffffffffu : it.bytes.size(), 4);
    PutLe(&dir, it.name.size(), 2);
    PutLe(&dir, extra.size(), 2);
    PutLe(&dir, 0, 2 + 2 + 2);
    PutLe(&dir, 0, 4);
    PutLe(&dir, zip64 ? 0xffffffffu : local, 4);
    dir += it.name + extra;
  }
  const uint64_t dir_at = zip.size();
  zip += dir;
  if (zip64) {
    const uint64_t end64_at = zip.size();
    zip += "PK\x06\x06";
    PutLe(&zip, 44, 8);
    PutLe(&zip, 45, 2);
    PutLe(&zip, 45, 2);
    PutLe(&zip, 0, 4 + 4);
    PutLe(&zip, items.size(), 8);
    PutLe(&zip, items.size(), 8);
    PutLe(&zip, dir.size(), 8);
    PutLe(&zip, dir_at, 8);
    zip += "PK\x06\x07";
    PutLe(&zip, 0, 4);
    PutLe(&zip, end64_at, 8);
    PutLe(&zip, 1, 4);
  }
  zip += "PK\x05\x06";
  PutLe(&zip, 0, 2 + 2);
  PutLe(&zip, zip64 ? 0xffff : items.size(), 2);
  PutLe(&zip, zip64 ? 0xffff : items.size(), 2);
  PutLe(&zip, zip64 ? 0xffffffffu : dir.size(), 4);
  PutLe(&zip, zip64 ? 0xffffffffu : dir_at, 4);
  PutLe(&zip, 0, 2);
  return zip;
}

// More than one of the checker's 1 MiB pieces, and compressible.
std::string Large() {
  std::string s;
  for (uint64_t i = 0; s.size() < (size_t{3} << 20); ++i)
    s += std::to_string(i * 7919 % 10007) + ",";
  return s;
}

std::vector<Item> Items() {
  return {{"archive/data.pkl", "pickled scalars", false},
          {"archive/data/0", Large(), false},
          {"archive/code/x.py", Large(), true}};
}

TEST(ZipCheckTest, AnArchiveWhoseEntriesMatchTheirCrcsPasses) {
  const std::string dir = ScratchDir();
  EXPECT_TRUE(CheckZipArchive(Write(dir, "a.zip", Zip(Items()))).ok());
  EXPECT_TRUE(CheckZipArchive(Write(dir, "a64.zip", Zip(Items(), true))).ok());
  EXPECT_TRUE(CheckZipArchive(Write(dir, "empty.zip", Zip({}))).ok());
}

TEST(ZipCheckTest, AByteChangedInAStoredEntryIsNamed) {
  const std::string dir = ScratchDir();
  for (bool zip64 : {false, true}) {
    std::string z = Zip(Items(), zip64);
    z[z.find("archive/data/0") + 14 + 2'000'000] ^= 1;
    EXPECT_EQ(CheckZipArchive(Write(dir, "a.zip", z)).message(),
              dir + "/a.zip: entry 'archive/data/0' does not match its CRC-32 (changed on disk)");
  }
}

TEST(ZipCheckTest, AByteChangedInADeflatedEntryIsNamed) {
  std::string z = Zip(Items());
  z[z.find("archive/code/x.py") + 17 + 100] ^= 0x10;
  EXPECT_TRUE(FailsWith(CheckZipArchive(Write(ScratchDir(), "a.zip", z)),
                        "a.zip: entry 'archive/code/x.py' does "));
}

TEST(ZipCheckTest, ACutOffArchiveIsNotAZipArchive) {
  const std::string z = Zip(Items());
  EXPECT_TRUE(FailsWith(CheckZipArchive(Write(ScratchDir(), "a.zip", z.substr(0, z.size() / 2))),
                        "a.zip: not a zip archive (no end of central directory)"));
  EXPECT_TRUE(FailsWith(CheckZipArchive(Write(ScratchDir(), "t.zip", "devices: []\n")),
                        "t.zip: not a zip archive"));
}

// Bytes taken out of an entry: every offset after it points wrong.
TEST(ZipCheckTest, AnArchiveWithBytesTakenOutOfAnEntryIsRefusedInOneLine) {
  std::string z = Zip(Items());
  const size_t data = z.find("archive/data/0") + 14;
  z.erase(data + 1000, 2'500'000);
  const graph::Status st = CheckZipArchive(Write(ScratchDir(), "a.zip", z));
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.message().find('\n'), std::string::npos) << st.message();
}

TEST(ZipCheckTest, AMissingFileIsAnIoError) {
  EXPECT_EQ(CheckZipArchive("/nonexistent/a.zip").code(), graph::StatusCode::kIoError);
}

}  // namespace
}  // namespace data
