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
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
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
  // ZeroMQ drops a peer's connection when it sends a larger frame, and
  // Receive drops a message whose frames add up to more (or that has more than
  // Socket::kMaxFrames frames): ZeroMQ holds all of a message's frames before
  // any is read, so one of many large frames still costs their memory in
  // ZeroMQ's queue, but not a copy of it, and no handler sees it.
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
  // A socket made for `endpoint` with `options` but not yet connected: for an
  // owner that watches it (ConnectionLog) from before its first handshake,
  // then calls AlsoConnect(endpoint()).
  static graph::Result<Socket> Open(Context& ctx, SocketKind kind, const std::string& endpoint,
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
  // Waits up to `timeout_ms` (-1: forever) for one message; nullopt on timeout,
  // and for a message over the limits (counted by dropped()).
  graph::Result<std::optional<Frames>> Receive(int timeout_ms);
  static constexpr size_t kMaxFrames = 16;  // ours have at most 3 (ROUTER's id first)
  // Messages Receive dropped for their size or their frames.
  int64_t dropped() const { return dropped_; }
  // The endpoint as bound or connected; for "tcp://host:*", the port chosen.
  const std::string& endpoint() const { return endpoint_; }
  void* handle() const { return socket_.get(); }

 private:
  Socket(SocketHandle socket, std::string endpoint, size_t max_message_bytes)
      : socket_(std::move(socket)),
        endpoint_(std::move(endpoint)),
        max_message_bytes_(max_message_bytes) {}
  SocketHandle socket_;
  std::string endpoint_;
  size_t max_message_bytes_;
  int64_t dropped_ = 0;
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

// What ZeroMQ keeps from a socket's owner, said in one line each: a handshake
// refused (this process's key is not allowed) or failed (keys that do not
// match, one side without keys), an endpoint where nothing answers yet, a host
// that does not resolve, a connection lost. Without it a worker whose key the
// controller refuses, or one pointed at the wrong port, waits in silence. One
// line per kind of event (of failure: ZeroMQ's code) and endpoint, repeated only after a handshake
// there succeeds again; 1000 lines at most.
//
// libzmq (4.3) does not retry a connection whose handshake was refused or broke
// the protocol: for a socket that connects, that failure is final, so it is not
// logged but returned by Final(), for its owner to stop with and say. A server
// key that does not match is not such a failure (the server closes the
// connection without a word, and ZeroMQ retries).
struct ConnectionLogOptions {
  std::string prefix;                 // starts every line, e.g. "worker NAME: "
  std::string peer = "the peer";      // who is at the other end: "the controller"
  std::string self = "this process";  // who this is: "this worker"
  std::string own_public_key;         // named in the refused-key line (Z85)
  // The socket connects (its failed handshakes are final); else it listens.
  bool connects = true;
  // A CURVE server: the handshakes it refuses are its Authenticator's to say.
  bool curve_server = false;
  bool log_retries = true;       // "nothing answers at EP yet"
  bool log_disconnected = true;  // a connection lost after its handshake
  // Where lines go (default: stderr, flushed).
  std::function<void(const std::string&)> sink;
};

// Ownership: reads `socket`'s events on a thread of its own until destroyed;
// the socket (and its Context) must outlive it. Events before Start are not
// seen, and a refused handshake is not retried: start it on a socket from
// Socket::Open, then connect (a listening socket's missed events recur as its peers retry). Thread
// safety: construct and destroy it on the thread that uses the socket; Final()
// may be called from any thread.
class ConnectionLog {
 public:
  static graph::Result<std::unique_ptr<ConnectionLog>> Start(Context& ctx, const Socket& socket,
                                                             ConnectionLogOptions options);
  ~ConnectionLog();
  ConnectionLog(const ConnectionLog&) = delete;
  ConnectionLog& operator=(const ConnectionLog&) = delete;

  // The first failure ZeroMQ will not retry (a connecting socket's handshake
  // refused or broken), without the prefix; empty while there is none.
  std::string Final() const;

 private:
  ConnectionLog() = default;
  void Serve();
  void OnEvent(int event, uint32_t value, const std::string& endpoint);
  void HandshakeFailed(const std::string& key, const std::string& what);
  std::string Unanswered(const std::string& endpoint) const;
  void Say(const std::string& key, const std::string& line);
  void* monitored_ = nullptr;  // the socket watched; it outlives this
  SocketHandle monitor_;
  ConnectionLogOptions o_;
  size_t max_message_bytes_ = 0;   // the socket's, named in the lost line
  std::set<std::string> said_;     // "event endpoint" lines said since the last handshake there
  std::set<std::string> reached_;  // endpoints connected (TCP) since their last retry
  std::set<std::string> failed_;   // endpoints whose last handshake failed
  int lines_ = 0;
  mutable std::mutex final_mu_;
  std::string final_;
  std::atomic<bool> stop_{false};
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
