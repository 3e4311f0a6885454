// Constant tensor values held by the graph (Const nodes, tensor attributes) and
// produced by constant evaluation during shape inference.
//
// Ownership: the element bytes are shared and immutable, so copying a Tensor is
// cheap and copies may be read from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/dtype.h"
#include "graph/shape.h"

namespace graph {

class Tensor {
 public:
  Tensor() = default;
  // `bytes` holds the elements little-endian, row-major; its size must be
  // shape.NumElements() * DTypeSize(dtype) (checked by callers that parse files).
  Tensor(DType dtype, Shape shape, std::string bytes);
  static Tensor FromStrings(Shape shape, std::vector<std::string> values);
  // Integer tensor (int32 or int64) from values.
  static Tensor FromInt64s(DType dtype, Shape shape, const std::vector<int64_t>& values);

  bool valid() const { return dtype_ != DType::kInvalid; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t num_elements() const { return shape_.NumElements(); }
  const std::string& bytes() const;
  const std::vector<std::string>& strings() const;
  int64_t byte_size() const { return bytes_ ? static_cast<int64_t>(bytes_->size()) : 0; }

  // Elements widened to int64 (integer and bool types only).
  std::vector<int64_t> ToInt64s() const;
  // Elements converted to double (numeric types only).
  std::vector<double> ToDoubles() const;

  bool operator==(const Tensor& o) const;
  bool operator!=(const Tensor& o) const { return !(*this == o); }

 private:
  DType dtype_ = DType::kInvalid;
  Shape shape_;
  std::shared_ptr<const std::string> bytes_;
  std::shared_ptr<const std::vector<std::string>> strings_;
};

float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
float BFloat16ToFloat(uint16_t b);

}  // namespace graph
