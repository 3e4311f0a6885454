#include "graph/graphdef.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <cctype>
#include <cstring>

#include "graph/graphdef_proto.h"

namespace graph {

namespace {

// Constants given by fewer values than elements expand on import; a few bytes of
// file must not become gigabytes of memory, so their total per graph is capped.
constexpr int64_t kMaxExpandedBytesPerGraph = int64_t{1} << 30;
constexpr int64_t kMaxStringElements = int64_t{1} << 24;

template <typename T, typename Repeated>
std::string PackValues(const Repeated& vals, int64_t n) {
  std::string bytes(static_cast<size_t>(n) * sizeof(T), '\0');
  if (vals.size() == 0) return bytes;  // TensorFlow: no values means zeros
  T* out = reinterpret_cast<T*>(bytes.data());
  for (int64_t i = 0; i < n; ++i) {
    // TensorFlow: fewer values than elements repeat the last one.
    out[i] = static_cast<T>(vals.Get(static_cast<int>(i < vals.size() ? i : vals.size() - 1)));
  }
  return bytes;
}

Result<AttrValue> AttrFromProto(const tensorflow::AttrValue& p, const std::string& where,
                                int64_t* budget) {
  using P = tensorflow::AttrValue;
  switch (p.value_case()) {
    case P::kS:
      return MakeAttr(p.s());
    case P::kI:
      return MakeAttr(static_cast<int64_t>(p.i()));
    case P::kF:
      return MakeAttr(p.f());
    case P::kB:
      return MakeAttr(p.b());
    case P::kType: {
      DType t = DTypeFromTf(p.type());
      if (t == DType::kInvalid && p.type() != 0) {
        return InvalidArgument(where + ": unknown data type " + std::to_string(p.type()));
      }
      return MakeAttr(t);
    }
    case P::kShape: {
      GRAPH_ASSIGN_OR_RETURN(Shape s, ShapeFromProto(p.shape(), where));
      return MakeAttr(std::move(s));
    }
    case P::kTensor: {
      GRAPH_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(p.tensor(), where, budget));
      return MakeAttr(std::move(t));
    }
    case P::kList: {
      const auto& l = p.list();
      if (l.func_size() > 0) return MakeAttr(OpaqueAttr{p.SerializeAsString()});
      AttrList out;
      out.s.assign(l.s().begin(), l.s().end());
      out.i.assign(l.i().begin(), l.i().end());
      out.f.assign(l.f().begin(), l.f().end());
      out.b.assign(l.b().begin(), l.b().end());
      for (int t : l.type()) out.type.push_back(DTypeFromTf(t));
      for (const auto& s : l.shape()) {
        GRAPH_ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(s, where));
        out.shape.push_back(std::move(shape));
      }
      for (const auto& t : l.tensor()) {
        GRAPH_ASSIGN_OR_RETURN(Tensor tensor, TensorFromProto(t, where, budget));
        out.tensor.push_back(std::move(tensor));
      }
      return MakeAttr(std::move(out));
    }
    case P::kFunc:
    case P::kPlaceholder:
      return MakeAttr(OpaqueAttr{p.SerializeAsString()});
    case P::VALUE_NOT_SET:
      return AttrValue{};
  }
  return AttrValue{};
}

void ShapeToProto(const Shape& s, tensorflow::TensorShapeProto* p) {
  if (!s.known_rank()) {
    p->set_unknown_rank(true);
    return;
  }
  for (int64_t d : s.dims()) p->add_dim()->set_size(d);
}

void TensorToProto(const Tensor& t, tensorflow::TensorProto* p) {
  p->set_dtype(static_cast<tensorflow::DataType>(t.dtype()));
  ShapeToProto(t.shape(), p->mutable_tensor_shape());
  if (t.dtype() == DType::kString) {
    for (const std::string& s : t.strings()) p->add_string_val(s);
  } else if (t.byte_size() > 0) {
    p->set_tensor_content(t.bytes());
  }
}

