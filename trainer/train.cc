#include "trainer/train.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <thread>

#include "data/fashion_mnist.h"
#include "graph/shape_inference.h"
#include "graph/zoo.h"
#include "planner/model_loading.h"
#include "runtime/reference_executor.h"
#include "trainer/checkpoint.h"

namespace trainer {
namespace {

// The model: a file, or a name of the zoo built at the rank's batch size.
graph::Result<planner::LoadedModel> LoadForward(const TrainOptions& o) {
  graph::InferenceOptions inference;
  inference.batch = o.batch;
  if (std::ifstream(o.model).good()) return planner::LoadModel(o.model, inference);
  for (const std::string& name : graph::ZooModels()) {
    if (name != o.model) continue;
    graph::ZooOptions zoo;
    zoo.batch = o.batch;
    GRAPH_ASSIGN_OR_RETURN(graph::Graph g, graph::BuildZooModel(name, zoo));
    planner::LoadedModel m{std::move(g), {}, inference};
    m.report = graph::InferShapes(m.graph, inference);
    return m;
  }
  return graph::NotFound(o.model + ": no such file, nor a model of `planner zoo`");
}

graph::Result<cluster::Cluster> Devices(const TrainOptions& o, int rank) {
  if (!o.devices.empty()) return cluster::LoadDevicesFile(o.devices);
  if (!o.placement.empty()) {
    return graph::InvalidArgument("--placement needs the --devices file it was made for");
  }
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return cluster::ParseDevicesYaml("devices:\n  - {name: cpu0, kind: cpu, cores: [" +
                                       std::to_string(rank % cores) + "], threads: 1}\n",
                                   "the default device (one core per rank)");
}

// Portable Fisher-Yates (std::shuffle's result differs between libraries).
std::vector<int64_t> Permutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  std::mt19937_64 rng(seed);
  for (int64_t i = n; i > 1; --i) std::swap(p[i - 1], p[rng() % i]);
  return p;
}

// Feeds for one step: this rank's slice of the global batch, or synthetic data.
class Batches {
 public:
  static graph::Result<Batches> Create(const TrainOptions& o, const graph::Graph& forward, int rank,
                                       int world) {
    Batches b;
    b.opts_ = o;
    b.rank_ = rank;
    b.world_ = world;
    if (o.data == "synthetic") {
      for (const graph::Node& n : forward.nodes()) {
        if (n.op != "Placeholder" || n.output_shapes.empty()) continue;
        std::vector<int64_t> dims = n.output_shapes[0].dims();
        at::Tensor t = n.output_dtypes[0] == graph::DType::kFloat
                           ? at::randn(dims, at::kFloat)
                           : at::zeros(dims, n.output_dtypes[0] == graph::DType::kInt64 ? at::kLong
                                                                                        : at::kInt);
        b.synthetic_[n.name] = t;
      }
      b.steps_per_epoch_ = 1000;
      return b;
    }
    if (o.data != "fashion-mnist") {
      return graph::InvalidArgument("unknown --data '" + o.data + "' (fashion-mnist, synthetic)");
    }
    for (const char* input : {"images", "labels"}) {
      if (forward.Find(input) < 0) {
        return graph::InvalidArgument(o.model + " has no input '" + input +
                                      "', which Fashion-MNIST feeds: use --data synthetic");
      }
    }
    std::string dir = o.data_dir.empty() ? data::DefaultFashionMnistDir() : o.data_dir;
    GRAPH_ASSIGN_OR_RETURN(b.train_, data::LoadFashionMnist(dir, true));
    GRAPH_ASSIGN_OR_RETURN(b.test_, data::LoadFashionMnist(dir, false));
    b.steps_per_epoch_ = b.train_.count / (o.batch * world);
    if (b.steps_per_epoch_ == 0) return graph::InvalidArgument("the batch exceeds the data set");
    return b;
  }
  int64_t steps_per_epoch() const { return steps_per_epoch_; }
  bool has_test_set() const { return test_.count > 0; }

  graph::Status Train(int64_t epoch, int64_t step_in_epoch, std::map<std::string, at::Tensor>* f) {
    if (!synthetic_.empty()) {
      *f = synthetic_;
      return graph::Status::Ok();
    }
    if (epoch != order_epoch_) {
      order_ = Permutation(train_.count, opts_.seed * 7919 + static_cast<uint64_t>(epoch));
      order_epoch_ = epoch;
    }
    int64_t from = (step_in_epoch * world_ + rank_) * opts_.batch;
    std::vector<int64_t> idx(order_.begin() + from, order_.begin() + from + opts_.batch);
    return Fill(train_, idx, f);
  }
  // Test batches of the model's batch size; the remainder is left out.
  int64_t test_batches() const { return test_.count / opts_.batch; }
  graph::Status Test(int64_t k, std::map<std::string, at::Tensor>* f) {
    std::vector<int64_t> idx(opts_.batch);
    for (int64_t i = 0; i < opts_.batch; ++i) idx[i] = k * opts_.batch + i;
    return Fill(test_, idx, f);
  }

