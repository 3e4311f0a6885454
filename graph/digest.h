// Content digests that tie output files (placements) to their inputs (model,
// devices file). FNV-1a 64: no crypto library needed, and collisions are not a
// threat model here, only accidental mix-ups of files.
#pragma once

#include <cstdint>
#include <string>

namespace graph {

inline std::string Fnv1a64Hex(const std::string& bytes) {
  uint64_t hash = 14695981039346656037ULL;
  for (const unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) out[i] = kHex[hash & 0xf];
  return out;
}

}  // namespace graph
