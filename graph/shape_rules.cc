// InferenceContext and the helpers every shape rule shares (shape_rules.h).
#include "graph/shape_rules.h"

#include <algorithm>

namespace graph {

// ---- InferenceContext ------------------------------------------------------

std::optional<std::vector<int64_t>> InferenceContext::ints(int i) const {
  if (i >= num_inputs() || !in_values_[i]) return std::nullopt;
  DType t = in_values_[i]->dtype();
  if (!IsInteger(t) && t != DType::kBool) return std::nullopt;
  return in_values_[i]->ToInt64s();
}

Status InferenceContext::RequireInputs(int n) const {
  if (num_inputs() < n) {
    return Error("needs " + std::to_string(n) + " inputs, has " + std::to_string(num_inputs()));
  }
  return Status::Ok();
}

Status InferenceContext::Error(const std::string& msg) const {
  return InvalidArgument("node '" + node_.name + "' (" + node_.op + "): " + msg);
}

void InferenceContext::set_output(int i, DType t, Shape s) {
  if (static_cast<int>(out_dtypes.size()) <= i) {
    out_dtypes.resize(i + 1, DType::kInvalid);
    out_shapes.resize(i + 1);
    out_values.resize(i + 1);
  }
  out_dtypes[i] = t;
  out_shapes[i] = std::move(s);
}

void InferenceContext::set_value(int i, Tensor t) {
  if (i >= static_cast<int>(out_values.size())) return;
  // Floating values are kept only as scalars: range bounds computed from shapes.
  const bool scalar_float =
      (t.dtype() == DType::kFloat || t.dtype() == DType::kDouble) && t.num_elements() == 1;
  if (!IsInteger(t.dtype()) && t.dtype() != DType::kBool && !scalar_float) return;
  if (t.num_elements() < 0 || t.num_elements() > opts_.max_constant_elements) return;
  out_values[i] = std::move(t);
}

void InferenceContext::set_int_value(int i, DType t, Shape s, const std::vector<int64_t>& vals) {
  if (static_cast<int64_t>(vals.size()) != s.NumElements()) return;
  set_value(i, Tensor::FromInt64s(t == DType::kInt64 ? DType::kInt64 : DType::kInt32, std::move(s),
                                  vals));
}

DType InferenceContext::t_attr() const {
  DType t = node_.attr_type("T", DType::kInvalid);
  if (t == DType::kInvalid && num_inputs() > 0) t = in_dtypes_[0];
  return t;
}

// ---- helpers ---------------------------------------------------------------

bool EvaluableSize(const Shape& s, const InferenceContext& c) {
  int64_t n = s.NumElements();
  return n >= 0 && n <= c.options().max_constant_elements;
}

Result<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  if (!a.known_rank() || !b.known_rank()) return Shape();
  int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    int64_t da = ia >= 0 ? a.dim(ia) : 1;
    int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da == 1) {
      dims[i] = db;
    } else if (db == 1) {
      dims[i] = da;
    } else if (da < 0 || db < 0) {
      dims[i] = da < 0 ? db : da;
    } else if (da == db) {
      dims[i] = da;
    } else {
      return InvalidArgument("shapes " + a.ToString() + " and " + b.ToString() +
                             " do not broadcast");
    }
  }
  return Shape(dims);
}

Result<int> NormalizeAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("axis " + std::to_string(axis) + " is out of range for rank " +
                           std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}
}  // namespace graph
