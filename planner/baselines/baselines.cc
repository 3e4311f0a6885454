#include "planner/baselines/baselines.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <string_view>

#include "planner/baselines/list_schedule.h"
#include "planner/baselines/metis_partition.h"
#include "planner/baselines/msct.h"
#include "planner/baselines/partition_graph.h"
#include "planner/baselines/scotch_mapping.h"
#include "planner/rewards/reward.h"

namespace planner::baselines {

namespace {

// The layer named by a "cell_<l>" / "layer_<l>" / "lstm_<l>" path component; -1 if none.
int LayerOf(std::string_view name) {
  for (std::string_view prefix : {"cell_", "layer_", "lstm_"}) {
    size_t at = 0;
    while ((at = name.find(prefix, at)) != std::string_view::npos) {
      const bool starts_component = at == 0 || name[at - 1] == '/';
      size_t end = at + prefix.size();
      int layer = 0;
      bool digits = false;
      while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) {
        layer = std::min(layer * 10 + (name[end] - '0'), 1 << 20);
        digits = true;
        ++end;
      }
      if (starts_component && digits && (end == name.size() || name[end] == '/')) return layer;
      at += prefix.size();
    }
  }
  return -1;
}

}  // namespace

BaselinePlacement ExpertPlacement(const graph::Graph& forward, const cluster::Cluster& c) {
  const std::vector<int> accel = Accelerators(c);
  const int n = forward.size();
  std::vector<int> layer(n, -1);
  int max_layer = -1;
  for (graph::NodeId i = 0; i < n; ++i) {
    layer[i] = LayerOf(forward.node(i).name);
    max_layer = std::max(max_layer, layer[i]);
  }
  BaselinePlacement p{"expert", std::vector<int>(n, accel[0])};
  if (max_layer < 0) return p;
  const int num_layers = max_layer + 1;
  const int d = static_cast<int>(accel.size());
  auto device_of_layer = [&](int l) { return accel[static_cast<int64_t>(l) * d / num_layers]; };
  // Ops outside the layers: before every layer op in topological order (inputs,
  // embeddings) with layer 0; after (attention, softmax, loss) with the last.
  std::vector<char> after_layers(n, 0);
  for (graph::NodeId id : forward.topological_order()) {
    for (const graph::TensorRef& in : forward.node(id).inputs) {
      if (layer[in.node] >= 0 || after_layers[in.node]) after_layers[id] = 1;
    }
  }
  for (graph::NodeId i = 0; i < n; ++i) {
    if (layer[i] >= 0) {
      p.device_of_node[i] = device_of_layer(layer[i]);
    } else if (after_layers[i]) {
      p.device_of_node[i] = device_of_layer(num_layers - 1);
    } else {
      p.device_of_node[i] = device_of_layer(0);
    }
  }
  // Parameters outside the layers (a weight and its read, a constant: nodes fed
  // only by such nodes) live with the op that reads them, so an attention or
  // softmax weight is not copied every step.
  std::vector<char> parameter_like(n, 0);
  std::vector<graph::NodeId> first_consumer(n, -1);
  for (graph::NodeId id : forward.topological_order()) {
    const graph::Node& node = forward.node(id);
    bool only_parameters = true;
    for (const graph::TensorRef& in : node.inputs) {
      only_parameters &= parameter_like[in.node] != 0;
      if (first_consumer[in.node] < 0) first_consumer[in.node] = id;
    }
    parameter_like[id] = only_parameters && node.control_inputs.empty();
  }
  const std::vector<graph::NodeId>& topo = forward.topological_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const graph::NodeId i = *it;
    if (layer[i] < 0 && parameter_like[i] && first_consumer[i] >= 0) {
      p.device_of_node[i] = p.device_of_node[first_consumer[i]];
    }
  }
  return p;
}

