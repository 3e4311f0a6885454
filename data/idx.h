// Reader for IDX files, the array format of MNIST and Fashion-MNIST: a big-endian
// magic 0x000008RR (unsigned bytes, rank RR), RR big-endian uint32 dimensions,
// then the elements row-major. Gzip-compressed files (how Debian ships them) are
// decompressed transparently, recognised by content rather than by extension.
//
// Ownership: results are plain values owned by the caller. Thread safety: pure
// functions of their arguments; safe to call concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/status.h"

namespace data {

// Larger inputs are rejected so a hostile header or gzip bomb cannot exhaust
// memory; Fashion-MNIST's largest file is 47 MB.
constexpr int64_t kMaxIdxBytes = int64_t{1} << 30;

struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> values;  // product of dims elements, row-major
};

// The file's bytes, gunzipped when they start with the gzip magic (1f 8b).
// Concatenated gzip members are read as one stream, as gunzip does.
graph::Result<std::string> ReadMaybeGzip(const std::string& path);

// Parses an IDX array of unsigned bytes with `rank` dimensions from `bytes`;
// `source` names the file in error messages. The magic must be 0x00000800 + rank
// and the data must be exactly as long as the dimensions say.
graph::Result<IdxArray> ParseIdx(const std::string& bytes, int rank, const std::string& source);

// ReadMaybeGzip then ParseIdx.
graph::Result<IdxArray> ReadIdx(const std::string& path, int rank);

}  // namespace data
