#include "frontend/stop_signals.h"

namespace frontend {

namespace {
volatile std::sig_atomic_t g_stop = 0;
extern "C" void OnStopSignal(int sig) { g_stop = sig; }
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
