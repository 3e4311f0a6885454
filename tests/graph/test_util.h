// Helpers shared by the graph tests: locating the real model files and building
// small graphs from text GraphDefs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "graph/graphdef.h"
#include "graph/shape_inference.h"

namespace graph::testing {

// The repository's model folder (models/tfjs): TF.js graph models that all train.
inline std::string ModelsDir() { return PLANNER_MODELS_DIR; }

// Every model in that folder (NAME.json), sorted: tests over "every model" read
// the folder, so a model added to it is tested without a list to keep in step.
inline std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(ModelsDir())) {
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline std::string ModelJson(const std::string& name) { return ModelsDir() + "/" + name + ".json"; }

// gtest names allow letters, digits and '_' only: "movenet-lightning" -> "movenet_lightning".
inline std::string ParamName(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n) {
    if (c == '-') c = '_';
  }
  return n;
}

// Parses a text GraphDef; fails the test on error.
inline Graph FromText(const std::string& pbtxt) {
  auto g = ParseTextGraphDef(pbtxt, "test.pbtxt");
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? std::move(g).value() : Graph();
}

// Parses and infers shapes.
inline Graph Inferred(const std::string& pbtxt, InferenceReport* report = nullptr,
                      InferenceOptions opts = {}) {
  Graph g = FromText(pbtxt);
  InferenceReport r = InferShapes(g, opts);
  if (report) *report = r;
  return g;
}

inline const Shape& OutShape(const Graph& g, const std::string& node, int index = 0) {
  NodeId id = g.Find(node);
  EXPECT_GE(id, 0) << node;
  static const Shape kNone;
  if (id < 0 || index >= g.node(id).num_outputs()) return kNone;
  return g.node(id).output_shapes[index];
}

// Text snippets for common nodes.
inline std::string Placeholder(const std::string& name, const std::vector<int64_t>& dims,
                               const std::string& dtype = "DT_FLOAT") {
  std::string s = "node { name: '" + name +
                  "' op: 'Placeholder' attr { key: 'dtype' value { type: " + dtype +
                  " } } attr { key: 'shape' value { shape {";
  for (int64_t d : dims) s += " dim { size: " + std::to_string(d) + " }";
  return s + " } } } }\n";
}

inline std::string IntConst(const std::string& name, const std::vector<int64_t>& vals,
                            bool scalar = false) {
  std::string s =
      "node { name: '" + name +
      "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'value' "
      "value { tensor { dtype: DT_INT32 tensor_shape {";
  if (!scalar) s += " dim { size: " + std::to_string(vals.size()) + " }";
  s += " }";
  for (int64_t v : vals) s += " int_val: " + std::to_string(v);
  return s + " } } } }\n";
}

inline std::string FloatConst(const std::string& name, const std::vector<int64_t>& dims) {
  std::string s =
      "node { name: '" + name +
      "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' "
      "value { tensor { dtype: DT_FLOAT tensor_shape {";
  for (int64_t d : dims) s += " dim { size: " + std::to_string(d) + " }";
  return s + " } float_val: 0.5 } } } }\n";
}

}  // namespace graph::testing
