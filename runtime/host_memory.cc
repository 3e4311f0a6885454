#include "runtime/host_memory.h"

#include <climits>
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

}  // namespace runtime
