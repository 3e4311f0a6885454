// async: a parameter server (a thread of rank 0) and Omnivore's compute groups.
#include <ATen/ATen.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/torch_status.h"
#include "trainer/strategy.h"

namespace trainer {
namespace {

constexpr int kPushTag = 0;   // a group's change: n floats, then 1 = done, 0 = change
constexpr int kModelTag = 1;  // the central model back to the group's first rank

// The central model. Rank 0's own group applies changes by a call; the others'
// first ranks by messages to the thread Serve runs.
class Server {
 public:
  // `remote_leaders`: the other groups' first ranks, in `ps`'s numbering.
  Server(at::Tensor initial, ProcessGroup* ps, std::vector<int> remote_leaders)
      : central_(std::move(initial)), ps_(ps), remote_(std::move(remote_leaders)) {
    if (!remote_.empty()) thread_ = std::thread([this] { Serve(); });
  }
  ~Server() {
    if (thread_.joinable()) thread_.join();
  }
  at::Tensor Apply(const at::Tensor& change) {
    std::lock_guard<std::mutex> l(mu_);
    central_.add_(change);
    ++version_;
    return central_.clone();
  }
  // Waits until every remote group said it is done.
  graph::Status Join() {
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> l(mu_);
    return error_;
  }
  graph::Status error() {
    std::lock_guard<std::mutex> l(mu_);
    return error_;
  }
  int64_t version() {
    std::lock_guard<std::mutex> l(mu_);
    return version_;
  }

 private:
  // On its own thread: what LibTorch throws here fails the run, named, rather
  // than ending the process.
  void Serve() {
    graph::Status st =
        runtime::Catching([] { return std::string("serving"); }, [this] { ServeUntilDone(); });
    if (!st.ok()) Fail(st);
  }
  void ServeUntilDone() {
    const int64_t n = central_.numel();
    at::Tensor message = at::empty({n + 1}, at::kFloat);
    // The group leaders still sending (with 4 ranks in 2 groups, rank 2: it
    // was rank 1, which never sends, and the server waited out the timeout).
    std::vector<int> senders = remote_;
    while (!senders.empty()) {
      graph::Result<int> from = ps_->ReceiveFromAny(message, kPushTag, senders);
      if (!from.ok()) return Fail(from.status());
      if (message[n].item<float>() != 0) {
        senders.erase(std::remove(senders.begin(), senders.end(), *from), senders.end());
        continue;
      }
      at::Tensor model = Apply(message.narrow(0, 0, n));
      if (graph::Status st = ps_->Send(*from, model, kModelTag); !st.ok()) return Fail(st);
    }
  }
  void Fail(const graph::Status& st) {
    std::lock_guard<std::mutex> l(mu_);
    error_ = graph::Status(st.code(), "parameter server: " + st.message());
  }

  std::mutex mu_;
  at::Tensor central_;
  int64_t version_ = 0;
  graph::Status error_;
  ProcessGroup* ps_;
  const std::vector<int> remote_;
  std::thread thread_;
};

class AsyncStrategy : public Strategy {
 public:
  AsyncStrategy(const StrategyOptions& o, ProcessGroup* pg, Replica* replica,
                std::unique_ptr<ProcessGroup> group, std::unique_ptr<ProcessGroup> ps,
                std::vector<int> remote_leaders)
      : Strategy(pg, replica), group_(std::move(group)), ps_(std::move(ps)) {
    if (group_->world_size() > 1) {
      reducer_ = std::make_unique<Reducer>(group_.get(), ParameterShapes(*replica), o.buckets);
    }
    before_ = FlattenParameters(*replica);
    if (pg->rank() == 0) {
      server_ = std::make_unique<Server>(before_.clone(), ps_.get(), std::move(remote_leaders));
    }
  }
  bool overlaps() const override { return reducer_ != nullptr; }
  void Start() override {
    if (reducer_) reducer_->Start();
  }
  void OnGradient(int param, const at::Tensor& gradient) override {
    reducer_->OnGradient(param, gradient);
  }
  graph::Status Reduce(double backward_end_s, std::vector<at::Tensor>* gradients,
                       CommTimes* t) override {
    if (!reducer_) return graph::Status::Ok();
    return reducer_->Finish(backward_end_s, gradients, t);
  }
  graph::Status AfterUpdate(int64_t step, CommTimes* t) override {
    double start = ProcessGroup::Now();
    at::Tensor model = FlattenParameters(*replica_);
    if (group_->rank() == 0) {  // the group's first rank talks to the server
      at::Tensor change = model - before_;
      if (server_) {
        GRAPH_RETURN_IF_ERROR(server_->error());
        model = server_->Apply(change);
      } else {
        GRAPH_RETURN_IF_ERROR(ps_->Send(0, at::cat({change, at::zeros({1})}), kPushTag));
        GRAPH_RETURN_IF_ERROR(ps_->Receive(0, model, kModelTag));
      }
    }
    if (group_->world_size() > 1) GRAPH_RETURN_IF_ERROR(group_->Broadcast(model, 0));
    UnflattenParameters(model, replica_);
    before_ = model;
    if (t) {
      t->comm_s += ProcessGroup::Now() - start;
      t->exposed_s += ProcessGroup::Now() - start;
    }
    return graph::Status::Ok();
  }
  graph::Status Finish() override {
    if (server_) return server_->Join();
    if (group_->rank() != 0) return graph::Status::Ok();
    at::Tensor done = at::zeros({before_.numel() + 1});
    done[before_.numel()] = 1;
    return ps_->Send(0, done, kPushTag);
  }

 private:
  std::unique_ptr<ProcessGroup> group_, ps_;
  std::unique_ptr<Reducer> reducer_;
  std::unique_ptr<Server> server_;
  at::Tensor before_;  // the model as the server last sent it
};

}  // namespace

graph::Result<std::unique_ptr<Strategy>> MakeAsyncStrategy(const StrategyOptions& o,
                                                           ProcessGroup* pg, Replica* replica) {
  const int world = pg->world_size();
  const int groups = o.groups > 0 ? o.groups : world;
  if (groups > world) {
    return graph::InvalidArgument("async: " + std::to_string(groups) + " compute groups for " +
                                  std::to_string(world) + " ranks (at most one per rank)");
  }
  // Consecutive ranks form a group; the server's group of all ranks has only
  // the groups' first ranks talking, but every rank joins it (one rendezvous).
  const int mine = pg->rank() * groups / world;
  std::vector<int> members, everyone, remote_leaders;
  for (int r = 0; r < world; ++r) {
    if (r * groups / world == mine) members.push_back(r);
    if (r > 0 && r * groups / world != (r - 1) * groups / world) remote_leaders.push_back(r);
    everyone.push_back(r);
  }
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<ProcessGroup> ps, pg->Split("ps" + o.tag, everyone));
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<ProcessGroup> group,
                         pg->Split("group-" + std::to_string(mine) + o.tag, members));
  return std::unique_ptr<Strategy>(new AsyncStrategy(o, pg, replica, std::move(group),
                                                     std::move(ps), std::move(remote_leaders)));
}

}  // namespace trainer
