#include "runtime/timeline.h"

#include <algorithm>
#include <cstdio>

#include "graph/summary.h"

namespace runtime {

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

}  // namespace runtime
