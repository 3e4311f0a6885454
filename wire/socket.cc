#include "wire/socket.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <zmq.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "graph/file_util.h"

namespace wire {

namespace {

graph::Status ZmqError(const std::string& what) {
  const int e = zmq_errno();
  const graph::StatusCode code = (e == EAGAIN || e == EHOSTUNREACH || e == ETERM)
                                     ? graph::StatusCode::kUnavailable
                                     : graph::StatusCode::kInternal;
  return graph::Status(code, what + ": " + zmq_strerror(e));
}

int ZmqType(SocketKind kind) {
  switch (kind) {
    case SocketKind::kRouter:
      return ZMQ_ROUTER;
    case SocketKind::kDealer:
      return ZMQ_DEALER;
    case SocketKind::kPair:
      return ZMQ_PAIR;
  }
  return ZMQ_PAIR;
}

// A tcp endpoint's port, where it names one, must be a port: ZeroMQ takes
// 99999 modulo 65536 without a word. "*" and 0 (any free port) pass.
graph::Status CheckPort(const std::string& endpoint) {
  if (endpoint.rfind("tcp://", 0) != 0) return graph::Status::Ok();
  const size_t colon = endpoint.rfind(':');
  const std::string port = endpoint.substr(colon + 1);
  if (colon < 6 || port == "*") return graph::Status::Ok();
  const bool digits =
      !port.empty() && port.size() <= 5 &&
      std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoi(port) > 65535) {
    return graph::InvalidArgument(endpoint + ": the port must be a number from 0 to 65535, or *");
  }
  return graph::Status::Ok();
}

graph::Result<SocketHandle> MakeSocket(Context& ctx, SocketKind kind, const std::string& endpoint,
                                       const SocketOptions& o) {
  SocketHandle handle(zmq_socket(ctx.handle(), ZmqType(kind)));
  void* s = handle.get();
  if (!s) return ZmqError(endpoint + ": cannot make a socket");
  auto fail = [&](const char* what) { return ZmqError(endpoint + ": " + what); };
  const int64_t max = static_cast<int64_t>(o.max_message_bytes);
  if (zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max, sizeof max) != 0) return fail("ZMQ_MAXMSGSIZE");
  if (zmq_setsockopt(s, ZMQ_LINGER, &o.linger_ms, sizeof o.linger_ms) != 0) {
    return fail("ZMQ_LINGER");
  }
  if (o.immediate) {
    const int one = 1;
    if (zmq_setsockopt(s, ZMQ_IMMEDIATE, &one, sizeof one) != 0) return fail("ZMQ_IMMEDIATE");
  }
  // An IPv6 address ("tcp://[::1]:5555") needs the socket's IPv6 switched on.
  if (endpoint.rfind("tcp://[", 0) == 0) {
    const int one = 1;
    if (zmq_setsockopt(s, ZMQ_IPV6, &one, sizeof one) != 0) return fail("ZMQ_IPV6");
  }
  // A ZAP domain on every socket refuses peers that speak ZMTP 1.0 or 2.0
  // (libzmq rejects legacy handshakes once ZAP is on): libzmq 4.3.4 aborts
  // the whole process on some garbage down that legacy path
  // (zmtp_engine.cpp:446), so a stray client could kill a server. Without
  // CURVE the mechanism is NULL, and with no ZAP handler in the context (or
  // ours, which lets NULL through) nothing else changes.
  if (!o.curve_server && zmq_setsockopt(s, ZMQ_ZAP_DOMAIN, "planner", 7) != 0) {
    return fail("ZMQ_ZAP_DOMAIN");
  }
  if (o.curve_server) {
    const int one = 1;
    if (zmq_setsockopt(s, ZMQ_CURVE_SERVER, &one, sizeof one) != 0 ||
        zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, o.curve_server->secret_key.c_str(), 41) != 0 ||
        zmq_setsockopt(s, ZMQ_ZAP_DOMAIN, "planner", 7) != 0) {
      return fail("CURVE server keys");
    }
  }
  if (o.curve_client) {
    if (zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, o.curve_server_public_key.c_str(), 41) != 0 ||
        zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, o.curve_client->public_key.c_str(), 41) != 0 ||
        zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, o.curve_client->secret_key.c_str(), 41) != 0) {
      return fail("CURVE client keys");
    }
  }
  if (kind == SocketKind::kRouter) {
    // A send to a peer that is gone fails instead of vanishing silently.
    const int one = 1;
    if (zmq_setsockopt(s, ZMQ_ROUTER_MANDATORY, &one, sizeof one) != 0) {
      return fail("ZMQ_ROUTER_MANDATORY");
    }
    // A worker that reconnects under its old routing id takes it over.
    if (zmq_setsockopt(s, ZMQ_ROUTER_HANDOVER, &one, sizeof one) != 0) {
      return fail("ZMQ_ROUTER_HANDOVER");
    }
  }
  if (!o.routing_id.empty() &&
      zmq_setsockopt(s, ZMQ_ROUTING_ID, o.routing_id.data(), o.routing_id.size()) != 0) {
    return fail("ZMQ_ROUTING_ID");
  }
  return handle;
}

