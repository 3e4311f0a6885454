// The policy's tests' policy: the paper's at a size that samples and trains in
// milliseconds.
#pragma once

#include "planner/search/search_options.h"

namespace planner::testing {

inline search::SearchOptions SmallPolicy() {
  search::SearchOptions o = search::PaperSearchOptions();
  o.placer_hidden = 32;
  o.attention = 16;
  o.num_groups = 8;
  return o;
}

}  // namespace planner::testing
