#include "trainer/process_group.h"

#include <c10/util/Logging.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <vector>

namespace trainer {
namespace {

using Ms = std::chrono::milliseconds;

Ms ToMs(double s) { return Ms(static_cast<int64_t>(s * 1000)); }

// c10d logs a failure (a port in use, a store that does not answer) on stderr
// before it throws it, and we translate what it throws into one line: its log
// lines below fatal are silenced, once per process, before the first
// connection (glog's level where LibTorch logs through glog, as Debian's does,
// else c10's own). A level the user asked for (GLOG_minloglevel,
// TORCH_CPP_LOG_LEVEL) is left as it is.
void QuietC10dLogging() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("GLOG_minloglevel") || std::getenv("TORCH_CPP_LOG_LEVEL")) return;
#ifdef C10_USE_GLOG
    FLAGS_minloglevel = google::GLOG_FATAL;
#else
    FLAGS_caffe2_log_level = c10::GLOG_FATAL;
#endif
  });
}

// c10d's messages carry a C++ backtrace after the first line: keep the line.
std::string FirstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.empty() ? "unknown error" : line;
}

// c10d's store client runs a thread of its own (TCPStore's callback client in
// LibTorch 1.13) that throws when its connection is reset (a MASTER_PORT that
// belongs to something else, which accepted and then closed): nothing here can
// catch it, and the process ended in std::terminate with a raw "terminate
// called after throwing" line. The rank stops with one line naming the store.
// An exception left uncaught on the rank's own (main) thread is not the
// store's: it is named as what it is.
std::string g_store_address;  // set before the first store connects
int g_rank = -1;
std::thread::id g_main_thread;
[[noreturn]] void StoreThreadDied() {
  std::string what = "an unknown error";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = FirstLine(x.what());
    } catch (...) {
    }
  }
  if (std::this_thread::get_id() == g_main_thread) {
    std::fprintf(stderr, "trainer train: rank %d: internal error: %s\n", g_rank, what.c_str());
  } else {
    std::fprintf(stderr,
                 "trainer train: rank %d: the connection to the rendezvous store at %s broke "
                 "(c10d: %s)\n",
                 g_rank, g_store_address.c_str(), what.c_str());
  }
  std::fflush(stderr);
  std::_Exit(1);
}

std::string AliveKey(int rank) { return "trainer/alive/" + std::to_string(rank); }

graph::Result<int> IntFromEnv(const char* name, int lo, int hi) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    return graph::InvalidArgument(std::string("environment variable ") + name + " is not set");
  }
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi) {
    return graph::InvalidArgument(std::string("environment variable ") + name + "='" + v +
                                  "' is not an integer in [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "]");
  }
  return static_cast<int>(x);
}

class GlooWork : public Work {
 public:
  GlooWork(ProcessGroup* pg, c10::intrusive_ptr<c10d::Work> work, std::string what, double start)
      : pg_(pg), work_(std::move(work)), what_(std::move(what)), start_(start) {
    if (work_) {
      // Timed by c10d's future, which completes on Gloo's thread as the data
      // lands; the callback may outlive this object, hence the shared clock.
      work_->getFuture()->addCallback(
          [end = end_](c10::ivalue::Future&) { end->store(ProcessGroup::Now()); });
    }
  }
  graph::Status Wait() override {
    if (!error_.empty()) return pg_->Explain(what_, error_);
    try {
      work_->wait();
    } catch (const std::exception& e) {
      return pg_->Explain(what_, e.what());
    }
    // The future's callback may run just after wait() returns.
    if (end_->load() == 0) end_->store(ProcessGroup::Now());
    return graph::Status::Ok();
  }
  void Drain() override {
    if (!work_) return;
    try {
      work_->wait();
    } catch (const std::exception&) {
    }
  }
  double started_s() const override { return start_; }
  double finished_s() const override { return end_->load(); }
  void set_error(std::string e) { error_ = std::move(e); }

 private:
  ProcessGroup* pg_;
  c10::intrusive_ptr<c10d::Work> work_;
  std::string what_;
  std::string error_;
  double start_;
  std::shared_ptr<std::atomic<double>> end_ = std::make_shared<std::atomic<double>>(0);
};

}  // namespace

