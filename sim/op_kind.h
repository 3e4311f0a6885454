// Which ops run a kernel: the executors (runtime/) and the simulator agree on
// it, so it lives here, below both.
//
// Thread safety: pure functions.
#pragma once

#include <string>

namespace sim {

// Ops the executors handle themselves, without a kernel: state (Const and
// variables, whose value lives across steps), Placeholder (fed) and NoOp.
bool IsStateOp(const std::string& op);
// Every other op: it runs a kernel on its device's worker, is timed and costs.
bool RunsKernel(const std::string& op);

}  // namespace sim
