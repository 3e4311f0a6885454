// The jobs' progress and result lines (internal to planner/job/): printf to
// the job's `log`, flushed at once so that a watcher (a log file, `fleet up`'s
// progress) sees each line as it is made; nothing when `log` is null.
#pragma once

#include <cstdio>

namespace planner::job {

void Say(std::FILE* log, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace planner::job