// The frames of the message waiting on `socket` (a helper thread's own
// socket: the ZAP handler's, a monitor's); none when nothing waits.
std::vector<std::string> ReceiveWaiting(void* socket) {
  std::vector<std::string> frames;
  for (;;) {
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, socket, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&msg);
      break;
    }
    frames.emplace_back(static_cast<const char*>(zmq_msg_data(&msg)), zmq_msg_size(&msg));
    const bool more = zmq_msg_more(&msg);
    zmq_msg_close(&msg);
    if (!more) break;
  }
  return frames;
}

}  // namespace

void CloseSocket::operator()(void* socket) const {
  if (socket) zmq_close(socket);
}

Context::Context() : ctx_(zmq_ctx_new()) {}
Context::~Context() { zmq_ctx_term(ctx_); }

// ZeroMQ binds to an interface or an address, not to a host name: "localhost"
// (an endpoint docs/fleet.md allows) is bound as loopback's IPv4 address.
std::string BindAddress(const std::string& endpoint) {
  const std::string localhost = "tcp://localhost:";
  if (endpoint.rfind(localhost, 0) != 0) return endpoint;
  return "tcp://127.0.0.1:" + endpoint.substr(localhost.size());
}

graph::Result<Socket> Socket::Bind(Context& ctx, SocketKind kind, const std::string& endpoint,
                                   const SocketOptions& options) {
  GRAPH_RETURN_IF_ERROR(CheckPort(endpoint));
  GRAPH_ASSIGN_OR_RETURN(SocketHandle s, MakeSocket(ctx, kind, endpoint, options));
  if (zmq_bind(s.get(), BindAddress(endpoint).c_str()) != 0) {
    return ZmqError(endpoint + ": cannot bind");
  }
  char last[256] = {};
  size_t size = sizeof last;
  std::string bound = endpoint;
  if (zmq_getsockopt(s.get(), ZMQ_LAST_ENDPOINT, last, &size) == 0 && last[0]) bound = last;
  return Socket(std::move(s), bound, options.max_message_bytes);
}

graph::Result<Socket> Socket::Connect(Context& ctx, SocketKind kind, const std::string& endpoint,
                                      const SocketOptions& options) {
  GRAPH_ASSIGN_OR_RETURN(Socket s, Open(ctx, kind, endpoint, options));
  GRAPH_RETURN_IF_ERROR(s.AlsoConnect(endpoint));
  return s;
}

graph::Result<Socket> Socket::Open(Context& ctx, SocketKind kind, const std::string& endpoint,
                                   const SocketOptions& options) {
  GRAPH_RETURN_IF_ERROR(CheckPort(endpoint));
  GRAPH_ASSIGN_OR_RETURN(SocketHandle s, MakeSocket(ctx, kind, endpoint, options));
  return Socket(std::move(s), endpoint, options.max_message_bytes);
}

