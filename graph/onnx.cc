// The one adapter to libonnx: parses ModelProto, loads external data, runs
// ONNX's checker and shape inference (translating their exceptions into our
// one-line errors) and drives the per-op translation (onnx_translate.h).
#include "graph/onnx.h"

#include <google/protobuf/stubs/logging.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "graph/file_util.h"
#include "graph/onnx_translate.h"

namespace graph {

using onnx_import::NodeContext;
using onnx_import::Translation;
using onnx_import::ValueInfo;

namespace {

// Reads each initializer's external data (location, offset, length: what
// torch.onnx.export writes for models over 2 GiB) into its raw_data.
Status LoadExternalData(onnx::GraphProto* g, const std::string& path) {
  std::map<std::string, std::string> files;
  for (onnx::TensorProto& t : *g->mutable_initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& kv : t.external_data()) {
      if (kv.key() == "location") location = kv.value();
      if (kv.key() != "offset" && kv.key() != "length") continue;
      // The whole value, digits only: "12abc" is corrupt, not 12.
      int64_t v = 0;
      const char* end = kv.value().data() + kv.value().size();
      const auto [at, err] = std::from_chars(kv.value().data(), end, v);
      if (err != std::errc() || at != end || kv.value().empty() || v < 0) {
        return InvalidArgument(path + ": initializer '" + t.name() + "' has a malformed " +
                               kv.key() + " '" + kv.value() + "'");
      }
      (kv.key() == "offset" ? offset : length) = v;
    }
    if (!SafeRelativePath(location) || !ResolvesInside(DirName(path), location)) {
      return InvalidArgument(path + ": initializer '" + t.name() + "': external data location '" +
                             location + "' must be a relative path inside the model's directory");
    }
    auto it = files.find(location);
    if (it == files.end()) {
      auto bytes = ReadFile(DirName(path) + location);
      if (!bytes.ok()) {
        return bytes.status().WithContext(path + ": external data of initializer '" + t.name() +
                                          "'");
      }
      it = files.emplace(location, *std::move(bytes)).first;
    }
    const std::string& data = it->second;
    const int64_t size = static_cast<int64_t>(data.size());
    if (length < 0 && offset >= 0 && offset <= size) length = size - offset;
    if (offset < 0 || offset > size || length < 0 || length > size - offset) {
      return InvalidArgument(DirName(path) + location + ": initializer '" + t.name() +
                             "' reads bytes " + std::to_string(offset) + "+" +
                             std::to_string(length) + " of a " + std::to_string(data.size()) +
                             "-byte file");
    }
    t.set_raw_data(data.substr(static_cast<size_t>(offset), static_cast<size_t>(length)));
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
  }
  return Status::Ok();
}

ValueInfo InfoFromType(const onnx::TypeProto& type) {
  ValueInfo v;
  if (!type.has_tensor_type()) return v;
  v.dtype = onnx_import::DTypeFromOnnx(type.tensor_type().elem_type());
  if (!type.tensor_type().has_shape()) return v;
  std::vector<int64_t> dims;
  for (const auto& d : type.tensor_type().shape().dim()) {
    dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : kUnknownDim);
  }
  v.shape = Shape(dims);
  return v;
}

Result<int> DefaultOpset(const onnx::ModelProto& m, const std::string& path) {
  int opset = -1;
  for (const auto& o : m.opset_import()) {
    if (!o.domain().empty() && o.domain() != "ai.onnx") continue;
    // Read whole: 2^32 + 13 is not opset 13 (libonnx reads it whole).
    if (o.version() > kMaxOnnxOpset) {
      return Unimplemented(path + ": opset " + std::to_string(o.version()) + " is newer than " +
                           std::to_string(kMaxOnnxOpset) + ", the newest this planner reads");
    }
    if (o.version() < kMinOnnxOpset) {
      return Unimplemented(path + ": opset " + std::to_string(o.version()) + " is older than " +
                           std::to_string(kMinOnnxOpset) + ", the oldest this planner reads");
    }
    opset = static_cast<int>(o.version());
  }
  if (opset < 0) {
    for (const auto& o : m.opset_import()) {
      return Unimplemented(path + ": the model uses only the '" + o.domain() + "' domain (opset " +
                           std::to_string(o.version()) + "), whose ops are not supported");
    }
    return InvalidArgument(path + ": the model imports no opset");
  }
  return opset;
}

// Whether `n` is of ONNX's default domain, the one the translation table covers.
bool DefaultDomain(const onnx::NodeProto& n) {
  return n.domain().empty() || n.domain() == "ai.onnx";
}

