// Helpers shared by the data tests: IDX and gzip bytes built in memory, and a
// fresh scratch directory per test.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

#include "graph/file_util.h"
#include "graph/status.h"
#include "tests/scratch_dir.h"

namespace data::testing {

inline void PutBigEndian32(std::string* s, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s->push_back(static_cast<char>(v >> shift & 0xff));
}

// An IDX file of unsigned bytes; `magic` 0 means the right one for dims.size().
inline std::string Idx(const std::vector<uint32_t>& dims, const std::string& values,
                       uint32_t magic = 0) {
  std::string s;
  PutBigEndian32(&s, magic ? magic : 0x800u + static_cast<uint32_t>(dims.size()));
  for (uint32_t d : dims) PutBigEndian32(&s, d);
  return s + values;
}

// `raw` deflated by zlib: `window_bits` 15 + 16 writes a gzip file, -15 a raw
// deflate stream (a zip entry's).
inline std::string Deflate(const std::string& raw, int window_bits) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, raw.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  zs.avail_in = static_cast<uInt>(raw.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

inline std::string Gzip(const std::string& raw) { return Deflate(raw, 15 + 16); }

// Whether `st` failed with a message containing `part`; prints the message if not.
inline ::testing::AssertionResult FailsWith(const graph::Status& st, const std::string& part) {
  if (st.ok()) return ::testing::AssertionFailure() << "succeeded; expected \"" << part << "\"";
  if (st.message().find(part) == std::string::npos) {
    return ::testing::AssertionFailure()
           << "message \"" << st.message() << "\" lacks \"" << part << "\"";
  }
  return ::testing::AssertionSuccess();
}

// A new empty directory under the test temp dir.
inline std::string ScratchDir() {
  std::string tmpl = planner_test::ScratchDir() + "/data_test_XXXXXX";
  EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

inline std::string Write(const std::string& dir, const std::string& name,
                         const std::string& bytes) {
  std::string path = dir + "/" + name;
  graph::Status st = graph::WriteFileAtomic(path, bytes);
  EXPECT_TRUE(st.ok()) << st.message();
  return path;
}

}  // namespace data::testing