graph::Status Socket::AlsoConnect(const std::string& endpoint) {
  GRAPH_RETURN_IF_ERROR(CheckPort(endpoint));
  if (zmq_connect(socket_.get(), endpoint.c_str()) != 0) {
    return ZmqError(endpoint + ": cannot connect");
  }
  return graph::Status::Ok();
}

graph::Status Socket::Send(const Frames& frames) {
  for (size_t i = 0; i < frames.size(); ++i) {
    const int flags = ZMQ_DONTWAIT | (i + 1 < frames.size() ? ZMQ_SNDMORE : 0);
    if (zmq_send(socket_.get(), frames[i].data(), frames[i].size(), flags) < 0) {
      return ZmqError(endpoint_ + ": cannot send");
    }
  }
  return graph::Status::Ok();
}

graph::Result<std::optional<Frames>> Socket::Receive(int timeout_ms) {
  GRAPH_ASSIGN_OR_RETURN(std::vector<bool> ready, Poll({this}, timeout_ms));
  if (!ready[0]) return std::optional<Frames>();
  Frames frames;
  size_t bytes = 0;
  bool over = false;  // past the limits: the rest is read and let go
  for (;;) {
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, socket_.get(), ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&msg);
      if (frames.empty() && !over && (zmq_errno() == EAGAIN || zmq_errno() == EINTR)) {
        return std::optional<Frames>();
      }
      return ZmqError(endpoint_ + ": cannot receive");
    }
    bytes += zmq_msg_size(&msg);
    over = over || bytes > max_message_bytes_ || frames.size() >= kMaxFrames;
    if (!over) {
      frames.emplace_back(static_cast<const char*>(zmq_msg_data(&msg)), zmq_msg_size(&msg));
    }
    const bool more = zmq_msg_more(&msg);
    zmq_msg_close(&msg);
    if (!more) break;
  }
  if (over) {  // as if it never came, as ZeroMQ does with one frame too large
    ++dropped_;
    return std::optional<Frames>();
  }
  return std::optional<Frames>(std::move(frames));
}

graph::Result<std::vector<bool>> Poll(const std::vector<const Socket*>& sockets, int timeout_ms) {
  std::vector<zmq_pollitem_t> items(sockets.size());
  for (size_t i = 0; i < sockets.size(); ++i) items[i] = {sockets[i]->handle(), 0, ZMQ_POLLIN, 0};
  std::vector<bool> ready(sockets.size(), false);
  if (zmq_poll(items.data(), static_cast<int>(items.size()), timeout_ms) < 0) {
    if (zmq_errno() == EINTR) return ready;
    return ZmqError("poll");
  }
  for (size_t i = 0; i < sockets.size(); ++i) ready[i] = (items[i].revents & ZMQ_POLLIN) != 0;
  return ready;
}

graph::Result<CurveKeys> GenerateCurveKeys() {
  char pub[41] = {}, sec[41] = {};
  if (zmq_curve_keypair(pub, sec) != 0) return ZmqError("CURVE key pair");
  return CurveKeys{pub, sec};
}

std::string KeyFileText(const CurveKeys& keys, bool with_secret) {
  std::string text =
      "# a ZeroMQ CURVE key (planner fleet keygen)\npublic: " + keys.public_key + "\n";
  if (with_secret) text += "secret: " + keys.secret_key + "\n";
  return text;
}

