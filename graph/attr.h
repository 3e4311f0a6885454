// Node attributes: the values of TensorFlow's AttrValue that the planner reads.
// Kinds the planner never interprets (functions, placeholders, lists of functions)
// are kept as the serialized tensorflow.AttrValue bytes so they round-trip exactly.
// Value types; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "graph/dtype.h"
#include "graph/shape.h"
#include "graph/tensor.h"

namespace graph {

struct AttrList {
  std::vector<std::string> s;
  std::vector<int64_t> i;
  std::vector<float> f;
  std::vector<bool> b;
  std::vector<DType> type;
  std::vector<Shape> shape;
  std::vector<Tensor> tensor;
  bool operator==(const AttrList& o) const {
    return s == o.s && i == o.i && f == o.f && b == o.b && type == o.type && shape == o.shape &&
           tensor == o.tensor;
  }
};

struct OpaqueAttr {
  std::string serialized;  // a serialized tensorflow.AttrValue
  bool operator==(const OpaqueAttr& o) const { return serialized == o.serialized; }
};

struct AttrValue {
  std::variant<std::monostate, std::string, int64_t, float, bool, DType, Shape, Tensor, AttrList,
               OpaqueAttr>
      value;

  template <typename T>
  const T* get() const {
    return std::get_if<T>(&value);
  }
  bool operator==(const AttrValue& o) const { return value == o.value; }
  bool operator!=(const AttrValue& o) const { return !(*this == o); }
};

template <typename T>
AttrValue MakeAttr(T v) {
  AttrValue a;
  a.value = std::move(v);
  return a;
}

using AttrMap = std::map<std::string, AttrValue, std::less<>>;

}  // namespace graph
