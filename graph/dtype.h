// Element types of tensors. Values equal TensorFlow's DataType enum so conversion
// to and from GraphDef is a cast; reference types (value + 100) are folded into
// their value type on import.
#pragma once

#include <cstdint>
#include <string>

namespace graph {

enum class DType : int {
  kInvalid = 0,
  kFloat = 1,
  kDouble = 2,
  kInt32 = 3,
  kUInt8 = 4,
  kInt16 = 5,
  kInt8 = 6,
  kString = 7,
  kComplex64 = 8,
  kInt64 = 9,
  kBool = 10,
  kQInt8 = 11,
  kQUInt8 = 12,
  kQInt32 = 13,
  kBFloat16 = 14,
  kQInt16 = 15,
  kQUInt16 = 16,
  kUInt16 = 17,
  kComplex128 = 18,
  kHalf = 19,
  kResource = 20,
  kVariant = 21,
  kUInt32 = 22,
  kUInt64 = 23,
};

// Bytes per element; 0 for types without a fixed size (string, resource, variant).
int DTypeSize(DType t);
bool IsFloating(DType t);  // half, bfloat16, float, double
bool IsInteger(DType t);
// "float32", "int64", ... (TensorFlow.js / NumPy spelling); "invalid" for unknown values.
std::string DTypeName(DType t);
// Maps a raw TensorFlow enum value (including _REF types) to a DType; kInvalid if unknown.
DType DTypeFromTf(int value);
// Parses the NumPy-style names used by TensorFlow.js manifests; kInvalid if unknown.
DType DTypeFromName(const std::string& name);

}  // namespace graph
