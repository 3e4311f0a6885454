#include "planner/job/log.h"

#include <algorithm>
#include <cstdarg>

#include "frontend/args.h"
#include "sim/statistics.h"

namespace planner::job {

void Say(std::FILE* log, const char* format, ...) {
  if (!log) return;
  va_list args;
  va_start(args, format);
  std::vfprintf(log, format, args);
  va_end(args);
  std::fflush(log);
}

std::string DescribeConfirmed(int rounds, const std::vector<rewards::ConfirmedTimes>& times) {
  std::string said;
  for (const rewards::ConfirmedTimes& t : times) {
    const auto [lo, hi] = std::minmax_element(t.step_s.begin(), t.step_s.end());
    char range[64];
    std::snprintf(range, sizeof range, " [%.3f..%.3f]", 1e3 * *lo, 1e3 * *hi);
    said += (said.empty() ? "" : ", ") + t.method + " " +
            frontend::FormatMs(sim::Median(t.step_s)) + range;
  }
  char head[128];
  std::snprintf(head, sizeof head,
                "  measured again (%d rounds, the %zu fastest; median [range] of each one's %zu): ",
                rounds, times.size(), times.front().step_s.size());
  return head + said;
}

}  // namespace planner::job
