// graph/onnx.h in a build without libonnx (cmake -DPLANNER_ONNX=OFF): ONNX
// files are recognised and refused in one line that says why.
#include "graph/onnx.h"

namespace graph {

Result<Graph> ImportOnnx(const std::string& contents, const std::string& path,
                         OnnxSignature* signature, const InputShapes& shapes) {
  return Unimplemented(path +
                       ": an ONNX model, and this build reads none (built with "
                       "PLANNER_ONNX=OFF: install libonnx-dev and rebuild)");
}

Result<Tensor> ReadOnnxTensor(const std::string& path, std::string* name) {
  return Unimplemented(path + ": this build reads no ONNX files (built with PLANNER_ONNX=OFF)");
}

std::vector<OnnxOpInfo> SupportedOnnxOps() { return {}; }

bool IsOnnxGraphProto(const std::string& contents) { return false; }

std::vector<std::string> OnnxExternalDataFiles(const std::string& contents,
                                               const std::string& path) {
  return {};
}

}  // namespace graph
