// Training checkpoints: one file per rank (easgd and gossip replicas differ),
// `DIR/rank-R.ckpt`, holding the step reached and every tensor of training
// state by name. Written atomically (a crash leaves the previous checkpoint),
// the one it replaces kept as `DIR/rank-R.ckpt.prev`,
// read back with its digest, names and sizes checked against the model.
//
// Format, little-endian: "planner-trainer-checkpoint 2\n", then int64 step,
// int64 epoch, int64 batch, int64 world, int64 tensor count (version 1 files,
// without batch and world, are read too), and per tensor int64 name length, the name,
// int64 element count and that many float32; then the FNV-1a 64 hex digest of
// everything before it (16 bytes).
// Thread safety: free functions; the tensors must not change while written.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

#include "graph/status.h"

namespace trainer {

struct CheckpointPosition {
  int64_t step = 0;   // steps done over the whole run
  int64_t epoch = 0;  // the epoch that step `step` belongs to
  // Examples per rank and step, and ranks: the data order depends on both, so
  // a resume must keep them. 0 in a version 1 file (written before they were).
  int64_t batch = 0;
  int64_t world = 0;
};

std::string CheckpointPath(const std::string& dir, int rank);

graph::Status WriteCheckpoint(const std::string& path, const CheckpointPosition& at,
                              const std::vector<std::pair<std::string, at::Tensor>>& state);

// Where WriteCheckpoint keeps the checkpoint it replaces ("PATH.prev"): ranks
// write theirs one after another, and a run stopped between two ranks' writes
// resumes from the step before, which every rank then still holds.
std::string PreviousCheckpointPath(const std::string& path);

// Reads `path` into `state`'s tensors (in place: they may be shared); fails,
// naming the file and the first problem (digest, a missing or extra tensor, a
// size that differs), without changing any tensor.
graph::Result<CheckpointPosition> ReadCheckpoint(
    const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& state);
// The same checks, and the position, without changing any tensor.
graph::Result<CheckpointPosition> PeekCheckpoint(
    const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& state);
// ReadCheckpoint (`apply`) or PeekCheckpoint.
graph::Result<CheckpointPosition> ReadCheckpointInto(
    const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& state,
    bool apply);

}  // namespace trainer
