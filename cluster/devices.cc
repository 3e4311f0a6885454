#include "cluster/devices.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "cluster/units.h"
#include "graph/digest.h"
#include "graph/file_util.h"
#include "yaml/document.h"

namespace cluster {

const char* DeviceKindName(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kCpu:
      return "cpu";
    case DeviceKind::kCuda:
      return "cuda";
    case DeviceKind::kSim:
      return "sim";
  }
  return "unknown";
}

bool DeviceSpec::IsCpuLike() const {
  return kind == DeviceKind::kCpu || (kind == DeviceKind::kSim && simulates == "cpu");
}

std::string DeviceSpec::TfDeviceString(int task) const {
  return "/job:localhost/replica:0/task:" + std::to_string(task) +
         "/device:" + (IsCpuLike() ? "CPU:" : "GPU:") + std::to_string(tf_ordinal);
}

const DeviceSpec* Cluster::Find(const std::string& name) const {
  const int i = IndexOf(name);
  return i < 0 ? nullptr : &devices[i];
}

int Cluster::IndexOf(const std::string& name) const {
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::optional<LinkSpec> Cluster::Link(int a, int b) const {
  const auto it = links.find({std::min(a, b), std::max(a, b)});
  if (it != links.end()) return it->second;
  return default_link;
}

bool Cluster::Interchangeable(int a, int b) const {
  if (a == b) return true;
  const DeviceSpec& x = devices[a];
  const DeviceSpec& y = devices[b];
  if (x.kind != DeviceKind::kSim || y.kind != DeviceKind::kSim) return false;
  if (x.simulates != y.simulates || x.memory_bytes != y.memory_bytes ||
      x.peak_flops != y.peak_flops || x.memory_bandwidth != y.memory_bandwidth) {
    return false;
  }
  auto same = [](const std::optional<LinkSpec>& l, const std::optional<LinkSpec>& m) {
    if (l.has_value() != m.has_value()) return false;
    return !l ||
           (l->bandwidth_bytes_per_s == m->bandwidth_bytes_per_s && l->latency_s == m->latency_s);
  };
  for (int k = 0; k < static_cast<int>(devices.size()); ++k) {
    if (k != a && k != b && !same(Link(a, k), Link(b, k))) return false;
  }
  return true;
}

namespace {

using yaml::Entry;
using Fields = std::map<std::string, Entry>;

const Entry* Get(const Fields& fields, const std::string& key) {
  const auto it = fields.find(key);
  return it == fields.end() ? nullptr : &it->second;
}

template <size_t N>
std::string JoinKeys(const std::array<std::string_view, N>& keys) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? " or " : ", ";
    out += keys[i];
  }
  return out;
}

template <size_t N>
bool Contains(const std::array<std::string_view, N>& keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

constexpr size_t kMaxDevices = 255;
constexpr std::array<std::string_view, 3> kTopKeys = {"devices", "default_link", "links"};
constexpr std::array<std::string_view, 5> kCommonDeviceKeys = {"name", "kind", "memory",
                                                               "peak_flops", "memory_bandwidth"};
constexpr std::array<std::string_view, 3> kCpuKeys = {"cores", "threads", "spin"};
constexpr std::array<std::string_view, 4> kCudaKeys = {"index", "sync", "graphs", "host_copies"};
constexpr std::array<std::string_view, 1> kSimKeys = {"simulates"};
constexpr std::array<std::string_view, 3> kLinkKeys = {"between", "bandwidth", "latency"};

// The range a figure must fall in, and how its error message names that range. The limits
// are far outside any machine (a K40 does 4.29 TFLOP/s, an H200's HBM moves 4.8 TB/s,
// PCIe's latency is microseconds) and keep the simulator's times finite and meaningful: a
// figure of 1e-300 FLOP/s made every op on that device take forever (docs/devices.md).
struct Bound {
  double least;
  double most;
  const char* text;
};
constexpr Bound kMemoryBound = {1, 1125899906842624.0, "1 B and 1024 TiB"};
constexpr Bound kFlopsBound = {1e6, 1e18, "1 MFLOP/s and 1000 PFLOP/s"};
constexpr Bound kMemoryBandwidthBound = {1e6, 1e15, "1 MB/s and 1000 TB/s"};
constexpr Bound kLinkBandwidthBound = {1e3, 1e15, "1 kB/s and 1000 TB/s"};
constexpr Bound kLatencyBound = {0, 60, "0 and 60 s"};

bool KindHasKey(DeviceKind kind, std::string_view key) {
  switch (kind) {
    case DeviceKind::kCpu:
      return Contains(kCpuKeys, key);
    case DeviceKind::kCuda:
      return Contains(kCudaKeys, key);
    case DeviceKind::kSim:
      return Contains(kSimKeys, key);
  }
  return false;
}

// Far above any real host, low enough that a typo like "0-1000000000" cannot make
// the loader allocate gigabytes.
constexpr int kMaxCoreId = 65535;

// A whole string as a core id in 0..kMaxCoreId.
std::optional<int> ParseCoreId(const std::string& text) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0 || value > kMaxCoreId) return std::nullopt;
  return value;
}

