#include "trainer/train.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <thread>

#include "data/fashion_mnist.h"
#include "frontend/model_loading.h"
#include "graph/shape_inference.h"
#include "graph/zoo.h"
#include "placement/placement.h"
#include "runtime/reference_executor.h"
#include "runtime/torch_status.h"
#include "trainer/checkpoint.h"
#include "trainer/rank_devices.h"

namespace trainer {
namespace {

// The model: a file, or a name of the zoo built at the rank's batch size.
graph::Result<frontend::LoadedModel> LoadForward(const TrainOptions& o) {
  graph::InferenceOptions inference;
  inference.batch = o.batch;
  if (std::ifstream(o.model).good()) return frontend::LoadModel(o.model, inference);
  for (const std::string& name : graph::ZooModels()) {
    if (name != o.model) continue;
    graph::ZooOptions zoo;
    zoo.batch = o.batch;
    GRAPH_ASSIGN_OR_RETURN(graph::Graph g, graph::BuildZooModel(name, zoo));
    frontend::LoadedModel m{std::move(g), {}, inference};
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
        // A model whose inputs have a fixed batch (an ONNX export) is fed that
        // batch; the first input's leading dim counts. A --batch it cannot take
        // is refused rather than silently trained at the model's.
        if (b.examples_ == 0) {
          b.examples_ = dims.empty() ? 1 : dims[0];
          if (o.batch_given && b.examples_ != o.batch) {
            return graph::InvalidArgument(
                o.model + ": --batch " + std::to_string(o.batch) + " does not fit input '" +
                n.name + "' of fixed shape " + n.output_shapes[0].ToString() +
                " (export the model with a dynamic batch axis, or leave --batch out)");
          }
        }
      }
      if (b.examples_ <= 0) b.examples_ = o.batch;
      b.steps_per_epoch_ = 1000;
      return b;
    }
    GRAPH_RETURN_IF_ERROR(CheckTrainData(o.data));
    for (const char* input : {"images", "labels"}) {
      if (forward.Find(input) < 0) {
        return graph::InvalidArgument(o.model + " has no input '" + input +
                                      "', which Fashion-MNIST feeds: use --data synthetic");
      }
    }
    // A model whose images have a fixed batch (planner zoo --batch 32) trains
    // at it, as with synthetic data; it failed mid-step at the default --batch.
    const graph::Node& images = forward.node(forward.Find("images"));
    if (!images.output_shapes.empty() && images.output_shapes[0].rank() > 0 &&
        images.output_shapes[0].dim(0) > 0 && images.output_shapes[0].dim(0) != o.batch) {
      if (o.batch_given) {
        return graph::InvalidArgument(
            o.model + ": --batch " + std::to_string(o.batch) + " does not fit input 'images' of " +
            "fixed shape " + images.output_shapes[0].ToString() +
            " (make the model with another batch, or leave --batch out)");
      }
      b.opts_.batch = images.output_shapes[0].dim(0);
    }
    std::string dir = o.data_dir.empty() ? data::DefaultFashionMnistDir() : o.data_dir;
    GRAPH_ASSIGN_OR_RETURN(b.train_, data::LoadFashionMnist(dir, true));
    if (rank == 0) {  // the one that evaluates
      GRAPH_ASSIGN_OR_RETURN(b.test_, data::LoadFashionMnist(dir, false));
    }
    b.steps_per_epoch_ = b.train_.count / (b.opts_.batch * world);
    if (b.steps_per_epoch_ == 0) return graph::InvalidArgument("the batch exceeds the data set");
    return b;
  }
  int64_t steps_per_epoch() const { return steps_per_epoch_; }
  // Examples one training batch feeds.
  int64_t examples() const { return synthetic_.empty() ? opts_.batch : examples_; }
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
  int64_t examples_ = 0;  // synthetic: the batch the model's inputs hold
  int64_t steps_per_epoch_ = 0;
  std::vector<int64_t> order_;
  int64_t order_epoch_ = -1;
  std::vector<float> images_;
  std::vector<int32_t> labels_;
};

