// A step's timeline as it crosses the wire (pb::Timeline in a worker's
// Result) and back. The numbers that come back are a peer's: nothing here
// checks them against a graph; the caller drops records out of its range.
//
// Thread safety: free functions, no shared state.
#pragma once

#include "sim/timeline.h"

namespace wire {

namespace pb {
class Timeline;
}  // namespace pb

void TimelineToWire(const sim::StepStats& stats, pb::Timeline* out);
sim::StepStats TimelineFromWire(const pb::Timeline& timeline);

}  // namespace wire