bool IsControlFlow(const std::string& op) { return op == "If" || op == "Loop" || op == "Scan"; }

// What ONNX's checker refuses in its own words ("No Op registered for FooBar
// with domain_version of 13 ==> Context: Bad node spec ..."), said in ours
// first: a model newer than the checker, an op ONNX does not define at the
// model's opset, a node reading a value no earlier node made.
// ONNX's checker requires a type, and for a tensor a shape (its dimensions
// may be names), on every graph input and output; said here naming the value.
// After --input-shape, which gives an input declared without one its shape.
Status CheckSignatureTypes(const onnx::GraphProto& g, const std::string& path) {
  for (const auto& [list, what] :
       {std::pair{&g.input(), "input"}, std::pair{&g.output(), "output"}}) {
    for (const onnx::ValueInfoProto& v : *list) {
      const std::string where = path + ": graph " + what + " '" + v.name() + "'";
      if (!v.has_type()) return InvalidArgument(where + " has no type (ONNX requires one)");
      if (v.type().has_tensor_type() && !v.type().tensor_type().has_shape()) {
        return InvalidArgument(where +
                               " has no shape (ONNX requires one on the graph's inputs "
                               "and outputs" +
                               (list == &g.input() ? std::string("; give it with --input-shape ") +
                                                         v.name() + "=D0,D1,...)"
                                                   : std::string("; unknown sizes may be named, "
                                                                 "e.g. 'batch')")));
      }
    }
  }
  return Status::Ok();
}

// Attributes ONNX's shape inference divides by, or multiplies, unchecked: a
// stride of 0 or a blocksize whose square wraps to 0 raised SIGFPE inside
// libonnx, which no catch can turn into an error. Every op that has them
// (convolutions, pools, DepthToSpace, SpaceToDepth) takes 1..2^16, far beyond
// any real model's.
constexpr int64_t kMaxWindowAttr = int64_t{1} << 16;

Status CheckDivisorAttrs(const onnx::NodeProto& n, const std::string& where) {
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.name() != "strides" && a.name() != "dilations" && a.name() != "blocksize") continue;
    std::vector<int64_t> values(a.ints().begin(), a.ints().end());
    if (a.type() == onnx::AttributeProto::INT) values.push_back(a.i());
    for (int64_t v : values) {
      if (v < 1 || v > kMaxWindowAttr) {
        return InvalidArgument(where + ": attribute '" + a.name() + "' holds " + std::to_string(v) +
                               " (1.." + std::to_string(kMaxWindowAttr) + " are read)");
      }
    }
  }
  return Status::Ok();
}

Status PreCheck(const onnx::ModelProto& m, int opset, const std::string& path) {
  if (m.ir_version() > onnx::IR_VERSION) {
    return Unimplemented(path + ": ONNX IR version " + std::to_string(m.ir_version()) +
                         " is newer than " + std::to_string(onnx::IR_VERSION) +
                         ", the newest this planner reads");
  }
  const onnx::GraphProto& g = m.graph();
  std::set<std::string> made;
  for (const onnx::TensorProto& init : g.initializer()) made.insert(init.name());
  for (const onnx::ValueInfoProto& in : g.input()) made.insert(in.name());
  std::set<std::string> outputs;  // every node's, to tell a misordered input from a missing one
  for (const onnx::NodeProto& n : g.node()) outputs.insert(n.output().begin(), n.output().end());
  for (const onnx::NodeProto& n : g.node()) {
    const std::string where = path + ": node '" + n.name() + "' (" + n.op_type() + ")";
    if (DefaultDomain(n) && onnx::OpSchemaRegistry::Schema(n.op_type(), opset, "") == nullptr) {
      return InvalidArgument(where + ": ONNX defines no op '" + n.op_type() + "' at opset " +
                             std::to_string(opset));
    }
    if (DefaultDomain(n)) GRAPH_RETURN_IF_ERROR(CheckDivisorAttrs(n, where));
    for (const std::string& in : n.input()) {
      if (in.empty() || made.count(in)) continue;
      if (outputs.count(in)) {
        return InvalidArgument(where + ": input '" + in +
                               "' is made by no earlier node (ONNX lists nodes in topological "
                               "order)");
      }
      return InvalidArgument(where + ": input '" + in +
                             "' is made by no node and is no initializer or graph input");
    }
    for (const std::string& out : n.output()) made.insert(out);
  }
  return Status::Ok();
}

