#include "planner/search/parameter_server.h"

namespace planner::search {

namespace {
ParameterServerFactory g_connect = nullptr;
}  // namespace

void RegisterParameterServer(ParameterServerFactory connect) { g_connect = connect; }

graph::Result<std::unique_ptr<ParameterServer>> ConnectParameterServer(
    const ParameterServerAddress& address) {
  if (!g_connect) {
    return graph::Unimplemented("this program has no parameter server client (only `planner` has)");
  }
  return g_connect(address);
}

}  // namespace planner::search
