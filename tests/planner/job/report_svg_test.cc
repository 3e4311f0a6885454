#include "planner/job/report_svg.h"

#include <gtest/gtest.h>

#include "tests/planner/search_test_util.h"

namespace planner {
namespace {

int Count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportSvgTest, DrawsEveryOpOnItsDeviceRowAndEscapesNames) {
  testing::Problem p = testing::Zoo("mlp");
  cluster::Cluster c = testing::SimCluster(2);
  sim::StepStats t;
  t.seconds = 1e-3;
  t.ops = {{0, 1, 0, 400, 0}, {1, 2, 400, 900, 0}};
  t.transfers = {{0, 1, 2, 1024, 400, 450}};
  std::string svg = SearchReportSvg("a <b> & c", {{1, 2e-3, 1.5e-3}, {2, 1.2e-3, 1e-3}}, 1.5e-3,
                                    p.training.graph, c, t);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("a &lt;b&gt; &amp; c"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  for (const char* d : {">cpu0<", ">gpu0<", ">gpu1<"})
    EXPECT_NE(svg.find(d), std::string::npos) << d;
  EXPECT_EQ(Count(svg, "<title>transfer"), 1);
  EXPECT_EQ(Count(svg, "<polyline"), 2) << "the update means and the best so far";
  EXPECT_NE(svg.find("best baseline 1.500 ms"), std::string::npos);
}

}  // namespace
}  // namespace planner