// ONNX's checker and shape inference; their exceptions become one line.
Status CheckAndInfer(onnx::ModelProto* m, const std::string& path) {
  try {
    onnx::checker::check_model(*m);
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    return InvalidArgument(path + ": not a valid ONNX model: " + what);
  }
  try {
    onnx::ShapeInferenceOptions opts(/*check_type=*/false, /*strict_mode=*/0,
                                     /*data_prop=*/true);
    onnx::shape_inference::InferShapes(*m, onnx::OpSchemaRegistry::Instance(), opts);
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    return InvalidArgument(path + ": ONNX shape inference failed: " + what);
  }
  return Status::Ok();
}

// Writes `shapes` into the declared types of the graph inputs they name.
Status FixInputShapes(onnx::GraphProto* g, const InputShapes& shapes, const std::string& path) {
  if (shapes.empty()) return Status::Ok();
  std::set<std::string> initializers;
  for (const onnx::TensorProto& init : g->initializer()) initializers.insert(init.name());
  std::string list;
  std::set<std::string> matched;
  for (onnx::ValueInfoProto& in : *g->mutable_input()) {
    if (initializers.count(in.name())) continue;
    const std::string ir = onnx_import::IrName(in.name());  // before UniqueName's suffix
    list += (list.empty() ? "" : ", ") + ir;
    auto it = shapes.find(ir);
    if (it == shapes.end()) it = shapes.find(in.name());
    if (it == shapes.end()) continue;
    matched.insert(it->first);
    const std::vector<int64_t>& dims = it->second;
    if (!in.type().has_tensor_type()) continue;
    // No shape declared (not even a rank): the sizes given are the shape, as
    // CheckInputShapes takes them for the other formats.
    const bool declared = in.type().tensor_type().has_shape();
    onnx::TensorShapeProto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (!declared) {
      for (size_t d = 0; d < dims.size(); ++d) shape->add_dim();
    }
    bool fits = shape->dim_size() == static_cast<int>(dims.size());
    for (int d = 0; fits && d < shape->dim_size(); ++d) {
      fits =
          dims[d] >= 0 && (!shape->dim(d).has_dim_value() || shape->dim(d).dim_value() == dims[d]);
    }
    if (!fits) {
      return InvalidArgument(path + ": --input-shape " + it->first + "=" + Shape(dims).ToString() +
                             " does not fit its declared shape " +
                             InfoFromType(in.type()).shape.ToString());
    }
    for (int d = 0; d < shape->dim_size(); ++d) shape->mutable_dim(d)->set_dim_value(dims[d]);
  }
  for (const auto& [name, dims] : shapes) {
    if (!matched.count(name)) {
      return InvalidArgument(
          path + ": --input-shape names '" + name +
          "', which is not an input (inputs: " + (list.empty() ? std::string("none") : list) + ")");
    }
  }
  return Status::Ok();
}

Status AddInitializers(const onnx::GraphProto& g, Translation* t) {
  for (const onnx::TensorProto& init : g.initializer()) {
    GRAPH_ASSIGN_OR_RETURN(
        Tensor value,
        onnx_import::TensorFromOnnx(init, t->path + ": initializer '" + init.name() + "'"));
    std::string name = t->UniqueName(init.name());
    t->specs.push_back(
        {name, "Const", {}, "", {{"dtype", MakeAttr(value.dtype())}, {"value", MakeAttr(value)}}});
    t->tensors[init.name()] = name;
    t->infos[init.name()] = ValueInfo{value.dtype(), value.shape()};
    t->constants[init.name()] = std::move(value);
  }
  return Status::Ok();
}

Status AddInputs(const onnx::GraphProto& g, Translation* t, OnnxSignature* sig) {
  for (const onnx::ValueInfoProto& in : g.input()) {
    if (t->tensors.count(in.name())) continue;  // an initializer listed as an input (IR < 4)
    ValueInfo v = InfoFromType(in.type());
    if (v.dtype == DType::kInvalid) {
      return Unimplemented(t->path + ": graph input '" + in.name() +
                           "' is not a tensor of a supported element type");
    }
    // A negative size read as unknown (then as --batch), and sizes whose product
    // overflows as a tensor of no elements: a step of 0 ms.
    const auto& dims = in.type().tensor_type().shape().dim();
    for (int d = 0; d < dims.size(); ++d) {
      if (dims[d].has_dim_value() && dims[d].dim_value() < 0) {
        return InvalidArgument(t->path + ": graph input '" + in.name() + "' has size " +
                               std::to_string(dims[d].dim_value()) + " in dimension " +
                               std::to_string(d));
      }
    }
    if (v.shape.FullyDefined() && v.shape.NumElements() < 0) {
      return InvalidArgument(t->path + ": graph input '" + in.name() + "' of shape " +
                             v.shape.ToString() + " has more elements than 2^63");
    }
    std::string name = t->UniqueName(in.name());
    t->specs.push_back({name,
                        "Placeholder",
                        {},
                        "",
                        {{"dtype", MakeAttr(v.dtype)}, {"shape", MakeAttr(v.shape)}}});
    t->tensors[in.name()] = name;
    if (sig) sig->inputs.push_back(name);
  }
  return Status::Ok();
}

