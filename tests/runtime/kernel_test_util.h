// Helpers for kernel tests: build one node from text attributes, run its kernel
// on given tensors, and compare results.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/graphdef.h"
#include "runtime/kernel.h"

namespace runtime::kernel_test {

using Int64s = std::vector<int64_t>;

// ---- Building and running one node ----

inline std::string Attr(const std::string& key, const std::string& value) {
  return " attr { key: '" + key + "' value { " + value + " } }";
}
inline std::string IntList(const Int64s& v) {
  std::string s = "list {";
  for (int64_t i : v) s += " i: " + std::to_string(i);
  return s + " }";
}
inline std::string StrList(const std::vector<std::string>& v) {
  std::string s = "list {";
  for (const std::string& i : v) s += " s: '" + i + "'";
  return s + " }";
}
inline std::string Str(const std::string& s) { return "s: '" + s + "'"; }
inline std::string Int(int64_t i) { return "i: " + std::to_string(i); }
inline std::string Bool(bool b) { return b ? "b: true" : "b: false"; }
inline std::string Type(const std::string& t) { return "type: " + t; }

// Runs the kernel of `op` on node 'y' (with `attrs`) reading placeholders x0, x1, ...
// `host_inputs`: KernelContext::host_inputs, the executor's host copies.
inline graph::Status RunKernel(const std::string& op, std::vector<at::Tensor> inputs,
                               const std::string& attrs, std::vector<at::Tensor>* outputs,
                               std::vector<at::Tensor> host_inputs = {}) {
  std::string text, node = "node { name: 'y' op: '" + op + "'";
  for (size_t i = 0; i < inputs.size(); ++i) {
    text += "node { name: 'x" + std::to_string(i) + "' op: 'Placeholder' }\n";
    node += " input: 'x" + std::to_string(i) + "'";
  }
  auto g = graph::ParseTextGraphDef(text + node + attrs + " }", "test.pbtxt");
  if (!g.ok()) return g.status();
  const KernelFn* fn = FindKernel(op);
  if (fn == nullptr) return graph::NotFound("no kernel for " + op);
  KernelContext c{g->node(g->Find("y")), std::move(inputs), {}, std::move(host_inputs)};
  graph::Status s = (*fn)(c);
  *outputs = std::move(c.outputs);
  return s;
}

inline std::vector<at::Tensor> EvalAll(const std::string& op, std::vector<at::Tensor> inputs,
                                       const std::string& attrs = "") {
  std::vector<at::Tensor> out;
  graph::Status s = RunKernel(op, std::move(inputs), attrs, &out);
  EXPECT_TRUE(s.ok()) << op << ": " << s.message();
  return out;
}

inline at::Tensor Eval(const std::string& op, std::vector<at::Tensor> inputs,
                       const std::string& attrs = "") {
  std::vector<at::Tensor> out = EvalAll(op, std::move(inputs), attrs);
  EXPECT_EQ(out.size(), 1u) << op;
  return out.empty() ? at::Tensor() : out[0];
}

// The error message of a kernel that must fail ("" if it succeeded).
inline std::string EvalError(const std::string& op, std::vector<at::Tensor> inputs,
                             const std::string& attrs = "") {
  std::vector<at::Tensor> out;
  graph::Status s = RunKernel(op, std::move(inputs), attrs, &out);
  EXPECT_EQ(s.code(), graph::StatusCode::kInvalidArgument) << op << " should fail";
  return s.message();
}

// ---- Values ----

inline at::Tensor F(const std::vector<float>& v, const Int64s& shape) {
  return at::tensor(v, at::kFloat).reshape(shape);
}
inline at::Tensor I(const std::vector<int>& v, const Int64s& shape) {
  return at::tensor(v, at::kInt).reshape(shape);
}
// A bool tensor from 0/1 values (at::tensor has no bool overload).
inline at::Tensor B(const std::vector<int>& v, const Int64s& shape) {
  return I(v, shape).to(at::kBool);
}
inline at::Tensor Scalar(int v) { return at::tensor(v, at::kInt).reshape({}); }
inline at::Tensor Random(const Int64s& shape, uint64_t seed) {
  at::manual_seed(seed);
  return at::randn(shape);
}
// arange as an [2, 3, 4] int32 tensor: element (i, j, k) is 12i + 4j + k.
inline at::Tensor Cube() { return at::arange(24, at::kInt).reshape({2, 3, 4}); }

inline void ExpectClose(const at::Tensor& got, const at::Tensor& want, double tol = 1e-5) {
  ASSERT_TRUE(got.defined());
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_TRUE(at::allclose(got.to(at::kDouble), want.to(at::kDouble), tol, tol))
      << "got\n"
      << got << "\nwant\n"
      << want;
}
inline void ExpectEqual(const at::Tensor& got, const at::Tensor& want) {
  ASSERT_TRUE(got.defined());
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_EQ(got.scalar_type(), want.scalar_type());
  EXPECT_TRUE(at::equal(got.to(want.scalar_type()), want)) << "got\n" << got << "\nwant\n" << want;
}

}  // namespace runtime::kernel_test