// The heartbeat's own store connection, shared by a group and its subgroups.
struct Liveness {
  c10::intrusive_ptr<c10d::TCPStore> store;
  std::mutex mu;  // guards store: the heartbeat thread and Explain use it
};

struct ProcessGroup::Impl {
  Rendezvous r;                           // rank and world_size: within this group
  std::vector<int> global;                // this group's ranks as ranks of the whole world
  c10::intrusive_ptr<c10d::Store> store;  // the rendezvous; rank 0's serves it
  std::shared_ptr<Liveness> live;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> pg;
  std::mutex stop_mu;
  std::condition_variable stop_cv;
  bool stop = false;
  std::thread heartbeat;  // the whole world's group only
  std::string store_address() const { return r.master_addr + ":" + std::to_string(r.master_port); }

  void Beat() {
    const int me = global[r.rank];
    for (int64_t n = 1;; ++n) {
      {
        std::lock_guard<std::mutex> l(live->mu);
        try {
          std::string v = std::to_string(n);
          live->store->set(AliveKey(me), std::vector<uint8_t>(v.begin(), v.end()));
        } catch (const std::exception&) {
          return;  // the store is gone; Explain says so when it matters
        }
      }
      std::unique_lock<std::mutex> l(stop_mu);
      if (stop_cv.wait_for(l, ToMs(r.heartbeat_s), [&] { return stop; })) return;
    }
  }

  // Each other member's heartbeat count, by global rank; -1 where it cannot be
  // read. False when the store itself cannot be reached.
  bool ReadBeats(std::vector<int64_t>* beats) {
    std::lock_guard<std::mutex> l(live->mu);
    beats->assign(global.size(), -1);
    try {
      for (size_t k = 0; k < global.size(); ++k) {
        if (static_cast<int>(k) == r.rank || !live->store->check({AliveKey(global[k])})) continue;
        std::vector<uint8_t> v = live->store->get(AliveKey(global[k]));
        (*beats)[k] = std::atoll(std::string(v.begin(), v.end()).c_str());
      }
    } catch (const std::exception&) {
      return false;
    }
    return true;
  }
};

ProcessGroup::ProcessGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ProcessGroup::~ProcessGroup() {
  {
    std::lock_guard<std::mutex> l(impl_->stop_mu);
    impl_->stop = true;
  }
  impl_->stop_cv.notify_all();
  if (impl_->heartbeat.joinable()) impl_->heartbeat.join();
}

double ProcessGroup::Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = c10d::TCPStoreOptions::kDefaultPort;
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  if (fd >= 0) close(fd);
  return port;
}

bool PortFreeOnThisHost(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return true;  // cannot tell: let the store say
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  a.sin_port = htons(static_cast<uint16_t>(port));
  const bool free = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 || errno != EADDRINUSE;
  close(fd);
  return free;
}

graph::Result<Rendezvous> RendezvousFromEnvironment() {
  Rendezvous r;
  if (const char* a = std::getenv("MASTER_ADDR"); a && *a) r.master_addr = a;
  GRAPH_ASSIGN_OR_RETURN(r.master_port, IntFromEnv("MASTER_PORT", 1, 65535));
  GRAPH_ASSIGN_OR_RETURN(r.world_size, IntFromEnv("WORLD_SIZE", 1, 1 << 16));
  GRAPH_ASSIGN_OR_RETURN(r.rank, IntFromEnv("RANK", 0, r.world_size - 1));
  const char* local = std::getenv("LOCAL_RANK");
  const char* local_world = std::getenv("LOCAL_WORLD_SIZE");
  if (local && *local && local_world && *local_world) {
    GRAPH_ASSIGN_OR_RETURN(r.local_world_size, IntFromEnv("LOCAL_WORLD_SIZE", 1, r.world_size));
    GRAPH_ASSIGN_OR_RETURN(r.local_rank, IntFromEnv("LOCAL_RANK", 0, r.local_world_size - 1));
  }
  return r;
}

