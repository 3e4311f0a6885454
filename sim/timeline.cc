#include "sim/timeline.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "graph/summary.h"

namespace sim {

std::string ChromeTrace(const graph::Graph& g, const cluster::Cluster& c, const StepStats& step) {
  struct Event {
    double start, end;
    int device;
    std::string json_tail;  // everything after "tid"
  };
  std::vector<Event> events;
  for (const OpRecord& r : step.ops) {
    const graph::Node& n = g.node(r.node);
    events.push_back({r.start_us, r.end_us, r.device,
                      ",\"name\":" + graph::JsonQuote(n.name) +
                          ",\"cat\":\"op\",\"args\":{\"op\":" + graph::JsonQuote(n.op) + "}"});
  }
  for (const TransferRecord& t : step.transfers) {
    events.push_back({t.start_us, t.end_us, t.dst_device,
                      ",\"name\":" + graph::JsonQuote("copy " + g.node(t.from_node).name) +
                          ",\"cat\":\"transfer\",\"args\":{\"bytes\":" + std::to_string(t.bytes) +
                          ",\"from\":" + graph::JsonQuote(c.devices[t.src_device].name) + "}"});
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.start < b.start; });
  // Events of one row must not overlap: each goes to the first row of its device
  // that is free when it starts.
  std::vector<std::vector<double>> row_free(c.devices.size());
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
  char buf[160];
  bool first = true;
  std::vector<int> rows_used(c.devices.size(), 0);
  for (const Event& e : events) {
    std::vector<double>& rows = row_free[e.device];
    size_t row = 0;
    while (row < rows.size() && rows[row] > e.start) ++row;
    if (row == rows.size()) rows.push_back(0);
    rows[row] = e.end;
    rows_used[e.device] = std::max<int>(rows_used[e.device], row + 1);
    std::snprintf(buf, sizeof(buf), "{\"ph\":\"X\",\"pid\":0,\"ts\":%.3f,\"dur\":%.3f,\"tid\":%d",
                  e.start, std::max(0.0, e.end - e.start), e.device * 1000 + static_cast<int>(row));
    out += (first ? "" : ",\n") + std::string(buf) + e.json_tail + "}";
    first = false;
  }
  for (size_t d = 0; d < c.devices.size(); ++d) {
    for (int row = 0; row < std::max(1, rows_used[d]); ++row) {
      std::string name = c.devices[d].name + (row ? " #" + std::to_string(row + 1) : "");
      std::snprintf(buf, sizeof(buf), "{\"ph\":\"M\",\"pid\":0,\"tid\":%d,",
                    static_cast<int>(d) * 1000 + row);
      out += (first ? "" : ",\n") + std::string(buf) +
             "\"name\":\"thread_name\",\"args\":{\"name\":" + graph::JsonQuote(name) + "}}";
      first = false;
    }
  }
  return out + "]}\n";
}

