#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cluster/devices.h"
#include "frontend/args.h"

namespace planner::cli {

namespace {
const frontend::CommandSpec kSpec{
    "devices",
    "DEVICES",
    "Validates a devices.yaml file and prints its devices (kind, TensorFlow device\n"
    "string, memory, peak FLOP/s, memory bandwidth) and links. Format: docs/devices.md.",
    {"DEVICES"},
    {}};

std::string Num(const std::optional<double>& v, double scale, const char* unit) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g %s", *v / scale, unit);
  return buf;
}

int Run(const frontend::Args& args) {
  auto c = cluster::LoadDevicesFile(args.positional()[0]);
  if (!c.ok()) return frontend::CommandError(kSpec, c.status());
  // Two digests: the file's bytes (profile caches), and what a placement
  // depends on (placement files record it; their errors quote it).
  std::printf("%s (file digest %s, placement digest %s): %zu devices\n", c->source.c_str(),
              c->digest.c_str(), c->placement_digest.c_str(), c->devices.size());
  std::printf("  %-10s %-5s %-46s %-12s %-14s %s\n", "name", "kind", "tensorflow device", "memory",
              "peak", "bandwidth");
  for (const cluster::DeviceSpec& d : c->devices) {
    std::optional<double> mem;
    if (d.memory_bytes) mem = static_cast<double>(*d.memory_bytes);
    std::printf("  %-10s %-5s %-46s %-12s %-14s %s\n", d.name.c_str(),
                cluster::DeviceKindName(d.kind), d.TfDeviceString().c_str(),
                Num(mem, 1 << 30, "GiB").c_str(), Num(d.peak_flops, 1e12, "TFLOP/s").c_str(),
                Num(d.memory_bandwidth, 1e9, "GB/s").c_str());
  }
  for (size_t a = 0; a < c->devices.size(); ++a) {
    for (size_t b = a + 1; b < c->devices.size(); ++b) {
      auto l = c->Link(static_cast<int>(a), static_cast<int>(b));
      std::printf(
          "  link %s <-> %s: %s\n", c->devices[a].name.c_str(), c->devices[b].name.c_str(),
          l ? (Num(l->bandwidth_bytes_per_s, 1e9, "GB/s") + ", " + Num(l->latency_s, 1e-6, "us"))
                  .c_str()
            : "not given (measured by `planner profile`)");
    }
  }
  return 0;
}

}  // namespace

int DevicesCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

}  // namespace planner::cli
