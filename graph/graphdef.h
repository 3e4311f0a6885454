// TensorFlow GraphDef files (binary and text) to and from the graph IR.
//
// Files written here parse with TensorFlow's own graph.proto: our .proto files use
// TensorFlow's field numbers and types (graph/proto/tf_graph.proto).
// Thread safety: free functions, no shared state.
#pragma once

#include <string>

#include "graph/graph.h"
#include "graph/status.h"

namespace graph {

// `source` names the file in error messages.
Result<Graph> ParseBinaryGraphDef(const std::string& bytes, const std::string& source);
Result<Graph> ParseTextGraphDef(const std::string& text, const std::string& source);
// A GraphDef in protobuf's JSON mapping (a top-level object with "node").
Result<Graph> ParseJsonGraphDef(const std::string& json, const std::string& source);

// Options for writing a graph back out.
struct GraphDefWriteOptions {
  // When non-empty, one TensorFlow device string per node ("/device:GPU:0"),
  // written to NodeDef.device; otherwise each node's requested_device.
  std::vector<std::string> devices;
};

std::string SerializeGraphDef(const Graph& g, const GraphDefWriteOptions& opts = {});
std::string GraphDefToText(const Graph& g, const GraphDefWriteOptions& opts = {});

}  // namespace graph
