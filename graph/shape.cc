#include "graph/shape.h"

namespace graph {

bool Shape::FullyDefined() const {
  if (!known_rank_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

int64_t Shape::NumElements() const {
  if (!FullyDefined()) return -1;
  // A 0 anywhere makes no elements, whatever the product of the others.
  for (int64_t d : dims_) {
    if (d == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (n > INT64_MAX / d) return -1;  // overflow: treat as unknown
    n *= d;
  }
  return n;
}

std::string Shape::ToString() const {
  if (!known_rank_) return "<unknown>";
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += dims_[i] < 0 ? "?" : std::to_string(dims_[i]);
  }
  return s + "]";
}

}  // namespace graph
