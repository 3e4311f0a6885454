#include "planner/job/report_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string_view>

namespace planner::job {

namespace {

constexpr double kWidth = 1000, kLeft = 90, kRight = 20, kCurveTop = 62, kCurveHeight = 260;
constexpr double kRowHeight = 22;

std::string Escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string Fmt(const char* f, double a) {
  char b[64];
  std::snprintf(b, sizeof b, f, a);
  return b;
}

// A stable colour per op type.
std::string Colour(const std::string& op) {
  const unsigned h = static_cast<unsigned>(std::hash<std::string>{}(op));
  return "hsl(" + std::to_string(h % 360) + ",60%," + std::to_string(45 + (h >> 9) % 20) + "%)";
}

// Where the curve's figures come from, for its legend.
std::string Source(bool measured) {
  return measured ? "measured by the search, the best of noisy samples: biased low"
                  : "predicted by the simulator";
}

std::string Text(double x, double y, const std::string& body, const char* extra = "") {
  return "<text x=\"" + Fmt("%.1f", x) + "\" y=\"" + Fmt("%.1f", y) + "\"" + extra + ">" + body +
         "</text>\n";
}

std::string Tspan(const char* colour, const std::string& body) {
  return "<tspan fill=\"" + std::string(colour) + "\">" + Escape(body) + "</tspan>  ";
}

// The reward curve, step time (ms) per update, with the verdict's rounds and
// the legend above it.
std::string CurveSvg(const SearchReport& report) {
  const std::vector<CurvePoint>& curve = report.curve;
  const double plot_w = kWidth - kLeft - kRight;
  std::string s;
  double hi = report.baseline_s, lo = report.baseline_s;
  int last = 1;
  auto include = [&](double v) {
    if (v > 0) hi = std::max(hi, v), lo = std::min(lo, v);
  };
  for (const CurvePoint& p : curve) {
    include(p.mean_step_s);
    include(p.best_step_s);
    last = std::max(last, p.iteration);
  }
  include(report.verdict_found_s.value_or(0));
  include(report.verdict_baseline_s.value_or(0));
  if (!(hi > lo)) hi = lo * 1.1 + 1e-9;
  lo = std::max(0.0, lo - 0.05 * (hi - lo));
  auto X = [&](double it) { return kLeft + plot_w * it / last; };
  auto Y = [&](double sec) { return kCurveTop + kCurveHeight * (1 - (sec - lo) / (hi - lo)); };
  s += "<rect x=\"" + Fmt("%.1f", kLeft) + "\" y=\"" + Fmt("%.1f", kCurveTop) + "\" width=\"" +
       Fmt("%.1f", plot_w) + "\" height=\"" + Fmt("%.1f", kCurveHeight) +
       "\" fill=\"none\" stroke=\"#888\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double sec = lo + (hi - lo) * i / 4;
    s += Text(kLeft - 6, Y(sec) + 4, Fmt("%.2f ms", sec * 1e3), " text-anchor=\"end\"");
  }
  s += Text(kLeft + plot_w / 2, kCurveTop + kCurveHeight + 18,
            "policy update (" + std::to_string(last) + ")", " text-anchor=\"middle\"");
  s += "<line x1=\"" + Fmt("%.1f", kLeft) + "\" x2=\"" + Fmt("%.1f", kLeft + plot_w) + "\" y1=\"" +
       Fmt("%.1f", Y(report.baseline_s)) + "\" y2=\"" + Fmt("%.1f", Y(report.baseline_s)) +
       "\" stroke=\"#c33\" stroke-dasharray=\"6,4\"/>\n";
  auto polyline = [&](auto value, const char* colour) {
    std::string pts;
    for (const CurvePoint& p : curve) {
      const double v = value(p);
      if (v > 0) pts += Fmt("%.1f,", X(p.iteration)) + Fmt("%.1f ", Y(v));
    }
    if (!pts.empty())
      s += "<polyline fill=\"none\" stroke=\"" + std::string(colour) + "\" points=\"" + pts +
           "\"/>\n";
  };
  polyline([](const CurvePoint& p) { return p.mean_step_s; }, "#7aa6d8");
  polyline([](const CurvePoint& p) { return p.best_step_s; }, "#1a5e1a");
  // The verdict's rounds, at the curve's end: fresh measurements of the two.
  auto mark = [&](double v, const char* colour) {
    s += "<circle cx=\"" + Fmt("%.1f", kLeft + plot_w - 6) + "\" cy=\"" + Fmt("%.1f", Y(v)) +
         "\" r=\"4\" fill=\"" + colour + "\"/>\n";
  };
  if (report.verdict_found_s) mark(*report.verdict_found_s, "#1a5e1a");
  if (report.verdict_baseline_s) mark(*report.verdict_baseline_s, "#c33");
  // The legend, above the plot so that it covers none of it.
  s += Text(kLeft, kCurveTop - 8,
            Tspan("#7aa6d8", "mean of the update's placements") + Tspan("#1a5e1a", "best so far") +
                Tspan("#c33", "best baseline (" + report.baseline_method + ") " +
                                  Fmt("%.3f ms", report.baseline_s * 1e3)) +
                Tspan("#555", "(" + Source(report.measured) + ")"));
  if (report.verdict_found_s && report.verdict_baseline_s) {
    s += Text(kLeft + plot_w - 14, kCurveTop + 14,
              Escape("dots: the verdict's rounds, medians: " + report.found_method + " " +
                     Fmt("%.3f ms", *report.verdict_found_s * 1e3) + ", " + report.baseline_method +
                     " " + Fmt("%.3f ms", *report.verdict_baseline_s * 1e3)),
              " text-anchor=\"end\"");
  }

