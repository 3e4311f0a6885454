// ONNX models (what torch.onnx.export, tf2onnx and other converters write) read
// into the graph IR. Each ONNX node becomes TensorFlow-style IR nodes by the
// translation table of docs/onnx.md, so kernels, shape, cost and gradient rules
// are the IR's own. Read through Debian's libonnx (ONNX 1.12): its protobuf
// schema, its checker and its shape inference, which gives every value a type
// and rank before translation.
//
// What is read: ModelProto's graph, opset imports of the default domain (9 to
// 17), initializers (raw or typed fields, or external data files next to the
// model: location/offset/length), graph inputs with static or symbolic
// dimensions (symbolic ones become unknown; --input-shape fills them), Constant
// nodes. Initializers become trainable Const parameters named as in the file;
// the importer's own constants are marked untrainable ("_untrainable").
// Errors are one line naming the file (and node, op, domain and opset where one
// is at fault). Thread safety: free functions, no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/status.h"

namespace graph {

// The newest opset of the default domain the translation table follows.
constexpr int kMaxOnnxOpset = 17;
constexpr int kMinOnnxOpset = 1;

// Whether a file's first bytes are a serialized ONNX ModelProto (its
// ir_version, field 1, comes first in every writer's output).
bool LooksLikeOnnx(const std::string& contents);

// Whether the bytes are a bare ONNX GraphProto with nodes (a model's graph saved
// without its ModelProto: onnx.save(model.graph)), to say so when they are
// neither a model nor a GraphDef. False in a build without libonnx.
bool IsOnnxGraphProto(const std::string& contents);

// The IR names of the model's graph inputs (Placeholders, in the file's order,
// initializers excluded) and graph outputs (Identity nodes, in order).
struct OnnxSignature {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

// Sizes given for graph inputs (--input-shape), by the input's ONNX or IR
// name: they replace the inputs' symbolic dimensions before ONNX's shape
// inference and translation, which unrolls recurrent ops only over static
// sizes. A name that is not an input, or sizes that do not fit the declared
// shape, are refused in the words of CheckInputShapes (graph/shape_inference.h).
using InputShapes = std::map<std::string, std::vector<int64_t>>;

// Reads a serialized ModelProto; external data files are found relative to
// `path`'s directory. `signature` (optional) receives the inputs and outputs.
Result<Graph> ImportOnnx(const std::string& contents, const std::string& path,
                         OnnxSignature* signature = nullptr, const InputShapes& shapes = {});

// The external data files the model's initializers name (their paths as the
// importer reads them, relative to `path`'s directory); none if it does not parse.
std::vector<std::string> OnnxExternalDataFiles(const std::string& contents,
                                               const std::string& path);

// A serialized TensorProto file (ONNX's backend test data, input_0.pb); `name`
// (optional) receives the tensor's name field.
Result<Tensor> ReadOnnxTensor(const std::string& path, std::string* name = nullptr);

// The ONNX ops the translation table handles, sorted; `differentiable` says
// whether the training graph differentiates through each.
struct OnnxOpInfo {
  std::string op;
  bool differentiable;
};
std::vector<OnnxOpInfo> SupportedOnnxOps();

}  // namespace graph
