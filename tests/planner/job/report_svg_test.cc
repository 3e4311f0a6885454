#include "planner/job/report_svg.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "tests/planner/search_test_util.h"

namespace planner::job {
namespace {

int Count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

SearchReport Report(bool measured) {
  SearchReport r;
  r.title = "a <b> & c";
  r.measured = measured;
  r.curve = {{1, 2e-3, 1.5e-3}, {2, 1.2e-3, 1e-3}};
  r.baseline_method = "etf";
  r.baseline_s = 1.5e-3;
  r.result_method = "search";
  r.timeline.seconds = 1e-3;
  r.timeline.ops = {{0, 1, 0, 400, 0}, {1, 2, 400, 900, 0}};
  r.timeline.transfers = {{0, 1, 2, 1024, 400, 450}};
  return r;
}

TEST(ReportSvgTest, DrawsEveryOpOnItsDeviceRowAndEscapesNames) {
  testing::Problem p = testing::Zoo("mlp");
  cluster::Cluster c = testing::SimCluster(2);
  std::string svg = SearchReportSvg(Report(false), p.training.graph, c);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("a &lt;b&gt; &amp; c"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  for (const char* d : {">cpu0<", ">gpu0<", ">gpu1<"})
    EXPECT_NE(svg.find(d), std::string::npos) << d;
  EXPECT_EQ(Count(svg, "<title>transfer"), 1);
  EXPECT_EQ(Count(svg, "<polyline"), 2) << "the update means and the best so far";
  EXPECT_NE(svg.find("best baseline (etf) 1.500 ms"), std::string::npos);
  // Simulated: every figure says it is a prediction, and no verdict is drawn.
  EXPECT_NE(svg.find("no hardware verdict: the figures are predicted by the simulator"),
            std::string::npos);
  EXPECT_NE(svg.find("the result (search): one step simulated, 1.000 ms"), std::string::npos);
  EXPECT_EQ(Count(svg, "<circle"), 0);
}

// Values of attribute `name` in the order they appear.
std::vector<double> Attr(const std::string& svg, const std::string& name) {
  std::vector<double> out;
  const std::string key = " " + name + "=\"";
  for (size_t at = svg.find(key); at != std::string::npos; at = svg.find(key, at + 1)) {
    out.push_back(std::atof(svg.c_str() + at + key.size()));
  }
  return out;
}

TEST(ReportSvgTest, ARealSearchShowsTheVerdictsRoundsAndLabelsEachMeasurement) {
  testing::Problem p = testing::Zoo("mlp");
  cluster::Cluster c = testing::SimCluster(2);
  SearchReport r = Report(true);
  r.verdict = "no significant improvement over etf (p = 0.326 over 9 interleaved rounds)";
  r.found_method = "search";
  r.verdict_found_s = 1.9e-3;  // the rounds disagree with the search's lucky 1.0 ms
  r.verdict_baseline_s = 2.1e-3;
  r.result_method = "etf";
  const std::string svg = SearchReportSvg(r, p.training.graph, c);
  EXPECT_NE(svg.find("on the hardware: no significant improvement over etf (p = 0.326"),
            std::string::npos);
  EXPECT_NE(svg.find("measured by the search, the best of noisy samples: biased low"),
            std::string::npos);
  EXPECT_NE(svg.find("medians: search 1.900 ms, etf 2.100 ms"), std::string::npos);
  EXPECT_NE(svg.find("the result (etf): one step measured after the search"), std::string::npos);
  // Both medians are drawn, inside the plot (the axis stretches to hold them).
  const std::vector<double> cy = Attr(svg, "cy");
  ASSERT_EQ(cy.size(), 2u);
  const std::vector<double> ys = Attr(svg, "y"), heights = Attr(svg, "height");
  // y: the title, the verdict, the plot; height: the svg, its background, the plot.
  const double plot_top = ys[2], plot_bottom = ys[2] + heights[2];
  for (double y : cy) {
    EXPECT_GE(y, plot_top);
    EXPECT_LE(y, plot_bottom);
  }
  // The legend is above the plot, over none of its lines.
  const size_t legend = svg.find("mean of the update's placements");
  ASSERT_NE(legend, std::string::npos);
  const size_t y_at = svg.rfind(" y=\"", legend);
  EXPECT_LT(std::atof(svg.c_str() + y_at + 4), plot_top);
}
}  // namespace
}  // namespace planner::job