// Walks the YAML tree. Every error carries "<source>:<line>: " when yaml-cpp knows
// the node's position, and the device or section it concerns.
class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  graph::Result<Cluster> Parse(const yaml::Node& root) {
    if (!root.IsMap()) {
      return Fail(root, std::string("top level must be a map with a 'devices' list, found ") +
                            root.KindName());
    }
    GRAPH_ASSIGN_OR_RETURN(const Fields top, ReadMap(root, "top level"));
    for (const auto& [key, entry] : top) {
      if (!Contains(kTopKeys, key)) {
        return Fail(entry.key_node,
                    "unknown top-level key '" + key + "' (expected " + JoinKeys(kTopKeys) + ")");
      }
    }
    Cluster cluster;
    const Entry* devices = Get(top, "devices");
    if (devices == nullptr) return Fail(root, "missing 'devices' list");
    GRAPH_RETURN_IF_ERROR(ReadDevices(*devices, &cluster));
    if (const Entry* link = Get(top, "default_link")) {
      GRAPH_ASSIGN_OR_RETURN(const Fields fields,
                             ReadLinkMap(link->value, link->key_node, "default_link", false));
      GRAPH_ASSIGN_OR_RETURN(cluster.default_link,
                             ReadLinkFigures(fields, link->key_node, "default_link"));
    }
    if (const Entry* links = Get(top, "links")) {
      GRAPH_RETURN_IF_ERROR(ReadLinks(*links, &cluster));
    }
    GRAPH_RETURN_IF_ERROR(CheckSimLinks(cluster));
    AssignTfOrdinals(&cluster);
    return cluster;
  }

 private:
  graph::Status Fail(const yaml::Node& at, const std::string& problem) const {
    return at.Line() == 0 ? graph::InvalidArgument(source_ + ": " + problem) : at.Error(problem);
  }

  static std::string Line(const yaml::Node& node) {
    return node.Line() == 0 ? "?" : std::to_string(node.Line());
  }

  // The adapter checks that keys are distinct scalars.
  static graph::Result<Fields> ReadMap(const yaml::Node& node, const std::string& context) {
    GRAPH_ASSIGN_OR_RETURN(std::vector<Entry> entries, node.Entries(context));
    Fields fields;
    for (Entry& e : entries) fields.emplace(e.key, std::move(e));
    return fields;
  }

  // Value errors point at the key's line: yaml-cpp places an empty value at the
  // next token, which may be lines further down.
  graph::Result<std::string> ReadScalar(const Entry& entry, const std::string& what) const {
    if (!entry.value.IsScalar()) {
      return Fail(entry.key_node,
                  what + " must be a single value, found " + entry.value.KindName());
    }
    return entry.value.Scalar();
  }

  graph::Result<int> ReadInt(const Entry& entry, const std::string& what) const {
    GRAPH_ASSIGN_OR_RETURN(const std::string text, ReadScalar(entry, what));
    int value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      return Fail(entry.key_node, what + ": '" + text + "' is not an integer");
    }
    return value;
  }

  // A unit-bearing quantity that must be > 0 and at most `bound.most`; `parse` is one of
  // units.h's parsers. The ceilings and floors (kFlopsBound and its siblings) keep every
  // simulated time finite: a figure past them is a typo, not a machine.
  template <typename T>
  graph::Result<T> ReadPositive(const Entry& entry, const std::string& what,
                                graph::Result<T> (*parse)(const std::string&),
                                const Bound& bound) const {
    GRAPH_ASSIGN_OR_RETURN(const std::string text, ReadScalar(entry, what));
    graph::Result<T> value = parse(text);
    if (!value.ok()) return Fail(entry.key_node, what + ": " + value.status().message());
    if (*value <= 0) return Fail(entry.key_node, what + " must be positive, got '" + text + "'");
    if (static_cast<double>(*value) < bound.least || static_cast<double>(*value) > bound.most) {
      return Fail(entry.key_node, what + " must be between " + bound.text + ", got '" + text + "'");
    }
    return *value;
  }

  graph::Status ReadDevices(const Entry& entry, Cluster* cluster) {
    const yaml::Node& node = entry.value;
    if (!node.IsSequence()) {
      return Fail(entry.key_node,
                  std::string("'devices' must be a list, found ") + node.KindName());
    }
    if (node.size() == 0)
      return Fail(entry.key_node, "'devices' is empty; list at least one device");
    // The simulator's limit (sim/simulator.cc), said when the file is read.
    if (node.size() > kMaxDevices) {
      return Fail(entry.key_node, "'devices' lists " + std::to_string(node.size()) +
                                      " devices; at most " + std::to_string(kMaxDevices) +
                                      " are placed on");
    }
    std::map<std::string, yaml::Node> first_by_name;
    const std::vector<yaml::Node> items = node.Items();
    for (size_t i = 0; i < items.size(); ++i) {
      GRAPH_ASSIGN_OR_RETURN(DeviceSpec device, ReadDevice(items[i], static_cast<int>(i)));
      const auto [it, fresh] = first_by_name.emplace(device.name, items[i]);
      if (!fresh) {
        return Fail(items[i], "devices: duplicate device name '" + device.name +
                                  "' (first at line " + Line(it->second) + ")");
      }
      cluster->devices.push_back(std::move(device));
      device_nodes_.push_back(items[i]);
    }
    return CheckDisjoint(*cluster);
  }

  graph::Result<DeviceSpec> ReadDevice(const yaml::Node& node, int position) const {
    const std::string ordinal = "device #" + std::to_string(position + 1);
    if (!node.IsMap()) {
      return Fail(node,
                  ordinal + " must be a map with a name and a kind, found " + node.KindName());
    }
    GRAPH_ASSIGN_OR_RETURN(const Fields fields, ReadMap(node, ordinal));
    DeviceSpec device;
    const Entry* name = Get(fields, "name");
    if (name == nullptr) return Fail(node, ordinal + ": missing 'name'");
    GRAPH_ASSIGN_OR_RETURN(device.name, ReadScalar(*name, ordinal + ": name"));
    // Names travel into placement files and command lines; keep them plain.
    const bool plain =
        !device.name.empty() && std::all_of(device.name.begin(), device.name.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || c == '.';
        });
    if (!plain) {
      return Fail(name->key_node, ordinal + ": name '" + device.name +
                                      "' must be non-empty letters, digits, '_', '-' or '.'");
    }
    const std::string context = "device '" + device.name + "'";

    const Entry* kind = Get(fields, "kind");
    if (kind == nullptr) return Fail(node, context + ": missing 'kind'");
    GRAPH_ASSIGN_OR_RETURN(const std::string kind_name, ReadScalar(*kind, context + ": kind"));
    if (kind_name == "cpu") {
      device.kind = DeviceKind::kCpu;
    } else if (kind_name == "cuda") {
      device.kind = DeviceKind::kCuda;
    } else if (kind_name == "sim") {
      device.kind = DeviceKind::kSim;
    } else {
      return Fail(kind->key_node,
                  context + ": unknown kind '" + kind_name + "' (expected cpu, cuda or sim)");
    }

    for (const auto& [key, entry] : fields) {
      if (Contains(kCommonDeviceKeys, key) || KindHasKey(device.kind, key)) continue;
      if (KindHasKey(DeviceKind::kCpu, key) || KindHasKey(DeviceKind::kCuda, key) ||
          KindHasKey(DeviceKind::kSim, key)) {
        return Fail(entry.key_node,
                    context + ": key '" + key + "' is not valid for a " + kind_name + " device");
      }
      return Fail(entry.key_node, context + ": unknown key '" + key + "'");
    }

    if (const Entry* memory = Get(fields, "memory")) {
      GRAPH_ASSIGN_OR_RETURN(device.memory_bytes, ReadPositive(*memory, context + ": memory",
                                                               &ParseBytes, kMemoryBound));
    }
    if (const Entry* flops = Get(fields, "peak_flops")) {
      GRAPH_ASSIGN_OR_RETURN(device.peak_flops, ReadPositive(*flops, context + ": peak_flops",
                                                             &ParseFlops, kFlopsBound));
    }
    if (const Entry* bandwidth = Get(fields, "memory_bandwidth")) {
      GRAPH_ASSIGN_OR_RETURN(device.memory_bandwidth,
                             ReadPositive(*bandwidth, context + ": memory_bandwidth",
                                          &ParseBandwidth, kMemoryBandwidthBound));
    }

    switch (device.kind) {
      case DeviceKind::kCpu:
        GRAPH_RETURN_IF_ERROR(ReadCpu(fields, node, context, &device));
        break;
      case DeviceKind::kCuda: {
        const Entry* index = Get(fields, "index");
        if (index == nullptr) return Fail(node, context + ": cuda device needs an 'index'");
        GRAPH_ASSIGN_OR_RETURN(device.cuda_index, ReadInt(*index, context + ": index"));
        if (device.cuda_index < 0) {
          return Fail(index->key_node,
                      context + ": index must be >= 0, got " + std::to_string(device.cuda_index));
        }
        if (const Entry* sync = Get(fields, "sync")) {
          GRAPH_ASSIGN_OR_RETURN(const std::string when, ReadScalar(*sync, context + ": sync"));
          if (when != "step" && when != "op") {
            return Fail(sync->key_node, context + ": sync must be step or op, got '" + when + "'");
          }
          device.sync_each_op = when == "op";
        }
        if (const Entry* graphs = Get(fields, "graphs")) {
          GRAPH_ASSIGN_OR_RETURN(const std::string on, ReadScalar(*graphs, context + ": graphs"));
          if (on != "on" && on != "off") {
            return Fail(graphs->key_node, context + ": graphs must be on or off, got '" + on + "'");
          }
          device.cuda_graphs = on == "on";
          if (device.cuda_graphs && device.sync_each_op) {
            return Fail(graphs->key_node, context +
                                              ": graphs: on needs sync: step (a graph's kernels "
                                              "run as one launch)");
          }
        }
        if (const Entry* copies = Get(fields, "host_copies")) {
          GRAPH_ASSIGN_OR_RETURN(const std::string how,
                                 ReadScalar(*copies, context + ": host_copies"));
          if (how != "pinned" && how != "pageable") {
            return Fail(copies->key_node,
                        context + ": host_copies must be pinned or pageable, got '" + how + "'");
          }
          device.pinned_host_copies = how == "pinned";
        }
        break;
      }
      case DeviceKind::kSim: {
        const Entry* simulates = Get(fields, "simulates");
        if (simulates == nullptr) {
          return Fail(node, context + ": sim device needs 'simulates' (cpu or gpu)");
        }
        GRAPH_ASSIGN_OR_RETURN(device.simulates, ReadScalar(*simulates, context + ": simulates"));
        if (device.simulates != "cpu" && device.simulates != "gpu") {
          return Fail(simulates->key_node,
                      context + ": simulates must be cpu or gpu, got '" + device.simulates + "'");
        }
        // A modelled device has no hardware to profile, so the roofline figures are
        // the only source of its op costs.
        if (!device.peak_flops) return Fail(node, context + ": sim device needs 'peak_flops'");
        if (!device.memory_bandwidth) {
          return Fail(node, context + ": sim device needs 'memory_bandwidth'");
        }
        break;
      }
    }
    return device;
  }

  graph::Status ReadCpu(const Fields& fields, const yaml::Node& node, const std::string& context,
                        DeviceSpec* device) const {
    const Entry* cores = Get(fields, "cores");
    if (cores == nullptr) {
      return Fail(node, context +
                            ": cpu device needs 'cores' (a list like [0, 1] or a range "
                            "like \"0-3\")");
    }
    GRAPH_ASSIGN_OR_RETURN(device->cores, ReadCores(*cores, context + ": cores"));
    device->threads = static_cast<int>(device->cores.size());
    if (const Entry* threads = Get(fields, "threads")) {
      GRAPH_ASSIGN_OR_RETURN(device->threads, ReadInt(*threads, context + ": threads"));
      if (device->threads < 1 || device->threads > static_cast<int>(device->cores.size())) {
        return Fail(threads->key_node, context +
                                           ": threads must be between 1 and the number of cores (" +
                                           std::to_string(device->cores.size()) + "), got " +
                                           std::to_string(device->threads));
      }
    }
    if (const Entry* spin = Get(fields, "spin")) {
      GRAPH_ASSIGN_OR_RETURN(const std::string text, ReadScalar(*spin, context + ": spin"));
      graph::Result<double> value = ParseDuration(text);
      if (!value.ok()) return Fail(spin->key_node, context + ": spin: " + value.status().message());
      if (*value < 0 || *value > 1) {
        return Fail(spin->key_node,
                    context + ": spin must be between 0 and 1 s, got '" + text + "'");
      }
      device->spin_s = *value;
    }
    return graph::Status::Ok();
  }

  // A YAML list of ints, or a Linux cpulist string such as "0-3,8".
  graph::Result<std::vector<int>> ReadCores(const Entry& entry, const std::string& what) const {
    const yaml::Node& node = entry.key_node;  // where errors point
    std::vector<int> cores;
    if (entry.value.IsSequence()) {
      for (const yaml::Node& item : entry.value.Items()) {
        GRAPH_ASSIGN_OR_RETURN(const int core, ReadInt(Entry{"", item, item}, what));
        cores.push_back(core);
      }
    } else {
      GRAPH_ASSIGN_OR_RETURN(const std::string text, ReadScalar(entry, what));
      std::stringstream items(text);
      std::string item;
      while (std::getline(items, item, ',')) {
        const size_t dash = item.find('-');
        const std::optional<int> first = ParseCoreId(item.substr(0, dash));
        const std::optional<int> last =
            dash == std::string::npos ? first : ParseCoreId(item.substr(dash + 1));
        if (!first || !last || *last < *first) {
          return Fail(node, what + ": '" + text + "' is not a core list like \"0-3\" or \"0,2\"");
        }
        for (int core = *first; core <= *last; ++core) cores.push_back(core);
      }
    }
    if (cores.empty()) return Fail(node, what + " is empty");
    std::sort(cores.begin(), cores.end());
    for (size_t i = 0; i < cores.size(); ++i) {
      if (cores[i] < 0 || cores[i] > kMaxCoreId) {
        return Fail(node, what + ": core id " + std::to_string(cores[i]) + " is outside 0.." +
                              std::to_string(kMaxCoreId));
      }
      if (i > 0 && cores[i] == cores[i - 1]) {
        return Fail(node, what + ": core " + std::to_string(cores[i]) + " is listed twice");
      }
    }
    return cores;
  }

  // Pinned cpu devices must not share cores, else their timings interfere; two
  // handles on one GPU would be the same device twice.
  graph::Status CheckDisjoint(const Cluster& cluster) const {
    std::map<int, size_t> core_owner;
    std::map<int, size_t> cuda_owner;
    for (size_t i = 0; i < cluster.devices.size(); ++i) {
      const DeviceSpec& device = cluster.devices[i];
      for (const int core : device.cores) {
        const auto [it, fresh] = core_owner.emplace(core, i);
        if (!fresh) {
          return Fail(device_nodes_[i], "devices '" + cluster.devices[it->second].name + "' and '" +
                                            device.name + "' both own core " +
                                            std::to_string(core));
        }
      }
      if (device.kind != DeviceKind::kCuda) continue;
      const auto [it, fresh] = cuda_owner.emplace(device.cuda_index, i);
      if (!fresh) {
        return Fail(device_nodes_[i], "devices '" + cluster.devices[it->second].name + "' and '" +
                                          device.name + "' both use cuda index " +
                                          std::to_string(device.cuda_index));
      }
    }
    return graph::Status::Ok();
  }

  // `at` is where errors about the link as a whole point.
  graph::Result<Fields> ReadLinkMap(const yaml::Node& node, const yaml::Node& at,
                                    const std::string& context, bool with_between) const {
    if (!node.IsMap()) {
      return Fail(at,
                  context + " must be a map with bandwidth and latency, found " + node.KindName());
    }
    GRAPH_ASSIGN_OR_RETURN(const Fields fields, ReadMap(node, context));
    for (const auto& [key, entry] : fields) {
      if (Contains(kLinkKeys, key) && (with_between || key != "between")) continue;
      return Fail(entry.key_node, context + ": unknown key '" + key + "'");
    }
    return fields;
  }

  graph::Result<LinkSpec> ReadLinkFigures(const Fields& fields, const yaml::Node& at,
                                          const std::string& context) const {
    LinkSpec link;
    const Entry* bandwidth = Get(fields, "bandwidth");
    if (bandwidth == nullptr) return Fail(at, context + ": missing 'bandwidth'");
    GRAPH_ASSIGN_OR_RETURN(
        link.bandwidth_bytes_per_s,
        ReadPositive(*bandwidth, context + ": bandwidth", &ParseBandwidth, kLinkBandwidthBound));
    const Entry* latency = Get(fields, "latency");
    if (latency == nullptr) return Fail(at, context + ": missing 'latency'");
    GRAPH_ASSIGN_OR_RETURN(link.latency_s, ReadPositive(*latency, context + ": latency",
                                                        &ParseDuration, kLatencyBound));
    return link;
  }

  graph::Status ReadLinks(const Entry& links, Cluster* cluster) const {
    const yaml::Node& node = links.value;
    if (!node.IsSequence()) {
      return Fail(links.key_node, std::string("'links' must be a list, found ") + node.KindName());
    }
    std::map<std::pair<int, int>, yaml::Node> first_at;
    const std::vector<yaml::Node> items = node.Items();
    for (size_t i = 0; i < items.size(); ++i) {
      const yaml::Node& entry = items[i];
      const std::string ordinal = "link #" + std::to_string(i + 1);
      GRAPH_ASSIGN_OR_RETURN(const Fields fields, ReadLinkMap(entry, entry, ordinal, true));
      const Entry* between_entry = Get(fields, "between");
      const yaml::Node between = between_entry ? between_entry->value : yaml::Node();
      const std::vector<yaml::Node> ends = between.Items();
      if (ends.size() != 2 || !ends[0].IsScalar() || !ends[1].IsScalar()) {
        return Fail(between_entry ? between_entry->key_node : entry,
                    ordinal + ": needs 'between: [device, device]' naming two devices");
      }
      const std::string a = ends[0].Scalar();
      const std::string b = ends[1].Scalar();
      const std::string context = "link between '" + a + "' and '" + b + "'";
      for (const std::string& name : {a, b}) {
        if (cluster->IndexOf(name) < 0) {
          return Fail(between, context + ": unknown device '" + name + "'");
        }
      }
      if (a == b) return Fail(between, context + ": a device cannot link to itself");
      const int ia = cluster->IndexOf(a);
      const int ib = cluster->IndexOf(b);
      const std::pair<int, int> key{std::min(ia, ib), std::max(ia, ib)};
      const auto [it, fresh] = first_at.emplace(key, entry);
      if (!fresh) {
        return Fail(entry, "duplicate " + context + " (first at line " + Line(it->second) + ")");
      }
      GRAPH_ASSIGN_OR_RETURN(cluster->links[key], ReadLinkFigures(fields, entry, context));
    }
    return graph::Status::Ok();
  }

  // A sim device cannot be profiled, so every transfer it may take part in needs a
  // link figure from the file (DESIGN section 4).
  graph::Status CheckSimLinks(const Cluster& cluster) const {
    if (cluster.default_link) return graph::Status::Ok();
    const int n = static_cast<int>(cluster.devices.size());
    for (int i = 0; i < n; ++i) {
      if (cluster.devices[i].kind != DeviceKind::kSim) continue;
      for (int j = 0; j < n; ++j) {
        if (j == i || cluster.links.count({std::min(i, j), std::max(i, j)})) continue;
        return Fail(device_nodes_[i], "sim device '" + cluster.devices[i].name +
                                          "' has no link to '" + cluster.devices[j].name +
                                          "' and there is no default_link");
      }
    }
    return graph::Status::Ok();
  }

  static void AssignTfOrdinals(Cluster* cluster) {
    int max_cuda = -1;
    for (const DeviceSpec& device : cluster->devices) {
      if (device.kind == DeviceKind::kCuda) max_cuda = std::max(max_cuda, device.cuda_index);
    }
    int next_cpu = 0;
    int next_sim_gpu = max_cuda + 1;
    for (DeviceSpec& device : cluster->devices) {
      if (device.IsCpuLike()) {
        device.tf_ordinal = next_cpu++;
      } else if (device.kind == DeviceKind::kCuda) {
        device.tf_ordinal = device.cuda_index;
      } else {
        device.tf_ordinal = next_sim_gpu++;
      }
    }
  }

  std::string source_;
  std::vector<yaml::Node> device_nodes_;  // parallel to Cluster::devices, for error lines
};

