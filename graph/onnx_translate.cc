#include "graph/onnx_translate.h"

#include <cassert>
#include <cstring>
#include <limits>
#include <string_view>

namespace graph::onnx_import {

std::string IrName(const std::string& base) {
  std::string name = base;
  for (char& ch : name) {
    if (ch == ':') ch = '_';
  }
  while (!name.empty() && (name[0] == '/' || name[0] == '^')) name.erase(0, 1);
  return name.empty() ? "node" : name;
}

std::string Translation::UniqueName(const std::string& base) {
  const std::string name = IrName(base);
  std::string candidate = name;
  if (names.count(candidate)) {
    int& k = next_suffix[name];
    do {
      candidate = name + "_" + std::to_string(++k);
    } while (names.count(candidate));
  }
  names.insert(candidate);
  return candidate;
}

const std::string& NodeContext::in(int i) const {
  // An input a malformed file left empty reads as "", which Graph::Create
  // then rejects in one line naming the node.
  static const std::string kNone;
  if (!has(i)) return kNone;
  auto it = t_->tensors.find(node_->input(i));
  return it == t_->tensors.end() ? kNone : it->second;
}

DType NodeContext::dtype(int i) const {
  if (!has(i)) return DType::kInvalid;
  auto it = t_->infos.find(node_->input(i));
  return it == t_->infos.end() ? DType::kInvalid : it->second.dtype;
}

Shape NodeContext::shape(int i) const {
  if (!has(i)) return Shape();
  auto it = t_->infos.find(node_->input(i));
  return it == t_->infos.end() ? Shape() : it->second.shape;
}

int NodeContext::rank(int i) const {
  Shape s = shape(i);
  return s.known_rank() ? s.rank() : -1;
}

Result<int> NodeContext::known_rank(int i) const {
  int r = rank(i);
  if (r < 0) {
    return Unsupported("the rank of input '" + node_->input(i) +
                       "' is unknown after ONNX shape inference");
  }
  return r;
}

const Tensor* NodeContext::value(int i) const {
  if (!has(i)) return nullptr;
  auto it = t_->constants.find(node_->input(i));
  return it == t_->constants.end() ? nullptr : &it->second;
}

Result<std::vector<int64_t>> NodeContext::ints(int i, const char* what) const {
  const Tensor* v = value(i);
  if (v == nullptr) {
    return Unsupported(std::string(what) + " (input '" + (has(i) ? node_->input(i) : "") +
                       "') must be a constant");
  }
  if (!IsInteger(v->dtype())) return Error(std::string(what) + " must be integers");
  return v->ToInt64s();
}

const onnx::AttributeProto* NodeContext::attr(const char* name) const {
  for (const onnx::AttributeProto& a : node_->attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t NodeContext::attr_int(const char* name, int64_t dflt) const {
  const onnx::AttributeProto* a = attr(name);
  return a ? a->i() : dflt;
}

float NodeContext::attr_float(const char* name, float dflt) const {
  const onnx::AttributeProto* a = attr(name);
  return a ? a->f() : dflt;
}

std::string NodeContext::attr_string(const char* name, const std::string& dflt) const {
  const onnx::AttributeProto* a = attr(name);
  return a ? a->s() : dflt;
}

std::optional<std::vector<int64_t>> NodeContext::attr_ints(const char* name) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<float>> NodeContext::attr_floats(const char* name) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return std::nullopt;
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

DType NodeContext::out_dtype(int k) const {
  auto it = t_->infos.find(node_->output(k));
  return it == t_->infos.end() ? DType::kInvalid : it->second.dtype;
}

Shape NodeContext::out_shape(int k) const {
  auto it = t_->infos.find(node_->output(k));
  return it == t_->infos.end() ? Shape() : it->second.shape;
}

void NodeContext::Output(int k, const std::string& tensor) {
  if (has_output(k)) t_->tensors[node_->output(k)] = tensor;
}

void NodeContext::OutputConstant(int k, const Tensor& value) {
  if (!has_output(k)) return;
  t_->constants[node_->output(k)] = value;
  RefineOutputShape(k, value.shape());
}

void NodeContext::RefineOutputShape(int k, const Shape& shape) {
  if (!has_output(k)) return;
  ValueInfo& v = t_->infos[node_->output(k)];
  if (!v.shape.known_rank()) {
    v.shape = shape;
  } else if (shape.known_rank() && shape.rank() == v.shape.rank()) {
    for (int i = 0; i < shape.rank(); ++i) {
      if (v.shape.dim(i) < 0) v.shape.set_dim(i, shape.dim(i));
    }
  }
}

std::string NodeContext::Emit(const std::string& suffix, const char* op,
                              std::vector<std::string> inputs, AttrMap attrs) {
  if (std::string_view(op) == "Split" && !attrs.count("T")) {
    // Split's first operand is the axis, so its rule needs the data type named;
    // every Split here splits data of the ONNX node's first input's type.
    attrs["T"] = MakeAttr(dtype(0));
  }
  std::string name = t_->UniqueName(suffix.empty() ? base_ : base_ + "/" + suffix);
  t_->specs.push_back({name, op, std::move(inputs), "", std::move(attrs)});
  return name;
}

std::string NodeContext::Constant(const std::string& suffix, const Tensor& value) {
  return Emit(suffix, "Const", {},
              {{"dtype", MakeAttr(value.dtype())},
               {"value", MakeAttr(value)},
               {"_untrainable", MakeAttr(true)}});
}

std::string NodeContext::IntConst(const std::string& suffix, const std::vector<int64_t>& v,
                                  DType t) {
  return Constant(suffix, Tensor::FromInt64s(t, Shape({static_cast<int64_t>(v.size())}), v));
}

std::string NodeContext::IntScalar(const std::string& suffix, int64_t v, DType t) {
  return Constant(suffix, Tensor::FromInt64s(t, Shape::Scalar(), {v}));
}

std::string NodeContext::ScalarConst(const std::string& suffix, double v, DType t) {
  if (IsInteger(t) || t == DType::kBool) {
    if (t == DType::kBool) {
      return Constant(suffix, Tensor(DType::kBool, Shape::Scalar(), std::string(1, v != 0)));
    }
    return Constant(suffix, Tensor::FromInt64s(t == DType::kInt64 ? t : DType::kInt32,
                                               Shape::Scalar(), {static_cast<int64_t>(v)}));
  }
  std::string bytes;
  if (t == DType::kDouble) {
    bytes.resize(8);
    std::memcpy(bytes.data(), &v, 8);
  } else if (t == DType::kHalf) {
    uint16_t h = FloatToHalf(static_cast<float>(v));
    bytes.resize(2);
    std::memcpy(bytes.data(), &h, 2);
  } else {
    float f = static_cast<float>(v);
    bytes.resize(4);
    std::memcpy(bytes.data(), &f, 4);
    t = DType::kFloat;
  }
  return Constant(suffix, Tensor(t, Shape::Scalar(), bytes));
}

Status NodeContext::Error(const std::string& what) const {
  return InvalidArgument(t_->path + ": node '" + node_->name() + "' (" + node_->op_type() +
                         "): " + what);
}

Status NodeContext::Unsupported(const std::string& what) const {
  return Unimplemented(t_->path + ": node '" + node_->name() + "' (" + node_->op_type() +
                       ", opset " + std::to_string(t_->opset) + "): " + what);
}

const OpRule* FindRule(const std::string& op) {
  static const auto* table = [] {
    auto* m = new std::unordered_map<std::string, OpRule>();
    for (const auto* family : {&MathRules(), &NnRules(), &ArrayRules(), &RnnRules()}) {
      for (const OpRule& r : *family) {
        bool inserted = m->emplace(r.op, r).second;
        assert(inserted && "an ONNX op has two rules");
        (void)inserted;
      }
    }
    return m;
  }();
  auto it = table->find(op);
  return it == table->end() ? nullptr : &it->second;
}

AttrValue IntList(std::vector<int64_t> v) {
  AttrList l;
  l.i = std::move(v);
  return MakeAttr(std::move(l));
}

AttrValue StrAttr(const char* s) { return MakeAttr(std::string(s)); }

DType DTypeFromOnnx(int t) {
  // Unsigned types wider than 8 bits have no LibTorch 1.13 tensor type, so none here.
  switch (t) {
    case onnx::TensorProto::FLOAT:
      return DType::kFloat;
    case onnx::TensorProto::UINT8:
      return DType::kUInt8;
    case onnx::TensorProto::INT8:
      return DType::kInt8;
    case onnx::TensorProto::INT16:
      return DType::kInt16;
    case onnx::TensorProto::INT32:
      return DType::kInt32;
    case onnx::TensorProto::INT64:
      return DType::kInt64;
    case onnx::TensorProto::STRING:
      return DType::kString;
    case onnx::TensorProto::BOOL:
      return DType::kBool;
    case onnx::TensorProto::FLOAT16:
      return DType::kHalf;
    case onnx::TensorProto::DOUBLE:
      return DType::kDouble;
    case onnx::TensorProto::BFLOAT16:
      return DType::kBFloat16;
    default:
      return DType::kInvalid;
  }
}

Shape ResolvedShape(const Shape& in, std::vector<int64_t> target) {
  const int64_t n = in.NumElements();
  int64_t known = 1;
  int unknown = -1;
  bool overflow = false;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] < 0) {
      unknown = static_cast<int>(i);
    } else {
      overflow |= __builtin_mul_overflow(known, target[i], &known);
    }
  }
  if (unknown >= 0) {
    target[unknown] = n >= 0 && known > 0 && !overflow ? n / known : kUnknownDim;
  }
  return Shape(target);
}

