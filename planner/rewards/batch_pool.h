// A process-wide pool of threads for batches of independent evaluations
// (EvaluateEach): the hill climb evaluates a batch per unit it tries, hundreds
// a second, and starting threads for each cost more than the work on small
// models; a thread the pool keeps also keeps its simulator scratch
// (sim::Simulator::Run's per-thread copy table) warm between batches.
//
// Thread safety: RunBatch may be called from any thread, at any time. One
// batch uses the pool at a time; a caller that finds it in use (another
// thread's batch, or a batch started from inside a batch's work) runs its
// batch on threads of its own, as before the pool, so no caller ever waits for
// another's batch or deadlocks. The pool's threads live until the process
// ends (the pool is never destroyed: no thread outlives its state); a child
// of fork(), which has none of them, runs its batches on threads of its own.
#pragma once

#include <cstddef>
#include <functional>

namespace planner::rewards {

// Runs work(j) for every j in [0, n) exactly once, on up to `threads` threads
// counting the caller's, and returns when all have returned. `work` must be
// safe to call concurrently for different j. An exception thrown by work(j)
// is rethrown here, after every started call has returned (the first one, if
// several threw); the j not yet started then are skipped.
void RunBatch(size_t n, size_t threads, const std::function<void(size_t)>& work);

}  // namespace planner::rewards
