// The jobs' progress and result lines (internal to planner/job/): printf to
// the job's `log`, flushed at once so that a watcher (a log file, `fleet up`'s
// progress) sees each line as it is made; nothing when `log` is null.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "planner/rewards/confirm.h"

namespace planner::job {

void Say(std::FILE* log, const char* format, ...) __attribute__((format(printf, 2, 3)));

// The line on what rewards::ConfirmFastest measured (`times` not empty), as both
// jobs print it: "  measured again (R rounds, the K fastest; median [range] of
// each one's N): METHOD MEDIAN [LO..HI], ...", in milliseconds.
std::string DescribeConfirmed(int rounds, const std::vector<rewards::ConfirmedTimes>& times);

}  // namespace planner::job