std::vector<CriticalOp> CriticalPath(const graph::Graph& g, const StepStats& step) {
  const int n = g.size();
  std::vector<const OpRecord*> record(n, nullptr);
  for (const OpRecord& r : step.ops) record[r.node] = &r;
  // When each node's outputs were there on its own device: its record's end, or
  // for a node without one, when its last input was.
  std::vector<double> done(n, 0.0);
  for (graph::NodeId id : g.topological_order()) {
    if (record[id]) {
      done[id] = record[id]->end_us;
      continue;
    }
    for (const graph::TensorRef& in : g.node(id).inputs)
      done[id] = std::max(done[id], done[in.node]);
    for (graph::NodeId p : g.node(id).control_inputs) done[id] = std::max(done[id], done[p]);
  }
  // Per producer, (receiving device, arrival) of each of its transfers.
  std::vector<std::vector<std::pair<int, double>>> arrivals(n);
  for (const TransferRecord& t : step.transfers)
    arrivals[t.from_node].push_back({t.dst_device, t.end_us});
  // Each device's ops by end time, for the op before one on its device.
  std::vector<std::vector<const OpRecord*>> by_device;
  for (const OpRecord& r : step.ops) {
    if (static_cast<int>(by_device.size()) <= r.device) by_device.resize(r.device + 1);
    by_device[r.device].push_back(&r);
  }
  for (auto& ops : by_device) {
    std::sort(ops.begin(), ops.end(),
              [](const OpRecord* a, const OpRecord* b) { return a->end_us < b->end_us; });
  }
  // The op on `device` that ended last at or before `t`, other than `self`.
  auto before_on_device = [&](int device, double t, const OpRecord* self) -> const OpRecord* {
    const std::vector<const OpRecord*>& ops = by_device[device];
    auto it = std::upper_bound(ops.begin(), ops.end(), t + 1e-6,
                               [](double v, const OpRecord* r) { return v < r->end_us; });
    while (it != ops.begin()) {
      --it;
      if (*it != self) return *it;
    }
    return nullptr;
  };

  std::vector<CriticalOp> path;
  const OpRecord* cur = nullptr;
  for (const OpRecord& r : step.ops) {
    if (!cur || r.end_us > cur->end_us) cur = &r;
  }
  std::vector<char> seen(n, 0);
  while (cur && !seen[cur->node]) {
    seen[cur->node] = 1;
    CriticalOp link{cur->node, cur->device, cur->start_us, cur->end_us};
    // The input that was there last on cur's device, passing through nodes
    // without a record.
    graph::NodeId last = -1;
    double ready = 0;
    bool transferred = false;
    std::vector<graph::NodeId> inputs;
    std::unordered_set<graph::NodeId> expanded;
    auto add_inputs = [&](graph::NodeId id) {
      if (!expanded.insert(id).second) return;
      for (const graph::TensorRef& in : g.node(id).inputs) inputs.push_back(in.node);
      for (graph::NodeId p : g.node(id).control_inputs) inputs.push_back(p);
    };
    add_inputs(cur->node);
    for (size_t k = 0; k < inputs.size(); ++k) {
      const graph::NodeId p = inputs[k];
      if (!record[p]) {
        add_inputs(p);
        continue;
      }
      double at = done[p];
      const bool moved = record[p]->device != cur->device;
      if (moved) {  // the copy's arrival, where the timeline has it
        for (const auto& [device, end] : arrivals[p]) {
          if (device == cur->device && end <= cur->start_us + 1e-6) at = std::max(at, end);
        }
      }
      if (last < 0 || at > ready) {
        last = p;
        ready = at;
        transferred = moved;
      }
    }
    link.ready_us = ready;
    const OpRecord* prev = before_on_device(cur->device, cur->start_us, cur);
    // A gap of more than a nanosecond between the inputs' arrival and the start,
    // filled by the device's previous op: the op queued for its device.
    if (prev && cur->start_us > ready + 1e-3 && prev->end_us > ready + 1e-3) {
      link.waited_for_device = true;
      path.push_back(link);
      cur = prev;
      continue;
    }
    link.input_transferred = last >= 0 && transferred;
    path.push_back(link);
    cur = last >= 0 ? record[last] : nullptr;
  }
  return path;
}

std::string CriticalPathSummary(const cluster::Cluster& c, const std::vector<CriticalOp>& path) {
  std::vector<double> kernel_us(c.devices.size(), 0);
  double gaps_us = path.empty() ? 0 : path.back().start_us;
  int queued = 0;
  for (size_t k = 0; k < path.size(); ++k) {
    kernel_us[path[k].device] += path[k].end_us - path[k].start_us;
    if (k + 1 < path.size()) gaps_us += std::max(0.0, path[k].start_us - path[k + 1].end_us);
    queued += path[k].waited_for_device;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "critical path: %zu ops (%d of them queued for their busy device):", path.size(),
                queued);
  std::string out = buf;
  for (size_t d = 0; d < c.devices.size(); ++d) {
    if (kernel_us[d] <= 0) continue;
    std::snprintf(buf, sizeof buf, " %s %.3f ms,", c.devices[d].name.c_str(), kernel_us[d] / 1e3);
    out += buf;
  }
  std::snprintf(buf, sizeof buf, " between them %.3f ms", gaps_us / 1e3);
  return out + buf;
}

}  // namespace sim
