#include "planner/job/profile_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/profiler.h"

namespace planner::job {

namespace {

std::string CacheDir(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* d = std::getenv("PLANNER_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/planner";
  if (const char* d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/planner";
  return "";
}

// mkdir -p; an error names the directory and the reason.
graph::Status MakeDirs(const std::string& dir) {
  for (size_t slash = 1; slash <= dir.size(); ++slash) {
    if (slash < dir.size() && dir[slash] != '/') continue;
    const std::string prefix = dir.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return graph::IoError(prefix + ": cannot create the profile cache directory (" +
                            std::strerror(errno) + "; --profile-cache DIR or off)");
    }
  }
  return graph::Status::Ok();
}

std::string HostName() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "localhost";
  std::string h(host);
  for (char& ch : h) {
    if (ch == '/') ch = '_';
  }
  return h;
}

}  // namespace

graph::Result<std::optional<sim::Profile>> ProfileForDevices(
    const std::string& profile_path, const std::string& cache_dir,
    const frontend::PlacedTraining& setup) {
  if (!profile_path.empty()) {
    GRAPH_ASSIGN_OR_RETURN(sim::Profile p, sim::ReadProfile(profile_path));
    GRAPH_RETURN_IF_ERROR(sim::CheckProfileFits(p, profile_path, setup.cluster));
    return std::optional<sim::Profile>(std::move(p));
  }
  for (const cluster::DeviceSpec& d : setup.cluster.devices) {
    if (d.kind == cluster::DeviceKind::kSim) return std::optional<sim::Profile>();
  }
  const std::string dir = CacheDir(cache_dir);
  if (dir.empty() || dir == "off") return std::optional<sim::Profile>();
  GRAPH_RETURN_IF_ERROR(MakeDirs(dir + "/profiles"));
  const std::string path =
      dir + "/profiles/" + HostName() + "-" + setup.cluster.digest + ".profile";
  sim::Profile profile;
  auto existing = sim::ReadProfile(path);
  if (existing.ok()) {
    profile = std::move(existing).value();
  } else if (existing.status().code() != graph::StatusCode::kNotFound) {
    // A corrupt cache is measured again rather than trusted or fatal.
    std::printf("profile cache %s unreadable (%s): profiling anew\n", path.c_str(),
                existing.status().message().c_str());
  }
  const auto start = std::chrono::steady_clock::now();
  runtime::ProfileReport report;
  GRAPH_RETURN_IF_ERROR(runtime::ProfileGraph(setup.training.graph, setup.training.loss,
                                              setup.cluster, runtime::ProfileOptions{}, &profile,
                                              &report));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (report.new_signatures > 0 || report.links_measured > 0) {
    GRAPH_RETURN_IF_ERROR(sim::WriteProfile(path, profile));
    std::printf("profile: %s (%d new op entries, %d links measured, %.1f s)\n", path.c_str(),
                report.new_signatures, report.links_measured, seconds);
  } else {
    std::printf("profile: %s (every op signature cached)\n", path.c_str());
  }
  return std::optional<sim::Profile>(std::move(profile));
}

}  // namespace planner::job
