#include "sim/timeline_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace sim {

namespace {

constexpr double kEpsUs = 1e-3;

// One timeline's per-node view: its record, when its last input was done, and
// the consumer copies its worker made before its kernel.
struct Walk {
  std::vector<const OpRecord*> record;
  std::vector<double> ready_us, copies_us;
};

bool ConsumerCopies(const cluster::Cluster& c, const TransferRecord& t) {
  return c.devices[t.src_device].kind == cluster::DeviceKind::kCpu &&
         c.devices[t.dst_device].kind == cluster::DeviceKind::kCpu;
}

std::vector<std::vector<const OpRecord*>> OpsByDevice(const cluster::Cluster& c,
                                                      const StepStats& step) {
  std::vector<std::vector<const OpRecord*>> by(c.devices.size());
  for (const OpRecord& r : step.ops) by[r.device].push_back(&r);
  for (auto& ops : by) {
    std::stable_sort(ops.begin(), ops.end(), [](const OpRecord* a, const OpRecord* b) {
      return a->start_us < b->start_us;
    });
  }
  return by;
}

Walk WalkStep(const graph::Graph& g, const cluster::Cluster& c, const StepStats& step) {
  const int n = g.size();
  Walk w;
  w.record.assign(n, nullptr);
  w.ready_us.assign(n, 0);
  w.copies_us.assign(n, 0);
  for (const OpRecord& r : step.ops) {
    if (r.node >= 0 && r.node < n) w.record[r.node] = &r;
  }
  std::vector<double> done(n, 0);
  for (graph::NodeId id : g.topological_order()) {
    double ready = 0;
    for (const graph::TensorRef& in : g.node(id).inputs) ready = std::max(ready, done[in.node]);
    for (graph::NodeId p : g.node(id).control_inputs) ready = std::max(ready, done[p]);
    w.ready_us[id] = ready;
    done[id] = w.record[id] ? w.record[id]->end_us : ready;
  }
  // Each consumer copy belongs to the first op of its device that starts after it.
  std::vector<std::vector<const TransferRecord*>> copies(c.devices.size());
  for (const TransferRecord& t : step.transfers) {
    if (ConsumerCopies(c, t)) copies[t.dst_device].push_back(&t);
  }
  const auto by_device = OpsByDevice(c, step);
  for (size_t d = 0; d < c.devices.size(); ++d) {
    auto& ts = copies[d];
    std::sort(ts.begin(), ts.end(), [](const TransferRecord* a, const TransferRecord* b) {
      return a->end_us < b->end_us;
    });
    size_t k = 0;
    for (const OpRecord* r : by_device[d]) {
      for (; k < ts.size() && ts[k]->end_us <= r->start_us + kEpsUs; ++k) {
        w.copies_us[r->node] += ts[k]->end_us - ts[k]->start_us;
      }
    }
  }
  return w;
}

std::vector<OpGap> Gaps(const cluster::Cluster& c, const StepStats& step, const Walk& w) {
  std::vector<OpGap> out;
  const auto by_device = OpsByDevice(c, step);
  for (size_t d = 0; d < c.devices.size(); ++d) {
    double prev_end = 0;
    for (const OpRecord* r : by_device[d]) {
      out.push_back({r->node, r->device, r->start_us, r->end_us, w.ready_us[r->node], prev_end,
                     w.copies_us[r->node]});
      prev_end = std::max(prev_end, r->end_us);
    }
  }
  return out;
}

std::vector<DevicePhases> Phases(const cluster::Cluster& c, const StepStats& step, const Walk& w) {
  std::vector<DevicePhases> out(c.devices.size());
  std::vector<double> last_end(c.devices.size(), 0);
  for (const OpGap& o : Gaps(c, step, w)) {
    DevicePhases& p = out[o.device];
    const double gap = std::max(0.0, o.start_us - o.prev_end_us - o.copies_us);
    if (o.ready_us <= o.prev_end_us + kEpsUs) {
      p.dispatch_us += gap;
    } else {
      const double idle = std::min(gap, o.ready_us - o.prev_end_us);
      p.waiting_us += idle;
      p.handoff_us += gap - idle;
    }
    p.copies_us += o.copies_us;
    p.kernels_us += o.end_us - o.start_us;
    ++p.ops;
    last_end[o.device] = std::max(last_end[o.device], o.end_us);
  }
  for (size_t d = 0; d < out.size(); ++d) {
    out[d].tail_us = std::max(0.0, step.seconds * 1e6 - last_end[d]);
  }
  return out;
}

double TransferUs(const StepStats& s) {
  double us = 0;
  for (const TransferRecord& t : s.transfers) us += t.end_us - t.start_us;
  return us;
}

template <typename Key>
void KeepLargest(std::vector<OpAlignment>* v, int top, Key key) {
  std::stable_sort(v->begin(), v->end(), [&](const OpAlignment& a, const OpAlignment& b) {
    return std::fabs(key(a)) > std::fabs(key(b));
  });
  if (static_cast<int>(v->size()) > top) v->resize(top);
}

}  // namespace

