// TensorFlow.js graph models: model.json holds a GraphDef in protobuf's JSON
// mapping plus a weights manifest; Const values live in the weight files, possibly
// quantized (uint8/uint16 affine with scale and min, or float16).
#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "graph/file_util.h"
#include "graph/graphdef_proto.h"
#include "graph/importer.h"
#include "graph/proto/tfjs_model.pb.h"

namespace graph {

namespace {

// Decodes one weight's bytes into a Tensor of its (original) dtype. Faults in the
// manifest entry are reported against `spec_where` (model.json), missing bytes
// against `data_where` (the weight files).
Result<Tensor> DecodeWeight(const tfjs::WeightSpec& w, const char* data, int64_t available,
                            int64_t* consumed, const std::string& spec_where,
                            const std::string& data_where) {
  const std::string& where = spec_where;
  std::vector<int64_t> dims(w.shape().begin(), w.shape().end());
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument(where + ": negative dimension in shape");
  }
  Shape shape(dims);
  int64_t n = shape.NumElements();
  if (n < 0 || n > (int64_t{1} << 32)) return InvalidArgument(where + ": shape is too large");
  DType dtype = DTypeFromName(w.dtype());
  if (w.has_quantization() && !w.quantization().original_dtype().empty()) {
    dtype = DTypeFromName(w.quantization().original_dtype());
  }
  if (dtype == DType::kInvalid) {
    return InvalidArgument(where + ": unknown dtype '" + w.dtype() + "'");
  }
  auto need = [&](int64_t bytes) -> Status {
    if (bytes > available) {
      return InvalidArgument(data_where + ": needs " + std::to_string(bytes) + " bytes but only " +
                             std::to_string(available) + " remain in the weight files");
    }
    *consumed = bytes;
    return Status::Ok();
  };
  if (dtype == DType::kString) {
    // Each element: a 4-byte little-endian length, then the bytes.
    std::vector<std::string> vals;
    int64_t off = 0;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t len = 0;
      GRAPH_RETURN_IF_ERROR(need(off + 4));
      std::memcpy(&len, data + off, 4);
      GRAPH_RETURN_IF_ERROR(need(off + 4 + static_cast<int64_t>(len)));
      vals.emplace_back(data + off + 4, len);
      off += 4 + len;
    }
    *consumed = off;
    return Tensor::FromStrings(std::move(shape), std::move(vals));
  }
  int out_size = DTypeSize(dtype);
  if (out_size == 0) {
    return Unimplemented(where + ": weights of type " + DTypeName(dtype) + " are not supported");
  }
  // A GraphDef's limit for one constant (docs/file-formats.md): a 4 GiB file
  // of uint8 values would decode to 16 GiB of floats.
  if (n > kMaxConstantBytes / out_size) {
    return InvalidArgument(where + ": " + shape.ToString() + " " + DTypeName(dtype) +
                           " is larger than 4 GiB (one constant's limit)");
  }
  if (!w.has_quantization() || w.quantization().dtype().empty()) {
    GRAPH_RETURN_IF_ERROR(need(n * out_size));
    return Tensor(dtype, std::move(shape), std::string(data, static_cast<size_t>(n * out_size)));
  }
  const tfjs::Quantization& q = w.quantization();
  // Check the bytes exist before allocating what the manifest claims.
  int64_t stored = q.dtype() == "uint8" ? n : 2 * n;
  GRAPH_RETURN_IF_ERROR(need(stored));
  const std::string& kind = q.dtype();
  if (kind != "float16" && kind != "uint8" && kind != "uint16") {
    return InvalidArgument(where + ": unknown quantization dtype '" + kind + "'");
  }
  if (n == 0) return Tensor(dtype, std::move(shape), std::string());
  if (dtype != DType::kFloat && dtype != DType::kInt32) {
    return Unimplemented(where + ": quantized weights of type " + DTypeName(dtype) +
                         " are not supported");
  }
  // Element i's value, decoded straight into `out`: no second copy of the
  // weight as floats (a 1 GiB weight peaked at 2 GiB).
  const bool u8 = kind == "uint8", f16 = kind == "float16";
  const float scale = q.scale(), min = q.min();
  auto value = [&](int64_t i) -> float {
    if (u8) return static_cast<uint8_t>(data[i]) * scale + min;
    uint16_t v;
    std::memcpy(&v, data + 2 * i, 2);
    return f16 ? HalfToFloat(v) : v * scale + min;
  };
  std::string out(static_cast<size_t>(n * out_size), '\0');
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DType::kFloat) {
      const float v = value(i);
      std::memcpy(out.data() + 4 * i, &v, 4);
    } else {
      const int32_t v = static_cast<int32_t>(std::lround(value(i)));
      std::memcpy(out.data() + 4 * i, &v, 4);
    }
  }
  return Tensor(dtype, std::move(shape), std::move(out));
}

