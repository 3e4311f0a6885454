#include "planner/job/log.h"

#include <cstdarg>

namespace planner::job {

void Say(std::FILE* log, const char* format, ...) {
  if (!log) return;
  va_list args;
  va_start(args, format);
  std::vfprintf(log, format, args);
  va_end(args);
  std::fflush(log);
}

}  // namespace planner::job
