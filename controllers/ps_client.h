// planner::search::ParameterServer over ZeroMQ: a search's client of `planner ps`
// (controllers/ps.h). Requests are answered in order; one without an answer
// is sent again every second until the timeout (the server may be
// restarting: ZeroMQ reconnects by itself), and a push keeps its sequence
// number, so the server applies it once.
//
// Thread safety: one thread at a time.
#pragma once

namespace controllers {

// Makes planner::search::ConnectParameterServer use this client: called once by
// `planner`'s main.
void RegisterParameterServerClient();

}  // namespace controllers