// The converter writes some dtypes as a narrower or wider one and says so only in
// the manifest (tfjs-converter write_weights.py, _AUTO_DTYPE_CONVERSION): int64 as
// int32, float64 and float16 as float32. The graph's Const keeps the original
// dtype, which the rest of the graph's attributes assume, so the value is
// converted back to it, as TF.js's loader does when it maps DT_INT64 to int32 and
// DT_HALF/DT_DOUBLE to float32. int64 values beyond int32 were wrapped by the
// converter and cannot be recovered. Returns nullopt for other pairs.
std::optional<Tensor> RestoreConvertedDtype(const Tensor& weight, DType declared) {
  const int64_t n = weight.num_elements();
  const std::string& in = weight.bytes();
  if (weight.dtype() == DType::kInt32 && declared == DType::kInt64) {
    return Tensor::FromInt64s(DType::kInt64, weight.shape(), weight.ToInt64s());
  }
  if (weight.dtype() != DType::kFloat || (declared != DType::kDouble && declared != DType::kHalf)) {
    return std::nullopt;
  }
  std::string out(static_cast<size_t>(n * DTypeSize(declared)), '\0');
  for (int64_t i = 0; i < n; ++i) {
    float f;
    std::memcpy(&f, in.data() + 4 * i, 4);
    if (declared == DType::kDouble) {
      double d = f;
      std::memcpy(out.data() + 8 * i, &d, 8);
    } else {
      uint16_t h = FloatToHalf(f);
      std::memcpy(out.data() + 2 * i, &h, 2);
    }
  }
  return Tensor(declared, weight.shape(), std::move(out));
}

}  // namespace

std::vector<std::string> TfjsWeightFiles(const std::string& json, const std::string& json_path) {
  tfjs::Model model;
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = true;
  if (!google::protobuf::util::JsonStringToMessage(json, &model, opts).ok()) return {};
  std::vector<std::string> files;
  for (const tfjs::WeightGroup& group : model.weights_manifest()) {
    for (const std::string& p : group.paths()) files.push_back(DirName(json_path) + p);
  }
  return files;
}