  return s;
}

// The result's step: one row per device, ops coloured by op type, transfers
// as thin bars below them.
std::string TimelineSvg(const SearchReport& report, const graph::Graph& g,
                        const cluster::Cluster& c, double timeline_top) {
  const sim::StepStats& t = report.timeline;
  const double plot_w = kWidth - kLeft - kRight;
  const int rows = static_cast<int>(c.devices.size());
  std::string s;
  if (report.timeline_skipped) {
    return Text(kLeft, timeline_top - 12,
                Escape("the result (" + report.result_method +
                       "): no step measured after the search (stopped by a signal)"));
  }
  const double span = std::max(t.seconds * 1e6, 1e-3);
  auto TX = [&](double us) { return kLeft + plot_w * us / span; };
  s += Text(kLeft, timeline_top - 12,
            Escape("the result (" + report.result_method + "): one step " +
                   (report.measured ? "measured after the search" : "simulated") + ", " +
                   Fmt("%.3f ms", t.seconds * 1e3)));
  for (int d = 0; d < rows; ++d) {
    const double y = timeline_top + d * kRowHeight;
    s += "<text x=\"" + Fmt("%.1f", kLeft - 6) + "\" y=\"" + Fmt("%.1f", y + 14) +
         "\" text-anchor=\"end\">" + Escape(c.devices[d].name) + "</text>\n";
    s += "<rect x=\"" + Fmt("%.1f", kLeft) + "\" y=\"" + Fmt("%.1f", y) + "\" width=\"" +
         Fmt("%.1f", plot_w) + "\" height=\"" + Fmt("%.1f", kRowHeight - 4) +
         "\" fill=\"#f4f4f4\"/>\n";
  }
  for (const sim::OpRecord& r : t.ops) {
    if (r.device < 0 || r.device >= rows || r.node < 0 || r.node >= g.size()) continue;
    const double y = timeline_top + r.device * kRowHeight;
    const graph::Node& n = g.node(r.node);
    s += "<rect x=\"" + Fmt("%.2f", TX(r.start_us)) + "\" y=\"" + Fmt("%.1f", y) + "\" width=\"" +
         Fmt("%.2f", std::max(0.3, TX(r.end_us) - TX(r.start_us))) + "\" height=\"" +
         Fmt("%.1f", kRowHeight - 8) + "\" fill=\"" + Colour(n.op) + "\"><title>" + Escape(n.name) +
         " (" + Escape(n.op) + ") " + Fmt("%.1f us", r.end_us - r.start_us) + "</title></rect>\n";
  }
  for (const sim::TransferRecord& r : t.transfers) {
    if (r.dst_device < 0 || r.dst_device >= rows) continue;
    const double y = timeline_top + r.dst_device * kRowHeight + kRowHeight - 8;
    s += "<rect x=\"" + Fmt("%.2f", TX(r.start_us)) + "\" y=\"" + Fmt("%.1f", y) + "\" width=\"" +
         Fmt("%.2f", std::max(0.3, TX(r.end_us) - TX(r.start_us))) +
         "\" height=\"3\" fill=\"#333\"><title>transfer " + Fmt("%.0f bytes", r.bytes) +
         "</title></rect>\n";
  }
  s += "<text x=\"" + Fmt("%.1f", kLeft) + "\" y=\"" +
       Fmt("%.1f", timeline_top + rows * kRowHeight + 14) + "\">0</text><text x=\"" +
       Fmt("%.1f", kLeft + plot_w) + "\" y=\"" +
       Fmt("%.1f", timeline_top + rows * kRowHeight + 14) + "\" text-anchor=\"end\">" +
       Fmt("%.3f ms", t.seconds * 1e3) + "</text>\n";
  return s;
}

}  // namespace

std::string SearchReportSvg(const SearchReport& report, const graph::Graph& g,
                            const cluster::Cluster& c) {
  const int rows = static_cast<int>(c.devices.size());
  const double timeline_top = kCurveTop + kCurveHeight + 70;
  const double height = timeline_top + rows * kRowHeight + 50;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Fmt("%.0f", kWidth) +
                  "\" height=\"" + Fmt("%.0f", height) +
                  "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += Text(kLeft, 20, Escape(report.title), " font-size=\"14\"");
  s += Text(kLeft, 38,
            report.verdict.empty()
                ? Escape("no hardware verdict: the figures are " + Source(report.measured))
                : Escape("on the hardware: " + report.verdict));

  s += CurveSvg(report);
  s += TimelineSvg(report, g, c, timeline_top);
  s += "</svg>\n";
  return s;
}

}  // namespace planner::job
