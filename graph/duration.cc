#include "graph/duration.h"

#include <cmath>
#include <cstdio>

namespace graph {

std::string FormatMs(double seconds) {
  const double ms = seconds * 1e3;
  char b[48];
  std::snprintf(b, sizeof b, std::fabs(ms) < 1e9 ? "%.3f ms" : "%.4g ms", ms);
  return b;
}

}  // namespace graph
