// Gradient checks: a case is a small forward graph in text GraphDef whose
// training graph's gradients (our rules and kernels) are compared with LibTorch
// autograd through the forward kernels (gradients_test.cc runs them). Builders
// for the graphs' nodes, and the three sets of cases, one per file of rules.
#pragma once

#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace runtime::gradient_check {

struct Case {
  std::string name;              // test name; also the op types it covers, '_'-separated is fine
  std::vector<std::string> ops;  // op types with gradient rules this case exercises
  std::string graph;             // forward graph: Placeholder 'x', float Const parameters
  bool positive = false;         // draw inputs and parameters from [0.5, 1.5] instead of [-1, 1]
  // Parameters the training graph rightly updates none of, though autograd
  // would differentiate them (OneHot's on and off values) or cannot (a batch
  // norm's population statistics): left out of the check that every other
  // parameter without an update has a zero gradient in autograd.
  std::set<std::string> no_gradient = {};
};

// GoogleTest prints a parameter with this instead of its bytes.
inline void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

inline std::string Dims(const std::vector<int64_t>& d) {
  std::string s;
  for (int64_t v : d) s += " dim { size: " + std::to_string(v) + " }";
  return s;
}
inline std::string X(const std::vector<int64_t>& d) {
  return "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
         "attr { key: 'shape' value { shape {" +
         Dims(d) + " } } } }\n";
}
inline std::string W(const std::string& name, const std::vector<int64_t>& d) {
  return "node { name: '" + name +
         "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
         "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {" +
         Dims(d) + " } float_val: 0 } } } }\n";
}
inline std::string I(const std::string& name, const std::vector<int64_t>& v, bool scalar = false) {
  std::string s =
      "node { name: '" + name +
      "' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {" +
      (scalar ? std::string() : Dims({static_cast<int64_t>(v.size())})) + " }";
  for (int64_t x : v) s += " int_val: " + std::to_string(x);
  return s + " } } } }\n";
}
// A [n, 2] int32 constant (paddings).
inline std::string I2(const std::string& name, const std::vector<int64_t>& v) {
  std::string s =
      "node { name: '" + name +
      "' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {" +
      Dims({static_cast<int64_t>(v.size() / 2), 2}) + " }";
  for (int64_t x : v) s += " int_val: " + std::to_string(x);
  return s + " } } } }\n";
}
// A node: name, op, inputs, extra attrs text.
inline std::string N(const std::string& name, const std::string& op,
                     const std::vector<std::string>& in, const std::string& attrs = "") {
  std::string s = "node { name: '" + name + "' op: '" + op + "'";
  for (const std::string& i : in) s += " input: '" + i + "'";
  return s + " attr { key: 'T' value { type: DT_FLOAT } } " + attrs + "}\n";
}
inline std::string A(const std::string& key, const std::string& value) {
  return "attr { key: '" + key + "' value { " + value + " } } ";
}
inline std::string Ints(const std::vector<int64_t>& v) {
  std::string s = "list {";
  for (int64_t x : v) s += " i: " + std::to_string(x);
  return s + " }";
}
inline std::string Conv(const std::string& pad, int stride) {
  return A("padding", "s: '" + pad + "'") + A("strides", Ints({1, stride, stride, 1}));
}

// A float Const with the given values (not drawn at random: it is not a
// parameter the check sets, or it must hold these values).
inline std::string C(const std::string& name, const std::vector<int64_t>& d,
                     const std::vector<float>& v) {
  std::string s = "node { name: '" + name +
                  "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
                  "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {" +
                  Dims(d) + " }";
  for (float x : v) s += " float_val: " + std::to_string(x);
  return s + " } } } }\n";
}
// A bool Const.
inline std::string Bools(const std::string& name, const std::vector<int64_t>& d,
                         const std::vector<int>& v) {
  std::string s = "node { name: '" + name +
                  "' op: 'Const' attr { key: 'dtype' value { type: DT_BOOL } } "
                  "attr { key: 'value' value { tensor { dtype: DT_BOOL tensor_shape {" +
                  Dims(d) + " }";
  for (int x : v) s += std::string(" bool_val: ") + (x ? "true" : "false");
  return s + " } } } }\n";
}
// A fused contraction's attributes: fused_ops BiasAdd then `activation`.
inline std::string Fused(const std::string& activation, int num_args = 1) {
  return A("fused_ops", "list { s: 'BiasAdd' s: '" + activation + "' }") +
         A("num_args", "i: " + std::to_string(num_args));
}

std::vector<Case> CoreCases();   // gradients_test.cc
std::vector<Case> MathCases();   // gradient_rules_math_test.cc
std::vector<Case> ArrayCases();  // gradient_rules_array_test.cc

}  // namespace runtime::gradient_check
