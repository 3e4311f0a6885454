// Op signatures: what determines an op's cost on a device, as a string key.
// Two nodes with the same signature (op type, input dtypes and shapes, and the
// attributes that change the computation) cost the same, so profiles are keyed
// by it and reused across models.
// Thread safety: pure functions.
#pragma once

#include <string>

#include "graph/graph.h"

namespace graph {

// "Conv2D|float32[64,28,28,1],float32[5,5,1,6]|data_format=NHWC,padding=SAME,..."
// Attributes whose names start with '_' (colocation, TF internals) are left out;
// tensor-valued ones are represented by a digest of their bytes. Needs `g`'s
// shapes inferred (unknown shapes appear as such).
std::string OpSignature(const Graph& g, NodeId id);

}  // namespace graph
