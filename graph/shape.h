// Tensor shapes with unknown rank or unknown dimensions, as shape inference sees them.
// Value type; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graph {

constexpr int64_t kUnknownDim = -1;

class Shape {
 public:
  Shape() = default;  // unknown rank
  explicit Shape(std::vector<int64_t> dims) : known_rank_(true), dims_(std::move(dims)) {}
  static Shape Scalar() { return Shape(std::vector<int64_t>{}); }
  static Shape UnknownRank() { return Shape(); }
  static Shape UnknownDims(int rank) { return Shape(std::vector<int64_t>(rank, kUnknownDim)); }

  bool known_rank() const { return known_rank_; }
  int rank() const { return static_cast<int>(dims_.size()); }  // 0 when rank is unknown
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  void set_dim(int i, int64_t d) { dims_[i] = d; }
  bool FullyDefined() const;
  // Product of dimensions: 0 when one is 0, else -1 unless fully defined and
  // at most 2^63 - 1.
  int64_t NumElements() const;
  std::string ToString() const;  // "[1,224,224,3]", "[?,10]", "<unknown>"

  bool operator==(const Shape& o) const { return known_rank_ == o.known_rank_ && dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  bool known_rank_ = false;
  std::vector<int64_t> dims_;
};

}  // namespace graph
