// Internal to graph/: conversion between the generated tensorflow:: messages and
// the IR, shared by the GraphDef and TensorFlow.js importers. Not for other folders.
#pragma once

#include <string>

#include "graph/graph.h"
#include "graph/proto/tf_graph.pb.h"
#include "graph/status.h"

namespace graph {

// The most bytes one constant may hold, a GraphDef's or a TF.js weight's once
// decoded: refused before its declared size alone exhausts memory.
inline constexpr int64_t kMaxConstantBytes = int64_t{4} << 30;

Result<Graph> GraphFromProto(const tensorflow::GraphDef& gd, const std::string& source);
// `budget`: bytes that constants given by fewer values than elements may still
// expand to; decremented.
Result<Tensor> TensorFromProto(const tensorflow::TensorProto& p, const std::string& where,
                               int64_t* budget);
Result<Shape> ShapeFromProto(const tensorflow::TensorShapeProto& p, const std::string& where);
tensorflow::GraphDef GraphToProto(const Graph& g, const std::vector<std::string>& devices);

// protobuf's JSON parser's message without the caret line it draws under an
// (often empty) excerpt: "Closing quote expected in string.\n  ^" -> "Closing
// quote expected in string".
std::string JsonParseMessage(std::string message);

}  // namespace graph
