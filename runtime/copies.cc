#include "runtime/copies.h"

#include <ATen/ATen.h>

namespace runtime {

at::Tensor CopyAcross(const at::Tensor& value, c10::Device where, const cluster::DeviceSpec& from) {
  if (value.is_cuda() && where.is_cpu() && from.pinned_host_copies) {
    const at::TensorOptions pinned = value.options().device(at::kCPU).pinned_memory(true);
    at::Tensor host = value.is_non_overlapping_and_dense()
                          ? at::empty_strided(value.sizes(), value.strides(), pinned)
                          : at::empty(value.sizes(), pinned);
    return host.copy_(value);
  }
  return value.to(where);
}

}  // namespace runtime
