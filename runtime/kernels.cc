#include <ATen/ATen.h>

#include <string_view>
#include <unordered_map>

#include "runtime/kernel.h"
#include "runtime/torch_status.h"

namespace runtime {

namespace {

const std::unordered_map<std::string_view, KernelFn>& Table() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string_view, KernelFn>();
    for (const KernelEntry* list : {kForwardKernels, kGradKernels, kMathKernels, kArrayKernels,
                                     kShapeKernels}) {
      for (const KernelEntry* e = list; e->op; ++e) {
        bool inserted = t->emplace(e->op, e->fn).second;
        assert(inserted && "an op has two kernels");
        (void)inserted;
      }
    }
    return t;
  }();
  return *table;
}

}  // namespace

const KernelFn* FindKernel(const std::string& op) {
  auto it = Table().find(op);
  return it == Table().end() ? nullptr : &it->second;
}

graph::Status RunKernel(KernelContext& ctx) {
  const KernelFn* fn = FindKernel(ctx.node.op);
  assert(fn && "RunKernel of an op without a kernel: executors check before running");
  try {
    return (*fn)(ctx);
  } catch (const c10::OutOfMemoryError& e) {  // a GPU's allocator ran out
    return graph::Status(graph::StatusCode::kOutOfMemory,
                         ctx.Error(FirstLine(e.what_without_backtrace())).message());
  } catch (const c10::Error& e) {
    return ctx.Error(FirstLine(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return ctx.Error(FirstLine(e.what()));
  }
}

std::vector<std::string> KernelOps() {
  std::vector<std::string> ops;
  for (const auto& [op, fn] : Table()) ops.emplace_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

bool HasTorchType(graph::DType t) {
  switch (t) {
    case graph::DType::kFloat:
    case graph::DType::kDouble:
    case graph::DType::kHalf:
    case graph::DType::kBFloat16:
    case graph::DType::kInt32:
    case graph::DType::kInt64:
    case graph::DType::kInt16:
    case graph::DType::kInt8:
    case graph::DType::kUInt8:
    case graph::DType::kBool:
      return true;
    default:
      return false;
  }
}

at::ScalarType ToTorch(graph::DType t) {
  switch (t) {
    case graph::DType::kFloat:
      return at::kFloat;
    case graph::DType::kDouble:
      return at::kDouble;
    case graph::DType::kHalf:
      return at::kHalf;
    case graph::DType::kBFloat16:
      return at::kBFloat16;
    case graph::DType::kInt32:
      return at::kInt;
    case graph::DType::kInt64:
      return at::kLong;
    case graph::DType::kInt16:
      return at::kShort;
    case graph::DType::kInt8:
      return at::kChar;
    case graph::DType::kUInt8:
      return at::kByte;
    case graph::DType::kBool:
      return at::kBool;
    default:
      assert(false && "no LibTorch type for this dtype");
      return at::kFloat;
  }
}

graph::DType FromTorch(at::ScalarType t) {
  switch (t) {
    case at::kFloat:
      return graph::DType::kFloat;
    case at::kDouble:
      return graph::DType::kDouble;
    case at::kHalf:
      return graph::DType::kHalf;
    case at::kBFloat16:
      return graph::DType::kBFloat16;
    case at::kInt:
      return graph::DType::kInt32;
    case at::kLong:
      return graph::DType::kInt64;
    case at::kShort:
      return graph::DType::kInt16;
    case at::kChar:
      return graph::DType::kInt8;
    case at::kByte:
      return graph::DType::kUInt8;
    case at::kBool:
      return graph::DType::kBool;
    default:
      return graph::DType::kInvalid;
  }
}

}  // namespace runtime
