#include "wire/socket.h"

#include <zmq.h>

#include <cerrno>
#include <cstdint>

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

graph::Result<void*> MakeSocket(Context& ctx, SocketKind kind, const std::string& endpoint,
                                const SocketOptions& o) {
  void* s = zmq_socket(ctx.handle(), ZmqType(kind));
  if (!s) return ZmqError(endpoint + ": cannot make a socket");
  auto fail = [&](const char* what) {
    graph::Status st = ZmqError(endpoint + ": " + what);
    zmq_close(s);
    return st;
  };
  const int64_t max = static_cast<int64_t>(o.max_message_bytes);
  if (zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max, sizeof max) != 0) return fail("ZMQ_MAXMSGSIZE");
  if (zmq_setsockopt(s, ZMQ_LINGER, &o.linger_ms, sizeof o.linger_ms) != 0) {
    return fail("ZMQ_LINGER");
  }
  if (o.immediate) {
    const int one = 1;
    if (zmq_setsockopt(s, ZMQ_IMMEDIATE, &one, sizeof one) != 0) return fail("ZMQ_IMMEDIATE");
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
  return s;
}

}  // namespace

Context::Context() : ctx_(zmq_ctx_new()) {}
Context::~Context() { zmq_ctx_term(ctx_); }

graph::Result<Socket> Socket::Bind(Context& ctx, SocketKind kind, const std::string& endpoint,
                                   const SocketOptions& options) {
  GRAPH_ASSIGN_OR_RETURN(void* s, MakeSocket(ctx, kind, endpoint, options));
  if (zmq_bind(s, endpoint.c_str()) != 0) {
    graph::Status st = ZmqError(endpoint + ": cannot bind");
    zmq_close(s);
    return st;
  }
  char last[256] = {};
  size_t size = sizeof last;
  std::string bound = endpoint;
  if (zmq_getsockopt(s, ZMQ_LAST_ENDPOINT, last, &size) == 0 && last[0]) bound = last;
  return Socket(s, bound);
}

graph::Result<Socket> Socket::Connect(Context& ctx, SocketKind kind, const std::string& endpoint,
                                      const SocketOptions& options) {
  GRAPH_ASSIGN_OR_RETURN(void* s, MakeSocket(ctx, kind, endpoint, options));
  if (zmq_connect(s, endpoint.c_str()) != 0) {
    graph::Status st = ZmqError(endpoint + ": cannot connect");
    zmq_close(s);
    return st;
  }
  return Socket(s, endpoint);
}

Socket::Socket(Socket&& other) noexcept
    : socket_(other.socket_), endpoint_(std::move(other.endpoint_)) {
  other.socket_ = nullptr;
}

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    if (socket_) zmq_close(socket_);
    socket_ = other.socket_;
    endpoint_ = std::move(other.endpoint_);
    other.socket_ = nullptr;
  }
  return *this;
}

Socket::~Socket() {
  if (socket_) zmq_close(socket_);
}

graph::Status Socket::Send(const Frames& frames) {
  for (size_t i = 0; i < frames.size(); ++i) {
    const int flags = ZMQ_DONTWAIT | (i + 1 < frames.size() ? ZMQ_SNDMORE : 0);
    if (zmq_send(socket_, frames[i].data(), frames[i].size(), flags) < 0) {
      return ZmqError(endpoint_ + ": cannot send");
    }
  }
  return graph::Status::Ok();
}

graph::Result<std::optional<Frames>> Socket::Receive(int timeout_ms) {
  GRAPH_ASSIGN_OR_RETURN(std::vector<bool> ready, Poll({this}, timeout_ms));
  if (!ready[0]) return std::optional<Frames>();
  Frames frames;
  for (;;) {
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, socket_, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&msg);
      if (frames.empty() && (zmq_errno() == EAGAIN || zmq_errno() == EINTR)) {
        return std::optional<Frames>();
      }
      return ZmqError(endpoint_ + ": cannot receive");
    }
    frames.emplace_back(static_cast<const char*>(zmq_msg_data(&msg)), zmq_msg_size(&msg));
    const bool more = zmq_msg_more(&msg);
    zmq_msg_close(&msg);
    if (!more) break;
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
