#include "planner/search/parameter_server.h"

namespace planner::search {

namespace {
ParameterServerFactory g_connect = nullptr;
}  // namespace

void RegisterParameterServer(ParameterServerFactory connect) { g_connect = connect; }

graph::Result<std::unique_ptr<ParameterServer>> ConnectParameterServer(const std::string& endpoint,
                                                                       double timeout_s) {
  if (!g_connect) {
    return graph::Unimplemented("this program has no parameter server client (only `planner` has)");
  }
  return g_connect(endpoint, timeout_s);
}

}  // namespace planner::search