Result<int64_t> NormalizeAxis(const NodeContext& c, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return c.Error("axis " + std::to_string(axis) + " is out of range for rank " +
                   std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

Result<int64_t> FlattenedSize(const NodeContext& c, const Shape& s, int64_t axis, int from,
                              int to) {
  bool unknown = false;
  for (int i = from; i < to; ++i) {
    if (s.dim(i) == 0) return 0;
    unknown |= s.dim(i) < 0;
  }
  if (unknown) return -1;
  int64_t n = 1;
  for (int i = from; i < to; ++i) {
    if (__builtin_mul_overflow(n, s.dim(i), &n)) {
      return c.Error("flattening " + s.ToString() + " at axis " + std::to_string(axis) +
                     " makes a dimension past 2^63 - 1");
    }
  }
  return n;
}

namespace {

// Copies typed repeated fields into little-endian element bytes.
template <typename Field, typename Elem>
std::string PackAs(const Field& f) {
  std::string out(static_cast<size_t>(f.size()) * sizeof(Elem), '\0');
  for (int i = 0; i < f.size(); ++i) {
    Elem e = static_cast<Elem>(f.Get(i));
    std::memcpy(out.data() + i * sizeof(Elem), &e, sizeof(Elem));
  }
  return out;
}

}  // namespace

Result<Tensor> TensorFromOnnx(const onnx::TensorProto& t, const std::string& where) {
  DType dt = DTypeFromOnnx(t.data_type());
  if (dt == DType::kInvalid) {
    return Unimplemented(where + ": tensor element type " + std::to_string(t.data_type()) +
                         " is not supported");
  }
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument(where + ": negative dimension in a tensor");
    if (d > 0 && n > (int64_t{1} << 40) / d)
      return InvalidArgument(where + ": tensor is too large");
    n *= d;
  }
  Shape shape(dims);
  if (t.data_location() == onnx::TensorProto::EXTERNAL && !t.has_raw_data()) {
    return InvalidArgument(where + ": external data was not loaded");
  }
  if (dt == DType::kString) {
    if (t.string_data_size() != n) return InvalidArgument(where + ": string tensor size mismatch");
    return Tensor::FromStrings(shape, {t.string_data().begin(), t.string_data().end()});
  }
  const int64_t want = n * DTypeSize(dt);
  std::string bytes;
  if (t.has_raw_data()) {
    bytes = t.raw_data();
  } else {
    switch (dt) {
      case DType::kFloat:
        bytes = PackAs<decltype(t.float_data()), float>(t.float_data());
        break;
      case DType::kDouble:
        bytes = PackAs<decltype(t.double_data()), double>(t.double_data());
        break;
      case DType::kInt64:
        bytes = PackAs<decltype(t.int64_data()), int64_t>(t.int64_data());
        break;
      case DType::kUInt32:
      case DType::kUInt64:
        bytes = dt == DType::kUInt32 ? PackAs<decltype(t.uint64_data()), uint32_t>(t.uint64_data())
                                     : PackAs<decltype(t.uint64_data()), uint64_t>(t.uint64_data());
        break;
      case DType::kInt32:
        bytes = PackAs<decltype(t.int32_data()), int32_t>(t.int32_data());
        break;
      case DType::kInt16:
      case DType::kUInt16:
      case DType::kHalf:
      case DType::kBFloat16:
        bytes = PackAs<decltype(t.int32_data()), uint16_t>(t.int32_data());
        break;
      case DType::kInt8:
      case DType::kUInt8:
      case DType::kBool:
        bytes = PackAs<decltype(t.int32_data()), uint8_t>(t.int32_data());
        break;
      default:
        return Unimplemented(where + ": tensor type " + DTypeName(dt) + " is not supported");
    }
  }
  if (static_cast<int64_t>(bytes.size()) != want) {
    return InvalidArgument(where + ": tensor of shape " + shape.ToString() + " and type " +
                           DTypeName(dt) + " needs " + std::to_string(want) + " bytes, has " +
                           std::to_string(bytes.size()));
  }
  return Tensor(dt, std::move(shape), std::move(bytes));
}

}  // namespace graph::onnx_import
