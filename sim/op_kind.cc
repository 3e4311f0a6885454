#include "sim/op_kind.h"

namespace sim {

bool IsStateOp(const std::string& op) {
  return op == "Const" || op == "VariableV2" || op == "Variable";
}

bool RunsKernel(const std::string& op) {
  return !IsStateOp(op) && op != "Placeholder" && op != "NoOp";
}

}  // namespace sim