// The graph's other op types of the default domain that no rule translates,
// with their node counts ("; also without one: Hardmax (2 nodes)"), so that one
// run names every op a model needs, as inspect does for a GraphDef.
std::string OtherUntranslated(const std::string& first, const onnx::GraphProto& g) {
  std::map<std::string, int> counts;
  for (const onnx::NodeProto& n : g.node()) {
    if (DefaultDomain(n) && n.op_type() != first && !IsControlFlow(n.op_type()) &&
        onnx_import::FindRule(n.op_type()) == nullptr) {
      ++counts[n.op_type()];
    }
  }
  std::string out;
  for (const auto& [op, k] : counts) {
    out += (out.empty() ? "; also without one: " : ", ") + op + " (" + std::to_string(k) +
           (k == 1 ? " node)" : " nodes)");
  }
  return out;
}

Status CheckNodeSupported(const onnx::NodeProto& n, const onnx::GraphProto& g,
                          const Translation& t) {
  const std::string where = t.path + ": node '" + n.name() + "' (" + n.op_type();
  if (!DefaultDomain(n)) {
    return Unimplemented(where + ", domain '" + n.domain() +
                         "'): ops of this domain are not supported");
  }
  if (IsControlFlow(n.op_type())) {
    return Unimplemented(
        where + ", opset " + std::to_string(t.opset) +
        "): control flow is not supported (the executors run acyclic step graphs)");
  }
  if (onnx_import::FindRule(n.op_type()) == nullptr) {
    return Unimplemented(where + ", domain 'ai.onnx', opset " + std::to_string(t.opset) +
                         "): op has no translation" + OtherUntranslated(n.op_type(), g) +
                         " (build/bench/onnx_conformance --ops lists the supported ops)");
  }
  return Status::Ok();  // its inputs are made before it: PreCheck
}

Status TranslateNodes(const onnx::GraphProto& g, Translation* t) {
  for (const onnx::NodeProto& n : g.node()) {
    GRAPH_RETURN_IF_ERROR(CheckNodeSupported(n, g, *t));
    std::string base = n.name();
    if (base.empty())
      base = n.output_size() > 0 && !n.output(0).empty() ? n.output(0) : n.op_type();
    // The name made valid and unused; the IR node that carries it (Emit with
    // no suffix) claims it.
    std::string reserved = t->UniqueName(base);
    t->names.erase(reserved);
    NodeContext c(t, &n, reserved);
    GRAPH_RETURN_IF_ERROR(onnx_import::FindRule(n.op_type())->translate(c));
    onnx_import::RefineOutputs(c);
    for (int k = 0; k < n.output_size(); ++k) {
      if (!n.output(k).empty() && !t->tensors.count(n.output(k))) {
        return Unimplemented(t->path + ": node '" + n.name() + "' (" + n.op_type() + "): output " +
                             std::to_string(k) + " is not supported");
      }
    }
  }
  return Status::Ok();
}

// Keeps the nodes the graph outputs depend on, and the graph inputs: ONNX
// defines a model by its outputs, and translation leaves shape arithmetic
// behind whose values were folded into constants.
void PruneDeadNodes(std::vector<NodeSpec>* specs) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < specs->size(); ++i) index[(*specs)[i].name] = i;
  std::vector<char> live(specs->size(), 0);
  std::vector<size_t> stack;
  for (size_t i = 0; i < specs->size(); ++i) {
    const NodeSpec& s = (*specs)[i];
    if (s.op == "Placeholder" || s.attrs.count("_onnx_output")) {
      live[i] = 1;
      stack.push_back(i);
    }
  }
  while (!stack.empty()) {
    const NodeSpec& s = (*specs)[stack.back()];
    stack.pop_back();
    for (std::string in : s.inputs) {
      if (!in.empty() && in[0] == '^') in.erase(0, 1);
      size_t colon = in.rfind(':');
      if (colon != std::string::npos) in.resize(colon);
      auto it = index.find(in);
      if (it != index.end() && !live[it->second]) {
        live[it->second] = 1;
        stack.push_back(it->second);
      }
    }
  }
  std::vector<NodeSpec> kept;
  for (size_t i = 0; i < specs->size(); ++i) {
    if (!live[i]) continue;
    (*specs)[i].attrs.erase("_onnx_output");
    kept.push_back(std::move((*specs)[i]));
  }
  *specs = std::move(kept);
}

}  // namespace