void AttrToProto(const AttrValue& a, tensorflow::AttrValue* p) {
  struct Visitor {
    tensorflow::AttrValue* p;
    void operator()(const std::monostate&) {}
    void operator()(const std::string& s) { p->set_s(s); }
    void operator()(int64_t i) { p->set_i(i); }
    void operator()(float f) { p->set_f(f); }
    void operator()(bool b) { p->set_b(b); }
    void operator()(DType t) { p->set_type(static_cast<tensorflow::DataType>(t)); }
    void operator()(const Shape& s) { ShapeToProto(s, p->mutable_shape()); }
    void operator()(const Tensor& t) { TensorToProto(t, p->mutable_tensor()); }
    void operator()(const AttrList& l) {
      auto* out = p->mutable_list();
      for (const auto& s : l.s) out->add_s(s);
      for (int64_t i : l.i) out->add_i(i);
      for (float f : l.f) out->add_f(f);
      for (bool b : l.b) out->add_b(b);
      for (DType t : l.type) out->add_type(static_cast<tensorflow::DataType>(t));
      for (const Shape& s : l.shape) ShapeToProto(s, out->add_shape());
      for (const Tensor& t : l.tensor) TensorToProto(t, out->add_tensor());
    }
    void operator()(const OpaqueAttr& o) { p->ParseFromString(o.serialized); }
  };
  std::visit(Visitor{p}, a.value);
}

// Collects the first error the text parser reports, with its position.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (message_.empty()) {
      message_ = std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
    }
  }
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

}  // namespace

Result<Shape> ShapeFromProto(const tensorflow::TensorShapeProto& p, const std::string& where) {
  if (p.unknown_rank()) return Shape();
  std::vector<int64_t> dims;
  dims.reserve(p.dim_size());
  for (const auto& d : p.dim()) {
    if (d.size() < -1) {
      return InvalidArgument(where + ": invalid dimension " + std::to_string(d.size()));
    }
    dims.push_back(d.size());
  }
  return Shape(std::move(dims));
}

