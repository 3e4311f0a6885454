#include "graph/fused_ops.h"

#include <utility>
#include <vector>

namespace graph {

Result<FusedOps> ParseFusedOps(const Node& n) {
  auto error = [&](const std::string& msg) {
    return InvalidArgument("node '" + n.name + "' (" + n.op + "): " + msg);
  };
  std::vector<std::string> ops;
  if (const AttrValue* a = n.attr("fused_ops")) {
    if (const AttrList* l = a->get<AttrList>()) ops = l->s;
  }
  if (ops.empty()) return error("fused_ops is empty");
  if (ops[0] == "FusedBatchNorm") {
    return Unimplemented(
        "node '" + n.name + "' (" + n.op +
        "): a fused FusedBatchNorm is not supported (only BiasAdd and an activation)");
  }
  if (ops[0] != "BiasAdd") return error("unsupported fused op '" + ops[0] + "'");
  if (ops.size() > 2) return error("more than one fused activation");
  static const std::pair<const char*, FusedActivation> kActivations[] = {
      {"Relu", FusedActivation::kRelu},
      {"Relu6", FusedActivation::kRelu6},
      {"Elu", FusedActivation::kElu},
      {"LeakyRelu", FusedActivation::kLeakyRelu},
      {"Sigmoid", FusedActivation::kSigmoid},
      {"Tanh", FusedActivation::kTanh},
      {"GeluApproximate", FusedActivation::kGeluApproximate},
      {"GeluExact", FusedActivation::kGeluExact},
      {"Prelu", FusedActivation::kPrelu},
  };
  FusedOps f;
  if (ops.size() == 2) {
    bool found = false;
    for (const auto& [name, act] : kActivations) {
      if (ops[1] == name) {
        f.activation = act;
        f.activation_name = name;
        found = true;
      }
    }
    if (!found) return error("unsupported fused activation '" + ops[1] + "'");
  }
  f.leakyrelu_alpha = n.attr_float("leakyrelu_alpha", 0.2f);
  const int64_t num_args = n.attr_int("num_args", 1);
  const int64_t want = f.activation == FusedActivation::kPrelu ? 2 : 1;
  if (num_args != want) {
    return error("num_args is " + std::to_string(num_args) + ", fused_ops need " +
                 std::to_string(want));
  }
  if (f.activation == FusedActivation::kPrelu) f.alpha_input = 3;
  if (static_cast<int64_t>(n.inputs.size()) != 2 + num_args) {
    return error("has " + std::to_string(n.inputs.size()) + " inputs, fused_ops need " +
                 std::to_string(2 + num_args));
  }
  return f;
}

}  // namespace graph