Result<Graph> ImportOnnx(const std::string& contents, const std::string& path,
                         OnnxSignature* signature, const InputShapes& shapes) {
  onnx::ModelProto model;
  const google::protobuf::LogSilencer quiet;  // the error below says it, once
  if (!model.ParseFromString(contents)) {
    return InvalidArgument(path + ": not an ONNX model (the ModelProto does not parse)");
  }
  if (!model.has_graph() || model.graph().node_size() == 0) {
    return InvalidArgument(path + ": the ONNX model's graph has no nodes");
  }
  // ONNX defines a model by its outputs: with none, every node would be pruned
  // and an empty model placed.
  if (model.graph().output_size() == 0) {
    return InvalidArgument(path + ": the ONNX model's graph has no outputs");
  }
  Translation t;
  t.path = path;
  GRAPH_ASSIGN_OR_RETURN(t.opset, DefaultOpset(model, path));
  GRAPH_RETURN_IF_ERROR(LoadExternalData(model.mutable_graph(), path));
  GRAPH_RETURN_IF_ERROR(PreCheck(model, t.opset, path));
  GRAPH_RETURN_IF_ERROR(FixInputShapes(model.mutable_graph(), shapes, path));
  GRAPH_RETURN_IF_ERROR(CheckSignatureTypes(model.graph(), path));
  GRAPH_RETURN_IF_ERROR(CheckAndInfer(&model, path));
  const onnx::GraphProto& g = model.graph();
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()}) {
    for (const onnx::ValueInfoProto& v : *list) t.infos[v.name()] = InfoFromType(v.type());
  }
  OnnxSignature sig;
  GRAPH_RETURN_IF_ERROR(AddInitializers(g, &t));
  GRAPH_RETURN_IF_ERROR(AddInputs(g, &t, &sig));
  GRAPH_RETURN_IF_ERROR(TranslateNodes(g, &t));
  for (const onnx::ValueInfoProto& out : g.output()) {
    auto it = t.tensors.find(out.name());
    if (it == t.tensors.end()) {
      return InvalidArgument(path + ": graph output '" + out.name() + "' is never produced");
    }
    std::string name = t.UniqueName(out.name());
    t.specs.push_back({name, "Identity", {it->second}, "", {{"_onnx_output", MakeAttr(true)}}});
    sig.outputs.push_back(name);
  }
  PruneDeadNodes(&t.specs);
  GRAPH_ASSIGN_OR_RETURN(Graph graph, Graph::Create(std::move(t.specs), path));
  if (signature) *signature = std::move(sig);
  return graph;
}

bool IsOnnxGraphProto(const std::string& contents) {
  onnx::GraphProto g;
  const google::protobuf::LogSilencer quiet;
  if (!g.ParseFromString(contents) || g.node_size() == 0) return false;
  return std::all_of(g.node().begin(), g.node().end(),
                     [](const onnx::NodeProto& n) { return !n.op_type().empty(); });
}

std::vector<std::string> OnnxExternalDataFiles(const std::string& contents,
                                               const std::string& path) {
  onnx::ModelProto model;
  const google::protobuf::LogSilencer quiet;
  if (!model.ParseFromString(contents)) return {};
  std::set<std::string> files;
  for (const onnx::TensorProto& t : model.graph().initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    for (const auto& kv : t.external_data()) {
      if (kv.key() == "location") files.insert(DirName(path) + kv.value());
    }
  }
  return {files.begin(), files.end()};
}

Result<Tensor> ReadOnnxTensor(const std::string& path, std::string* name) {
  GRAPH_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  onnx::TensorProto t;
  if (!t.ParseFromString(bytes)) return InvalidArgument(path + ": not an ONNX TensorProto");
  if (name) *name = t.name();
  return onnx_import::TensorFromOnnx(t, path);
}

std::vector<OnnxOpInfo> SupportedOnnxOps() {
  std::vector<OnnxOpInfo> out;
  for (const auto* family : {&onnx_import::MathRules(), &onnx_import::NnRules(),
                             &onnx_import::ArrayRules(), &onnx_import::RnnRules()}) {
    for (const onnx_import::OpRule& r : *family) out.push_back({r.op, r.differentiable});
  }
  std::sort(out.begin(), out.end(),
            [](const OnnxOpInfo& a, const OnnxOpInfo& b) { return a.op < b.op; });
  return out;
}

}  // namespace graph