graph::Result<std::unique_ptr<ProcessGroup>> ProcessGroup::Connect(const Rendezvous& r) {
  if (r.world_size < 1 || r.rank < 0 || r.rank >= r.world_size) {
    return graph::InvalidArgument("rank " + std::to_string(r.rank) + " is outside a world of " +
                                  std::to_string(r.world_size));
  }
  QuietC10dLogging();
  auto impl = std::make_unique<Impl>();
  impl->r = r;
  for (int k = 0; k < r.world_size; ++k) impl->global.push_back(k);
  impl->live = std::make_shared<Liveness>();
  g_store_address = impl->store_address();
  g_rank = r.rank;
  g_main_thread = std::this_thread::get_id();
  std::set_terminate(StoreThreadDied);
  c10d::TCPStoreOptions o;
  o.port = static_cast<uint16_t>(r.master_port);
  o.isServer = r.rank == 0;
  o.waitWorkers = false;  // ProcessGroupGloo's own rendezvous waits for the ranks
  o.timeout = ToMs(r.timeout_s);
  try {
    impl->store = c10::make_intrusive<c10d::TCPStore>(r.master_addr, o);
    o.isServer = false;
    impl->live->store = c10::make_intrusive<c10d::TCPStore>(r.master_addr, o);
    std::string zero = "0";
    impl->live->store->set(AliveKey(r.rank), std::vector<uint8_t>(zero.begin(), zero.end()));
  } catch (const std::exception& e) {
    return graph::Status(graph::StatusCode::kUnavailable,
                         std::string(r.rank == 0 ? "cannot serve" : "cannot reach") +
                             " the rendezvous store at " + impl->store_address() + ": " +
                             FirstLine(e.what()));
  }
  try {
    auto opts = c10d::ProcessGroupGloo::Options::create(ToMs(r.timeout_s));
    bool loopback = r.master_addr == "127.0.0.1" || r.master_addr == "localhost";
    opts->devices.push_back(loopback ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                     : c10d::ProcessGroupGloo::createDefaultDevice());
    opts->threads = r.threads;
    impl->pg = c10::make_intrusive<c10d::ProcessGroupGloo>(impl->store, r.rank, r.world_size, opts);
  } catch (const std::exception& e) {
    return graph::Status(graph::StatusCode::kUnavailable,
                         "rank " + std::to_string(r.rank) + ": not every one of the " +
                             std::to_string(r.world_size) + " ranks joined at " +
                             impl->store_address() + " within " +
                             std::to_string(static_cast<int>(r.timeout_s)) +
                             " s: " + FirstLine(e.what()));
  }
  Impl* raw = impl.get();
  impl->heartbeat = std::thread([raw] { raw->Beat(); });
  return std::unique_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
}

graph::Status ProcessGroup::AgreeOnSettings(
    const std::vector<std::pair<std::string, std::string>>& settings) {
  auto key = [](int rank) { return "trainer/settings/" + std::to_string(rank); };
  std::string mine;
  for (const auto& [what, value] : settings) mine += what + '\t' + value + '\n';
  const int me = impl_->global[impl_->r.rank];
  try {
    impl_->store->set(key(me), std::vector<uint8_t>(mine.begin(), mine.end()));
    for (int k : impl_->global) {
      if (k == me) continue;
      const std::vector<uint8_t> bytes = impl_->store->get(key(k));  // waits for rank k
      std::istringstream theirs(std::string(bytes.begin(), bytes.end()));
      std::string line;
      for (const auto& [what, value] : settings) {
        std::getline(theirs, line);
        const size_t tab = line.find('\t');
        const std::string other = tab == std::string::npos ? line : line.substr(tab + 1);
        if (line.substr(0, tab) == what && other == value) continue;
        return graph::InvalidArgument("rank " + std::to_string(k) + "'s " + what + " is " + other +
                                      ", this rank's (" + std::to_string(me) + ") " + value +
                                      ": start every rank with the same settings");
      }
    }
  } catch (const std::exception& e) {
    return graph::Status(graph::StatusCode::kUnavailable,
                         "rank " + std::to_string(me) + ": the ranks' settings were not all at " +
                             impl_->store_address() + ": " + FirstLine(e.what()));
  }
  return graph::Status::Ok();
}

int ProcessGroup::rank() const { return impl_->r.rank; }
int ProcessGroup::global_rank(int rank) const { return impl_->global[rank]; }

