#include "runtime/window.h"

#include <ATen/ATen.h>

#include <string>

namespace runtime {

graph::Result<Pair> SpatialAttr(const KernelContext& c, const char* name, bool nchw,
                                bool required) {
  const std::vector<int64_t>* v = c.node.attr_ints(name);
  if ((v == nullptr || v->empty()) && !required) return Pair{1, 1};
  const int h = nchw ? 2 : 1;
  if (v == nullptr || v->size() != 4 || (*v)[0] != 1 || (*v)[nchw ? 1 : 3] != 1 || (*v)[h] < 1 ||
      (*v)[h + 1] < 1) {
    return c.Error(std::string(name) + " must have 4 entries, 1 for batch and depth");
  }
  return Pair{(*v)[h], (*v)[h + 1]};
}

graph::Result<Window> ReadWindow(const KernelContext& c, bool nchw, Pair in, Pair size) {
  Window w;
  GRAPH_ASSIGN_OR_RETURN(w.stride, SpatialAttr(c, "strides", nchw, true));
  GRAPH_ASSIGN_OR_RETURN(w.dilation, SpatialAttr(c, "dilations", nchw, false));
  const std::string padding = c.node.attr_string("padding", "");
  const std::vector<int64_t>* explicit_pads = c.node.attr_ints("explicit_paddings");
  for (int i = 0; i < 2; ++i) {
    const int64_t window = (size[i] - 1) * w.dilation[i] + 1;
    if (padding == "SAME") {
      // TF puts the odd padding element at the end.
      w.out[i] = (in[i] + w.stride[i] - 1) / w.stride[i];
      const int64_t total = std::max<int64_t>((w.out[i] - 1) * w.stride[i] + window - in[i], 0);
      w.before[i] = total / 2;
      w.after[i] = total - w.before[i];
      continue;
    }
    if (padding == "EXPLICIT") {
      const int dim = (nchw ? 2 : 1) + i;
      if (explicit_pads == nullptr || explicit_pads->size() != 8 || (*explicit_pads)[2 * dim] < 0 ||
          (*explicit_pads)[2 * dim + 1] < 0) {
        return c.Error("explicit_paddings must be 8 non-negative values");
      }
      w.before[i] = (*explicit_pads)[2 * dim];
      w.after[i] = (*explicit_pads)[2 * dim + 1];
    } else if (padding != "VALID") {
      return c.Error("unsupported padding '" + padding + "'");
    }
    const int64_t padded = in[i] + w.before[i] + w.after[i];
    if (padded < window) {
      return c.Error("window of " + std::to_string(window) + " exceeds padded input of " +
                     std::to_string(padded));
    }
    w.out[i] = (padded - window) / w.stride[i] + 1;
  }
  return w;
}

at::Tensor PadAsymmetric(const at::Tensor& x, const Window& w, const at::Scalar& value, Pair* sym,
                         Pair max_sym) {
  if (w.before == w.after && w.before[0] <= max_sym[0] && w.before[1] <= max_sym[1]) {
    *sym = w.before;
    return x;
  }
  *sym = {0, 0};
  return at::constant_pad_nd(x, {w.before[1], w.after[1], w.before[0], w.after[0]}, value);
}

}  // namespace runtime