 private:
  graph::Status Fill(const data::Dataset& d, const std::vector<int64_t>& idx,
                     std::map<std::string, at::Tensor>* f) {
    GRAPH_RETURN_IF_ERROR(data::FillBatch(d, idx, &images_, &labels_));
    int64_t b = static_cast<int64_t>(idx.size());
    (*f)["images"] = at::from_blob(images_.data(), {b, d.rows, d.cols, 1}, at::kFloat).clone();
    (*f)["labels"] = at::from_blob(labels_.data(), {b}, at::kInt).clone();
    return graph::Status::Ok();
  }
  TrainOptions opts_;
  int rank_ = 0, world_ = 1;
  data::Dataset train_, test_;
  std::map<std::string, at::Tensor> synthetic_;
  int64_t steps_per_epoch_ = 0;
  std::vector<int64_t> order_;
  int64_t order_epoch_ = -1;
  std::vector<float> images_;
  std::vector<int32_t> labels_;
};

// Test accuracy of `params` (by name) on the forward graph.
graph::Result<double> Evaluate(const graph::Graph& forward, const std::string& logits,
                               const std::vector<std::pair<std::string, at::Tensor>>& params,
                               Batches* batches) {
  GRAPH_ASSIGN_OR_RETURN(runtime::ReferenceExecutor ex,
                         runtime::ReferenceExecutor::Create(forward));
  for (const auto& [name, t] : params) ex.set_state(name, t);
  int64_t correct = 0, seen = 0;
  for (int64_t k = 0; k < batches->test_batches(); ++k) {
    std::map<std::string, at::Tensor> f;
    GRAPH_RETURN_IF_ERROR(batches->Test(k, &f));
    std::vector<at::Tensor> out;
    GRAPH_RETURN_IF_ERROR(ex.Run(f, {logits}, &out));
    correct += out[0].argmax(1).eq(f["labels"].to(at::kLong)).sum().item<int64_t>();
    seen += f["labels"].size(0);
  }
  return seen ? static_cast<double>(correct) / seen : 0.0;
}

}  // namespace

std::string StepTimesLine(const TrainReport& r) {
  double n = std::max<int64_t>(r.steps, 1);
  char buf[256];
  double share = r.comm_s > 0 ? 100 * r.exposed_s / r.comm_s : 0;
  std::snprintf(buf, sizeof buf,
                "t_f %.2f ms, t_b %.2f ms, t_comm %.2f ms (%.2f ms not overlapped, %.0f%%), "
                "update %.2f ms per step",
                1e3 * r.forward_s / n, 1e3 * r.backward_s / n, 1e3 * r.comm_s / n,
                1e3 * r.exposed_s / n, share, 1e3 * r.update_s / n);
  return buf;
}

