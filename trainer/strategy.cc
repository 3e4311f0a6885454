#include "trainer/strategy.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace trainer {

std::vector<at::Tensor> Strategy::EvaluatedParameters() const {
  std::vector<at::Tensor> p;
  for (int i = 0; i < replica_->num_parameters(); ++i) p.push_back(replica_->parameter(i));
  return p;
}

const std::vector<std::string>& StrategyNames() {
  static const std::vector<std::string> names{"sync", "async", "easgd", "gossip"};
  return names;
}

graph::Result<std::unique_ptr<Strategy>> MakeStrategy(const StrategyOptions& o, ProcessGroup* pg,
                                                      Replica* replica) {
  if (o.name == "sync") return MakeSyncStrategy(o, pg, replica);
  if (o.name == "async") return MakeAsyncStrategy(o, pg, replica);
  if (o.name == "easgd") return MakeEasgdStrategy(o, pg, replica);
  if (o.name == "gossip") return MakeGossipStrategy(o, pg, replica);
  GRAPH_RETURN_IF_ERROR(CheckStrategyName(o.name));
  return graph::Internal("strategy '" + o.name + "' has a name and no constructor");
}

graph::Status CheckStrategyName(const std::string& name) {
  const std::vector<std::string>& names = StrategyNames();
  if (std::find(names.begin(), names.end(), name) != names.end()) return graph::Status::Ok();
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return graph::InvalidArgument("unknown strategy '" + name + "' (known: " + list + ")");
}

std::vector<std::vector<int64_t>> ParameterShapes(const Replica& r) {
  std::vector<std::vector<int64_t>> shapes;
  for (int i = 0; i < r.num_parameters(); ++i) shapes.push_back(r.parameter(i).sizes().vec());
  return shapes;
}

at::Tensor FlattenParameters(const Replica& r) {
  std::vector<at::Tensor> flat;
  for (int i = 0; i < r.num_parameters(); ++i) flat.push_back(r.parameter(i).reshape({-1}));
  return at::cat(flat);
}

void UnflattenParameters(const at::Tensor& flat, Replica* r) {
  int64_t at = 0;
  for (int i = 0; i < r->num_parameters(); ++i) {
    at::Tensor p = r->parameter(i);
    p.copy_(flat.narrow(0, at, p.numel()).view(p.sizes()));
    at += p.numel();
  }
}

}  // namespace trainer
