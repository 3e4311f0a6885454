// Stopping a long command cleanly: while a StopOnSignals is alive, SIGINT and
// SIGTERM set a flag instead of ending the process, and the command checks
// the flag between units of work (a policy update, a message) and finishes
// its files; the previous handlers come back when it is destroyed, so a signal
// after that ends the process as usual, as does a second signal while it is
// alive. A command stopped so exits with 128 + the signal's number once its
// files are written (ExitCodeAfterStop), as a shell reports a command a signal
// ended and as `trainer launch` does: a script's `planner search ... && next`
// does not go on after a ^C.
//
// Thread safety: one StopOnSignals at a time per process; the flag may be read
// from any thread.
#pragma once

#include <csignal>

namespace frontend {

class StopOnSignals {
 public:
  StopOnSignals();  // clears the flag
  ~StopOnSignals();
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

  // Set (nonzero: the signal's number) once SIGINT or SIGTERM arrived; stays
  // set after destruction.
  static const volatile std::sig_atomic_t* flag();
  static bool requested() { return *flag() != 0; }

 private:
  void (*old_int_)(int) = nullptr;
  void (*old_term_)(int) = nullptr;
};

// A command's exit status: `code` if it failed (nonzero) or no stop signal
// arrived, else 128 + the signal's number.
int ExitCodeAfterStop(int code);

}  // namespace frontend
