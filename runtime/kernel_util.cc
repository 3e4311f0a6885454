#include "runtime/kernel_util.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

namespace runtime {

using graph::Status;

std::string Str(at::IntArrayRef v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

Status Arity(const KernelContext& c, size_t n) {
  if (c.inputs.size() == n) return Status::Ok();
  return c.Error("expects " + std::to_string(n) + " inputs, got " +
                 std::to_string(c.inputs.size()));
}

bool IsInt(const at::Tensor& t) { return at::isIntegralType(t.scalar_type(), false); }

graph::Result<Int64s> Ints(const KernelContext& c, size_t i) {
  const at::Tensor& t = c.HostInput(i);
  if (!IsInt(t)) return c.Error("input " + std::to_string(i) + " must be an integer tensor");
  at::Tensor v = t.to(at::kCPU, at::kLong).contiguous();
  return Int64s(v.data_ptr<int64_t>(), v.data_ptr<int64_t>() + v.numel());
}

graph::Result<int64_t> Int(const KernelContext& c, size_t i) {
  GRAPH_ASSIGN_OR_RETURN(Int64s v, Ints(c, i));
  if (v.size() != 1) return c.Error("input " + std::to_string(i) + " must hold one integer");
  return v[0];
}

Status Axis(const KernelContext& c, int64_t rank, int64_t* axis) {
  if (*axis < -rank || *axis >= rank) {
    return c.Error("axis " + std::to_string(*axis) + " out of range for rank " +
                   std::to_string(rank));
  }
  if (*axis < 0) *axis += rank;
  return Status::Ok();
}

Status SameShapes(const KernelContext& c, const std::vector<at::Tensor>& ts) {
  for (const at::Tensor& t : ts) {
    if (!t.sizes().equals(ts[0].sizes())) {
      return c.Error("inputs differ in shape: " + Str(ts[0].sizes()) + " vs " + Str(t.sizes()));
    }
  }
  return Status::Ok();
}

graph::Result<bool> IsNchw(const KernelContext& c) {
  const std::string f = c.node.attr_string("data_format", "NHWC");
  if (f != "NHWC" && f != "NCHW") return c.Error("unsupported data_format '" + f + "'");
  return f == "NCHW";
}

graph::Result<bool> IsChannelsFirst(const KernelContext& c, int spatial) {
  if (spatial == 2) return IsNchw(c);
  const std::string f = c.node.attr_string("data_format", "NDHWC");
  if (f != "NDHWC" && f != "NCDHW") return c.Error("unsupported data_format '" + f + "'");
  return f == "NCDHW";
}

at::Tensor ChannelsLastToFirst(const at::Tensor& t) {
  Int64s perm = {0, t.dim() - 1};
  for (int64_t i = 1; i + 1 < t.dim(); ++i) perm.push_back(i);
  return t.permute(perm);
}

at::Tensor ChannelsFirstToLast(const at::Tensor& t) {
  Int64s perm = {0};
  for (int64_t i = 2; i < t.dim(); ++i) perm.push_back(i);
  perm.push_back(1);
  return t.permute(perm);
}

graph::Result<int64_t> ConvGroups(const KernelContext& c, int64_t depth, at::IntArrayRef filter) {
  const int64_t in = filter.size() >= 2 ? filter[filter.size() - 2] : 0;
  const int64_t out = filter.empty() ? 0 : filter.back();
  if (in <= 0 || depth <= 0 || depth % in != 0 || out % (depth / in) != 0) {
    return c.Error("filter " + Str(filter) + " does not fit input depth " + std::to_string(depth));
  }
  return depth / in;
}

graph::Result<at::Tensor> RowMajorIndex(const KernelContext& c, const at::Tensor& index,
                                        at::IntArrayRef dims) {
  const int64_t n = index.size(0), k = index.size(1);
  at::Tensor linear = at::zeros({n}, index.options());
  at::Tensor bad = at::zeros({n}, index.options().dtype(at::kBool));
  for (int64_t j = 0; j < k; ++j) {
    const at::Tensor col = index.select(1, j);
    bad = bad | (col < 0) | (col >= dims[j]);
    linear = linear * dims[j] + col;
  }
  if (n > 0 && bad.any().item<bool>()) {
    return c.Error("an index is out of range for " + Str(dims));
  }
  return linear;
}

Status Vjp(KernelContext& c, const char* op, const graph::Node& forward_node,
           std::vector<at::Tensor> inputs, int wrt, const at::Tensor& dy,
           std::vector<at::Tensor> host_inputs) {
  const KernelFn* fn = FindKernel(op);
  if (!fn) return c.Error(std::string("no forward kernel for ") + op);
  at::AutoGradMode enable(true);
  inputs[wrt] = inputs[wrt].detach().clone().requires_grad_(true);
  KernelContext fwd{forward_node, inputs, {}, std::move(host_inputs)};
  GRAPH_RETURN_IF_ERROR((*fn)(fwd));
  fwd.outputs[0].backward(dy);
  c.outputs = {inputs[wrt].grad()};
  return Status::Ok();
}

graph::Node AsForward(const graph::Node& n, const char* op) {
  graph::Node f;
  f.name = n.name;
  f.op = op;
  f.attrs = n.attrs;
  return f;
}

graph::Result<at::ScalarType> IndexType(const KernelContext& c, const char* attr,
                                        graph::DType dflt) {
  const graph::DType t = c.node.attr_type(attr, dflt);
  if (t != graph::DType::kInt32 && t != graph::DType::kInt64) {
    return c.Error(std::string(attr) + " must be int32 or int64");
  }
  return ToTorch(t);
}

}  // namespace runtime