// Cluster::placement_digest's text: one line per device and link.
std::string PlacementText(const Cluster& c) {
  std::string out;
  auto number = [&](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.17g ", v);
    out += b;
  };
  for (const DeviceSpec& d : c.devices) {
    out += d.name + " " + DeviceKindName(d.kind) + " " + d.simulates + " [";
    for (int core : d.cores) out += std::to_string(core) + ",";
    out += "] " + std::to_string(d.threads) + " " + std::to_string(d.cuda_index) + " ";
    number(static_cast<double>(d.memory_bytes.value_or(-1)));
    number(d.peak_flops.value_or(-1));
    number(d.memory_bandwidth.value_or(-1));
    out += "\n";
  }
  auto link = [&](const std::string& between, const LinkSpec& l) {
    out += "link " + between + " ";
    number(l.bandwidth_bytes_per_s);
    number(l.latency_s);
    out += "\n";
  };
  if (c.default_link) link("default", *c.default_link);
  for (const auto& [ends, l] : c.links) {
    link(std::to_string(ends.first) + "-" + std::to_string(ends.second), l);
  }
  return out;
}

}  // namespace

std::string TimingDefinition(const DeviceSpec& d) {
  switch (d.kind) {
    case DeviceKind::kCpu: {
      std::string cores;
      for (size_t i = 0; i < d.cores.size(); ++i) {
        size_t j = i;
        while (j + 1 < d.cores.size() && d.cores[j + 1] == d.cores[j] + 1) ++j;
        cores += (cores.empty() ? "" : ",") + std::to_string(d.cores[i]) +
                 (j > i ? "-" + std::to_string(d.cores[j]) : "");
        i = j;
      }
      return "cpu, cores " + cores + ", threads " + std::to_string(d.threads);
    }
    case DeviceKind::kCuda:
      return "cuda " + std::to_string(d.cuda_index) + ", sync " + (d.sync_each_op ? "op" : "step") +
             ", host copies " + (d.pinned_host_copies ? "pinned" : "pageable");
    case DeviceKind::kSim:
      return "sim of " + d.simulates;
  }
  return "";
}

graph::Result<Cluster> ParseDevicesYaml(const std::string& text, const std::string& source_name) {
  GRAPH_ASSIGN_OR_RETURN(const yaml::Node root, yaml::Parse(text, source_name));
  GRAPH_ASSIGN_OR_RETURN(Cluster cluster, Parser(source_name).Parse(root));
  cluster.source = source_name;
  cluster.digest = graph::Fnv1a64Hex(text);
  cluster.placement_digest = graph::Fnv1a64Hex(PlacementText(cluster));
  return cluster;
}

graph::Result<Cluster> LoadDevicesFile(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) {
    return graph::NotFound(path + ": no such file");
  }
  if (ec) return graph::IoError(path + ": " + ec.message());
  if (std::filesystem::is_directory(status)) {
    return graph::IoError(path + ": is a directory, not a devices file");
  }
  GRAPH_ASSIGN_OR_RETURN(const std::string bytes, graph::ReadFile(path));  // no FIFO's wait
  return ParseDevicesYaml(bytes, path);
}

}  // namespace cluster
