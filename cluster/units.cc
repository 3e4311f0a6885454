#include "cluster/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <system_error>

namespace cluster {
namespace {

struct Quantity {
  double value;
  std::string suffix;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Splits "1.5 GiB" into 1.5 and "GiB". The numeric prefix is scanned by hand so
// that strings strtod would accept ("inf", "0x1p3", "nan") are rejected, and
// parsed with from_chars so a process locale with ',' as decimal point cannot
// change the result.
graph::Result<Quantity> SplitNumber(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return graph::InvalidArgument("empty value");
  const size_t end = text.find_last_not_of(" \t") + 1;
  const std::string_view s(text.data() + begin, end - begin);
  if (s[0] == '-') return graph::InvalidArgument("'" + text + "' is negative");

  size_t i = 0;
  size_t digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return graph::InvalidArgument("'" + text + "' is not a number");
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && IsDigit(s[j])) {
      while (j < s.size() && IsDigit(s[j])) ++j;
      i = j;
    }
  }

  double value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + i, value);
  if (ec == std::errc::result_out_of_range) {
    return graph::InvalidArgument("'" + text + "' is out of range");
  }
  if (ec != std::errc() || ptr != s.data() + i) {
    return graph::InvalidArgument("'" + text + "' is not a number");
  }
  std::string_view suffix = s.substr(i);
  while (!suffix.empty() && (suffix[0] == ' ' || suffix[0] == '\t')) suffix.remove_prefix(1);
  return Quantity{value, std::string(suffix)};
}

struct Unit {
  std::string_view suffix;
  double scale;
};

template <size_t N>
std::optional<double> Lookup(const std::array<Unit, N>& units, std::string_view suffix) {
  for (const Unit& unit : units) {
    if (unit.suffix == suffix) return unit.scale;
  }
  return std::nullopt;
}

bool StripSuffix(std::string_view* text, std::string_view suffix) {
  if (text->size() < suffix.size() || text->substr(text->size() - suffix.size()) != suffix) {
    return false;
  }
  text->remove_suffix(suffix.size());
  return true;
}

constexpr std::array<Unit, 11> kByteUnits = {{
    {"", 1},
    {"B", 1},
    {"kB", 1e3},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
}};
constexpr std::array<Unit, 7> kSiPrefixes = {{
    {"", 1},
    {"k", 1e3},
    {"K", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
    {"P", 1e15},
}};
constexpr std::array<Unit, 6> kDurationUnits = {{
    {"", 1},
    {"s", 1},
    {"ms", 1e-3},
    {"us", 1e-6},
    {"\xC2\xB5s", 1e-6},  // "µs" in UTF-8
    {"ns", 1e-9},
}};

// Multiplies the number in `text` by the scale `scale_of` gives its suffix.
graph::Result<double> Scaled(const std::string& text,
                             std::optional<double> (*scale_of)(std::string_view suffix),
                             const char* expected) {
  GRAPH_ASSIGN_OR_RETURN(const Quantity q, SplitNumber(text));
  const std::optional<double> scale = scale_of(q.suffix);
  if (!scale) {
    return graph::InvalidArgument("'" + text + "': unknown unit '" + q.suffix + "' (expected " +
                                  expected + ")");
  }
  const double value = q.value * *scale;
  if (!std::isfinite(value)) return graph::InvalidArgument("'" + text + "' is out of range");
  return value;
}

std::optional<double> ByteScale(std::string_view suffix) { return Lookup(kByteUnits, suffix); }

// "<byte unit>/s", or "<SI prefix>bit/s" (8 bits to the byte), or nothing.
std::optional<double> BandwidthScale(std::string_view suffix) {
  if (suffix.empty()) return 1;
  if (!StripSuffix(&suffix, "/s")) return std::nullopt;
  if (StripSuffix(&suffix, "bit")) {
    const std::optional<double> prefix = Lookup(kSiPrefixes, suffix);
    return prefix ? std::optional<double>(*prefix / 8) : std::nullopt;
  }
  return suffix.empty() ? std::nullopt : Lookup(kByteUnits, suffix);
}

std::optional<double> DurationScale(std::string_view suffix) {
  return Lookup(kDurationUnits, suffix);
}

// "<SI prefix>" optionally followed by "FLOP/s", "FLOPS" or "flop/s".
std::optional<double> FlopsScale(std::string_view suffix) {
  for (const std::string_view ending : {"FLOP/s", "FLOPS", "flop/s"}) {
    if (StripSuffix(&suffix, ending)) break;
  }
  return Lookup(kSiPrefixes, suffix);
}

}  // namespace

graph::Result<int64_t> ParseBytes(const std::string& text) {
  GRAPH_ASSIGN_OR_RETURN(const double bytes,
                         Scaled(text, &ByteScale, "B, kB, MB, GB, TB, KiB, MiB, GiB or TiB"));
  // 2^63 is exactly representable; anything at or above it cannot be an int64_t.
  if (bytes >= 9223372036854775808.0) {
    return graph::InvalidArgument("'" + text + "' is too large (over 2^63 bytes)");
  }
  return static_cast<int64_t>(std::llround(bytes));
}

graph::Result<double> ParseBandwidth(const std::string& text) {
  return Scaled(text, &BandwidthScale,
                "B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s, or bit/s with an "
                "optional k/M/G/T/P prefix");
}

graph::Result<double> ParseDuration(const std::string& text) {
  return Scaled(text, &DurationScale, "s, ms, us or ns");
}

graph::Result<double> ParseFlops(const std::string& text) {
  return Scaled(text, &FlopsScale,
                "an optional k/M/G/T/P prefix and optional FLOP/s, e.g. '4.29 TFLOP/s'");
}

}  // namespace cluster