graph::Result<TrainReport> Train(const TrainOptions& o, const Rendezvous& rendezvous) {
  at::set_num_threads(1);
  const int rank = rendezvous.rank, world = rendezvous.world_size;
  auto say = [&](const std::string& line) {
    if (rank != 0 || o.quiet) return;
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };
  GRAPH_ASSIGN_OR_RETURN(planner::LoadedModel model, LoadForward(o));
  GRAPH_ASSIGN_OR_RETURN(cluster::Cluster devices, Devices(o, rank));
  graph::TrainingOptions topts;
  topts.optimizer = o.optimizer;
  topts.learning_rate = o.learning_rate;
  topts.momentum = o.momentum;
  graph::Graph forward = model.graph;
  GRAPH_ASSIGN_OR_RETURN(
      planner::PlacedTraining placed,
      planner::PlaceTraining(std::move(model), o.model, std::move(devices), o.placement, topts));
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Replica> replica,
                         Replica::Create(placed.training, placed.cluster, placed.device_of_node));
  GRAPH_ASSIGN_OR_RETURN(Batches batches, Batches::Create(o, forward, rank, world));
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<ProcessGroup> pg, ProcessGroup::Connect(rendezvous));
  CheckpointPosition at;
  if (o.resume) {
    GRAPH_ASSIGN_OR_RETURN(
        at, ReadCheckpoint(CheckpointPath(o.checkpoint_dir, rank), replica->State()));
    say("resumed from " + CheckpointPath(o.checkpoint_dir, rank) + " at step " +
        std::to_string(at.step));
  }
  // Every rank starts from rank 0's model (as DDP does), unless each resumes its own.
  if (!o.resume || o.strategy.name == "sync") {
    for (int i = 0; i < replica->num_parameters(); ++i) {
      GRAPH_RETURN_IF_ERROR(pg->Broadcast(replica->parameter(i), 0));
    }
  }
  GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Strategy> strategy,
                         MakeStrategy(o.strategy, pg.get(), replica.get()));
  say("training " + o.model + " on " + std::to_string(world) + " rank(s), strategy " +
      o.strategy.name + ", batch " + std::to_string(o.batch) + " per rank, placement " +
      placed.method + ", " + std::to_string(batches.steps_per_epoch()) + " steps per epoch");

  TrainReport report;
  const int64_t spe = batches.steps_per_epoch();
  const int64_t total = o.max_steps > 0 ? o.max_steps : o.epochs * spe;
  double window_loss = 0;
  int64_t window = 0;
  auto checkpoint = [&](int64_t step) -> graph::Status {
    if (o.checkpoint_dir.empty()) return graph::Status::Ok();
    return WriteCheckpoint(CheckpointPath(o.checkpoint_dir, rank), {step, step / spe},
                           replica->State());
  };
  auto evaluate = [&](int64_t step, bool* stop) -> graph::Status {
    at::Tensor flag = at::zeros({1}, at::kFloat);
    if (rank == 0 && batches.has_test_set()) {
      std::vector<std::pair<std::string, at::Tensor>> params;
      std::vector<at::Tensor> evaluated = strategy->EvaluatedParameters();
      for (int i = 0; i < replica->num_parameters(); ++i) {
        params.push_back({replica->parameter_name(i), evaluated[i]});
      }
      GRAPH_ASSIGN_OR_RETURN(double acc, Evaluate(forward, o.logits, params, &batches));
      report.evaluations.push_back({step, report.train_s, acc});
      char buf[160];
      std::snprintf(buf, sizeof buf, "step %lld (epoch %.2f): test accuracy %.2f%% after %.1f s",
                    static_cast<long long>(step), static_cast<double>(step) / spe, 100 * acc,
                    report.train_s);
      say(buf);
      if (o.target_accuracy > 0 && acc >= o.target_accuracy) flag.fill_(1);
    }
    // Rank 0 decides for all: the others stop at the same step.
    GRAPH_RETURN_IF_ERROR(pg->Broadcast(flag, 0));
    *stop = flag.item<float>() > 0;
    return graph::Status::Ok();
  };

  std::vector<at::Tensor> gradients;
  Replica::GradientReady on_gradient;
  if (strategy->overlaps()) {
    on_gradient = [&](int p, const at::Tensor& g) { strategy->OnGradient(p, g); };
  }
  for (int64_t step = at.step; step < total; ++step) {
    std::map<std::string, at::Tensor> feeds;
    GRAPH_RETURN_IF_ERROR(batches.Train(step / spe, step % spe, &feeds));
    double t0 = ProcessGroup::Now();
    strategy->Start();
    double loss = 0;
    ComputeTimes ct;
    GRAPH_RETURN_IF_ERROR(replica->Compute(feeds, on_gradient, &gradients, &loss, &ct));
    double backward_end = ProcessGroup::Now();
    CommTimes comm;
    GRAPH_RETURN_IF_ERROR(strategy->Reduce(backward_end, &gradients, &comm));
    double u0 = ProcessGroup::Now();
    GRAPH_RETURN_IF_ERROR(replica->Update(gradients));
    double u1 = ProcessGroup::Now();
    GRAPH_RETURN_IF_ERROR(strategy->AfterUpdate(step, &comm));
    report.train_s += ProcessGroup::Now() - t0;
    report.forward_s += ct.forward_s;
    report.backward_s += ct.backward_s;
    report.comm_s += comm.comm_s;
    report.exposed_s += comm.exposed_s;
    report.update_s += u1 - u0;
    report.examples += o.batch * world;
    ++report.steps;
    window_loss += loss;
    ++window;
    if (o.log_every > 0 && (step + 1) % o.log_every == 0) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "step %lld/%lld: loss %.4f, %.0f images/s",
                    static_cast<long long>(step + 1), static_cast<long long>(total),
                    window_loss / window, report.images_per_s());
      say(buf);
    }
    if (window > 0 && (o.log_every == 0 || (step + 1) % o.log_every == 0 || step + 1 == total)) {
      if (report.first_loss == 0) report.first_loss = window_loss / window;
      report.final_loss = window_loss / window;
      window_loss = 0;
      window = 0;
    }
    bool epoch_end = (step + 1) % spe == 0 || step + 1 == total;
    if ((o.checkpoint_every > 0 && (step + 1) % o.checkpoint_every == 0) || epoch_end) {
      GRAPH_RETURN_IF_ERROR(checkpoint(step + 1));
    }
    bool eval = !o.evaluate        ? false
                : o.eval_every > 0 ? (step + 1) % o.eval_every == 0 || step + 1 == total
                                   : epoch_end;
    if (eval) {
      bool stop = false;
      GRAPH_RETURN_IF_ERROR(evaluate(step + 1, &stop));
      if (stop) break;
    }
  }
  GRAPH_RETURN_IF_ERROR(strategy->Finish());
  GRAPH_RETURN_IF_ERROR(pg->Barrier());  // no rank leaves (and takes the store) early
  return report;
}

}  // namespace trainer