graph::Result<std::unique_ptr<ProcessGroup>> ProcessGroup::Split(const std::string& name,
                                                                 const std::vector<int>& members) {
  int me = -1;
  for (size_t k = 0; k < members.size(); ++k) {
    if (members[k] == impl_->global[impl_->r.rank]) me = static_cast<int>(k);
  }
  assert(me >= 0 && "Split by a rank that is not a member");
  auto impl = std::make_unique<Impl>();
  impl->r = impl_->r;
  impl->r.rank = me;
  impl->r.world_size = static_cast<int>(members.size());
  impl->global = members;
  impl->live = impl_->live;
  impl->store = c10::make_intrusive<c10d::PrefixStore>("trainer/" + name, impl_->store);
  try {
    auto opts = c10d::ProcessGroupGloo::Options::create(ToMs(impl->r.timeout_s));
    opts->devices = impl_->pg->getOptions()->devices;
    opts->threads = impl->r.threads;
    impl->pg =
        c10::make_intrusive<c10d::ProcessGroupGloo>(impl->store, me, impl->r.world_size, opts);
  } catch (const std::exception& e) {
    return Explain("forming group '" + name + "'", e.what());
  }
  return std::unique_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
}

graph::Status ProcessGroup::Send(int peer, at::Tensor t, int tag) {
  std::vector<at::Tensor> ts{std::move(t)};
  try {
    impl_->pg->send(ts, peer, tag)->wait();
  } catch (const std::exception& e) {
    return Explain("send to rank " + std::to_string(impl_->global[peer]), e.what());
  }
  return graph::Status::Ok();
}

graph::Status ProcessGroup::Receive(int peer, at::Tensor t, int tag) {
  std::vector<at::Tensor> ts{std::move(t)};
  try {
    impl_->pg->recv(ts, peer, tag)->wait();
  } catch (const std::exception& e) {
    return Explain("receive from rank " + std::to_string(impl_->global[peer]), e.what());
  }
  return graph::Status::Ok();
}

