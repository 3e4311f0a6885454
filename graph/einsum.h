// Einsum equations as TensorFlow (and NumPy) write them: "ab,bc->ac", "...ij,
// ...jk->...ik", or implicit ("ab,bc": the output is every subscript that
// appears once, in alphabetical order). Read once here for the shape rule and the
// gradient rule. Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "graph/shape.h"
#include "graph/status.h"

namespace graph {

struct EinsumEquation {
  // Subscripts of each operand and of the output; '.' stands for the ellipsis
  // (one character for "..."), which covers the same broadcast dimensions in
  // every term that has it.
  std::vector<std::string> inputs;
  std::string output;

  // The equation written back ("ab,bc->ac", "...").
  std::string ToString() const;
};

// Fails on anything but letters, ',', "->" and at most one "..." per term, and
// on output subscripts no operand has.
Result<EinsumEquation> ParseEinsum(const std::string& equation);

// The output shape of `eq` for operands of `shapes` (one per term); unknown
// dimensions stay unknown. Fails when a subscript's sizes disagree or the
// operands' ranks do not match their terms.
Result<Shape> EinsumShape(const EinsumEquation& eq, const std::vector<Shape>& shapes);

}  // namespace graph
