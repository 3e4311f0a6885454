// The one adapter that calls ZeroMQ: contexts, sockets, multipart messages and
// polling, with every ZeroMQ error translated into a graph::Status naming the
// endpoint.
//
// Patterns used by the fleet (docs/fleet.md): the controller binds a ROUTER and
// its workers connect DEALERs (load balancing is the controller's: it sends to
// the worker it chose by routing id); inside a process, a PAIR over inproc://
// hands results from a thread to the socket's owner.
//
// Ownership: a Socket belongs to its Context, which must outlive it. Thread
// safety: a Context may be shared by threads; a Socket is used by one thread at
// a time (ZeroMQ's rule), and may be moved between threads.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "graph/status.h"
#include "wire/codec.h"

namespace wire {

class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  void* handle() const { return ctx_; }

 private:
  void* ctx_;
};

enum class SocketKind { kRouter, kDealer, kPair };

struct SocketOptions {
  // ZeroMQ drops a peer's connection when it sends a larger message, so an
  // oversized message never reaches the process.
  size_t max_message_bytes = kDefaultMaxMessageBytes;
  // DEALER/ROUTER: this peer's routing id as the other side sees it (empty:
  // ZeroMQ's own).
  std::string routing_id;
  // Unsent messages kept after close, in milliseconds.
  int linger_ms = 0;
  // Queue messages only to connected peers: with none, Send is kUnavailable
  // at once instead of queueing for a peer that may come back (a client that
  // re-sends on its own timer wants this).
  bool immediate = false;
};

using Frames = std::vector<std::string>;

class Socket {
 public:
  static graph::Result<Socket> Bind(Context& ctx, SocketKind kind, const std::string& endpoint,
                                    const SocketOptions& options = {});
  static graph::Result<Socket> Connect(Context& ctx, SocketKind kind, const std::string& endpoint,
                                       const SocketOptions& options = {});
  Socket(Socket&& other) noexcept;
  Socket& operator=(Socket&& other) noexcept;
  ~Socket();

  // Sends the frames as one message without blocking. A ROUTER's first frame
  // is the peer's routing id; an unknown or gone peer, or a full queue, is
  // kUnavailable.
  graph::Status Send(const Frames& frames);
  // Waits up to `timeout_ms` (-1: forever) for one message; nullopt on timeout.
  graph::Result<std::optional<Frames>> Receive(int timeout_ms);
  // The endpoint as bound or connected; for "tcp://host:*", the port chosen.
  const std::string& endpoint() const { return endpoint_; }
  void* handle() const { return socket_; }

 private:
  Socket(void* socket, std::string endpoint) : socket_(socket), endpoint_(std::move(endpoint)) {}
  void* socket_ = nullptr;
  std::string endpoint_;
};

// Waits up to `timeout_ms` until one of the sockets has a message to read;
// returns, per socket, whether it has. Interrupted by a signal: all false.
graph::Result<std::vector<bool>> Poll(const std::vector<const Socket*>& sockets, int timeout_ms);

// A routing id as it prints in a log line: itself when printable, else hex.
std::string PrintableId(const std::string& routing_id);

}  // namespace wire
