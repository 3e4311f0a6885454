// Builders of ONNX models in ONNX's own protobuf schema (libonnx), for the
// importer's tests: a model of one opset, typed inputs and outputs, nodes,
// initializers and attributes, and its import as a file named `path`.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "graph/onnx.h"

namespace graph::onnx_test {

inline onnx::ModelProto Model(int opset) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("onnx_test");
  onnx::OperatorSetIdProto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

// A float input; -1 dims become the symbolic dim "N".
inline void Input(onnx::ModelProto* m, const std::string& name, const std::vector<int64_t>& dims) {
  onnx::ValueInfoProto* v = m->mutable_graph()->add_input();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) {
    auto* dim = t->mutable_shape()->add_dim();
    if (d < 0) {
      dim->set_dim_param("N");
    } else {
      dim->set_dim_value(d);
    }
  }
}

inline void Output(onnx::ModelProto* m, const std::string& name, const std::vector<int64_t>& dims) {
  onnx::ValueInfoProto* v = m->mutable_graph()->add_output();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) {
    auto* dim = shape->add_dim();
    if (d < 0) {
      dim->set_dim_param("N");
    } else {
      dim->set_dim_value(d);
    }
  }
}

inline onnx::NodeProto* AddNode(onnx::ModelProto* m, const std::string& op,
                                const std::vector<std::string>& in,
                                const std::vector<std::string>& out, const std::string& name = "") {
  onnx::NodeProto* n = m->mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? "/" + op : name);
  for (const auto& i : in) n->add_input(i);
  for (const auto& o : out) n->add_output(o);
  return n;
}

inline onnx::TensorProto* Initializer(onnx::ModelProto* m, const std::string& name,
                                      const std::vector<int64_t>& dims, float fill) {
  onnx::TensorProto* t = m->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t->add_float_data(fill + static_cast<float>(i));
  return t;
}

inline Result<Graph> Import(const onnx::ModelProto& m, const std::string& path = "m.onnx",
                            OnnxSignature* sig = nullptr) {
  return ImportOnnx(m.SerializeAsString(), path, sig);
}

// Attributes and typed inputs the crafted-file tests set by hand.
namespace crafted {

// A graph input of `type` (FLOAT, INT64, ...) and static `dims`.
inline void TypedInput(onnx::ModelProto* m, const std::string& name,
                       const std::vector<int64_t>& dims, int type) {
  Input(m, name, dims);
  m->mutable_graph()
      ->mutable_input()
      ->rbegin()
      ->mutable_type()
      ->mutable_tensor_type()
      ->set_elem_type(type);
}

inline void IntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

inline void IntsAttr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

}  // namespace crafted

}  // namespace graph::onnx_test