std::vector<OpGap> OpGaps(const graph::Graph& g, const cluster::Cluster& c, const StepStats& step) {
  return Gaps(c, step, WalkStep(g, c, step));
}

std::vector<DevicePhases> SplitIntoPhases(const graph::Graph& g, const cluster::Cluster& c,
                                          const StepStats& step) {
  return Phases(c, step, WalkStep(g, c, step));
}

TimelineDiff DiffTimelines(const graph::Graph& g, const cluster::Cluster& c,
                           const StepStats& measured, const StepStats& predicted,
                           const TimelineDiffOptions& options) {
  TimelineDiff d;
  d.measured_us = measured.seconds * 1e6;
  d.predicted_us = predicted.seconds * 1e6;
  const Walk m = WalkStep(g, c, measured), p = WalkStep(g, c, predicted);
  d.measured = Phases(c, measured, m);
  d.predicted = Phases(c, predicted, p);
  d.measured_transfers = static_cast<int>(measured.transfers.size());
  d.predicted_transfers = static_cast<int>(predicted.transfers.size());
  d.measured_transfer_us = TransferUs(measured);
  d.predicted_transfer_us = TransferUs(predicted);

  std::vector<OpAlignment> aligned;
  std::map<std::string, OpTypeTimes> types;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const OpRecord *a = m.record[id], *b = p.record[id];
    if (!a && !b) continue;
    OpTypeTimes& t = types[g.node(id).op];
    t.op = g.node(id).op;
    if (a) t.measured_us += a->end_us - a->start_us;
    if (b) t.predicted_us += b->end_us - b->start_us;
    if (!a || !b) {
      ++d.unmatched_ops;
      continue;
    }
    ++t.count;
    aligned.push_back({id, a->device, a->start_us, b->start_us, a->end_us - a->start_us,
                       b->end_us - b->start_us, a->start_us - m.ready_us[id],
                       b->start_us - p.ready_us[id]});
  }
  for (auto& [op, t] : types) d.op_types.push_back(t);
  std::stable_sort(d.op_types.begin(), d.op_types.end(),
                   [](const OpTypeTimes& a, const OpTypeTimes& b) {
                     return std::fabs(a.predicted_us - a.measured_us) >
                            std::fabs(b.predicted_us - b.measured_us);
                   });
  if (static_cast<int>(d.op_types.size()) > options.top) d.op_types.resize(options.top);

  d.threshold_us = std::max(options.threshold_min_us, options.threshold_frac * d.measured_us);
  std::vector<OpAlignment> by_start = aligned;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [](const OpAlignment& a, const OpAlignment& b) {
                     return a.measured_start_us < b.measured_start_us;
                   });
  for (const OpAlignment& a : by_start) {
    if (std::fabs(a.predicted_start_us - a.measured_start_us) > d.threshold_us) {
      d.first_departure = a;
      break;
    }
  }
  d.largest_kernel = aligned;
  KeepLargest(&d.largest_kernel, options.top,
              [](const OpAlignment& a) { return a.predicted_kernel_us - a.measured_kernel_us; });
  d.largest_wait = std::move(aligned);
  KeepLargest(&d.largest_wait, options.top,
              [](const OpAlignment& a) { return a.predicted_wait_us - a.measured_wait_us; });
  return d;
}

