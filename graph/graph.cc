#include "graph/graph.h"

#include <algorithm>
#include <charconv>

namespace graph {

const AttrValue* Node::attr(std::string_view key) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? nullptr : &it->second;
}

int64_t Node::attr_int(std::string_view key, int64_t dflt) const {
  const AttrValue* a = attr(key);
  const int64_t* v = a ? a->get<int64_t>() : nullptr;
  return v ? *v : dflt;
}

float Node::attr_float(std::string_view key, float dflt) const {
  const AttrValue* a = attr(key);
  const float* v = a ? a->get<float>() : nullptr;
  return v ? *v : dflt;
}

bool Node::attr_bool(std::string_view key, bool dflt) const {
  const AttrValue* a = attr(key);
  const bool* v = a ? a->get<bool>() : nullptr;
  return v ? *v : dflt;
}

std::string Node::attr_string(std::string_view key, const std::string& dflt) const {
  const AttrValue* a = attr(key);
  const std::string* v = a ? a->get<std::string>() : nullptr;
  return v ? *v : dflt;
}

DType Node::attr_type(std::string_view key, DType dflt) const {
  const AttrValue* a = attr(key);
  const DType* v = a ? a->get<DType>() : nullptr;
  return v ? *v : dflt;
}

const std::vector<int64_t>* Node::attr_ints(std::string_view key) const {
  const AttrValue* a = attr(key);
  const AttrList* l = a ? a->get<AttrList>() : nullptr;
  return l ? &l->i : nullptr;
}

bool IsControlFlowOp(std::string_view op) {
  static constexpr std::string_view kOps[] = {
      "Enter",          "RefEnter",  "Exit",        "RefExit",  "NextIteration", "RefNextIteration",
      "Switch",         "RefSwitch", "Merge",       "RefMerge", "LoopCond",      "While",
      "StatelessWhile", "If",        "StatelessIf", "Case",     "StatelessCase"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

namespace {

// Splits "name:3" into ("name", 3); a name without ":digits" is output 0.
bool ParseInputName(std::string_view in, std::string_view* name, int* index) {
  *index = 0;
  size_t colon = in.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < in.size()) {
    std::string_view digits = in.substr(colon + 1);
    if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *index);
      if (ec != std::errc() || *index >= kMaxOutputIndex) return false;
      in = in.substr(0, colon);
    }
  }
  *name = in;
  return !in.empty();
}

}  // namespace

Status CheckNoControlFlow(const Graph& g, const std::string& what) {
  NodeId id = g.first_control_flow();
  if (id < 0) return Status::Ok();
  const Node& n = g.node(id);
  return Unimplemented("node '" + n.name + "' is TensorFlow control flow (" + n.op +
                       "): graphs with loops or conditionals are not supported for " + what);
}

Graph::Graph(const Graph& o)
    : nodes_(o.nodes_),
      topo_(o.topo_),
      producer_version_(o.producer_version_),
      shapes_inferred_(o.shapes_inferred_),
      first_control_flow_(o.first_control_flow_) {
  RebuildIndex();
}

Graph& Graph::operator=(const Graph& o) {
  if (this != &o) {
    nodes_ = o.nodes_;
    topo_ = o.topo_;
    producer_version_ = o.producer_version_;
    shapes_inferred_ = o.shapes_inferred_;
    first_control_flow_ = o.first_control_flow_;
    RebuildIndex();
  }
  return *this;
}

void Graph::RebuildIndex() {
  index_.clear();
  index_.reserve(nodes_.size() * 2);
  for (size_t i = 0; i < nodes_.size(); ++i) index_.emplace(nodes_[i].name, static_cast<NodeId>(i));
}

