#include "graph/tensor.h"

#include <cmath>
#include <cstring>

namespace graph {

namespace {
const std::string& EmptyBytes() {
  static const std::string* empty = new std::string();
  return *empty;
}
template <typename T>
T Load(const std::string& b, int64_t i) {
  T v;
  std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
  return v;
}
}  // namespace

Tensor::Tensor(DType dtype, Shape shape, std::string bytes)
    : dtype_(dtype),
      shape_(std::move(shape)),
      bytes_(std::make_shared<const std::string>(std::move(bytes))) {}

Tensor Tensor::FromStrings(Shape shape, std::vector<std::string> values) {
  Tensor t;
  t.dtype_ = DType::kString;
  t.shape_ = std::move(shape);
  t.strings_ = std::make_shared<const std::vector<std::string>>(std::move(values));
  return t;
}

Tensor Tensor::FromInt64s(DType dtype, Shape shape, const std::vector<int64_t>& values) {
  std::string bytes;
  if (dtype == DType::kInt64) {
    bytes.resize(values.size() * 8);
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());  // data() may be null
  } else {
    bytes.resize(values.size() * 4);
    for (size_t i = 0; i < values.size(); ++i) {
      int32_t v = static_cast<int32_t>(values[i]);
      std::memcpy(bytes.data() + 4 * i, &v, 4);
    }
  }
  return Tensor(dtype, std::move(shape), std::move(bytes));
}

const std::string& Tensor::bytes() const { return bytes_ ? *bytes_ : EmptyBytes(); }

const std::vector<std::string>& Tensor::strings() const {
  static const std::vector<std::string>* empty = new std::vector<std::string>();
  return strings_ ? *strings_ : *empty;
}

std::vector<int64_t> Tensor::ToInt64s() const {
  const std::string& b = bytes();
  int size = DTypeSize(dtype_);
  std::vector<int64_t> out;
  if (size == 0) return out;
  int64_t n = static_cast<int64_t>(b.size()) / size;
  out.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    switch (dtype_) {
      case DType::kInt8:
        out.push_back(Load<int8_t>(b, i));
        break;
      case DType::kUInt8:
      case DType::kBool:
        out.push_back(Load<uint8_t>(b, i));
        break;
      case DType::kInt16:
        out.push_back(Load<int16_t>(b, i));
        break;
      case DType::kUInt16:
        out.push_back(Load<uint16_t>(b, i));
        break;
      case DType::kInt32:
        out.push_back(Load<int32_t>(b, i));
        break;
      case DType::kUInt32:
        out.push_back(Load<uint32_t>(b, i));
        break;
      case DType::kInt64:
        out.push_back(Load<int64_t>(b, i));
        break;
      case DType::kUInt64:
        out.push_back(static_cast<int64_t>(Load<uint64_t>(b, i)));
        break;
      default:
        return {};
    }
  }
  return out;
}

std::vector<double> Tensor::ToDoubles() const {
  const std::string& b = bytes();
  int size = DTypeSize(dtype_);
  std::vector<double> out;
  if (size == 0) return out;
  int64_t n = static_cast<int64_t>(b.size()) / size;
  if (IsInteger(dtype_) || dtype_ == DType::kBool) {  // converted once, not once an element
    for (int64_t v : ToInt64s()) out.push_back(static_cast<double>(v));
    return out;
  }
  out.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    switch (dtype_) {
      case DType::kFloat:
        out.push_back(Load<float>(b, i));
        break;
      case DType::kDouble:
        out.push_back(Load<double>(b, i));
        break;
      case DType::kHalf:
        out.push_back(HalfToFloat(Load<uint16_t>(b, i)));
        break;
      case DType::kBFloat16:
        out.push_back(BFloat16ToFloat(Load<uint16_t>(b, i)));
        break;
      default:
        return {};
    }
  }
  return out;
}

bool Tensor::operator==(const Tensor& o) const {
  return dtype_ == o.dtype_ && shape_ == o.shape_ && bytes() == o.bytes() &&
         strings() == o.strings();
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);  // subnormal
  } else if (exp == 31) {
    v = mant ? NAN : INFINITY;
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1))) ++half;  // to nearest, ties to even
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  // To nearest, ties to even; a carry moves into the exponent correctly.
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;
  return static_cast<uint16_t>(half);
}

float BFloat16ToFloat(uint16_t b) {
  uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace graph
