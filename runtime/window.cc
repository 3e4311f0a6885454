#include "runtime/window.h"

#include <ATen/ATen.h>

#include <string>

namespace runtime {

template <size_t N>
graph::Result<Dims<N>> SpatialAttrOf(const KernelContext& c, const char* name, bool channels_first,
                                     bool required) {
  Dims<N> d;
  d.fill(1);
  const std::vector<int64_t>* v = c.node.attr_ints(name);
  if ((v == nullptr || v->empty()) && !required) return d;
  const size_t first = channels_first ? 2 : 1;  // the first spatial entry
  const size_t channels = channels_first ? 1 : N + 1;
  bool ok = v != nullptr && v->size() == N + 2 && (*v)[0] == 1 && (*v)[channels] == 1;
  for (size_t i = 0; ok && i < N; ++i) {
    d[i] = (*v)[first + i];
    ok = d[i] >= 1;
  }
  if (!ok) {
    return c.Error(std::string(name) + " must have " + std::to_string(N + 2) +
                   " entries, 1 for batch and depth");
  }
  return d;
}

template <size_t N>
graph::Result<WindowOf<N>> ReadWindowOf(const KernelContext& c, bool channels_first, Dims<N> in,
                                        Dims<N> size) {
  WindowOf<N> w;
  GRAPH_ASSIGN_OR_RETURN(w.stride, SpatialAttrOf<N>(c, "strides", channels_first, true));
  GRAPH_ASSIGN_OR_RETURN(w.dilation, SpatialAttrOf<N>(c, "dilations", channels_first, false));
  const std::string padding = c.node.attr_string("padding", "");
  const std::vector<int64_t>* explicit_pads = c.node.attr_ints("explicit_paddings");
  for (size_t i = 0; i < N; ++i) {
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
      const size_t dim = (channels_first ? 2 : 1) + i;
      if (explicit_pads == nullptr || explicit_pads->size() != 2 * (N + 2) ||
          (*explicit_pads)[2 * dim] < 0 || (*explicit_pads)[2 * dim + 1] < 0) {
        return c.Error("explicit_paddings must be " + std::to_string(2 * (N + 2)) +
                       " non-negative values");
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

template <size_t N>
at::Tensor PadAsymmetricOf(const at::Tensor& x, const WindowOf<N>& w, const at::Scalar& value,
                           Dims<N>* sym, const Dims<N>* max_sym) {
  bool symmetric = w.before == w.after;
  for (size_t i = 0; symmetric && max_sym != nullptr && i < N; ++i) {
    symmetric = w.before[i] <= (*max_sym)[i];
  }
  if (symmetric) {
    *sym = w.before;
    return x;
  }
  sym->fill(0);
  std::vector<int64_t> pads;  // constant_pad_nd's order: the last dimension first
  for (size_t i = N; i-- > 0;) {
    pads.push_back(w.before[i]);
    pads.push_back(w.after[i]);
  }
  return at::constant_pad_nd(x, pads, value);
}

template graph::Result<Dims<2>> SpatialAttrOf<2>(const KernelContext&, const char*, bool, bool);
template graph::Result<Dims<3>> SpatialAttrOf<3>(const KernelContext&, const char*, bool, bool);
template graph::Result<WindowOf<2>> ReadWindowOf<2>(const KernelContext&, bool, Dims<2>, Dims<2>);
template graph::Result<WindowOf<3>> ReadWindowOf<3>(const KernelContext&, bool, Dims<3>, Dims<3>);
template at::Tensor PadAsymmetricOf<2>(const at::Tensor&, const WindowOf<2>&, const at::Scalar&,
                                       Dims<2>*, const Dims<2>*);
template at::Tensor PadAsymmetricOf<3>(const at::Tensor&, const WindowOf<3>&, const at::Scalar&,
                                       Dims<3>*, const Dims<3>*);

}  // namespace runtime
