#include "runtime/host_memory.h"

#include <climits>
#include <cstdio>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace runtime {

bool KeepFreedMemory() {
#if defined(__GLIBC__)
  static const bool ok = [] {
    // Setting either value also stops glibc from moving them with freed sizes.
    const bool threshold = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
    const bool trim = mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1;
    return threshold && trim;
  }();
  return ok;
#else
  return false;
#endif
}

std::optional<int64_t> AvailableHostBytes() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return std::nullopt;
  char line[256];
  std::optional<int64_t> out;
  while (std::fgets(line, sizeof line, f)) {
    long long kib = 0;
    if (std::sscanf(line, "MemAvailable: %lld kB", &kib) == 1) {
      out = static_cast<int64_t>(kib) * 1024;
      break;
    }
  }
  std::fclose(f);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  // Blocks this process freed but keeps (KeepFreedMemory) are not in
  // MemAvailable, yet its next step reuses them.
  if (out) *out += static_cast<int64_t>(mallinfo2().fordblks);
#endif
  return out;
}

}  // namespace runtime