graph::Result<CurveKeys> ReadKeyFile(const std::string& path, bool need_secret) {
  GRAPH_ASSIGN_OR_RETURN(std::string text, graph::ReadFile(path));
  CurveKeys keys;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    // A file edited on Windows or by hand: CRLF, spaces around the key.
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    for (auto [prefix, out] : {std::pair<const char*, std::string*>{"public:", &keys.public_key},
                               {"secret:", &keys.secret_key}}) {
      if (line.rfind(prefix, 0) != 0) continue;
      size_t from = std::strlen(prefix);
      while (from < line.size() && std::isspace(static_cast<unsigned char>(line[from]))) ++from;
      *out = line.substr(from);
    }
  }
  // Why a key is not one: its length, or a character Z85 does not have.
  auto problem = [](const std::string& z85) -> std::string {
    if (z85.empty()) return "missing";
    if (z85.size() != 40) return std::to_string(z85.size()) + " characters, not 40";
    uint8_t bin[32];
    if (!zmq_z85_decode(bin, z85.c_str())) return "not Z85 text";
    return "";
  };
  if (std::string why = problem(keys.public_key); !why.empty()) {
    return graph::InvalidArgument(path + ": no valid 'public:' key (40 Z85 characters): " + why);
  }
  if (!need_secret) return keys;
  if (std::string why = problem(keys.secret_key); !why.empty()) {
    return graph::InvalidArgument(
        path + ": no valid 'secret:' key (a key pair from planner fleet keygen): " + why);
  }
  // A secret key of another pair failed only at the handshake, as a refusal.
  char derived[41] = {};
  if (zmq_curve_public(derived, keys.secret_key.c_str()) != 0 || keys.public_key != derived) {
    return graph::InvalidArgument(path +
                                  ": its 'public:' key is not the 'secret:' key's (two key pairs "
                                  "mixed? planner fleet keygen writes a matching pair)");
  }
  return keys;
}

graph::Result<std::unique_ptr<Authenticator>> Authenticator::Start(Context& ctx,
                                                                   std::vector<std::string> allowed,
                                                                   std::string log_prefix) {
  std::unique_ptr<Authenticator> a(new Authenticator());
  a->socket_.reset(zmq_socket(ctx.handle(), ZMQ_REP));
  if (!a->socket_) return ZmqError("ZAP handler socket");
  const int linger = 0;
  zmq_setsockopt(a->socket_.get(), ZMQ_LINGER, &linger, sizeof linger);
  if (zmq_bind(a->socket_.get(), "inproc://zeromq.zap.01") != 0) {
    return ZmqError("inproc://zeromq.zap.01: cannot bind the ZAP handler");
  }
  a->allowed_ = std::move(allowed);
  a->log_prefix_ = std::move(log_prefix);
  a->thread_ = std::thread([p = a.get()] { p->Serve(); });
  return a;
}

Authenticator::~Authenticator() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void Authenticator::Serve() {
  // ZAP (RFC 27): version, request id, domain, address, routing id, mechanism,
  // then the mechanism's credentials (CURVE: the client's 32-byte public key).
  while (!stop_) {
    zmq_pollitem_t item = {socket_.get(), 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, 100) <= 0) continue;
    const std::vector<std::string> frames = ReceiveWaiting(socket_.get());
    if (frames.size() < 6) continue;
    // NULL: a socket without CURVE in a process that has a CURVE server (its
    // ZAP domain is set only to refuse legacy peers: MakeSocket).
    bool ok = frames[5] == "NULL";
    std::string key = "(none)";
    if (frames[5] == "CURVE" && frames.size() >= 7 && frames[6].size() == 32) {
      char z85[41] = {};
      zmq_z85_encode(z85, reinterpret_cast<const uint8_t*>(frames[6].data()), 32);
      key = z85;
      for (const std::string& a : allowed_) ok |= a == key;
    }
    if (!ok) {
      ++refused_;
      // Once per key and address (a refused client reconnects every 100 ms),
      // for the first 1000 of them; refused() counts all.
      if (logged_.size() < 1000 && logged_.insert(key + " " + frames[3]).second) {
        std::fprintf(stderr, "%srefused a client at %s: its key %s is not allowed\n",
                     log_prefix_.c_str(), frames[3].c_str(), key.c_str());
      }
    }
    const std::vector<std::string> reply = {
        "1.0", frames[1], ok ? "200" : "400", ok ? "OK" : "key not allowed", ok ? key : "", ""};
    for (size_t i = 0; i < reply.size(); ++i) {
      zmq_send(socket_.get(), reply[i].data(), reply[i].size(),
               i + 1 < reply.size() ? ZMQ_SNDMORE : 0);
    }
  }
}