namespace {

std::string Ms(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", us / 1e3);
  return buf;
}

std::string Pair(double measured_us, double predicted_us) {
  return Ms(measured_us) + " / " + Ms(predicted_us);
}

std::string Percent(double measured, double predicted) {
  if (measured <= 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, " (%+.1f%%)", 100 * (predicted - measured) / measured);
  return buf;
}

std::string DescribeOp(const graph::Graph& g, const cluster::Cluster& c, const OpAlignment& a) {
  const graph::Node& n = g.node(a.node);
  return "'" + n.name + "' (" + n.op + ") on " + c.devices[a.device].name;
}

}  // namespace

std::string FormatTimelineDiff(const graph::Graph& g, const cluster::Cluster& c,
                               const TimelineDiff& d) {
  std::string out = "timeline diff, measured / simulated (ms): step " +
                    Pair(d.measured_us, d.predicted_us) + Percent(d.measured_us, d.predicted_us) +
                    "\n";
  char buf[512];
  std::snprintf(buf, sizeof buf, "  %-10s %6s %19s %17s %17s %17s %17s %17s\n", "device", "ops",
                "kernels", "copies", "dispatch", "hand-off", "waiting", "tail");
  out += buf;
  for (size_t k = 0; k < c.devices.size(); ++k) {
    const DevicePhases &m = d.measured[k], &p = d.predicted[k];
    if (m.ops == 0 && p.ops == 0) continue;
    std::snprintf(
        buf, sizeof buf, "  %-10s %6d %19s %17s %17s %17s %17s %17s\n", c.devices[k].name.c_str(),
        m.ops, Pair(m.kernels_us, p.kernels_us).c_str(), Pair(m.copies_us, p.copies_us).c_str(),
        Pair(m.dispatch_us, p.dispatch_us).c_str(), Pair(m.handoff_us, p.handoff_us).c_str(),
        Pair(m.waiting_us, p.waiting_us).c_str(), Pair(m.tail_us, p.tail_us).c_str());
    out += buf;
  }
  out += "  op types whose kernel time differs most (measured / simulated ms):";
  for (const OpTypeTimes& t : d.op_types) {
    out += "\n    " + t.op + " x" + std::to_string(t.count) + ": " +
           Pair(t.measured_us, t.predicted_us) + Percent(t.measured_us, t.predicted_us);
  }
  out += "\n  transfers: " + std::to_string(d.measured_transfers) + " / " +
         std::to_string(d.predicted_transfers) + ", taking " +
         Pair(d.measured_transfer_us, d.predicted_transfer_us) + " ms\n";
  if (d.first_departure) {
    const OpAlignment& a = *d.first_departure;
    out += "  first departure (start off by more than " + Ms(d.threshold_us) +
           " ms): " + DescribeOp(g, c, a) + " starts at " +
           Pair(a.measured_start_us, a.predicted_start_us) + " ms; its kernel " +
           Pair(a.measured_kernel_us, a.predicted_kernel_us) + ", its wait " +
           Pair(a.measured_wait_us, a.predicted_wait_us) + "\n";
  } else {
    out += "  no op starts more than " + Ms(d.threshold_us) + " ms away from its measured start\n";
  }
  out += "  largest kernel differences (measured / simulated ms):";
  for (const OpAlignment& a : d.largest_kernel) {
    out +=
        "\n    " + DescribeOp(g, c, a) + ": " + Pair(a.measured_kernel_us, a.predicted_kernel_us);
  }
  out +=
      "\n  largest wait differences, from its last input done to its start (measured / "
      "simulated ms):";
  for (const OpAlignment& a : d.largest_wait) {
    out += "\n    " + DescribeOp(g, c, a) + ": " + Pair(a.measured_wait_us, a.predicted_wait_us);
  }
  if (d.unmatched_ops > 0) {
    out += "\n  " + std::to_string(d.unmatched_ops) + " ops are in only one of the timelines";
  }
  return out + "\n";
}

}  // namespace sim
