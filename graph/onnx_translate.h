// Internal to graph/: how an ONNX node becomes graph-IR nodes (docs/onnx.md).
//
// The importer (onnx.cc) walks the ONNX graph in order and hands each node to
// its op's translator through a NodeContext. A translator reads the node's
// inputs (as IR tensor names), their types and shapes (from ONNX's own shape
// inference) and known constant values, emits TensorFlow-style IR nodes, and
// binds each ONNX output to an IR tensor. The node that computes the ONNX
// node's main output carries the ONNX node's name, so PyTorch's module scopes
// ("/layer1/layer1.0/conv1/Conv") survive; helper nodes are named under it.
//
// The per-op rules live in one table, split by family across onnx_ops_*.cc.
// Not thread-safe: one Translation per import.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graph/graph.h"

namespace graph::onnx_import {

// What ONNX's shape inference (or the model) says about one value.
struct ValueInfo {
  DType dtype = DType::kInvalid;
  Shape shape;  // dim_param and missing dims are kUnknownDim; unknown rank if absent
};

// The state of one import.
// `base` as an IR node name: ':' (an output index to the IR) becomes '_', a
// leading '/' or '^' (a control edge) is dropped; "node" when nothing is left.
std::string IrName(const std::string& base);

// What a file may ask the recurrent ops' unrolling for: the steps of the
// whole model (about 15 IR nodes each) and a cell's hidden size.
constexpr int64_t kMaxUnrolledSteps = 100000;
constexpr int64_t kMaxHiddenSize = int64_t{1} << 20;

struct Translation {
  std::string path;  // the model file, for messages
  int opset = 0;     // of the default ("" / "ai.onnx") domain
  std::vector<NodeSpec> specs;
  std::unordered_set<std::string> names;                 // IR node names in use
  // The suffix UniqueName tries first for a base: a file of many nodes of one
  // name (ONNX does not require them unique) is not quadratic to name.
  std::unordered_map<std::string, int> next_suffix;
  int64_t unrolled_steps = 0;  // recurrent steps unrolled so far (kMaxUnrolledSteps)
  std::unordered_map<std::string, std::string> tensors;  // ONNX value -> IR tensor
  std::unordered_map<std::string, Tensor> constants;     // ONNX value -> its value
  std::unordered_map<std::string, ValueInfo> infos;      // ONNX value -> type

  // `base` made a valid IR node name not yet used (':' and a leading '^' would
  // read as output indices and control edges).
  std::string UniqueName(const std::string& base);
};

class NodeContext {
 public:
  NodeContext(Translation* t, const onnx::NodeProto* node, std::string base)
      : t_(t), node_(node), base_(std::move(base)) {}

  const onnx::NodeProto& node() const { return *node_; }
  int opset() const { return t_->opset; }

  // ---- inputs ----
  int num_inputs() const { return node_->input_size(); }
  // Present: listed and not the empty name ONNX uses for a skipped optional.
  bool has(int i) const { return i < num_inputs() && !node_->input(i).empty(); }
  // The IR tensor; "" when absent (the IR's Graph::Create rejects it).
  const std::string& in(int i) const;
  DType dtype(int i) const;
  Shape shape(int i) const;
  int rank(int i) const;             // -1 when unknown
  const Tensor* value(int i) const;  // the input's value when it is a known constant
  // The input as integers; an error naming it when it is not a known constant.
  Result<std::vector<int64_t>> ints(int i, const char* what) const;
  // A rank, or an error saying ONNX's shape inference left it unknown.
  Result<int> known_rank(int i) const;

  // ---- attributes ----
  const onnx::AttributeProto* attr(const char* name) const;
  int64_t attr_int(const char* name, int64_t dflt) const;
  float attr_float(const char* name, float dflt) const;
  std::string attr_string(const char* name, const std::string& dflt) const;
  std::optional<std::vector<int64_t>> attr_ints(const char* name) const;
  std::optional<std::vector<float>> attr_floats(const char* name) const;

