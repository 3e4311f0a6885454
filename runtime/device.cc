#include "runtime/device.h"

#include "runtime/device_backends.h"

namespace runtime {

#ifndef PLANNER_CUDA
graph::Result<std::unique_ptr<Device>> MakeCudaDevice(const cluster::DeviceSpec& spec) {
  return graph::Unimplemented("device '" + spec.name +
                              "' is cuda, and this build's LibTorch has no CUDA (build with "
                              "-DCMAKE_PREFIX_PATH or -DTorch_DIR pointing at a CUDA LibTorch; "
                              "docs/runtime.md)");
}

int CudaDeviceCount() { return 0; }
#endif

graph::Result<std::unique_ptr<Device>> MakeDeviceOfKind(const cluster::DeviceSpec& spec);

graph::Result<std::unique_ptr<Device>> MakeDevice(const cluster::DeviceSpec& spec,
                                                  const std::string& source) {
  graph::Result<std::unique_ptr<Device>> made = MakeDeviceOfKind(spec);
  if (made.ok() || source.empty()) return made;
  return made.status().WithContext(source);
}

graph::Result<std::unique_ptr<Device>> MakeDeviceOfKind(const cluster::DeviceSpec& spec) {
  switch (spec.kind) {
    case cluster::DeviceKind::kCpu:
      return MakeCpuDevice(spec);
    case cluster::DeviceKind::kCuda:
      return MakeCudaDevice(spec);
    case cluster::DeviceKind::kSim:
      return graph::InvalidArgument("device '" + spec.name +
                                    "' is simulated: it can be simulated, not executed on");
  }
  return graph::Internal("unknown device kind");
}

}  // namespace runtime