Result<Graph> ImportTfjs(const std::string& json, const std::string& json_path) {
  tfjs::Model model;
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = true;
  auto st = google::protobuf::util::JsonStringToMessage(json, &model, opts);
  if (!st.ok()) {
    return InvalidArgument(
        json_path + ": not a TensorFlow.js model: " + JsonParseMessage(std::string(st.message())));
  }
  if (model.format() == "layers-model") {
    // A Keras model's layers, not a graph of ops: TensorFlow.js converts it.
    return InvalidArgument(json_path +
                           ": a TensorFlow.js layers model; the planner reads graph models "
                           "(convert it with tensorflowjs_converter --input_format "
                           "tfjs_layers_model --output_format tfjs_graph_model)");
  }
  if (!model.has_model_topology() || model.model_topology().node_size() == 0) {
    return InvalidArgument(json_path + ": TensorFlow.js model has no modelTopology nodes");
  }
  // Decode every weight of every group; a group's files are one byte stream.
  std::unordered_map<std::string, Tensor> weights;
  std::unordered_set<std::string> seen_paths;
  const std::string dir = DirName(json_path);
  for (const tfjs::WeightGroup& group : model.weights_manifest()) {
    std::string stream;
    std::string files;
    for (const std::string& p : group.paths()) {
      if (!seen_paths.insert(p).second) {
        return InvalidArgument(json_path + ": weights file '" + p + "' is listed twice");
      }
      if (!SafeRelativePath(p) || !ResolvesInside(dir, p)) {
        return InvalidArgument(json_path + ": weight path '" + p +
                               "' must be a relative path inside the model's directory");
      }
      auto bytes = ReadFile(dir + p);
      if (!bytes.ok()) {
        return bytes.status().WithContext(json_path + ": weights file '" + p + "' is unreadable");
      }
      stream += *bytes;
      files += (files.empty() ? "" : "+") + p;
    }
    int64_t offset = 0;
    for (const tfjs::WeightSpec& w : group.weights()) {
      int64_t used = 0;
      GRAPH_ASSIGN_OR_RETURN(
          Tensor t,
          DecodeWeight(
              w, stream.data() + offset, static_cast<int64_t>(stream.size()) - offset, &used,
              json_path + ": weight '" + w.name() + "'",
              (files.empty() ? json_path + " (its group lists no weights file)" : dir + files) +
                  ": weight '" + w.name() + "'"));
      offset += used;
      weights[w.name()] = std::move(t);
    }
    // The converter writes exactly the manifest's bytes: bytes left over mean a
    // weight read at the wrong size, and every one after it at the wrong offset.
    if (offset != static_cast<int64_t>(stream.size()) && !files.empty()) {
      return InvalidArgument(json_path + ": the manifest's weights read " + std::to_string(offset) +
                             " bytes of " + dir + files + ", which hold " +
                             std::to_string(stream.size()) +
                             ": a weight's shape, dtype or quantization does not match the files");
    }
  }

  // Consts whose values are written inline in the JSON need no weight. Those
  // whose values are weights declare only a shape: it is kept here and the
  // value made empty before the graph is made, which would otherwise expand
  // each to zeros as a constant given by fewer values than elements (charged
  // to the 1 GiB limit for those, which refused models over 1 GiB of weights,
  // and held every weight twice while importing).
  std::unordered_set<std::string> inline_values;
  std::unordered_map<std::string, tensorflow::TensorShapeProto> weight_shapes;
  for (tensorflow::NodeDef& nd : *model.mutable_model_topology()->mutable_node()) {
    auto it = nd.mutable_attr()->find("value");
    if (nd.op() != "Const" || it == nd.attr().end() || !it->second.has_tensor()) continue;
    tensorflow::TensorProto& t = *it->second.mutable_tensor();
    tensorflow::TensorProto shape_only;
    *shape_only.mutable_tensor_shape() = t.tensor_shape();
    shape_only.set_dtype(t.dtype());
    if (t.ByteSizeLong() > shape_only.ByteSizeLong()) {
      inline_values.insert(nd.name());
    } else if (weights.count(nd.name())) {
      weight_shapes[nd.name()] = t.tensor_shape();
      t.clear_tensor_shape();
      t.mutable_tensor_shape()->add_dim()->set_size(0);
    }
  }

  GRAPH_ASSIGN_OR_RETURN(Graph g, GraphFromProto(model.model_topology(), json_path));
  for (Node& n : g.mutable_nodes()) {
    if (n.op != "Const") continue;
    auto it = weights.find(n.name);
    const AttrValue* declared = n.attr("value");
    const Tensor* declared_t = declared ? declared->get<Tensor>() : nullptr;
    if (it == weights.end()) {
      if (inline_values.count(n.name) || (declared_t && declared_t->num_elements() == 0)) continue;
      return InvalidArgument(json_path + ": Const '" + n.name +
                             "' has no entry in the weights manifest");
    }
    std::optional<Shape> declared_shape;
    if (auto shape = weight_shapes.find(n.name); shape != weight_shapes.end()) {
      GRAPH_ASSIGN_OR_RETURN(
          declared_shape,
          ShapeFromProto(shape->second, json_path + ": node '" + n.name + "' attr 'value'"));
    } else if (declared_t) {
      declared_shape = declared_t->shape();
    }
    if (declared_shape && *declared_shape != it->second.shape()) {
      return InvalidArgument(json_path + ": Const '" + n.name + "' declares shape " +
                             declared_shape->ToString() + " but its weight has " +
                             it->second.shape().ToString());
    }
    if (declared_t && declared_t->dtype() != it->second.dtype()) {
      // Widened back (int32 to int64, float32 to float64), a weight is held
      // to the same 4 GiB as when decoded.
      const int64_t size = DTypeSize(declared_t->dtype());
      if (size > 0 && it->second.num_elements() > kMaxConstantBytes / size) {
        return InvalidArgument(json_path + ": Const '" + n.name + "' declares " +
                               DTypeName(declared_t->dtype()) + ": its weight " +
                               it->second.shape().ToString() + " would be larger than 4 GiB");
      }
      if (auto restored = RestoreConvertedDtype(it->second, declared_t->dtype())) {
        n.attrs["value"] = MakeAttr(*std::move(restored));
        continue;
      }
      return InvalidArgument(json_path + ": Const '" + n.name + "' declares " +
                             DTypeName(declared_t->dtype()) + " but its weight is " +
                             DTypeName(it->second.dtype()));
    }
    n.attrs["value"] = MakeAttr(it->second);
  }
  return g;
}

}  // namespace graph
