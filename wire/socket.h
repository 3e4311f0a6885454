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

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "graph/status.h"
#include "wire/codec.h"

namespace wire {

// A ZeroMQ socket handle, closed when it goes (zmq_close).
struct CloseSocket {
  void operator()(void* socket) const;
};
using SocketHandle = std::unique_ptr<void, CloseSocket>;

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

// A CURVE key pair, Z85-encoded (40 characters each), as `planner fleet
// keygen` writes it.
struct CurveKeys {
  std::string public_key;
  std::string secret_key;
};

graph::Result<CurveKeys> GenerateCurveKeys();
// Key files: lines "public: Z85" and (for a key pair) "secret: Z85". ReadKeyFile
// needs the public key, and the secret one when `need_secret`.
std::string KeyFileText(const CurveKeys& keys, bool with_secret);
graph::Result<CurveKeys> ReadKeyFile(const std::string& path, bool need_secret);

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
  // CURVE (encryption and authentication). A server (a bound ROUTER) with
  // `curve_server` set accepts only clients an Authenticator allows; a
  // client sets its own key pair and the server's public key.
  std::optional<CurveKeys> curve_server;
  std::optional<CurveKeys> curve_client;
  std::string curve_server_public_key;
};

using Frames = std::vector<std::string>;

class Socket {
 public:
  static graph::Result<Socket> Bind(Context& ctx, SocketKind kind, const std::string& endpoint,
                                    const SocketOptions& options = {});
  static graph::Result<Socket> Connect(Context& ctx, SocketKind kind, const std::string& endpoint,
                                       const SocketOptions& options = {});
  // Connects this socket to one more endpoint (a bound ROUTER reaching out to
  // workers that listen); ZeroMQ keeps reconnecting to it.
  graph::Status AlsoConnect(const std::string& endpoint);
  Socket(Socket&&) noexcept = default;
  Socket& operator=(Socket&&) noexcept = default;

  // Sends the frames as one message without blocking. A ROUTER's first frame
  // is the peer's routing id; an unknown or gone peer, or a full queue, is
  // kUnavailable.
  graph::Status Send(const Frames& frames);
  // Waits up to `timeout_ms` (-1: forever) for one message; nullopt on timeout.
  graph::Result<std::optional<Frames>> Receive(int timeout_ms);
  // The endpoint as bound or connected; for "tcp://host:*", the port chosen.
  const std::string& endpoint() const { return endpoint_; }
  void* handle() const { return socket_.get(); }

 private:
  Socket(SocketHandle socket, std::string endpoint)
      : socket_(std::move(socket)), endpoint_(std::move(endpoint)) {}
  SocketHandle socket_;
  std::string endpoint_;
};

// ZeroMQ's authentication handler (ZAP) for the CURVE servers of a context:
// while alive, a client whose public key is not in `allowed` (Z85) is refused
// during the handshake, before any message of it reaches a socket, and one line
// names its address. Must be started before the server socket binds.
class Authenticator {
 public:
  static graph::Result<std::unique_ptr<Authenticator>> Start(Context& ctx,
                                                             std::vector<std::string> allowed,
                                                             std::string log_prefix);
  ~Authenticator();
  Authenticator(const Authenticator&) = delete;
  Authenticator& operator=(const Authenticator&) = delete;
  int refused() const { return refused_; }

 private:
  Authenticator() = default;
  void Serve();
  SocketHandle socket_;
  std::vector<std::string> allowed_;  // Z85 public keys
  std::string log_prefix_;
  std::set<std::string> logged_;  // refused keys and addresses already logged
  std::atomic<bool> stop_{false};
  std::atomic<int> refused_{0};
  std::thread thread_;
};

// Waits up to `timeout_ms` until one of the sockets has a message to read;
// returns, per socket, whether it has. Interrupted by a signal: all false.
graph::Result<std::vector<bool>> Poll(const std::vector<const Socket*>& sockets, int timeout_ms);

// True for endpoints only this host can reach (loopback tcp, ipc, inproc):
// anything else must be protected by CURVE keys.
bool OnThisHost(const std::string& endpoint);

// A routing id as it prints in a log line: itself when printable, else hex.
std::string PrintableId(const std::string& routing_id);

}  // namespace wire
