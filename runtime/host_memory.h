// The host allocator's policy while steps execute. LibTorch's cpu tensors come
// from malloc, and glibc's malloc serves large blocks with freshly mapped pages
// and gives freed ones back to the kernel, moving its threshold for "large"
// with the sizes the process happened to free before. A step that allocates an
// activation of a few MiB then pays a page fault per 4 KiB page for it, in some
// steps or processes and not others: nanodet's 5.5 MiB LeakyRelu took 1.1 ms
// in one profile and 0.09 ms in the measurement beside it (docs/simulator.md).
// TensorFlow's executor keeps freed memory in its own allocator (BFC) and pays
// for the pages once; KeepFreedMemory makes malloc do the same: blocks up to
// 32 MiB (glibc's largest mmap threshold) come from its heaps, which are never
// trimmed, so a warmed-up step reuses its pages. Larger blocks are still mapped
// afresh each time.
//
// Thread safety: process-wide and idempotent; call it before the work it is
// for (the executor does when it is created, a search when it is).
#pragma once

#include <cstdint>
#include <optional>

namespace runtime {

// Returns false where the C library offers no such control (not glibc).
bool KeepFreedMemory();

// The host memory new work in this process can have without swapping: the
// kernel's MemAvailable (/proc/meminfo) plus what the process's allocator
// holds free, in bytes; nullopt where the kernel does not say.
std::optional<int64_t> AvailableHostBytes();

}  // namespace runtime