Result<Graph> Graph::Create(std::vector<NodeSpec> specs, const std::string& source) {
  Graph g;
  g.nodes_.resize(specs.size());
  g.index_.reserve(specs.size() * 2);
  for (size_t i = 0; i < specs.size(); ++i) {
    NodeSpec& s = specs[i];
    if (s.name.empty()) {
      return InvalidArgument(source + ": node #" + std::to_string(i) + " has no name");
    }
    if (s.op.empty()) {
      return InvalidArgument(source + ": node '" + s.name + "' has no op");
    }
    Node& n = g.nodes_[i];
    n.name = std::move(s.name);
    n.op = std::move(s.op);
    n.requested_device = std::move(s.device);
    n.attrs = std::move(s.attrs);
    auto [it, inserted] = g.index_.emplace(n.name, static_cast<NodeId>(i));
    if (!inserted) {
      return InvalidArgument(source + ": duplicate node name '" + n.name + "'");
    }
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    Node& n = g.nodes_[i];
    for (const std::string& in : specs[i].inputs) {
      bool control = !in.empty() && in[0] == '^';
      std::string_view name;
      int index = 0;
      if (!ParseInputName(control ? std::string_view(in).substr(1) : std::string_view(in), &name,
                          &index)) {
        return InvalidArgument(source + ": node '" + n.name + "' has a malformed input '" + in +
                               "'");
      }
      auto it = g.index_.find(name);
      if (it == g.index_.end()) {
        return InvalidArgument(source + ": node '" + n.name + "' reads '" + in +
                               "', which is not a node of the graph");
      }
      if (control) {
        n.control_inputs.push_back(it->second);
      } else {
        if (!n.control_inputs.empty()) {
          return InvalidArgument(source + ": node '" + n.name + "' lists data input '" + in +
                                 "' after a control input");
        }
        n.inputs.push_back({it->second, index});
      }
    }
    if (const AttrValue* cls = n.attr("_class")) {
      if (const AttrList* l = cls->get<AttrList>()) {
        for (const std::string& s : l->s) {
          if (s.rfind("loc:@", 0) == 0) n.colocation.push_back(s.substr(5));
        }
      }
    }
  }

  // Kahn's algorithm; nodes left over lie on or behind a cycle. A loop's back
  // edges (NextIteration into Merge) are left out, as TensorFlow does.
  const int n = g.size();
  std::vector<int> pending(n, 0);
  std::vector<std::vector<NodeId>> out(n);
  auto back_edge = [&](NodeId from, NodeId to) {
    const std::string& a = g.nodes_[from].op;
    const std::string& b = g.nodes_[to].op;
    return (a == "NextIteration" || a == "RefNextIteration") && (b == "Merge" || b == "RefMerge");
  };
  for (NodeId v = 0; v < n; ++v) {
    for (const TensorRef& in : g.nodes_[v].inputs) {
      if (back_edge(in.node, v)) continue;
      out[in.node].push_back(v);
      ++pending[v];
    }
    for (NodeId c : g.nodes_[v].control_inputs) {
      if (back_edge(c, v)) continue;
      out[c].push_back(v);
      ++pending[v];
    }
  }
  g.topo_.reserve(n);
  for (NodeId v = 0; v < n; ++v) {
    if (pending[v] == 0) g.topo_.push_back(v);
  }
  for (size_t head = 0; head < g.topo_.size(); ++head) {
    for (NodeId w : out[g.topo_[head]]) {
      if (--pending[w] == 0) g.topo_.push_back(w);
    }
  }
  if (static_cast<int>(g.topo_.size()) != n) {
    // Walk back along unfinished inputs until a node repeats: that node is on a cycle.
    NodeId v = 0;
    while (pending[v] == 0) ++v;
    std::vector<char> seen(n, 0);
    while (!seen[v]) {
      seen[v] = 1;
      const Node& node = g.nodes_[v];
      NodeId next = -1;
      for (const TensorRef& in : node.inputs) {
        if (pending[in.node] > 0 && !back_edge(in.node, v)) next = in.node;
      }
      for (NodeId c : node.control_inputs) {
        if (pending[c] > 0 && !back_edge(c, v)) next = c;
      }
      assert(next >= 0);
      v = next;
    }
    return InvalidArgument(source + ": the graph has a cycle through node '" + g.nodes_[v].name +
                           "'");
  }
  for (NodeId v : g.topo_) {
    if (IsControlFlowOp(g.nodes_[v].op)) {
      g.first_control_flow_ = v;
      break;
    }
  }
  return g;
}

