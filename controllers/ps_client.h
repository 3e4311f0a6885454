// planner::search::ParameterServer over ZeroMQ: a search's client of `planner ps`
// (controllers/ps.h). Requests are answered in order; one without an answer
// is sent again every second until the timeout (the server may be
// restarting: ZeroMQ reconnects by itself), and a push keeps its sequence
// number, so the server applies it once.
//
// With CURVE keys (ParameterServerAddress), every message is encrypted and the
// server lets in only the keys it lists; a handshake the server refuses (a key
// it does not list, a client without keys) fails the request at once, in one
// line, rather than at the timeout: ZeroMQ does not retry it.
//
// Thread safety: one thread at a time.
#pragma once

#include "graph/status.h"
#include "planner/search/parameter_server.h"

namespace controllers {

// Why the client cannot use `address`, before any connection: keys given by
// half, an endpoint off this host without keys (the server there would refuse
// it, and the policy would cross the network in the clear). Ok when it can.
// Key files are read by the connection itself.
graph::Status CheckParameterServerAddress(const planner::search::ParameterServerAddress& address);

// Makes planner::search::ConnectParameterServer use this client: called once by
// `planner`'s main.
void RegisterParameterServerClient();

}  // namespace controllers