Result<Tensor> TensorFromProto(const tensorflow::TensorProto& p, const std::string& where,
                               int64_t* budget) {
  DType dtype = DTypeFromTf(p.dtype());
  if (dtype == DType::kInvalid) {
    return InvalidArgument(where + ": tensor has unknown data type " + std::to_string(p.dtype()));
  }
  GRAPH_ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(p.tensor_shape(), where));
  int64_t n = shape.NumElements();
  if (n < 0)
    return InvalidArgument(where + ": tensor shape " + shape.ToString() + " is not static");
  if (dtype == DType::kString) {
    if (p.string_val_size() > n) return InvalidArgument(where + ": tensor has too many values");
    if (n > kMaxStringElements) return InvalidArgument(where + ": string tensor is too large");
    const int count = p.string_val_size();
    if (count < n) {  // the last value repeats: charge the copies to the graph's budget
      const int64_t each = static_cast<int64_t>(sizeof(std::string)) +
                           (count > 0 ? static_cast<int64_t>(p.string_val(count - 1).size()) : 0);
      if ((n - count) * each > *budget) {
        return InvalidArgument(where + ": string constant " + shape.ToString() + " given by " +
                               std::to_string(count) +
                               " value(s) would expand past the 1 GiB limit for such constants");
      }
      *budget -= (n - count) * each;
    }
    std::vector<std::string> vals(static_cast<size_t>(n));
    for (int64_t i = 0; i < n && p.string_val_size() > 0; ++i) {
      vals[i] = p.string_val(static_cast<int>(std::min<int64_t>(i, p.string_val_size() - 1)));
    }
    return Tensor::FromStrings(std::move(shape), std::move(vals));
  }
  int size = DTypeSize(dtype);
  if (size == 0) {
    return Unimplemented(where + ": constants of type " + DTypeName(dtype) + " are not supported");
  }
  if (n > kMaxConstantBytes / size) {
    return InvalidArgument(where + ": tensor " + shape.ToString() + " is larger than 4 GiB");
  }
  if (!p.tensor_content().empty()) {
    if (static_cast<int64_t>(p.tensor_content().size()) != n * size) {
      return InvalidArgument(where + ": tensor_content has " +
                             std::to_string(p.tensor_content().size()) + " bytes, shape " +
                             shape.ToString() + " of " + DTypeName(dtype) + " needs " +
                             std::to_string(n * size));
    }
    return Tensor(dtype, std::move(shape), p.tensor_content());
  }
  auto check_count = [&](int count) -> Status {
    if (count > n) {
      return InvalidArgument(where + ": tensor has " + std::to_string(count) +
                             " values for shape " + shape.ToString());
    }
    if (count < n) {  // expands: charge the graph's budget
      if (n * size > *budget) {
        return InvalidArgument(where + ": constant " + shape.ToString() + " given by " +
                               std::to_string(count) +
                               " value(s) would expand past the 1 GiB limit for such constants");
      }
      *budget -= n * size;
    }
    return Status::Ok();
  };
  std::string bytes;
  switch (dtype) {
    case DType::kFloat:
      GRAPH_RETURN_IF_ERROR(check_count(p.float_val_size()));
      bytes = PackValues<float>(p.float_val(), n);
      break;
    case DType::kDouble:
      GRAPH_RETURN_IF_ERROR(check_count(p.double_val_size()));
      bytes = PackValues<double>(p.double_val(), n);
      break;
    case DType::kInt32:
    case DType::kQInt32:
      GRAPH_RETURN_IF_ERROR(check_count(p.int_val_size()));
      bytes = PackValues<int32_t>(p.int_val(), n);
      break;
    case DType::kInt16:
    case DType::kQInt16:
      GRAPH_RETURN_IF_ERROR(check_count(p.int_val_size()));
      bytes = PackValues<int16_t>(p.int_val(), n);
      break;
    case DType::kUInt16:
    case DType::kQUInt16:
      GRAPH_RETURN_IF_ERROR(check_count(p.int_val_size()));
      bytes = PackValues<uint16_t>(p.int_val(), n);
      break;
    case DType::kInt8:
    case DType::kQInt8:
      GRAPH_RETURN_IF_ERROR(check_count(p.int_val_size()));
      bytes = PackValues<int8_t>(p.int_val(), n);
      break;
    case DType::kUInt8:
    case DType::kQUInt8:
      GRAPH_RETURN_IF_ERROR(check_count(p.int_val_size()));
      bytes = PackValues<uint8_t>(p.int_val(), n);
      break;
    case DType::kInt64:
      GRAPH_RETURN_IF_ERROR(check_count(p.int64_val_size()));
      bytes = PackValues<int64_t>(p.int64_val(), n);
      break;
    case DType::kUInt32:
      GRAPH_RETURN_IF_ERROR(check_count(p.uint32_val_size()));
      bytes = PackValues<uint32_t>(p.uint32_val(), n);
      break;
    case DType::kUInt64:
      GRAPH_RETURN_IF_ERROR(check_count(p.uint64_val_size()));
      bytes = PackValues<uint64_t>(p.uint64_val(), n);
      break;
    case DType::kBool:
      GRAPH_RETURN_IF_ERROR(check_count(p.bool_val_size()));
      bytes = PackValues<uint8_t>(p.bool_val(), n);
      break;
    case DType::kHalf:
    case DType::kBFloat16:
      GRAPH_RETURN_IF_ERROR(check_count(p.half_val_size()));
      bytes = PackValues<uint16_t>(p.half_val(), n);
      break;
    case DType::kComplex64:
      GRAPH_RETURN_IF_ERROR(check_count(p.scomplex_val_size() / 2));
      bytes = PackValues<float>(p.scomplex_val(), 2 * n);
      break;
    case DType::kComplex128:
      GRAPH_RETURN_IF_ERROR(check_count(p.dcomplex_val_size() / 2));
      bytes = PackValues<double>(p.dcomplex_val(), 2 * n);
      break;
    default:
      return Unimplemented(where + ": constants of type " + DTypeName(dtype) +
                           " are not supported");
  }
  return Tensor(dtype, std::move(shape), std::move(bytes));
}

