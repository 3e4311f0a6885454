// Internal to runtime/: the constructors of the Device backends, one per
// sibling file (device_cpu.cc, device_cuda.cc), called by MakeDevice (device.cc).
#pragma once

#include <memory>

#include "cluster/devices.h"
#include "graph/status.h"
#include "runtime/device.h"

namespace runtime {

graph::Result<std::unique_ptr<Device>> MakeCpuDevice(const cluster::DeviceSpec& spec);
// Defined in device_cuda.cc where LibTorch has CUDA (PLANNER_CUDA), else in
// device.cc, refusing.
graph::Result<std::unique_ptr<Device>> MakeCudaDevice(const cluster::DeviceSpec& spec);

}  // namespace runtime
