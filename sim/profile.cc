#include "sim/profile.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include "graph/file_util.h"

namespace sim {

namespace {

constexpr char kHeader[] = "# planner profile v6";
constexpr char kHeaderV5[] = "# planner profile v5";  // no parallel step records
constexpr char kHeaderV4[] = "# planner profile v4";  // no device records
constexpr char kHeaderV3[] = "# planner profile v3";
constexpr char kHeaderV2[] = "# planner profile v2";
constexpr char kHeaderV1[] = "# planner profile v1";

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return out;
    start = tab + 1;
  }
}

bool ParseDouble(const std::string& s, double* v) {
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() && std::isfinite(*v) && *v >= 0;
}

bool ParseInt(const std::string& s, int64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size() && *v >= 0;
}

std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

}  // namespace

const OpTiming* Profile::Find(const std::string& device, const std::string& signature) const {
  auto d = ops.find(device);
  if (d == ops.end()) return nullptr;
  auto s = d->second.find(signature);
  return s == d->second.end() ? nullptr : &s->second;
}

double Profile::HostSeconds(const std::string& device, const std::string& signature) const {
  auto d = host_s.find(device);
  if (d == host_s.end()) return -1;
  auto s = d->second.find(signature);
  return s == d->second.end() ? -1 : s->second;
}

void Profile::Erase(const std::string& device) {
  definitions.erase(device);
  ops.erase(device);
  dispatch_s.erase(device);
  dispatch_shared_s.erase(device);
  dispatch_cross_s.erase(device);
  slowdown.erase(device);
  wakeup_s.erase(device);
  poll_s.erase(device);
  notify_s.erase(device);
  cold_s.erase(device);
  parallel_slowdown.erase(device);
  parallel_cold_s.erase(device);
  shared_cross.erase(device);
  host_s.erase(device);
  launch_s.erase(device);
  for (auto it = links.begin(); it != links.end();) {
    it = it->first.first == device || it->first.second == device ? links.erase(it) : std::next(it);
  }
}

std::string Redefinition(const Profile& profile, const cluster::DeviceSpec& d) {
  auto it = profile.definitions.find(d.name);
  const std::string here = cluster::TimingDefinition(d);
  if (it == profile.definitions.end() || it->second == here) return "";
  return d.name + " (profiled as " + it->second + "; here " + here + ")";
}

std::vector<std::string> RedefinedDevices(const Profile& profile, const cluster::Cluster& c) {
  std::vector<std::string> out;
  for (const cluster::DeviceSpec& d : c.devices) {
    if (std::string r = Redefinition(profile, d); !r.empty()) out.push_back(std::move(r));
  }
  return out;
}

graph::Status CheckProfileFits(const Profile& profile, const std::string& profile_path,
                               const cluster::Cluster& c) {
  const std::vector<std::string> redefined = RedefinedDevices(profile, c);
  if (redefined.empty()) return graph::Status::Ok();
  return graph::InvalidArgument(
      profile_path + ": made on other devices than " + c.source + "'s: " + redefined.front() +
      "; profile these devices: planner profile MODEL " + c.source + " -o NEW.profile");
}

const LinkFit* Profile::Link(const std::string& src, const std::string& dst) const {
  auto it = links.find({src, dst});
  return it == links.end() ? nullptr : &it->second;
}

std::string DescribeColdBins(const std::vector<std::pair<double, double>>& bins) {
  std::string out;
  double from = 0;
  char buf[64];
  for (const auto& [below, extra] : bins) {
    if (below < 1) {
      std::snprintf(buf, sizeof buf, " %.0f-%.0f us +%.2f us,", from * 1e6, below * 1e6,
                    extra * 1e6);
    } else {
      std::snprintf(buf, sizeof buf, " over %.0f us +%.2f us", from * 1e6, extra * 1e6);
    }
    out += buf;
    from = below;
  }
  return out;
}