namespace {

// Why a handshake failed, from ZeroMQ's ZMQ_PROTOCOL_ERROR_* code.
std::string HandshakeFailure(uint32_t code) {
  switch (code) {
    case ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC:
      return "the CURVE keys do not match (is the server key given here that server's own "
             "public key?)";
    case ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH:
      return "one side has CURVE keys and the other none (give both sides keys, or neither)";
    default:
      break;
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08x", code);
  const std::string kind = (code & 0xf0000000u) == 0x20000000u ? "authentication" : "ZMTP";
  return "a ZeroMQ " + kind + " protocol error (" + hex + ")";
}

// A message size limit as a flag gives it: whole MiB, or bytes.
std::string Size(size_t bytes) {
  if (bytes % (size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

graph::Result<std::unique_ptr<ConnectionLog>> ConnectionLog::Start(Context& ctx,
                                                                   const Socket& socket,
                                                                   ConnectionLogOptions options) {
  static std::atomic<uint64_t> next_id{0};
  const std::string address = "inproc://planner-connection-log-" + std::to_string(next_id++);
  const int events = ZMQ_EVENT_CONNECTED | ZMQ_EVENT_CONNECT_RETRIED |
                     ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                     ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                     ZMQ_EVENT_DISCONNECTED;
  if (zmq_socket_monitor(socket.handle(), address.c_str(), events) != 0) {
    return ZmqError(socket.endpoint() + ": cannot monitor its connections");
  }
  std::unique_ptr<ConnectionLog> log(new ConnectionLog());
  log->monitored_ = socket.handle();
  log->monitor_.reset(zmq_socket(ctx.handle(), ZMQ_PAIR));
  if (!log->monitor_ || zmq_connect(log->monitor_.get(), address.c_str()) != 0) {
    zmq_socket_monitor(socket.handle(), nullptr, 0);
    return ZmqError(socket.endpoint() + ": cannot read its connection events");
  }
  const int linger = 0;
  zmq_setsockopt(log->monitor_.get(), ZMQ_LINGER, &linger, sizeof linger);
  if (!options.sink) {
    options.sink = [](const std::string& line) {
      std::fprintf(stderr, "%s\n", line.c_str());
      std::fflush(stderr);
    };
  }
  log->o_ = std::move(options);
  int64_t max = 0;
  size_t size = sizeof max;
  if (zmq_getsockopt(socket.handle(), ZMQ_MAXMSGSIZE, &max, &size) == 0 && max > 0) {
    log->max_message_bytes_ = static_cast<size_t>(max);
  }
  log->thread_ = std::thread([p = log.get()] { p->Serve(); });
  return log;
}

ConnectionLog::~ConnectionLog() {
  // Stop the events at their source first (on the owner's thread, as the
  // socket's), so that none waits on a reader that is gone.
  if (monitored_) zmq_socket_monitor(monitored_, nullptr, 0);
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void ConnectionLog::Serve() {
  while (!stop_) {
    zmq_pollitem_t item = {monitor_.get(), 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, 100) <= 0) continue;
    // An event is two frames: 2 bytes of event and 4 of value, then the endpoint.
    const std::vector<std::string> frames = ReceiveWaiting(monitor_.get());
    if (frames.size() < 2 || frames[0].size() < 6) continue;
    uint16_t event = 0;
    uint32_t value = 0;
    std::memcpy(&event, frames[0].data(), sizeof event);
    std::memcpy(&value, frames[0].data() + 2, sizeof value);
    OnEvent(event, value, frames[1]);
  }
}

void ConnectionLog::OnEvent(int event, uint32_t value, const std::string& endpoint) {
  const std::string& peer = o_.peer;
  switch (event) {
    case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
      // Say each failure again if it comes back after this success.
      for (auto it = said_.begin(); it != said_.end();) {
        const bool here = it->size() > endpoint.size() &&
                          it->compare(it->size() - endpoint.size(), endpoint.size(), endpoint) == 0;
        it = here ? said_.erase(it) : std::next(it);
      }
      failed_.erase(endpoint);
      return;
    case ZMQ_EVENT_CONNECTED:
      reached_.insert(endpoint);
      return;
    case ZMQ_EVENT_CONNECT_RETRIED:
      // ZeroMQ retries after a lost connection or a failed handshake too:
      // only a retry with no connection since the last one found nobody.
      if (reached_.erase(endpoint) == 0 && o_.log_retries) {
        Say("retried " + endpoint, Unanswered(endpoint) + "; still trying");
      }
      return;
    case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: {
      failed_.insert(endpoint);
      // A CURVE server's own refusals are its Authenticator's to say.
      if (o_.curve_server) return;
      const std::string key = o_.own_public_key.empty() ? "" : " " + o_.own_public_key;
      HandshakeFailed("auth " + endpoint,
                      peer + " refused " + o_.self + "'s key" + key + " (" + endpoint +
                          ", status " + std::to_string(value) + "): it is not among the keys " +
                          peer + " lets in");
      return;
    }
    case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
      failed_.insert(endpoint);
      HandshakeFailed(
          "protocol " + std::to_string(value) + " " + endpoint,
          "the handshake with " + peer + " failed (" + endpoint + "): " + HandshakeFailure(value));
      return;
    case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
      failed_.insert(endpoint);
      // A CURVE server that cannot read a client's hello (it was sealed for
      // another server key) closes the connection without a word.
      if (!o_.own_public_key.empty()) {
        Say("closed " + endpoint, peer + " closed the connection during the handshake (" +
                                      endpoint + "): is the server key given here " + peer +
                                      "'s own public key?; still trying");
      }
      return;
    case ZMQ_EVENT_DISCONNECTED:
      // A failed handshake ends in this event too: it was no connection to lose.
      if (failed_.erase(endpoint) == 0 && o_.log_disconnected) {
        const std::string limit = max_message_bytes_ == 0
                                      ? ""
                                      : ", or sent a message over the " +
                                            Size(max_message_bytes_) + " " + o_.self + " accepts";
        Say("", "lost the connection to " + peer + " (" + endpoint + "): it stopped" + limit);
      }
      return;
    default:
      return;
  }
}

void ConnectionLog::HandshakeFailed(const std::string& key, const std::string& what) {
  if (!o_.connects) {
    Say(key, what);
    return;
  }
  // Final: its owner stops with it, and says it then.
  std::lock_guard<std::mutex> lock(final_mu_);
  if (final_.empty()) final_ = what;
}

std::string ConnectionLog::Final() const {
  std::lock_guard<std::mutex> lock(final_mu_);
  return final_;
}

std::string ConnectionLog::Unanswered(const std::string& endpoint) const {
  // A host name that does not resolve is said as such: ZeroMQ retries it in
  // silence like a port where nothing listens.
  std::string host;
  const size_t colon = endpoint.rfind(':');
  if (endpoint.rfind("tcp://", 0) == 0 && colon > 6) {
    host = endpoint.substr(6, colon - 6);
    // "tcp://interface;host:port" connects from that interface.
    if (host.find(';') != std::string::npos) host = host.substr(host.find(';') + 1);
  }
  if (!host.empty() && host.front() != '[') {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
    if (found) freeaddrinfo(found);
    if (rc != 0 && rc != EAI_AGAIN && rc != EAI_SYSTEM && rc != EAI_MEMORY) {
      return "the host " + host + " of " + endpoint + " is not known (" + gai_strerror(rc) + ")";
    }
  }
  return "nothing answers at " + endpoint + " yet (is " + o_.peer +
         " running, on that host and port?)";
}

void ConnectionLog::Say(const std::string& key, const std::string& line) {
  if (lines_ >= 1000) return;
  if (!key.empty() && !said_.insert(key).second) return;
  ++lines_;
  o_.sink(o_.prefix + line);
}

bool OnThisHost(const std::string& endpoint) {
  for (const char* prefix :
       {"tcp://127.", "tcp://localhost:", "tcp://[::1]:", "ipc://", "inproc://"}) {
    if (endpoint.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::string PrintableId(const std::string& id) {
  bool printable = !id.empty();
  for (unsigned char c : id) printable &= c >= 0x20 && c < 0x7f;
  if (printable) return id;
  static const char kHex[] = "0123456789abcdef";
  std::string out = "0x";
  for (unsigned char c : id) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

}  // namespace wire
