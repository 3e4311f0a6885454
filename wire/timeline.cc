#include "wire/timeline.h"

#include "wire/proto/fleet.pb.h"

namespace wire {

void TimelineToWire(const sim::StepStats& s, pb::Timeline* t) {
  t->set_seconds(s.seconds);
  for (const sim::OpRecord& o : s.ops) {
    pb::Timeline::Op* w = t->add_ops();
    w->set_node(o.node);
    w->set_device(o.device);
    w->set_start_us(o.start_us);
    w->set_end_us(o.end_us);
    w->set_bytes(o.bytes);
  }
  for (const sim::TransferRecord& x : s.transfers) {
    pb::Timeline::Transfer* w = t->add_transfers();
    w->set_from_node(x.from_node);
    w->set_src_device(x.src_device);
    w->set_dst_device(x.dst_device);
    w->set_bytes(x.bytes);
    w->set_start_us(x.start_us);
    w->set_end_us(x.end_us);
  }
  t->mutable_peak_bytes()->Add(s.peak_bytes.begin(), s.peak_bytes.end());
  t->mutable_busy_us()->Add(s.busy_us.begin(), s.busy_us.end());
}

sim::StepStats TimelineFromWire(const pb::Timeline& t) {
  sim::StepStats s;
  s.seconds = t.seconds();
  for (const pb::Timeline::Op& o : t.ops()) {
    s.ops.push_back({o.node(), o.device(), o.start_us(), o.end_us(), o.bytes()});
  }
  for (const pb::Timeline::Transfer& x : t.transfers()) {
    s.transfers.push_back(
        {x.from_node(), x.src_device(), x.dst_device(), x.bytes(), x.start_us(), x.end_us()});
  }
  s.peak_bytes.assign(t.peak_bytes().begin(), t.peak_bytes().end());
  s.busy_us.assign(t.busy_us().begin(), t.busy_us().end());
  return s;
}

}  // namespace wire
