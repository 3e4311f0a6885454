// How a tensor moves between devices of different kinds, as the executor moves
// it and the profiler times it: one place, so that the links the profiler fits
// are the copies a step makes.
//
// Thread safety: a pure function of its arguments (LibTorch's allocators are
// thread-safe).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "cluster/devices.h"

namespace runtime {

// `value`, on the device `from` describes, copied to `where` (a device of
// another kind), blocking until the copy is done. Off a GPU with
// `host_copies: pinned` (cluster::DeviceSpec::pinned_host_copies) the copy
// lands in page-locked memory from LibTorch's caching host allocator, in the
// value's own strides; otherwise it is Tensor::to's fresh pageable tensor.
at::Tensor CopyAcross(const at::Tensor& value, c10::Device where, const cluster::DeviceSpec& from);

}  // namespace runtime
