#include "controllers/fleet_config.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "graph/file_util.h"
#include "yaml/document.h"

namespace controllers {

namespace {

// `path` as written in the fleet file `source`: relative to its folder.
std::string Relative(const std::string& source, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const size_t slash = source.rfind('/');
  return slash == std::string::npos ? path : source.substr(0, slash + 1) + path;
}

graph::Result<FleetOptions> Parse(const yaml::Node& root, const std::string& source) {
  FleetOptions o;
  o.source = source;
  if (root.IsNull()) return o;
  if (!root.IsMap()) return graph::InvalidArgument(source + ": a fleet file is a YAML map");
  struct Number {
    std::function<void(double)> set;
    double lo, hi;
    bool integer;
  };
  const std::map<std::string, Number> numbers = {
      {"workers", {[&](double v) { o.workers = static_cast<int>(v); }, 1, 4096, true}},
      {"register_timeout_s", {[&](double v) { o.register_timeout_s = v; }, 0.001, 1e6, false}},
      {"heartbeat_ms", {[&](double v) { o.heartbeat_ms = static_cast<int>(v); }, 1, 60000, true}},
      {"silence_s", {[&](double v) { o.silence_s = v; }, 0.01, 1e6, false}},
      {"evaluation_s", {[&](double v) { o.evaluation_s = v; }, 0.01, 1e7, false}},
      {"stop_wait_s", {[&](double v) { o.stop_wait_s = v; }, 0, 1e6, false}},
      {"max_attempts", {[&](double v) { o.max_attempts = static_cast<int>(v); }, 1, 1000, true}},
      {"max_message_mb",
       {[&](double v) { o.max_message_mb = static_cast<int>(v); }, 1, 65536, true}},
  };
  GRAPH_ASSIGN_OR_RETURN(const std::vector<yaml::Entry> entries, root.Entries("fleet file"));
  for (const yaml::Entry& kv : entries) {
    const std::string& key = kv.key;
    const yaml::Node& value = kv.value;
    const std::string where = kv.key_node.Where() + ": '" + key + "'";
    if (key == "server_key") {
      if (!value.IsScalar()) return graph::InvalidArgument(where + " must be a key file");
      auto keys = wire::ReadKeyFile(Relative(source, value.Scalar()), true);
      if (!keys.ok()) return keys.status().WithContext(where);
      o.server_keys = *keys;
      continue;
    }
    if (key == "connect") {
      if (!value.IsSequence()) {
        return graph::InvalidArgument(where + " must be a list of worker endpoints");
      }
      for (const yaml::Node& e : value.Items()) {
        if (!e.IsScalar()) return graph::InvalidArgument(where + " must be a list of endpoints");
        o.connect.push_back(e.Scalar());
      }
      continue;
    }
    if (key == "client_keys") {
      if (!value.IsSequence() || value.size() == 0) {
        return graph::InvalidArgument(where + " must be a list of public key files");
      }
      for (const yaml::Node& f : value.Items()) {
        if (!f.IsScalar()) return graph::InvalidArgument(where + " must be a list of key files");
        auto keys = wire::ReadKeyFile(Relative(source, f.Scalar()), false);
        if (!keys.ok()) return keys.status().WithContext(where);
        o.client_keys.push_back(keys->public_key);
      }
      continue;
    }
    if (key == "bind" || key == "mode") {
      if (!value.IsScalar()) return graph::InvalidArgument(where + " must be a string");
      (key == "bind" ? o.bind : o.mode) = value.Scalar();
      continue;
    }
    auto it = numbers.find(key);
    if (it == numbers.end()) {
      return graph::InvalidArgument(where + " is not a fleet setting (docs/fleet.md lists them)");
    }
    const double v = value.AsNumber().value_or(std::nan(""));
    if (!(v >= it->second.lo) || !(v <= it->second.hi) ||
        (it->second.integer && v != static_cast<int64_t>(v))) {
      auto bound = [](double b) {  // 1 and 4096, 0.5 and 3600: no trailing zeros
        char s[32];
        std::snprintf(s, sizeof s, "%g", b);
        return std::string(s);
      };
      return graph::InvalidArgument(where + " must be " +
                                    (it->second.integer ? "an integer" : "a number") + " in [" +
                                    bound(it->second.lo) + ", " + bound(it->second.hi) + "]");
    }
    it->second.set(v);
  }
  if (o.mode != "sim" && o.mode != "real") {
    return graph::InvalidArgument(source + ": mode must be sim or real, not '" + o.mode + "'");
  }
  if (o.silence_s * 1000 < 2.0 * o.heartbeat_ms) {
    return graph::InvalidArgument(source + ": silence_s (" + std::to_string(o.silence_s) +
                                  " s) must be at least two heartbeats (heartbeat_ms " +
                                  std::to_string(o.heartbeat_ms) +
                                  "), or busy workers would be presumed gone");
  }
  if (o.server_keys.has_value() != !o.client_keys.empty()) {
    return graph::InvalidArgument(
        source + ": server_key and client_keys go together (CURVE: docs/fleet.md)");
  }
  std::vector<std::string> endpoints = o.connect;
  endpoints.push_back(o.bind);
  for (const std::string& e : endpoints) {
    if (!wire::OnThisHost(e) && !o.server_keys) {
      return graph::InvalidArgument(source + ": '" + e +
                                    "' is not on this host: a fleet on a network needs CURVE keys "
                                    "(server_key, client_keys; planner fleet keygen)");
    }
  }
  return o;
}

}  // namespace

graph::Result<FleetOptions> ParseFleetYaml(const std::string& text, const std::string& source) {
  GRAPH_ASSIGN_OR_RETURN(const yaml::Node root, yaml::Parse(text, source));
  return Parse(root, source);
}

graph::Result<FleetOptions> ReadFleetFile(const std::string& path) {
  GRAPH_ASSIGN_OR_RETURN(std::string text, graph::ReadFile(path));
  return ParseFleetYaml(text, path);
}

}  // namespace controllers
