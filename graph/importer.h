// Reading model files into the graph IR. The format is recognised from the file's
// content, never from its extension:
//   binary GraphDef, text GraphDef (.pbtxt), a GraphDef in protobuf JSON,
//   TensorFlow.js graph models (model.json plus the weight files its manifest names),
//   and ONNX models (graph/onnx.h).
// Errors are one line naming the file and the problem. No shape inference here
// (see shape_inference.h). Thread safety: free functions, no shared state.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/onnx.h"
#include "graph/status.h"

namespace graph {

enum class ModelFormat { kBinaryGraphDef, kTextGraphDef, kJsonGraphDef, kTfjs, kOnnx };
const char* ModelFormatName(ModelFormat f);

// Guesses the format from the first bytes of a file.
ModelFormat DetectModelFormat(const std::string& contents);

// Reads `path` (and, for TF.js, its weight files next to it) into a validated Graph.
// `shapes` (--input-shape) fix an ONNX model's symbolic input sizes before its
// translation (graph/onnx.h); other formats keep their declared shapes here, and
// shape inference applies the sizes later (graph/shape_inference.h).
Result<Graph> ImportModel(const std::string& path, const InputShapes& shapes = {});

// Same, from contents already in memory; `path` names the file in errors and, for
// TF.js, locates the weight files (relative to its directory).
Result<Graph> ImportModelContents(const std::string& contents, const std::string& path,
                                  const InputShapes& shapes = {});

// TensorFlow.js model.json contents; weight files are read relative to json_path.
Result<Graph> ImportTfjs(const std::string& json, const std::string& json_path);

// The weight files a TensorFlow.js model.json lists, as paths to read; none if
// it does not parse.
std::vector<std::string> TfjsWeightFiles(const std::string& json, const std::string& json_path);

// The files a model is read from besides `path` itself (TensorFlow.js weight
// files, ONNX external data), so that no output overwrites one; none for a
// GraphDef, or when the file cannot be read or parsed (the import says why).
std::vector<std::string> ModelCompanionFiles(const std::string& path);

}  // namespace graph
