// LibTorch reports failures by throwing c10::Error (and c10::OutOfMemoryError
// when an allocator runs out); the runtime's callers get a graph::Status. This
// is where the runtime turns one into the other.
// Thread safety: pure functions.
#pragma once

#include <c10/util/Exception.h>

#include <exception>
#include <string>
#include <utility>

#include "graph/status.h"

namespace runtime {

// LibTorch's messages carry a backtrace after the first line.
inline std::string FirstLine(const char* what) {
  std::string s(what);
  return s.substr(0, s.find('\n'));
}

// Runs `f`; a LibTorch exception becomes a status whose message is what(),
// ": " and LibTorch's first line (kOutOfMemory for an allocator's, else
// kInternal). `what` is called only then: `f` may be on an executor's
// per-op path, where building the message every time would cost.
template <typename W, typename F>
graph::Status Catching(W&& what, F&& f) {
  try {
    f();
    return graph::Status::Ok();
  } catch (const c10::OutOfMemoryError& e) {
    return graph::Status(graph::StatusCode::kOutOfMemory,
                         what() + ": " + FirstLine(e.what_without_backtrace()));
  } catch (const c10::Error& e) {
    return graph::Internal(what() + ": " + FirstLine(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return graph::Internal(what() + ": " + FirstLine(e.what()));
  }
}

// As Catching, for `f` returning a status of its own: that status when `f`
// returns, the exception's when it throws.
template <typename W, typename F>
graph::Status CatchingStatus(W&& what, F&& f) {
  graph::Status returned;
  graph::Status thrown = Catching(std::forward<W>(what), [&] { returned = f(); });
  return thrown.ok() ? returned : thrown;
}

}  // namespace runtime
