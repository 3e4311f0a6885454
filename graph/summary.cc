#include "graph/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace graph {

namespace {

std::string Label(const Node& n) { return n.name + " (" + n.op + ")"; }

// Totals of sizes read from files saturate instead of overflowing.
void Accumulate(int64_t* total, int64_t v) {
  if (__builtin_add_overflow(*total, v, total)) *total = INT64_MAX;
}

std::string HumanBytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.2f %s", b, units[u]);
  return buf;
}

std::string HumanCount(double v, const char* unit) {
  const char* prefixes[] = {"", "K", "M", "G", "T", "P"};
  int p = 0;
  while (v >= 1000 && p < 5) {
    v /= 1000;
    ++p;
  }
  char buf[48];
  std::snprintf(buf, sizeof(buf), p == 0 ? "%.0f %s%s" : "%.2f %s%s", v, prefixes[p], unit);
  return buf;
}

std::string Quote(const std::string& s) { return JsonQuote(s); }

std::string ShapeJson(const Shape& s) {
  if (!s.known_rank()) return "null";
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i) {
    if (i) out += ",";
    out += s.dim(i) < 0 ? "null" : std::to_string(s.dim(i));
  }
  return out + "]";
}

std::string StringListJson(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ",";
    out += Quote(v[i]);
  }
  return out + "]";
}

std::string TensorListJson(const std::vector<TensorInfo>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ",";
    out += "{\"name\":" + Quote(v[i].name) + ",\"dtype\":" + Quote(DTypeName(v[i].dtype)) +
           ",\"shape\":" + ShapeJson(v[i].shape) + "}";
  }
  return out + "]";
}

}  // namespace

std::string JsonNumber(double v, int decimals) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  out.reserve(s.size() + 2);
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

namespace {

// Readers of each output of each node.
std::vector<std::vector<int>> OutputUses(const Graph& g) {
  std::vector<std::vector<int>> uses(g.size());
  for (NodeId id = 0; id < g.size(); ++id) uses[id].assign(g.node(id).num_outputs(), 0);
  for (const Node& n : g.nodes()) {
    for (const TensorRef& in : n.inputs) {
      if (in.index < static_cast<int>(uses[in.node].size())) ++uses[in.node][in.index];
    }
  }
  return uses;
}

}  // namespace

int64_t PeakLiveActivationBytes(const Graph& g) {
  std::vector<std::vector<int>> uses = OutputUses(g);
  int64_t live = 0, peak = 0;
  for (NodeId id : g.topological_order()) {
    const Node& n = g.node(id);
    if (n.op == "Const" || IsTrainableParameter(n)) continue;
    for (int i = 0; i < n.num_outputs(); ++i)
      Accumulate(&live, std::max<int64_t>(OutputBytes(n, i), 0));
    peak = std::max(peak, live);
    for (const TensorRef& in : n.inputs) {
      const Node& src = g.node(in.node);
      if (src.op == "Const" || IsTrainableParameter(src)) continue;
      if (in.index < static_cast<int>(uses[in.node].size()) && --uses[in.node][in.index] == 0) {
        live -= std::max<int64_t>(OutputBytes(src, in.index), 0);
      }
    }
  }
  return peak;
}

GraphSummary Summarize(const Graph& g, const InferenceReport& report,
                       const InferenceOptions& opts) {
  GraphSummary s;
  s.batch = opts.batch;
  s.nodes = g.size();
  std::vector<OpCost> costs = ComputeCosts(g);
  std::vector<int> consumers = g.ConsumerCounts();
  const std::vector<std::vector<int>> uses = OutputUses(g);
  const std::vector<char> trainable = TrainableParameters(g);
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    ++s.op_histogram[n.op];
    const OpCost& c = costs[id];
    if (!c.known) s.unknown_cost_nodes.push_back(Label(n));
    s.forward_flops += c.flops;
    if (trainable[id]) {
      ++s.parameter_tensors;
      if (n.num_outputs() > 0 && n.output_shapes[0].NumElements() >= 0) {
        Accumulate(&s.parameters, n.output_shapes[0].NumElements());
      }
      Accumulate(&s.parameter_bytes, c.param_bytes);
    } else if (n.op != "Const") {
      Accumulate(&s.activation_bytes, c.bytes_written);
    }
    if (n.op == "Placeholder" || n.op == "PlaceholderWithDefault") {
      s.inputs.push_back({n.name, n.num_outputs() ? n.output_dtypes[0] : DType::kInvalid,
                          n.num_outputs() ? n.output_shapes[0] : Shape()});
    }
    if (consumers[id] == 0 && n.op != "Const" && n.op != "NoOp") {
      for (int i = 0; i < n.num_outputs(); ++i) {
        if (uses[id][i] == 0)
          s.outputs.push_back({g.TensorName({id, i}), n.output_dtypes[i], n.output_shapes[i]});
      }
    }
  }
  s.peak_activation_bytes = PeakLiveActivationBytes(g);
  s.unknown_ops = report.unknown_ops;
  for (NodeId id : report.unknown_shape_nodes) s.unknown_shape_nodes.push_back(Label(g.node(id)));
  s.problems = report.problems;
  for (NodeId id : report.bound_placeholders) s.batch_bound.push_back(g.node(id).name);
  return s;
}