namespace {

// Heartbeats a sender may miss before a receive from any rank gives up on it:
// more than Explain's three, as this watch acts before any error (a live rank's
// heartbeat thread starved on a loaded machine must not end the run).
constexpr int kSilentBeats = 10;

// Watches the heartbeats of `senders` while a receive from any rank waits, and
// aborts the receive once one of them has not beaten for kSilentBeats heartbeats
// (or the store is gone). Gloo notices a killed peer in a collective at once, but
// a receive from any rank waited out the whole --timeout. Joined on destruction.
class SenderWatch {
 public:
  using ReadBeats = std::function<bool(std::vector<int64_t>*)>;
  SenderWatch(ReadBeats read, std::vector<int> senders, double heartbeat_s,
              c10::intrusive_ptr<c10d::Work> work)
      : read_(std::move(read)),
        senders_(std::move(senders)),
        heartbeat_s_(heartbeat_s),
        work_(std::move(work)) {
    thread_ = std::thread([this] { Watch(); });
  }
  ~SenderWatch() {
    {
      std::lock_guard<std::mutex> l(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  int silent() const { return silent_; }  // the sender found silent, or -1

 private:
  void Watch() {
    std::vector<int64_t> last, now;
    if (!read_(&last)) return;
    std::vector<double> changed(last.size(), ProcessGroup::Now());
    for (;;) {
      std::unique_lock<std::mutex> l(mu_);
      if (cv_.wait_for(l, ToMs(heartbeat_s_), [&] { return done_; })) return;
      l.unlock();
      if (!read_(&now)) return;  // the store is gone: the receive's own error says so
      const double t = ProcessGroup::Now();
      for (int k : senders_) {
        if (now[k] != last[k]) changed[k] = t;
        if (t - changed[k] > kSilentBeats * heartbeat_s_) {
          silent_ = k;
          work_->abort();
          return;
        }
      }
      last = now;
    }
  }

  ReadBeats read_;
  std::vector<int> senders_;
  double heartbeat_s_;
  c10::intrusive_ptr<c10d::Work> work_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<int> silent_{-1};
  std::thread thread_;
};

}  // namespace

graph::Result<int> ProcessGroup::ReceiveFromAny(at::Tensor t, int tag,
                                                const std::vector<int>& senders) {
  std::vector<at::Tensor> ts{std::move(t)};
  int silent = -1;
  try {
    auto w = impl_->pg->recvAnysource(ts, tag);
    {
      SenderWatch watch([this](std::vector<int64_t>* b) { return impl_->ReadBeats(b); }, senders,
                        impl_->r.heartbeat_s, w);
      try {
        w->wait();
      } catch (const std::exception&) {
        silent = watch.silent();
        if (silent < 0) throw;
      }
    }
    if (silent < 0) return w->sourceRank();
  } catch (const std::exception& e) {
    return Explain("receive", e.what());
  }
  char waited[32];
  std::snprintf(waited, sizeof waited, "%.1f", kSilentBeats * impl_->r.heartbeat_s);
  return graph::Status(graph::StatusCode::kUnavailable,
                       "rank " + std::to_string(impl_->global[impl_->r.rank]) +
                           ": receive failed: rank " + std::to_string(impl_->global[silent]) +
                           " stopped answering (no heartbeat in " + waited + " s: dead or hung)");
}
int ProcessGroup::world_size() const { return impl_->r.world_size; }

graph::Status ProcessGroup::Explain(const std::string& what, const std::string& error) {
  const Rendezvous& r = impl_->r;
  std::string prefix = "rank " + std::to_string(impl_->global[r.rank]) + ": " + what + " failed: ";
  std::string cause = "c10d: " + FirstLine(error);
  std::vector<int64_t> before, after;
  bool reached = impl_->ReadBeats(&before);
  if (reached) {
    std::this_thread::sleep_for(ToMs(3 * r.heartbeat_s));
    reached = impl_->ReadBeats(&after);
  }
  if (!reached) {
    return graph::Status(graph::StatusCode::kUnavailable,
                         prefix + "the rendezvous store at " + impl_->store_address() +
                             (r.rank == 0 ? "" : ", served by rank 0,") +
                             " cannot be reached: rank 0 is gone (" + cause + ")");
  }
  std::string missing;
  int count = 0;
  for (int k = 0; k < r.world_size; ++k) {
    if (k == r.rank || (after[k] >= 0 && after[k] != before[k])) continue;
    missing += (missing.empty() ? "" : ", ") + std::to_string(impl_->global[k]);
    ++count;
  }
  if (count == 0) return graph::Status(graph::StatusCode::kUnavailable, prefix + cause);
  char waited[32];
  std::snprintf(waited, sizeof waited, "%.1f", 3 * r.heartbeat_s);
  return graph::Status(graph::StatusCode::kUnavailable,
                       prefix + (count == 1 ? "rank " : "ranks ") + missing +
                           " stopped answering (no heartbeat in " + waited + " s: dead or hung) (" +
                           cause + ")");
}

std::unique_ptr<Work> ProcessGroup::StartAllReduce(at::Tensor t) {
  double start = Now();
  std::vector<at::Tensor> ts{std::move(t)};
  try {
    return std::make_unique<GlooWork>(this, impl_->pg->allreduce(ts), "all-reduce", start);
  } catch (const std::exception& e) {
    auto w =
        std::make_unique<GlooWork>(this, c10::intrusive_ptr<c10d::Work>(), "all-reduce", start);
    w->set_error(e.what());
    return w;
  }
}

graph::Status ProcessGroup::AllReduce(at::Tensor t) { return StartAllReduce(std::move(t))->Wait(); }

graph::Status ProcessGroup::Broadcast(at::Tensor t, int root) {
  std::vector<at::Tensor> ts{std::move(t)};
  c10d::BroadcastOptions o;
  o.rootRank = root;
  try {
    impl_->pg->broadcast(ts, o)->wait();
  } catch (const std::exception& e) {
    return Explain("broadcast", e.what());
  }
  return graph::Status::Ok();
}

graph::Status ProcessGroup::Exchange(int peer, at::Tensor send, at::Tensor recv) {
  std::vector<at::Tensor> s{std::move(send)}, r{std::move(recv)};
  try {
    // Gloo's send and recv are asynchronous: both are posted before either waits.
    auto sw = impl_->pg->send(s, peer, 0);
    auto rw = impl_->pg->recv(r, peer, 0);
    sw->wait();
    rw->wait();
  } catch (const std::exception& e) {
    return Explain("exchange with rank " + std::to_string(global_rank(peer)), e.what());
  }
  return graph::Status::Ok();
}

graph::Status ProcessGroup::Barrier() {
  try {
    impl_->pg->barrier()->wait();
  } catch (const std::exception& e) {
    return Explain("barrier", e.what());
  }
  return graph::Status::Ok();
}

}  // namespace trainer