graph::Result<Profile> ReadProfile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
    return graph::NotFound(path + ": no such file");
  }
  GRAPH_ASSIGN_OR_RETURN(std::string text, graph::ReadFile(path));
  Profile p;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string where = path + ":" + std::to_string(n) + ": ";
    if (n == 1) {
      if (line != kHeader && line != kHeaderV5 && line != kHeaderV4 && line != kHeaderV3 &&
          line != kHeaderV2 && line != kHeaderV1) {
        return graph::InvalidArgument(where + "not a planner profile (expected '" + kHeader + "')");
      }
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    // WriteProfile ends every record with a newline: a last record without one was cut off,
    // and a cut number ("12" of "125" samples) would still parse.
    if (in.eof())
      return graph::InvalidArgument(where +
                                    "the last record has no line end: the file was cut off");
    std::vector<std::string> f = SplitTabs(line);
    double a = 0, b = 0;
    int64_t i = 0, j = 0;
    double spread = 0;
    if (f[0] == "device" && f.size() == 3 && !f[1].empty() && !f[2].empty()) {
      p.definitions[f[1]] = f[2];
    } else if (f[0] == "op" && (f.size() == 6 || (f.size() == 7 && ParseDouble(f[5], &spread))) &&
               !f[1].empty() && ParseDouble(f[2], &a) && ParseInt(f[3], &i) && ParseInt(f[4], &j) &&
               !f.back().empty()) {  // v1 has no spread
      p.ops[f[1]][f.back()] = {a, i, static_cast<int>(std::min<int64_t>(j, 1 << 30)), spread};
    } else if (f[0] == "dispatch" && f.size() == 3 && !f[1].empty() && ParseDouble(f[2], &a)) {
      p.dispatch_s[f[1]] = a;
    } else if (f[0] == "dispatch_shared" && f.size() == 3 && !f[1].empty() &&
               ParseDouble(f[2], &a)) {
      p.dispatch_shared_s[f[1]] = a;
    } else if (f[0] == "dispatch_cross" && f.size() == 3 && !f[1].empty() &&
               ParseDouble(f[2], &a) && a >= 0) {
      p.dispatch_cross_s[f[1]] = a;
    } else if (f[0] == "slowdown" && f.size() == 3 && !f[1].empty() && ParseDouble(f[2], &a) &&
               a > 0) {
      p.slowdown[f[1]] = a;
    } else if (f[0] == "wakeup" && f.size() == 3 && !f[1].empty() && ParseDouble(f[2], &a)) {
      p.wakeup_s[f[1]] = a;
    } else if (f[0] == "poll" && f.size() == 3 && !f[1].empty() && ParseDouble(f[2], &a)) {
      p.poll_s[f[1]] = a;
    } else if (f[0] == "notify" && f.size() == 3 && !f[1].empty() && ParseDouble(f[2], &a)) {
      p.notify_s[f[1]] = a;
    } else if (f[0] == "cold" && f.size() == 4 && !f[1].empty() && ParseDouble(f[2], &a) && a > 0 &&
               ParseDouble(f[3], &b) && b >= 0) {
      p.cold_s[f[1]].push_back({a, b});
    } else if (f[0] == "parallel_slowdown" && f.size() == 3 && !f[1].empty() &&
               ParseDouble(f[2], &a) && a > 0) {
      p.parallel_slowdown[f[1]] = a;
    } else if (f[0] == "parallel_cold" && f.size() == 4 && !f[1].empty() && ParseDouble(f[2], &a) &&
               a > 0 && ParseDouble(f[3], &b) && b >= 0) {
      p.parallel_cold_s[f[1]].push_back({a, b});
    } else if (f[0] == "shared_cross" && f.size() == 3 && !f[1].empty() && ParseDouble(f[2], &a) &&
               a > 0) {
      p.shared_cross[f[1]] = a;
    } else if (f[0] == "host" && f.size() == 4 && !f[1].empty() && ParseDouble(f[2], &a) &&
               !f[3].empty()) {
      p.host_s[f[1]][f[3]] = a;
    } else if (f[0] == "launch" && f.size() == 3 && !f[1].empty() && ParseDouble(f[2], &a)) {
      p.launch_s[f[1]] = a;
    } else if (f[0] == "link" && f.size() == 6 && !f[1].empty() && !f[2].empty() &&
               ParseDouble(f[3], &a) && ParseDouble(f[4], &b) && b > 0 && ParseInt(f[5], &j)) {
      p.links[{f[1], f[2]}] = {a, b, static_cast<int>(std::min<int64_t>(j, 1 << 30))};
    } else {
      return graph::InvalidArgument(
          where +
          "malformed record (expected 'device', 'op', 'dispatch', 'dispatch_shared', "
          "'dispatch_cross', "
          "'slowdown', 'wakeup', 'poll', 'notify', 'cold', 'parallel_slowdown', 'parallel_cold', "
          "'shared_cross', 'link', 'host' or 'launch' with its "
          "tab-separated fields)");
    }
  }
  for (auto& [device, bins] : p.cold_s) std::sort(bins.begin(), bins.end());
  for (auto& [device, bins] : p.parallel_cold_s) std::sort(bins.begin(), bins.end());
  if (n == 0) return graph::InvalidArgument(path + ": empty file, not a planner profile");
  return p;
}

graph::Status WriteProfile(const std::string& path, const Profile& p) {
  std::string out = std::string(kHeader) + "\n";
  out +=
      "# op<TAB>device<TAB>mean seconds<TAB>output bytes<TAB>samples<TAB>relative spread"
      "<TAB>signature\n";
  out +=
      "# dispatch, dispatch_shared<TAB>device<TAB>seconds per op; dispatch_cross<TAB>device<TAB>"
      "seconds per op per cross-device edge per op; slowdown<TAB>device<TAB>factor; "
      "wakeup, poll, notify<TAB>device<TAB>seconds; "
      "cold, parallel_cold<TAB>device<TAB>idle below s<TAB>extra s; "
      "parallel_slowdown<TAB>device<TAB>factor; "
      "shared_cross<TAB>device<TAB>cross-device edges per op; "
      "link<TAB>src<TAB>dst<TAB>latency s<TAB>bytes/s<TAB>samples; "
      "launch<TAB>device<TAB>seconds per kernel launch; "
      "host<TAB>device<TAB>seconds an op's launch takes<TAB>signature; "
      "device<TAB>device<TAB>what it was measured as\n";
  for (const auto& [device, d] : p.definitions) out += "device\t" + device + "\t" + d + "\n";
  for (const auto& [device, s] : p.dispatch_s) out += "dispatch\t" + device + "\t" + Num(s) + "\n";
  for (const auto& [device, s] : p.dispatch_shared_s) {
    out += "dispatch_shared\t" + device + "\t" + Num(s) + "\n";
  }
  for (const auto& [device, s] : p.dispatch_cross_s) {
    out += "dispatch_cross\t" + device + "\t" + Num(s) + "\n";
  }
  for (const auto& [device, f] : p.slowdown) out += "slowdown\t" + device + "\t" + Num(f) + "\n";
  for (const auto& [device, w] : p.wakeup_s) out += "wakeup\t" + device + "\t" + Num(w) + "\n";
  for (const auto& [device, w] : p.poll_s) out += "poll\t" + device + "\t" + Num(w) + "\n";
  for (const auto& [device, w] : p.notify_s) out += "notify\t" + device + "\t" + Num(w) + "\n";
  for (const auto& [device, bins] : p.cold_s) {
    for (const auto& [below, extra] : bins) {
      out += "cold\t" + device + "\t" + Num(below) + "\t" + Num(extra) + "\n";
    }
  }
  for (const auto& [device, f] : p.parallel_slowdown) {
    out += "parallel_slowdown\t" + device + "\t" + Num(f) + "\n";
  }
  for (const auto& [device, bins] : p.parallel_cold_s) {
    for (const auto& [below, extra] : bins) {
      out += "parallel_cold\t" + device + "\t" + Num(below) + "\t" + Num(extra) + "\n";
    }
  }
  for (const auto& [device, x] : p.shared_cross) {
    out += "shared_cross\t" + device + "\t" + Num(x) + "\n";
  }
  for (const auto& [pair, l] : p.links) {
    out += "link\t" + pair.first + "\t" + pair.second + "\t" + Num(l.latency_s) + "\t" +
           Num(l.bandwidth_bytes_per_s) + "\t" + std::to_string(l.samples) + "\n";
  }
  for (const auto& [device, s] : p.launch_s) out += "launch\t" + device + "\t" + Num(s) + "\n";
  for (const auto& [device, sigs] : p.host_s) {
    for (const auto& [sig, s] : sigs) out += "host\t" + device + "\t" + Num(s) + "\t" + sig + "\n";
  }
  for (const auto& [device, sigs] : p.ops) {
    for (const auto& [sig, t] : sigs) {
      out += "op\t" + device + "\t" + Num(t.seconds) + "\t" + std::to_string(t.output_bytes) +
             "\t" + std::to_string(t.samples) + "\t" + Num(t.spread) + "\t" + sig + "\n";
    }
  }
  return graph::WriteFileAtomic(path, out);
}

}  // namespace sim