// Test accuracy of `params` (by name) on the forward graph.
graph::Result<double> TestAccuracy(const graph::Graph& forward, const std::string& logits,
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
    // A model whose logits are not [batch, classes] fails here, said in one
    // line naming the node (thrown, it ended the rank after an interval's training).
    GRAPH_RETURN_IF_ERROR(runtime::Catching(
        [&] {
          return "test accuracy from '" + logits + "' of shape " + c10::str(out[0].sizes()) +
                 " against labels of shape " + c10::str(f["labels"].sizes());
        },
        [&] {
          correct += out[0].argmax(1).eq(f["labels"].to(at::kLong)).sum().item<int64_t>();
          seen += f["labels"].size(0);
        }));
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

namespace {

// One rank's run: the model, devices, data and process group, from which
// replicas (one per learning rate and momentum) and strategies are made.
class Run {
 public:
  Run(const TrainOptions& o, const Rendezvous& r)
      : o_(o),
        rank_(r.rank),
        world_(r.world_size),
        local_rank_(r.local_rank),
        local_world_(r.local_world_size) {}

  graph::Status Setup(const Rendezvous& r) {
    GRAPH_ASSIGN_OR_RETURN(model_, LoadForward(o_));
    GRAPH_ASSIGN_OR_RETURN(devices_, Devices(o_, rank_));
    rank_devices_ = devices_;
    if (!o_.devices.empty() && !o_.shared_devices) {
      rank_devices_ = DevicesOfLocalRank(devices_, local_rank_, local_world_, ThisHost(devices_),
                                         &devices_note_);
    }
    GRAPH_ASSIGN_OR_RETURN(batches_, Batches::Create(o_, model_.graph, rank_, world_));
    GRAPH_ASSIGN_OR_RETURN(pg_, ProcessGroup::Connect(r));
    return pg_->AgreeOnSettings(Settings());
  }

  // What every rank must run alike for their collectives to match.
  std::vector<std::pair<std::string, std::string>> Settings() const {
    const StrategyOptions& st = o_.strategy;
    auto n = [](auto v) { return std::to_string(v); };
    char number[64];
    // The shortest text that reads back as the same value: as a float where
    // the value is one (--lr 0.02 is a float: "0.02", not 0.019999999552965164).
    auto real = [&](double v) {
      const bool is_float = static_cast<double>(static_cast<float>(v)) == v;
      for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(number, sizeof number, "%.*g", digits, v);
        const double back = std::strtod(number, nullptr);
        if (is_float ? static_cast<float>(back) == static_cast<float>(v) : back == v) break;
      }
      return std::string(number);
    };
    std::string probes;
    for (const TuneConfig& p : o_.probes) {
      probes += n(p.groups) + "/" + real(p.learning_rate) + "/" + real(p.momentum) + ";";
    }
    return {{"model (digest)", placement::ModelDigest(model_.graph)},
            {"--strategy", st.name},
            {"--groups", n(st.groups)},
            {"--bucket-kb", n(st.buckets.bucket_bytes >> 10)},
            {"--first-bucket-kb", n(st.buckets.first_bucket_bytes >> 10)},
            {"--period", n(st.period)},
            {"--alpha", real(st.alpha)},
            {"--mix", real(st.mix)},
            {"--seed", n(o_.seed)},
            {"--data", o_.data},
            {"--batch", n(batches_.examples())},
            {"--epochs", n(o_.epochs)},
            {"--steps", n(o_.max_steps)},
            {"--optimizer", o_.optimizer},
            {"--lr", real(o_.learning_rate)},
            {"--momentum", real(o_.momentum)},
            {"--eval-every", o_.evaluate ? n(o_.eval_every) : "off (--no-eval)"},
            {"--checkpoint-every", n(o_.checkpoint_every)},
            {"--resume", o_.resume ? "yes" : "no"},
            {"--log-every", n(o_.log_every)},
            {"--probe", probes},
            {"--probe-steps", n(o_.probe_steps)}};
  }

  graph::Result<std::unique_ptr<Replica>> MakeReplica(float lr, float momentum,
                                                      std::string* method) {
    graph::TrainingOptions t;
    t.optimizer = o_.optimizer;
    t.learning_rate = lr;
    t.momentum = momentum;
    GRAPH_ASSIGN_OR_RETURN(frontend::PlacedTraining placed,
                           frontend::PlaceTraining(model_, o_.model, devices_, o_.placement, t));
    if (method) {
      *method = placed.method;
      if (!placed.placement_note.empty()) Say(placed.placement_note);
    }
    // Checked against the file's devices (the same names), run on this rank's copy.
    placed.cluster = rank_devices_;
    return Replica::Create(placed.training, placed.cluster, placed.device_of_node);
  }

  // The starting model: the checkpoint's, and rank 0's everywhere unless each
  // rank resumes its own (as DDP does at its start).
  graph::Result<CheckpointPosition> Start(Replica* replica) {
    CheckpointPosition at;
    if (o_.resume) {
      GRAPH_ASSIGN_OR_RETURN(std::string path, ResumeFile(*replica));
      GRAPH_ASSIGN_OR_RETURN(at, ReadCheckpoint(path, replica->State()));
      // The data order (each step's slice of the shuffled set) depends on both.
      if (at.batch > 0 && at.batch != batches_.examples()) {
        return graph::InvalidArgument(path + ": written at --batch " + std::to_string(at.batch) +
                                      ", not " + std::to_string(batches_.examples()) +
                                      ": resume with the batch it was made with");
      }
      if (at.world > 0 && at.world != world_) {
        return graph::InvalidArgument(path + ": written by a run of " + std::to_string(at.world) +
                                      (at.world == 1 ? " rank" : " ranks") + ", not " +
                                      std::to_string(world_) + ": resume with as many");
      }
      Say("resumed from " + path + " at step " + std::to_string(at.step));
    }
    if (!o_.resume || o_.strategy.name == "sync") {
      for (auto& [name, t] : replica->State()) GRAPH_RETURN_IF_ERROR(pg_->Broadcast(t, 0));
    }
    return at;
  }

  // The file this rank resumes from: its checkpoint, or the one that replaced
  // (PATH.prev), at the newest step every rank holds. Ranks write one after
  // another, so a run stopped between two ranks' writes leaves some a step
  // ahead; the step before is then every rank's. A rank resuming alone at
  // another step would replay batches the others trained on, and sync ranks
  // would average different steps: when no step is every rank's, all fail,
  // naming each rank's steps.
  graph::Result<std::string> ResumeFile(Replica& replica) {
    const std::string newest = CheckpointPath(o_.checkpoint_dir, rank_);
    const std::string older = PreviousCheckpointPath(newest);
    auto a = PeekCheckpoint(newest, replica.State());
    auto b = PeekCheckpoint(older, replica.State());
    // Every rank's two steps (+1; 0: no usable file), summed from zeros.
    at::Tensor steps = at::zeros({world_, 2}, at::kLong);
    if (a.ok()) steps[rank_][0] = a->step + 1;
    if (b.ok()) steps[rank_][1] = b->step + 1;
    GRAPH_RETURN_IF_ERROR(pg_->AllReduce(steps));
    auto held = [&](int r, int64_t s) {
      return steps[r][0].item<int64_t>() == s + 1 || steps[r][1].item<int64_t>() == s + 1;
    };
    int64_t common = -1;
    for (int k = 0; k < 2; ++k) {
      const int64_t s = steps[0][k].item<int64_t>() - 1;
      bool everyone = s >= 0;
      for (int r = 1; r < world_ && everyone; ++r) everyone = held(r, s);
      common = everyone ? std::max(common, s) : common;
    }
    if (common >= 0) {
      // Rank 0 speaks for all: who goes back to the step before, and why.
      for (int r = 0; r < world_; ++r) {
        const int64_t s = steps[r][0].item<int64_t>() - 1;
        if (s == common) continue;
        const std::string file = CheckpointPath(o_.checkpoint_dir, r);
        Say(file + (s >= 0 ? " is at step " + std::to_string(s) + ", past the other ranks'"
                           : " is unusable") +
            "; resuming from " + PreviousCheckpointPath(file) + " at step " +
            std::to_string(common));
      }
      if (!a.ok()) {  // only this rank knows why
        std::fprintf(stderr, "rank %d: %s\n", rank_, a.status().message().c_str());
      }
      return a.ok() && a->step == common ? newest : older;
    }
    if (!a.ok() && !b.ok()) return a.status();  // this rank's own file is the problem
    std::string held_by;
    for (int r = 0; r < world_; ++r) {
      held_by += (r ? ", rank " : "rank ") + std::to_string(r) + " at ";
      for (int k = 0; k < 2; ++k) {
        const int64_t s = steps[r][k].item<int64_t>() - 1;
        held_by += (k ? "/" : "") + (s >= 0 ? std::to_string(s) : std::string("-"));
      }
    }
    return graph::InvalidArgument("the ranks' checkpoints in " + o_.checkpoint_dir +
                                  " share no step (" + held_by +
                                  ", newest/previous): they do not come from one run");
  }

  // One training step; adds its times to `report`.
  graph::Status Step(Replica* replica, Strategy* strategy, int64_t step, double* loss,
                     TrainReport* report) {
    const int64_t spe = batches_.steps_per_epoch();
    std::map<std::string, at::Tensor> feeds;
    GRAPH_RETURN_IF_ERROR(batches_.Train(step / spe, step % spe, &feeds));
    Replica::GradientReady on_gradient;
    if (strategy->overlaps()) {
      on_gradient = [strategy](int p, const at::Tensor& g) { strategy->OnGradient(p, g); };
    }
    double t0 = ProcessGroup::Now();
    strategy->Start();
    ComputeTimes ct;
    GRAPH_RETURN_IF_ERROR(replica->Compute(feeds, on_gradient, &gradients_, loss, &ct));
    CommTimes comm;
    GRAPH_RETURN_IF_ERROR(strategy->Reduce(ProcessGroup::Now(), &gradients_, &comm));
    double u0 = ProcessGroup::Now();
    GRAPH_RETURN_IF_ERROR(replica->Update(gradients_));
    double u1 = ProcessGroup::Now();
    GRAPH_RETURN_IF_ERROR(strategy->AfterUpdate(step, &comm));
    report->train_s += ProcessGroup::Now() - t0;
    report->forward_s += ct.forward_s;
    report->backward_s += ct.backward_s;
    report->comm_s += comm.comm_s;
    report->exposed_s += comm.exposed_s;
    report->update_s += u1 - u0;
    report->examples += batches_.examples() * world_;
    ++report->steps;
    return graph::Status::Ok();
  }

  graph::Result<TrainReport> Train() {
    std::string method;
    GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Replica> replica,
                           MakeReplica(o_.learning_rate, o_.momentum, &method));
    GRAPH_ASSIGN_OR_RETURN(CheckpointPosition at, Start(replica.get()));
    if (!o_.probes.empty()) return Probes(replica.get(), at);
    GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Strategy> strategy,
                           MakeStrategy(o_.strategy, pg_.get(), replica.get()));
    const int64_t spe = batches_.steps_per_epoch();
    Say("training " + o_.model + " on " + std::to_string(world_) + " rank(s), strategy " +
        o_.strategy.name + ", batch " + std::to_string(batches_.examples()) +
        " per rank, placement " + method + ", " + std::to_string(spe) + " steps per epoch");
    // Each host's first rank: on several hosts, each decided for its own.
    if (local_rank_ == 0 && !o_.quiet && !devices_note_.empty()) {
      std::printf("%s\n", devices_note_.c_str());
      std::fflush(stdout);
    }
    TrainReport report;
    const int64_t total = o_.max_steps > 0 ? o_.max_steps : o_.epochs * spe;
    if (at.step >= total) {
      Say("the checkpoint is at step " + std::to_string(at.step) + ", at or past the run's " +
          std::to_string(total) + " steps (" +
          (o_.max_steps > 0 ? "--steps" : "--epochs x steps per epoch") +
          "): nothing to train; give more to go on");
    }
    double window_loss = 0;
    int64_t window = 0;
    for (int64_t step = at.step; step < total; ++step) {
      double loss = 0;
      GRAPH_RETURN_IF_ERROR(Step(replica.get(), strategy.get(), step, &loss, &report));
      window_loss += loss;
      ++window;
      const bool last = step + 1 == total;
      if (o_.log_every > 0 && (step + 1) % o_.log_every == 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "step %lld/%lld: loss %.4f, %.0f images/s",
                      static_cast<long long>(step + 1), static_cast<long long>(total),
                      window_loss / window, report.images_per_s());
        Say(buf);
      }
      if (o_.log_every == 0 || (step + 1) % o_.log_every == 0 || last) {
        if (report.first_loss == 0) report.first_loss = window_loss / window;
        report.final_loss = window_loss / window;
        window_loss = 0;
        window = 0;
      }
      const bool epoch_end = (step + 1) % spe == 0 || last;
      if (!o_.checkpoint_dir.empty() &&
          (epoch_end || (o_.checkpoint_every > 0 && (step + 1) % o_.checkpoint_every == 0))) {
        GRAPH_RETURN_IF_ERROR(WriteCheckpoint(
            CheckpointPath(o_.checkpoint_dir, rank_),
            {step + 1, (step + 1) / spe, batches_.examples(), world_}, replica->State()));
      }
      const bool eval =
          o_.evaluate && (o_.eval_every > 0 ? (step + 1) % o_.eval_every == 0 || last : epoch_end);
      bool stop = false;
      if (eval) GRAPH_RETURN_IF_ERROR(Evaluate(*replica, *strategy, step + 1, &report, &stop));
      if (stop) break;
    }
    GRAPH_RETURN_IF_ERROR(strategy->Finish());
    GRAPH_RETURN_IF_ERROR(pg_->Barrier());  // no rank leaves (and takes the store) early
    return report;
  }

 private:
  void Say(const std::string& line) const {
    if (rank_ != 0 || o_.quiet) return;
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }

  // Rank 0 measures test accuracy and decides for all whether to stop.
  graph::Status Evaluate(const Replica& replica, const Strategy& strategy, int64_t step,
                         TrainReport* report, bool* stop) {
    at::Tensor flag = at::zeros({1}, at::kFloat);
    if (rank_ == 0 && batches_.has_test_set()) {
      std::vector<std::pair<std::string, at::Tensor>> params;
      std::vector<at::Tensor> evaluated = strategy.EvaluatedParameters();
      for (int i = 0; i < replica.num_parameters(); ++i) {
        params.push_back({replica.parameter_name(i), evaluated[i]});
      }
      GRAPH_ASSIGN_OR_RETURN(double acc, TestAccuracy(model_.graph, o_.logits, params, &batches_));
      report->evaluations.push_back({step, report->train_s, acc});
      char buf[160];
      std::snprintf(buf, sizeof buf, "step %lld (epoch %.2f): test accuracy %.2f%% after %.1f s",
                    static_cast<long long>(step),
                    static_cast<double>(step) / batches_.steps_per_epoch(), 100 * acc,
                    report->train_s);
      Say(buf);
      if (o_.target_accuracy > 0 && acc >= o_.target_accuracy) {
        flag.fill_(1);
        std::snprintf(buf, sizeof buf, "reached --target-accuracy %.2f%%: stopping",
                      100 * o_.target_accuracy);
        Say(buf);
      }
    }
    GRAPH_RETURN_IF_ERROR(pg_->Broadcast(flag, 0));
    *stop = flag.item<float>() > 0;
    return graph::Status::Ok();
  }

  // Each configuration of o_.probes for o_.probe_steps steps from the same model
  // and data position; the model is put back between probes.
  graph::Result<TrainReport> Probes(Replica* base, const CheckpointPosition& at) {
    std::vector<std::pair<std::string, at::Tensor>> snapshot;
    for (const auto& [name, t] : base->State()) snapshot.push_back({name, t.clone()});
    const int64_t n = o_.probe_steps, spe = batches_.steps_per_epoch();
    double base_loss = 0;  // the untrained model on the second half's batches
    for (int64_t s = n / 2; s < n; ++s) {
      std::map<std::string, at::Tensor> feeds;
      GRAPH_RETURN_IF_ERROR(batches_.Train((at.step + s) / spe, (at.step + s) % spe, &feeds));
      double loss = 0;
      GRAPH_RETURN_IF_ERROR(base->Compute(feeds, nullptr, &gradients_, &loss, nullptr));
      base_loss += loss / (n - n / 2);
    }
    TrainReport report;
    for (size_t k = 0; k < o_.probes.size(); ++k) {
      const TuneConfig& c = o_.probes[k];
      GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Replica> replica,
                             MakeReplica(static_cast<float>(c.learning_rate),
                                         static_cast<float>(c.momentum), nullptr));
      auto state = replica->State();
      for (size_t i = 0; i < state.size(); ++i) state[i].second.copy_(snapshot.at(i).second);
      StrategyOptions so = o_.strategy;
      so.name = c.groups == 1 ? "sync" : "async";
      so.groups = c.groups;
      so.tag = "probe-" + std::to_string(k);
      GRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Strategy> strategy,
                             MakeStrategy(so, pg_.get(), replica.get()));
      TrainReport r;
      std::vector<double> losses(n);
      for (int64_t s = 0; s < n; ++s) {
        GRAPH_RETURN_IF_ERROR(Step(replica.get(), strategy.get(), at.step + s, &losses[s], &r));
      }
      GRAPH_RETURN_IF_ERROR(strategy->Finish());
      GRAPH_RETURN_IF_ERROR(pg_->Barrier());
      report.probes.push_back(MakeProbe(c, r.train_s / n, losses, base_loss));
      report.train_s += r.train_s;
      report.steps += r.steps;
      report.examples += r.examples;
    }
    return report;
  }

  TrainOptions o_;
  int rank_, world_;
  frontend::LoadedModel model_;
  cluster::Cluster devices_;       // as the devices file gives them
  cluster::Cluster rank_devices_;  // this rank's copy of them (rank_devices.h)
  int local_rank_ = 0, local_world_ = 1;
  std::string devices_note_;  // how the ranks on this host spread devices_
  Batches batches_;
  std::unique_ptr<ProcessGroup> pg_;
  std::vector<at::Tensor> gradients_;
};

}  // namespace

graph::Result<TrainReport> Train(const TrainOptions& o, const Rendezvous& rendezvous) {
  at::set_num_threads(1);
  Run run(o, rendezvous);
  GRAPH_RETURN_IF_ERROR(run.Setup(rendezvous));
  return run.Train();
}

graph::Status CheckTrainData(const std::string& data) {
  if (data == "fashion-mnist" || data == "synthetic") return graph::Status::Ok();
  return graph::InvalidArgument("unknown --data '" + data + "' (fashion-mnist, synthetic)");
}

}  // namespace trainer