std::vector<std::string> BaselineMethods(const cluster::Cluster& c) {
  std::vector<std::string> out;
  for (const cluster::DeviceSpec& d : c.devices) out.push_back("single:" + d.name);
  out.push_back("expert");
  out.push_back("etf");
  out.push_back("msct");
  out.push_back("metis");
  out.push_back("scotch");
  return out;
}

namespace {

graph::Result<BaselinePlacement> MakeUntimed(const std::string& method, const graph::Graph& forward,
                                             const cluster::Cluster& c, const sim::Simulator* costs,
                                             const volatile std::sig_atomic_t* stop) {
  if (method.rfind("single:", 0) == 0) {
    const int d = c.IndexOf(method.substr(7));
    if (d >= 0) return BaselinePlacement{method, std::vector<int>(forward.size(), d)};
  } else if (method == "expert") {
    return ExpertPlacement(forward, c);
  } else if (method == "etf") {
    if (!costs) return graph::InvalidArgument("etf needs op costs (a simulator of the step)");
    GRAPH_ASSIGN_OR_RETURN(ListSchedule s, EarliestTaskFirst(forward, *costs, c));
    return BaselinePlacement{method, std::move(s.device_of_node)};
  } else if (method == "msct" || method == kMsctDual) {
    if (!costs) {
      return graph::InvalidArgument(method + " needs op costs (a simulator of the step)");
    }
    MsctOptions o;
    o.stop = stop;
    if (method == kMsctDual) o.lp_method = LpOptions::Method::kDualSimplex;
    GRAPH_ASSIGN_OR_RETURN(ListSchedule s, ShortestCommunicationTime(forward, *costs, c, o));
    return BaselinePlacement{method, std::move(s.device_of_node)};
  } else if (method == "metis") {
    if (!costs) return graph::InvalidArgument("metis needs op costs (a simulator of the step)");
    GRAPH_ASSIGN_OR_RETURN(std::vector<int> d, MetisPlacement(forward, *costs, c));
    return BaselinePlacement{method, std::move(d)};
  } else if (method == "scotch") {
    if (!costs) return graph::InvalidArgument("scotch needs op costs (a simulator of the step)");
    GRAPH_ASSIGN_OR_RETURN(std::vector<int> d, ScotchPlacement(forward, *costs, c));
    return BaselinePlacement{method, std::move(d)};
  }
  const graph::Status unknown = CheckBaselineMethod(method, c);
  assert(!unknown.ok() && "every known method is made above");
  return unknown;
}

}  // namespace

graph::Status CheckBaselineMethod(const std::string& method, const cluster::Cluster& c) {
  const std::vector<std::string> known = BaselineMethods(c);
  if (method == kMsctDual || std::find(known.begin(), known.end(), method) != known.end()) {
    return graph::Status::Ok();
  }
  std::string names;
  for (const std::string& m : known) names += (names.empty() ? "" : ", ") + m;
  return graph::InvalidArgument("unknown baseline method '" + method + "' (methods on " + c.source +
                                ": " + names + "; also " + kMsctDual + ")");
}

graph::Result<BaselinePlacement> MakeBaseline(const std::string& method,
                                              const graph::Graph& forward,
                                              const cluster::Cluster& c,
                                              const sim::Simulator* costs,
                                              const volatile std::sig_atomic_t* stop) {
  const auto t0 = std::chrono::steady_clock::now();
  auto made = MakeUntimed(method, forward, c, costs, stop);
  if (made.ok()) {
    made->planning_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return made;
}

std::string DescribeBaseline(const BaselinePlacement& b, const rewards::Evaluation& e) {
  std::string out = "  " + b.method;
  out.resize(std::max<size_t>(out.size(), 18), ' ');  // the method column, 16 wide
  char planned[48];
  std::snprintf(planned, sizeof planned, " (planned in %.2f s)", b.planning_s);
  return out + " " + rewards::DescribeEvaluation(e) + planned;
}

}  // namespace planner::baselines
