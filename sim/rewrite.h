// Rewrites the executor applies to the graph it runs, as TensorFlow's Grappler
// does before its executor: the same computation, cheaper on LibTorch. Node ids
// and names are kept, so timelines and state refer to the graph as given; only
// op types and inputs change, and each rewrite is listed here and in
// docs/runtime.md.
//
// 1. A MaxPool whose output a MaxPoolGrad reads, with the same input and window,
//    becomes _MaxPoolWithIndices (a second output: the position of each maximum),
//    and that MaxPoolGrad becomes _MaxPoolGradWithIndices(orig_input, grad,
//    indices), which scatters instead of searching every window again. The
//    indices are int64, twice the bytes of a float pool output, and live from
//    the forward pass to the gradient: accounted as any tensor.
//
// Thread safety: a pure function.
#pragma once

#include "graph/graph.h"

namespace sim {

// `g` with its shapes inferred; the result keeps them (and adds the new outputs').
graph::Graph RewriteForExecution(const graph::Graph& g);

}  // namespace sim
