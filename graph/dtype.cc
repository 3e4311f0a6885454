#include "graph/dtype.h"

namespace graph {

int DTypeSize(DType t) {
  switch (t) {
    case DType::kFloat:
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kQInt32:
      return 4;
    case DType::kDouble:
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kComplex64:
      return 8;
    case DType::kComplex128:
      return 16;
    case DType::kHalf:
    case DType::kBFloat16:
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kQInt16:
    case DType::kQUInt16:
      return 2;
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kBool:
    case DType::kQInt8:
    case DType::kQUInt8:
      return 1;
    default:
      return 0;
  }
}

bool IsFloating(DType t) {
  return t == DType::kFloat || t == DType::kDouble || t == DType::kHalf || t == DType::kBFloat16;
}

bool IsInteger(DType t) {
  switch (t) {
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
      return true;
    default:
      return false;
  }
}

namespace {
struct NameEntry {
  DType type;
  const char* name;
};
constexpr NameEntry kNames[] = {
    {DType::kFloat, "float32"},   {DType::kDouble, "float64"},
    {DType::kInt32, "int32"},     {DType::kUInt8, "uint8"},
    {DType::kInt16, "int16"},     {DType::kInt8, "int8"},
    {DType::kString, "string"},   {DType::kComplex64, "complex64"},
    {DType::kInt64, "int64"},     {DType::kBool, "bool"},
    {DType::kQInt8, "qint8"},     {DType::kQUInt8, "quint8"},
    {DType::kQInt32, "qint32"},   {DType::kBFloat16, "bfloat16"},
    {DType::kQInt16, "qint16"},   {DType::kQUInt16, "quint16"},
    {DType::kUInt16, "uint16"},   {DType::kComplex128, "complex128"},
    {DType::kHalf, "float16"},    {DType::kResource, "resource"},
    {DType::kVariant, "variant"}, {DType::kUInt32, "uint32"},
    {DType::kUInt64, "uint64"},
};
}  // namespace

std::string DTypeName(DType t) {
  for (const auto& e : kNames) {
    if (e.type == t) return e.name;
  }
  return "invalid";
}

DType DTypeFromTf(int value) {
  if (value > 100) value -= 100;
  for (const auto& e : kNames) {
    if (static_cast<int>(e.type) == value) return e.type;
  }
  return DType::kInvalid;
}

DType DTypeFromName(const std::string& name) {
  for (const auto& e : kNames) {
    if (name == e.name) return e.type;
  }
  return DType::kInvalid;
}

}  // namespace graph
