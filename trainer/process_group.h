// A group of trainer processes (ranks) that meet through a rendezvous store and
// reduce, broadcast and exchange tensors: the one adapter that calls PyTorch's
// c10d (ProcessGroupGloo over TCP, TCPStore for the rendezvous). c10d's
// exceptions become Status here; when a collective fails or times out, the error
// names the rank that stopped answering, found by each rank's heartbeat in the
// store (a rank that died or hangs stops beating).
//
// Rank 0 hosts the store (torchrun's MASTER_ADDR:MASTER_PORT); the other ranks
// connect to it. Collectives are matched by issue order, so every rank must
// issue the same collectives in the same order.
//
// Ownership: owns its store connections, its process group and its heartbeat
// thread. Tensors given to a collective are the caller's and must stay alive,
// untouched, until the work is waited for.
// Thread safety: issue collectives from one thread at a time; Wait may be called
// from another thread than the one that started the work.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/status.h"

namespace trainer {

struct Rendezvous {
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  int rank = 0;
  int world_size = 1;
  // LOCAL_RANK and LOCAL_WORLD_SIZE, where both are set (trainer launch and
  // torchrun set them): this rank among those on its host.
  int local_rank = 0;
  int local_world_size = 1;
  double timeout_s = 60;     // a collective or the rendezvous that waits longer fails
  int threads = 2;           // Gloo's worker threads (c10d's default)
  double heartbeat_s = 0.5;  // how often a rank marks itself alive in the store
};

// MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE as torchrun sets them (MASTER_ADDR
// defaults to 127.0.0.1, the others are required), and LOCAL_RANK with
// LOCAL_WORLD_SIZE where both are set; errors name the variable.
graph::Result<Rendezvous> RendezvousFromEnvironment();

// A loopback port nobody listens on now, for a rendezvous this host starts
// (another process may still take it before rank 0 binds it).
int FreeLoopbackPort();

// Whether nothing on this host listens on TCP `port` (a port in TIME_WAIT
// counts as free, as the store binds with SO_REUSEADDR).
bool PortFreeOnThisHost(int port);

// A started collective; Wait for it before reading or reusing its tensor.
class Work {
 public:
  virtual ~Work() = default;
  // Ok, or why it failed (the missing rank named when there is one).
  virtual graph::Status Wait() = 0;
  // Waits for it to end, ok or not, without the error's diagnosis: before its
  // tensor is freed once another work has already failed.
  virtual void Drain() = 0;
  // Seconds from the start to the end of the work, on this rank's steady clock
  // (both set once Wait returned Ok).
  virtual double started_s() const = 0;
  virtual double finished_s() const = 0;
};

class ProcessGroup {
 public:
  // Connects to the store (rank 0 starts it) and to every other rank; fails,
  // naming the address or the ranks that never came, after r.timeout_s.
  static graph::Result<std::unique_ptr<ProcessGroup>> Connect(const Rendezvous& r);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const;  // within this group
  int world_size() const;
  // A rank of this group as a rank of the whole world.
  int global_rank(int rank) const;

  // Every rank's `settings` (what must agree for the ranks' collectives to
  // match: the model, the strategy and its buckets, the batch, the steps; each
  // a (what, value) pair, in the same order on every rank) compared through
  // the store before the first collective: a rank started otherwise made Gloo
  // abort the process on a mismatched buffer, or a collective time out blaming
  // a rank "not answering". Fails naming the first setting that differs and
  // the two ranks' values. Call once, right after Connect, on every rank.
  graph::Status AgreeOnSettings(const std::vector<std::pair<std::string, std::string>>& settings);

  // A group of some ranks of this one (`members`: ranks of the whole world, in
  // the order that gives their ranks in the new group), with collectives of its
  // own. Every member calls it with the same name and members at the same point
  // of its sequence; other ranks do not call it. Shares the store and the
  // heartbeat: errors name ranks of the whole world.
  graph::Result<std::unique_ptr<ProcessGroup>> Split(const std::string& name,
                                                     const std::vector<int>& members);
  // Seconds on the steady clock that Work's times are measured on.
  static double Now();

  // Starts summing `t` (contiguous, on the CPU) over all ranks, in place.
  std::unique_ptr<Work> StartAllReduce(at::Tensor t);
  graph::Status AllReduce(at::Tensor t);
  // Overwrites `t` on every rank with root's.
  graph::Status Broadcast(at::Tensor t, int root);
  // Sends `send` to `peer` and receives `recv` (same size) from it; the peer
  // calls Exchange with this rank at the same point of its sequence.
  graph::Status Exchange(int peer, at::Tensor send, at::Tensor recv);
  graph::Status Barrier();
  // Point to point, matched by `tag`: a Send waits until `peer` receives it.
  graph::Status Send(int peer, at::Tensor t, int tag);
  graph::Status Receive(int peer, at::Tensor t, int tag);
  // Receives from whichever rank sends first with `tag`; returns that rank.
  // `senders` are the ranks still expected to send: once one of them stops
  // beating for ten heartbeats (5 s) the receive is abandoned and the error names
  // it (Gloo itself waited out the whole timeout for a killed sender).
  graph::Result<int> ReceiveFromAny(at::Tensor t, int tag, const std::vector<int>& senders);

  // The first error a collective hit, with the ranks that stopped beating named
  // (waits up to three heartbeats to tell a slow rank from a missing one).
  graph::Status Explain(const std::string& what, const std::string& error);

 private:
  struct Impl;
  explicit ProcessGroup(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainer
