#include "data/idx.h"

#include <zlib.h>

#include <cassert>
#include <cstdio>

#include "graph/file_util.h"

namespace data {

namespace {

using graph::InvalidArgument;

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

uint32_t BigEndian32(const std::string& b, size_t at) {
  auto u = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(b[at + i])); };
  return u(0) << 24 | u(1) << 16 | u(2) << 8 | u(3);
}

graph::Result<std::string> Gunzip(const std::string& in, const std::string& path) {
  if (static_cast<int64_t>(in.size()) > kMaxIdxBytes) {
    return InvalidArgument(path + ": larger than " + std::to_string(kMaxIdxBytes) + " bytes");
  }
  struct Stream {
    z_stream zs{};
    ~Stream() { inflateEnd(&zs); }  // harmless on a stream init never set up
  } s;
  z_stream& zs = s.zs;
  // 15 + 16: full window, gzip wrapper only (zlib or raw deflate is not a gzip file).
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return graph::Internal(path + ": zlib init failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[1 << 16];
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    int rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - zs.avail_out);
    if (static_cast<int64_t>(out.size()) > kMaxIdxBytes) {
      return InvalidArgument(path + ": decompresses to more than " + std::to_string(kMaxIdxBytes) +
                             " bytes");
    }
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) return out;
      inflateReset(&zs);  // another gzip member follows
    } else if (rc == Z_BUF_ERROR || (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0)) {
      // The input ran out before the member's end marker and checksum.
      return InvalidArgument(path + ": truncated gzip stream");
    } else if (rc != Z_OK) {
      return InvalidArgument(path + ": corrupt gzip data (" +
                             (zs.msg ? zs.msg : "zlib error " + std::to_string(rc)) + ")");
    }
  }
}

}  // namespace

graph::Result<std::string> ReadMaybeGzip(const std::string& path) {
  GRAPH_ASSIGN_OR_RETURN(std::string raw, graph::ReadFile(path));
  if (raw.compare(0, 2, "\x1f\x8b") == 0) return Gunzip(raw, path);
  return raw;
}

graph::Result<IdxArray> ParseIdx(const std::string& bytes, int rank, const std::string& source) {
  assert(rank >= 0 && rank < 256);  // the rank is one byte of the magic
  const uint32_t want = 0x800u + static_cast<uint32_t>(rank);
  if (bytes.size() < 4) {
    return InvalidArgument(source + ": " + std::to_string(bytes.size()) +
                           " bytes is too short for an IDX header");
  }
  uint32_t magic = BigEndian32(bytes, 0);
  if (magic != want) {
    return InvalidArgument(source + ": IDX magic is " + Hex32(magic) + ", expected " + Hex32(want));
  }
  const size_t header = 4 + 4 * static_cast<size_t>(rank);
  if (bytes.size() < header) return InvalidArgument(source + ": truncated IDX header");
  IdxArray a;
  int64_t n = 1;
  std::string dims_text;
  for (int i = 0; i < rank; ++i) {
    int64_t d = BigEndian32(bytes, 4 + 4 * static_cast<size_t>(i));
    // Checked before multiplying: both factors come from the file.
    if (d != 0 && n > kMaxIdxBytes / d) {
      return InvalidArgument(source + ": IDX dimensions describe more than " +
                             std::to_string(kMaxIdxBytes) + " bytes");
    }
    n *= d;
    a.dims.push_back(d);
    dims_text += (i ? "," : "") + std::to_string(d);
  }
  const int64_t have = static_cast<int64_t>(bytes.size() - header);
  if (have != n) {
    return InvalidArgument(source + ": IDX dimensions [" + dims_text + "] need " +
                           std::to_string(n) + " data bytes, file has " + std::to_string(have) +
                           (have < n ? " (truncated)" : " (trailing bytes)"));
  }
  a.values.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
  return a;
}

graph::Result<IdxArray> ReadIdx(const std::string& path, int rank) {
  GRAPH_ASSIGN_OR_RETURN(std::string bytes, ReadMaybeGzip(path));
  return ParseIdx(bytes, rank, path);
}

}  // namespace data
