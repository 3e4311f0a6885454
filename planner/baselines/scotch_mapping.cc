#include "planner/baselines/scotch_mapping.h"

// scotch.h uses FILE and fixed-width types without including their headers.
#include <cstdint>
#include <cstdio>
// clang-format off
#include <scotch.h>
// clang-format on

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <string>

#include "planner/baselines/partition_graph.h"

namespace {

// Scotch reports errors through these three functions, which it leaves to the
// program (libscotcherr's print to stderr). Ours keep the last message of this
// thread so that the error we return says why, on one line.
thread_local std::string g_scotch_message;

}  // namespace

extern "C" {
void SCOTCH_errorProg(const char* const) {}
void SCOTCH_errorPrint(const char* const format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  g_scotch_message = buffer;
}
// Warnings change nothing that we return.
void SCOTCH_errorPrintW(const char* const, ...) {}
}

namespace planner::baselines {

namespace {

// Largest capacity given to Scotch; the slowest device gets at least 1.
constexpr double kCapacityScale = 1000;
// Allowed load imbalance against capacity (Scotch's kbalval).
constexpr double kImbalance = 0.05;

graph::Status ScotchError(const char* call, int n) {
  std::string why = g_scotch_message.empty() ? "no reason given" : g_scotch_message;
  g_scotch_message.clear();
  return graph::Internal(std::string(call) + " failed on " + std::to_string(n) + " ops: " + why);
}

// Scotch's objects, each released on every path.
struct ScotchObjects {
  SCOTCH_Context context;
  SCOTCH_Graph graph;
  SCOTCH_Graph bound;  // `graph` seen through `context`
  SCOTCH_Arch arch;
  SCOTCH_Strat strat;
  bool context_ok = false, graph_ok = false, bound_ok = false, arch_ok = false, strat_ok = false;
  ~ScotchObjects() {
    if (strat_ok) SCOTCH_stratExit(&strat);
    if (arch_ok) SCOTCH_archExit(&arch);
    if (bound_ok) SCOTCH_graphExit(&bound);
    if (graph_ok) SCOTCH_graphExit(&graph);
    if (context_ok) SCOTCH_contextExit(&context);
  }
};

}  // namespace

graph::Result<std::vector<int>> ScotchPlacement(const graph::Graph& forward,
                                                const sim::Simulator& costs,
                                                const cluster::Cluster& c) {
  const std::vector<int> accel = Accelerators(c);
  const int n = forward.size();
  const int k = static_cast<int>(c.devices.size());
  std::vector<int> out(n, accel[0]);
  if (k == 1 || n < 2) return out;
  GRAPH_ASSIGN_OR_RETURN(std::vector<double> step, StepKernelSeconds(forward, costs, c));
  const int link_src = accel.size() > 1 ? accel[0] : 0;
  const int link_dst = accel.size() > 1 ? accel[1] : 1;
  GRAPH_ASSIGN_OR_RETURN(PartitionGraph pg,
                         BuildPartitionGraph(forward, costs, c, accel[0], link_src, link_dst));
  Csr csr = ToCsr(pg);
  static_assert(sizeof(SCOTCH_Num) == sizeof(int32_t), "Debian's scotch.h has 32-bit numbers");

  // Capacity: speed relative to the fastest device (1 for all when the step has no work).
  const double fastest = *std::min_element(step.begin(), step.end());
  std::vector<SCOTCH_Num> capacity(k);
  for (int d = 0; d < k; ++d) {
    const double relative = step[d] > 0 ? fastest / step[d] : 1.0;
    capacity[d] = static_cast<SCOTCH_Num>(std::max(1.0, std::round(relative * kCapacityScale)));
  }

  g_scotch_message.clear();
  ScotchObjects s;
  if (SCOTCH_contextInit(&s.context) != 0) return ScotchError("SCOTCH_contextInit", n);
  s.context_ok = true;
  SCOTCH_contextOptionSetNum(&s.context, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
  SCOTCH_contextOptionSetNum(&s.context, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1);
  SCOTCH_contextRandomSeed(&s.context, 1);
  if (SCOTCH_graphInit(&s.graph) != 0) return ScotchError("SCOTCH_graphInit", n);
  s.graph_ok = true;
  if (SCOTCH_graphBuild(&s.graph, 0, n, csr.xadj.data(), nullptr, csr.vwgt.data(), nullptr,
                        static_cast<SCOTCH_Num>(csr.adjncy.size()), csr.adjncy.data(),
                        csr.adjwgt.data()) != 0) {
    return ScotchError("SCOTCH_graphBuild", n);
  }
  if (SCOTCH_graphCheck(&s.graph) != 0) return ScotchError("SCOTCH_graphCheck", n);
  if (SCOTCH_graphInit(&s.bound) != 0) return ScotchError("SCOTCH_graphInit", n);
  s.bound_ok = true;
  if (SCOTCH_contextBindGraph(&s.context, &s.graph, &s.bound) != 0) {
    return ScotchError("SCOTCH_contextBindGraph", n);
  }
  if (SCOTCH_archInit(&s.arch) != 0) return ScotchError("SCOTCH_archInit", n);
  s.arch_ok = true;
  if (SCOTCH_archCmpltw(&s.arch, k, capacity.data()) != 0) {
    return ScotchError("SCOTCH_archCmpltw", n);
  }
  if (SCOTCH_stratInit(&s.strat) != 0) return ScotchError("SCOTCH_stratInit", n);
  s.strat_ok = true;
  if (SCOTCH_stratGraphMapBuild(&s.strat, SCOTCH_STRATQUALITY, k, kImbalance) != 0) {
    return ScotchError("SCOTCH_stratGraphMapBuild", n);
  }
  std::vector<SCOTCH_Num> part(n, 0);
  if (SCOTCH_graphMap(&s.bound, &s.arch, &s.strat, part.data()) != 0) {
    return ScotchError("SCOTCH_graphMap", n);
  }
  for (int v = 0; v < n; ++v) {
    if (part[v] < 0 || part[v] >= k) return ScotchError("SCOTCH_graphMap", n);
    out[v] = part[v];
  }
  return out;
}

}  // namespace planner::baselines
