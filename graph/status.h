// Status and Result<T>: the project's one way of reporting expected failures.
//
// Contract: functions that can fail on bad input, I/O or resource limits return a
// Status (or Result<T>) that the caller must check; messages are one line and name
// the file, peer or object and the problem ("model.json: weight 'w' is truncated").
// Programmer errors (broken invariants) assert instead. See docs/errors.md.
// Thread safety: value types; safe to copy and move between threads.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace graph {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // malformed input: bad file, bad YAML, bad placement
  kNotFound,         // a named file, node or device does not exist
  kUnimplemented,    // well-formed but unsupported (control flow, unknown kernel)
  kOutOfMemory,      // a placement exceeds a device's capacity
  kIoError,          // the OS refused a read or write
  kUnavailable,      // a peer timed out or went away
  kInternal,         // a library we call failed unexpectedly
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  // Control characters (newlines from library messages, bytes from names read out
  // of corrupt files) become spaces, so every message prints as one line.
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {
    for (char& c : message_) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    }
  }

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns the same status with "context: " put before the message; used to add
  // the file name as an error travels up.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return Status(StatusCode::kInvalidArgument, std::move(m));
}
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status Unimplemented(std::string m) {
  return Status(StatusCode::kUnimplemented, std::move(m));
}
inline Status IoError(std::string m) { return Status(StatusCode::kIoError, std::move(m)); }
inline Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }

// A value or the Status saying why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "Result built from an OK status carries no value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace graph

// Propagates a non-OK Status from an expression to the caller.
#define GRAPH_RETURN_IF_ERROR(expr) \
  do {                              \
    ::graph::Status _st = (expr);   \
    if (!_st.ok()) return _st;      \
  } while (0)

#define GRAPH_CONCAT_INNER(a, b) a##b
#define GRAPH_CONCAT(a, b) GRAPH_CONCAT_INNER(a, b)
// Assigns the value of a Result expression to `lhs`, or returns its Status.
#define GRAPH_ASSIGN_OR_RETURN(lhs, expr) \
  GRAPH_ASSIGN_OR_RETURN_IMPL(GRAPH_CONCAT(_res_, __LINE__), lhs, expr)
#define GRAPH_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
