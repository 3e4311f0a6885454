#include "frontend/stop_signals.h"

namespace frontend {

namespace {
volatile std::sig_atomic_t g_stop = 0;
// A second signal ends the process as if none were caught: a command stuck
// in a long unit of work could only be killed (its outputs are written
// atomically, so none is left half-written). signal() and raise() are
// async-signal-safe.
extern "C" void OnStopSignal(int sig) {
  if (g_stop != 0) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_stop = sig;
}
}  // namespace

StopOnSignals::StopOnSignals() {
  g_stop = 0;
  old_int_ = std::signal(SIGINT, OnStopSignal);
  old_term_ = std::signal(SIGTERM, OnStopSignal);
}

StopOnSignals::~StopOnSignals() {
  std::signal(SIGINT, old_int_);
  std::signal(SIGTERM, old_term_);
}

const volatile std::sig_atomic_t* StopOnSignals::flag() { return &g_stop; }

int ExitCodeAfterStop(int code) { return code != 0 || g_stop == 0 ? code : 128 + g_stop; }

}  // namespace frontend