std::string SummaryToText(const GraphSummary& s, const std::string& model) {
  std::ostringstream o;
  o << "model            " << model << "\n";
  o << "nodes            " << s.nodes << "\n";
  o << "parameters       " << s.parameters << " in " << s.parameter_tensors << " tensors ("
    << HumanBytes(static_cast<double>(s.parameter_bytes)) << ")\n";
  o << "forward FLOPs    " << HumanCount(s.forward_flops, "FLOP") << "\n";
  o << "activations      " << HumanBytes(static_cast<double>(s.activation_bytes))
    << " in all, peak " << HumanBytes(static_cast<double>(s.peak_activation_bytes))
    << " live in topological order\n";
  auto tensors = [&](const char* title, const std::vector<TensorInfo>& v) {
    o << title << "\n";
    for (const TensorInfo& t : v) {
      o << "  " << t.name << "  " << DTypeName(t.dtype) << " " << t.shape.ToString() << "\n";
    }
  };
  tensors("inputs", s.inputs);
  if (!s.batch_bound.empty()) {
    o << "  (unknown batch dimension set to " << s.batch << " for " << s.batch_bound.size()
      << " placeholder(s); change with --batch)\n";
  }
  tensors("outputs", s.outputs);
  std::vector<std::pair<std::string, int64_t>> hist(s.op_histogram.begin(), s.op_histogram.end());
  std::stable_sort(hist.begin(), hist.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  o << "op types (" << hist.size() << ")\n";
  for (const auto& [op, count] : hist) {
    char line[128];
    std::snprintf(line, sizeof(line), "  %-32s %8lld\n", op.c_str(), static_cast<long long>(count));
    o << line;
  }
  auto list = [&](const char* title, const std::vector<std::string>& v) {
    o << title << " (" << v.size() << ")" << (v.empty() ? ": none" : "") << "\n";
    for (const std::string& x : v) o << "  " << x << "\n";
  };
  const TrainingSummary& t = s.training;
  if (t.built) {
    o << "training graph   " << t.nodes << " nodes = " << t.forward << " forward + " << t.loss_nodes
      << " loss + " << t.backward << " backward + " << t.update << " update (SGD); loss '" << t.loss
      << "'" << (t.synthetic_loss ? " (synthetic: sum of mean squares of the outputs)" : "") << "; "
      << t.parameters << " parameters updated, " << t.unused_parameters << " unused by the loss\n";
  } else if (!t.error.empty()) {
    o << "training graph   not built: " << t.error << "\n";
  }
  list("unsupported ops", s.unknown_ops);
  list("nodes with unknown shapes", s.unknown_shape_nodes);
  list("nodes with unknown cost", s.unknown_cost_nodes);
  list("shape problems", s.problems);
  return o.str();
}

std::string SummaryToJson(const GraphSummary& s, const std::string& model) {
  std::ostringstream o;
  o << "{\"model\":" << Quote(model) << ",\"nodes\":" << s.nodes
    << ",\"parameter_tensors\":" << s.parameter_tensors << ",\"parameters\":" << s.parameters
    << ",\"parameter_bytes\":" << s.parameter_bytes;
  char flops[64];
  std::snprintf(flops, sizeof(flops), "%.17g", s.forward_flops);
  o << ",\"forward_flops\":" << flops << ",\"activation_bytes\":" << s.activation_bytes
    << ",\"peak_activation_bytes\":" << s.peak_activation_bytes << ",\"batch\":" << s.batch
    << ",\"batch_bound\":" << StringListJson(s.batch_bound)
    << ",\"inputs\":" << TensorListJson(s.inputs) << ",\"outputs\":" << TensorListJson(s.outputs)
    << ",\"op_histogram\":{";
  bool first = true;
  for (const auto& [op, count] : s.op_histogram) {
    o << (first ? "" : ",") << Quote(op) << ":" << count;
    first = false;
  }
  o << "},\"unsupported_ops\":" << StringListJson(s.unknown_ops)
    << ",\"unknown_shape_nodes\":" << StringListJson(s.unknown_shape_nodes)
    << ",\"unknown_cost_nodes\":" << StringListJson(s.unknown_cost_nodes)
    << ",\"shape_problems\":" << StringListJson(s.problems);
  const TrainingSummary& t = s.training;
  o << ",\"training\":{\"built\":" << (t.built ? "true" : "false");
  if (t.built) {
    o << ",\"nodes\":" << t.nodes << ",\"forward\":" << t.forward
      << ",\"loss_nodes\":" << t.loss_nodes << ",\"backward\":" << t.backward
      << ",\"update\":" << t.update << ",\"loss\":" << Quote(t.loss)
      << ",\"synthetic_loss\":" << (t.synthetic_loss ? "true" : "false")
      << ",\"parameters\":" << t.parameters << ",\"unused_parameters\":" << t.unused_parameters;
  } else {
    o << ",\"error\":" << Quote(t.error);
  }
  o << "}}\n";
  return o.str();
}

}  // namespace graph