Result<Graph> GraphFromProto(const tensorflow::GraphDef& gd, const std::string& source) {
  if (gd.node_size() == 0) return InvalidArgument(source + ": the graph has no nodes");
  std::vector<NodeSpec> specs(gd.node_size());
  int64_t budget = kMaxExpandedBytesPerGraph;
  for (int i = 0; i < gd.node_size(); ++i) {
    const tensorflow::NodeDef& nd = gd.node(i);
    NodeSpec& s = specs[i];
    s.name = nd.name();
    s.op = nd.op();
    s.inputs.assign(nd.input().begin(), nd.input().end());
    s.device = nd.device();
    for (const auto& [key, value] : nd.attr()) {
      std::string where = source + ": node '" + nd.name() + "' attr '" + key + "'";
      GRAPH_ASSIGN_OR_RETURN(AttrValue a, AttrFromProto(value, where, &budget));
      s.attrs.emplace(key, std::move(a));
    }
  }
  GRAPH_ASSIGN_OR_RETURN(Graph g, Graph::Create(std::move(specs), source));
  g.set_producer_version(gd.versions().producer());
  return g;
}

tensorflow::GraphDef GraphToProto(const Graph& g, const std::vector<std::string>& devices) {
  tensorflow::GraphDef gd;
  gd.mutable_versions()->set_producer(g.producer_version());
  gd.mutable_node()->Reserve(g.size());
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    tensorflow::NodeDef* nd = gd.add_node();
    nd->set_name(n.name);
    nd->set_op(n.op);
    for (const TensorRef& in : n.inputs) nd->add_input(g.TensorName(in));
    for (NodeId c : n.control_inputs) nd->add_input("^" + g.node(c).name);
    nd->set_device(devices.empty() ? n.requested_device : devices[id]);
    auto* attrs = nd->mutable_attr();
    for (const auto& [key, value] : n.attrs) AttrToProto(value, &(*attrs)[key]);
  }
  return gd;
}

std::string JsonParseMessage(std::string message) {
  const size_t caret = message.find_last_not_of(" \t\n\r");
  if (caret != std::string::npos && message[caret] == '^') {
    message.erase(caret);
    // The excerpt the caret pointed into, when there was one, stays: it shows where.
  }
  while (!message.empty() &&
         (std::isspace(static_cast<unsigned char>(message.back())) || message.back() == '.')) {
    message.pop_back();
  }
  return message;
}

Result<Graph> ParseBinaryGraphDef(const std::string& bytes, const std::string& source) {
  tensorflow::GraphDef gd;
  // protobuf logs why (invalid UTF-8 in a string, ...) on stderr; the error says it once.
  const google::protobuf::LogSilencer quiet;
  if (!gd.ParseFromString(bytes)) {
    return InvalidArgument(source + ": not a valid binary GraphDef (protobuf parse failed)");
  }
  return GraphFromProto(gd, source);
}

Result<Graph> ParseTextGraphDef(const std::string& text, const std::string& source) {
  tensorflow::GraphDef gd;
  google::protobuf::TextFormat::Parser parser;
  // Fields our schema does not model (a NodeDef's experimental_debug_info, a
  // library's function bodies) are skipped, as the binary and JSON readers
  // skip them: TensorFlow writes them.
  parser.AllowUnknownField(true);
  FirstErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, &gd)) {
    return InvalidArgument(source + ":" + errors.message());
  }
  return GraphFromProto(gd, source);
}

Result<Graph> ParseJsonGraphDef(const std::string& json, const std::string& source) {
  tensorflow::GraphDef gd;
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = true;
  auto st = google::protobuf::util::JsonStringToMessage(json, &gd, opts);
  if (!st.ok()) {
    return InvalidArgument(source +
                           ": not a JSON GraphDef: " + JsonParseMessage(std::string(st.message())));
  }
  return GraphFromProto(gd, source);
}

std::string SerializeGraphDef(const Graph& g, const GraphDefWriteOptions& opts) {
  // Deterministic: protobuf writes map fields (NodeDef.attr) in an order that
  // varies between processes otherwise, and model digests hash these bytes.
  const tensorflow::GraphDef proto = GraphToProto(g, opts.devices);
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    proto.SerializeToCodedStream(&coded);
  }
  return out;
}

std::string GraphDefToText(const Graph& g, const GraphDefWriteOptions& opts) {
  std::string out;
  google::protobuf::TextFormat::PrintToString(GraphToProto(g, opts.devices), &out);
  return out;
}

}  // namespace graph