NodeId Graph::Find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

std::optional<TensorRef> Graph::FindTensor(std::string_view name) const {
  std::string_view node;
  int index = 0;
  if (!ParseInputName(name, &node, &index)) return std::nullopt;
  NodeId id = Find(node);
  if (id < 0) return std::nullopt;
  return TensorRef{id, index};
}

std::vector<int> Graph::ConsumerCounts() const {
  std::vector<int> counts(nodes_.size(), 0);
  for (const Node& n : nodes_) {
    for (const TensorRef& in : n.inputs) ++counts[in.node];
  }
  return counts;
}

std::string Graph::TensorName(TensorRef t) const {
  const std::string& n = nodes_[t.node].name;
  return t.index == 0 ? n : n + ":" + std::to_string(t.index);
}

std::vector<NodeSpec> Graph::ToSpecs() const {
  std::vector<NodeSpec> specs(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    NodeSpec& s = specs[i];
    s.name = n.name;
    s.op = n.op;
    s.device = n.requested_device;
    s.attrs = n.attrs;
    for (const TensorRef& in : n.inputs) s.inputs.push_back(TensorName(in));
    for (NodeId c : n.control_inputs) s.inputs.push_back("^" + nodes_[c].name);
  }
  return specs;
}

Result<Graph> Graph::WithCopy(const std::string& prefix) const {
  std::vector<NodeSpec> specs = ToSpecs();
  specs.reserve(2 * specs.size());
  for (size_t i = 0, n = nodes_.size(); i < n; ++i) {
    NodeSpec copy = specs[i];
    copy.name = prefix + copy.name;
    for (std::string& in : copy.inputs) {
      in = in.rfind('^', 0) == 0 ? "^" + prefix + in.substr(1) : prefix + in;
    }
    copy.attrs.erase("_class");
    specs.push_back(std::move(copy));
  }
  GRAPH_ASSIGN_OR_RETURN(Graph both, Create(std::move(specs), "two copies of the graph"));
  for (size_t i = 0, n = nodes_.size(); i < n; ++i) {
    for (Node* to : {&both.nodes_[i], &both.nodes_[n + i]}) {
      to->output_dtypes = nodes_[i].output_dtypes;
      to->output_shapes = nodes_[i].output_shapes;
      to->output_values = nodes_[i].output_values;
    }
  }
  both.producer_version_ = producer_version_;
  both.shapes_inferred_ = shapes_inferred_;
  return both;
}

bool Graph::SameStructure(const Graph& o, std::string* diff) const {
  auto fail = [&](const std::string& why) {
    if (diff) *diff = why;
    return false;
  };
  if (size() != o.size()) {
    return fail("node count " + std::to_string(size()) + " vs " + std::to_string(o.size()));
  }
  for (int i = 0; i < size(); ++i) {
    const Node& a = nodes_[i];
    const Node& b = o.nodes_[i];
    if (a.name != b.name || a.op != b.op) return fail("node #" + std::to_string(i) + " differs");
    if (!(a.inputs == b.inputs) || a.control_inputs != b.control_inputs) {
      return fail("inputs of '" + a.name + "' differ");
    }
    if (a.requested_device != b.requested_device) return fail("device of '" + a.name + "' differs");
    if (a.attrs.size() != b.attrs.size()) return fail("attribute set of '" + a.name + "' differs");
    for (const auto& [key, value] : a.attrs) {
      const AttrValue* other = b.attr(key);
      if (!other || !(*other == value)) {
        return fail("attribute '" + key + "' of '" + a.name + "' differs");
      }
    }
  }
  return true;
}

}  // namespace graph