  // ---- outputs ----
  int num_outputs() const { return node_->output_size(); }
  bool has_output(int k) const { return k < num_outputs() && !node_->output(k).empty(); }
  DType out_dtype(int k) const;
  Shape out_shape(int k) const;
  // Binds ONNX output k to IR tensor `tensor`.
  void Output(int k, const std::string& tensor);
  // Binds output k to a known constant value as well (folded shape arithmetic).
  void OutputConstant(int k, const Tensor& value);
  // Records what the translation knows of output k's shape where ONNX's shape
  // inference left its rank or dims unknown (a reshape to a computed shape).
  void RefineOutputShape(int k, const Shape& shape);
  // Counts `steps` more recurrent steps unrolled; false (counting none) when
  // the model's total would pass kMaxUnrolledSteps.
  bool ChargeUnrolledSteps(int64_t steps) {
    if (t_->unrolled_steps + steps > kMaxUnrolledSteps) return false;
    t_->unrolled_steps += steps;
    return true;
  }

  // ---- emitting IR nodes ----
  // Appends a node named after the ONNX node (suffix empty) or under it
  // ("<name>/<suffix>"); returns its name, which is also its output 0.
  std::string Emit(const std::string& suffix, const char* op, std::vector<std::string> inputs,
                   AttrMap attrs = {});
  // A Const the training graph does not train (the importer's own constants).
  std::string Constant(const std::string& suffix, const Tensor& value);
  std::string IntConst(const std::string& suffix, const std::vector<int64_t>& v,
                       DType t = DType::kInt32);
  std::string IntScalar(const std::string& suffix, int64_t v, DType t = DType::kInt32);
  std::string ScalarConst(const std::string& suffix, double v, DType t);

  // ---- errors: one line naming the file, the node and its op ----
  Status Error(const std::string& what) const;        // the model is malformed
  Status Unsupported(const std::string& what) const;  // valid ONNX we do not run

 private:
  Translation* t_;
  const onnx::NodeProto* node_;
  std::string base_;
};

using Translator = Status (*)(NodeContext&);

struct OpRule {
  const char* op;
  Translator translate;
  // Whether the training graph can differentiate through the op's float
  // outputs (false: ArgMax-like ops, whose outputs are indices or masks).
  bool differentiable = true;
};

// Concat's axis: its attribute, else 1 before opset 4 and 0 since.
int64_t ConcatAxis(const NodeContext& c);

// A StridedSlice's attributes with int64 bounds: `mask`'s axes take their whole
// range (begin_mask and end_mask), no other mask.
AttrMap SliceMasks(int64_t mask);

// The families of the table, one per onnx_ops_*.cc.
const std::vector<OpRule>& MathRules();
const std::vector<OpRule>& NnRules();
const std::vector<OpRule>& ArrayRules();
const std::vector<OpRule>& RnnRules();

// After a node's translation: ranks ONNX's shape inference left unknown,
// derived from the inputs, and integer arithmetic on known values folded
// (onnx_refine.cc).
void RefineOutputs(NodeContext& c);

// The rule for an op of the default domain; nullptr if none.
const OpRule* FindRule(const std::string& op);

// An ONNX tensor (raw or typed fields; external data must already be loaded)
// as ours; `where` names it in errors.
Result<Tensor> TensorFromOnnx(const onnx::TensorProto& t, const std::string& where);

// Attribute helpers shared by the families.
AttrValue IntList(std::vector<int64_t> v);
AttrValue StrAttr(const char* s);
// ONNX's TensorProto.DataType as ours; kInvalid if we have no equivalent.
DType DTypeFromOnnx(int onnx_type);
// A reshape's output shape: `target` with its -1 resolved when the input's
// size is known (else left unknown, as is a product that would overflow).
Shape ResolvedShape(const Shape& in, std::vector<int64_t> target);

// An axis in [-rank, rank) made non-negative; an error names it otherwise.
Result<int64_t> NormalizeAxis(const NodeContext& c, int64_t axis, int rank);

// The product of s's dimensions [from, to), one side of flattening s at
// `axis`: 0 when one is 0, else -1 when one is unknown; past 2^63 - 1 an
// error naming the node (a file's sizes may be anything up to 2^63).
Result<int64_t> FlattenedSize(const NodeContext& c, const Shape& s, int64_t axis, int from, int to);

}  // namespace graph::onnx_import
