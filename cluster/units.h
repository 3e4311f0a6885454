// Parsers for the quantities written in devices.yaml: byte sizes, bandwidths,
// durations and FLOP rates, each a number with an optional unit suffix.
//
// Units are explicit because hardware figures are published in mixed units (GB/s
// for PCIe, GiB for memory, TFLOP/s for compute) and a silent 1000-vs-1024 slip
// skews every simulated step. SI prefixes (k, M, G, T) are powers of 1000, IEC
// prefixes (Ki, Mi, Gi, Ti) powers of 1024. Numbers are read locale-independently.
// Messages are one line, quote the input, and carry no file name: the caller adds
// where the text came from.
// Ownership: pure functions over their argument. Thread safety: safe to call
// concurrently.
#pragma once

#include <cstdint>
#include <string>

#include "graph/status.h"

namespace cluster {

// "1048576", "512MiB", "12 GB", "1.5GiB" -> bytes. A fractional result is rounded
// to the nearest byte. Errors: empty, negative, overflow, unknown suffix.
graph::Result<int64_t> ParseBytes(const std::string& text);

// "15.75GB/s", "12 GiB/s", "100Gbit/s" -> bytes per second; a plain number is
// already bytes per second.
graph::Result<double> ParseBandwidth(const std::string& text);

// "500ns", "10us", "1.5ms", "2s" -> seconds; a plain number is seconds.
graph::Result<double> ParseDuration(const std::string& text);

// "4.29e12", "4.29T", "67 TFLOP/s", "1.3 TFLOPS" -> FLOP per second.
graph::Result<double> ParseFlops(const std::string& text);

}  // namespace cluster
