#include "graph/importer.h"

#include <algorithm>
#include <cctype>

#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "graph/onnx.h"

namespace graph {

const char* ModelFormatName(ModelFormat f) {
  switch (f) {
    case ModelFormat::kBinaryGraphDef:
      return "binary GraphDef";
    case ModelFormat::kTextGraphDef:
      return "text GraphDef";
    case ModelFormat::kJsonGraphDef:
      return "JSON GraphDef";
    case ModelFormat::kTfjs:
      return "TensorFlow.js graph model";
    case ModelFormat::kOnnx:
      return "ONNX model";
  }
  return "unknown";
}

bool LooksLikeOnnx(const std::string& contents) {
  // Every writer serializes ModelProto's fields in order: ir_version (field 1,
  // a varint: tag 0x08) first. A GraphDef starts with its nodes (tag 0x0a).
  return !contents.empty() && contents[0] == '\x08';
}

ModelFormat DetectModelFormat(const std::string& contents) {
  // Text formats are printable; binary protobuf almost always has control bytes
  // (field tags 0x0a, 0x12, lengths) in its first kilobytes.
  size_t probe = std::min<size_t>(contents.size(), 4096);
  size_t i = 0;
  if (contents.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;  // UTF-8 byte order mark
  bool printable = true;
  for (size_t k = i; k < probe; ++k) {
    unsigned char c = static_cast<unsigned char>(contents[k]);
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
      printable = false;
      break;
    }
  }
  if (!printable && LooksLikeOnnx(contents)) return ModelFormat::kOnnx;
  if (!printable || contents.empty()) return ModelFormat::kBinaryGraphDef;
  while (i < contents.size() && isspace(static_cast<unsigned char>(contents[i]))) ++i;
  if (i < contents.size() && contents[i] == '{') {
    return contents.find("\"modelTopology\"") != std::string::npos ? ModelFormat::kTfjs
                                                                   : ModelFormat::kJsonGraphDef;
  }
  return ModelFormat::kTextGraphDef;
}

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A file that is not a GraphDef may be an ONNX file that is not a model: a
// PyTorch user's .onnx should not be reported as a bad GraphDef alone.
Result<Graph> ParseBinaryOrSayWhat(const std::string& contents, const std::string& path) {
  Result<Graph> g = ParseBinaryGraphDef(contents, path);
  if (g.ok()) return g;
  if (IsOnnxGraphProto(contents)) {
    return InvalidArgument(path +
                           ": an ONNX GraphProto, not a model: save the whole ModelProto "
                           "(onnx.save(model, path) or torch.onnx.export), not model.graph");
  }
  if (EndsWith(path, ".onnx")) {
    return InvalidArgument(path +
                           ": not an ONNX model (an ONNX file starts with the ModelProto's "
                           "ir_version) and not a binary GraphDef either");
  }
  // torch.save and TorchScript write a zip holding pickles (data.pkl,
  // constants.pkl); older torch.save a bare pickle (protocol 2 and up starts
  // with 0x80). Neither holds a graph of ops this planner reads.
  // A zip names its entries in its central directory, at its end (TorchScript's
  // first entry is a tensor's data, "NAME/data/0").
  const std::string tail =
      contents.substr(contents.size() - std::min<size_t>(contents.size(), 65536));
  const bool zip_of_pickles = contents.compare(0, 4, "PK\x03\x04") == 0 &&
                              (tail.find("data.pkl") != std::string::npos ||
                               tail.find("constants.pkl") != std::string::npos);
  const bool pickle = !contents.empty() && static_cast<unsigned char>(contents[0]) == 0x80 &&
                      contents.size() > 1 && contents[1] >= 2 && contents[1] <= 5;
  if (zip_of_pickles || pickle) {
    return InvalidArgument(path +
                           ": a PyTorch file (torch.save or TorchScript), which holds weights or "
                           "code, not a graph of ops: export the model to ONNX with "
                           "torch.onnx.export (docs/onnx.md; scripts/pytorch/export_models.py)");
  }
  return g;
}

}  // namespace

namespace {

// Any printable file that is not JSON is read as a text GraphDef, so a YAML
// file or a note given as the model failed in protobuf's parser's words
// ("x.yaml:6:5: Invalid float number: name"). A syntax error says what the
// file was taken for and what a model may be.
Result<Graph> TextGraphDefOrSayWhat(const std::string& text, const std::string& path) {
  Result<Graph> g = ParseTextGraphDef(text, path);
  if (g.ok()) return g;
  const std::string& m = g.status().message();
  const std::string head = path + ":";
  if (m.rfind(head, 0) != 0 || m.size() <= head.size() ||
      !isdigit(static_cast<unsigned char>(m[head.size()]))) {
    return g;  // parsed, but not a graph we take: its own error
  }
  const std::string rest = m.substr(head.size());  // "LINE:COL: what"
  const size_t colon = rest.find(": ");
  return InvalidArgument(path + ": not a model (printable text, so read as a TensorFlow text " +
                         "GraphDef, which fails at " + rest.substr(0, colon) + ": " +
                         (colon == std::string::npos ? rest : rest.substr(colon + 2)) +
                         "); a model is a GraphDef (binary or text), an ONNX model or a TF.js "
                         "model.json");
}

}  // namespace

Result<Graph> ImportModelContents(const std::string& contents, const std::string& path,
                                  const InputShapes& shapes) {
  if (contents.empty()) return InvalidArgument(path + ": file is empty");
  // The text formats' parsers take no byte order mark (an editor's, on Windows).
  const bool bom = contents.compare(0, 3, "\xEF\xBB\xBF") == 0;
  auto text = [&] { return bom ? contents.substr(3) : contents; };
  switch (DetectModelFormat(contents)) {
    case ModelFormat::kBinaryGraphDef:
      return ParseBinaryOrSayWhat(contents, path);
    case ModelFormat::kTextGraphDef:
      return TextGraphDefOrSayWhat(text(), path);
    case ModelFormat::kJsonGraphDef:
      return ParseJsonGraphDef(text(), path);
    case ModelFormat::kTfjs:
      return ImportTfjs(text(), path);
    case ModelFormat::kOnnx:
      return ImportOnnx(contents, path, nullptr, shapes);
  }
  return InvalidArgument(path + ": unrecognised model format");
}

std::vector<std::string> ModelCompanionFiles(const std::string& path) {
  Result<std::string> contents = ReadFile(path);
  if (!contents.ok()) return {};
  switch (DetectModelFormat(*contents)) {
    case ModelFormat::kTfjs:
      return TfjsWeightFiles(*contents, path);
    case ModelFormat::kOnnx:
      return OnnxExternalDataFiles(*contents, path);
    default:
      return {};
  }
}

Result<Graph> ImportModel(const std::string& path, const InputShapes& shapes) {
  GRAPH_ASSIGN_OR_RETURN(std::string contents, ReadFile(path));
  return ImportModelContents(contents, path, shapes);
}

}  // namespace graph
