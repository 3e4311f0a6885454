#include "graph/signature.h"

#include <cstdio>

#include "graph/digest.h"

namespace graph {

namespace {

std::string Num(float f) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", f);
  return buf;
}

std::string TensorKey(const Tensor& t) {
  return std::string(DTypeName(t.dtype())) + t.shape().ToString() + "#" +
         Fnv1a64Hex(t.dtype() == DType::kString ? std::string() : t.bytes());
}

template <typename T, typename F>
std::string Join(const std::vector<T>& v, F f) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ":" : "") + f(v[i]);
  return out;
}

std::string AttrKey(const AttrValue& a) {
  if (auto* s = a.get<std::string>()) return "'" + *s + "'";
  if (auto* i = a.get<int64_t>()) return std::to_string(*i);
  if (auto* f = a.get<float>()) return Num(*f);
  if (auto* b = a.get<bool>()) return *b ? "true" : "false";
  if (auto* t = a.get<DType>()) return DTypeName(*t);
  if (auto* s = a.get<Shape>()) return s->ToString();
  if (auto* t = a.get<Tensor>()) return TensorKey(*t);
  if (auto* l = a.get<AttrList>()) {
    return "[" + Join(l->s, [](const std::string& s) { return "'" + s + "'"; }) +
           Join(l->i, [](int64_t i) { return std::to_string(i); }) + Join(l->f, Num) +
           Join(l->b, [](bool b) { return std::string(b ? "true" : "false"); }) +
           Join(l->type, [](DType t) { return std::string(DTypeName(t)); }) +
           Join(l->shape, [](const Shape& s) { return s.ToString(); }) +
           Join(l->tensor, TensorKey) + "]";
  }
  if (auto* o = a.get<OpaqueAttr>()) return "#" + Fnv1a64Hex(o->serialized);
  return "";
}

}  // namespace

std::string OpSignature(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  std::string s = n.op + "|";
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Node& p = g.node(n.inputs[i].node);
    const int k = n.inputs[i].index;
    if (i) s += ",";
    if (k < p.num_outputs()) {
      s += std::string(DTypeName(p.output_dtypes[k])) + p.output_shapes[k].ToString();
    } else {
      s += "?";
    }
  }
  s += "|";
  bool first = true;
  for (const auto& [key, value] : n.attrs) {
    if (!key.empty() && key[0] == '_') continue;
    s += (first ? "" : ",") + key + "=" + AttrKey(value);
    first = false;
  }
  for (char& c : s) {  // one line, no tabs: it is a field of a profile record
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace graph
