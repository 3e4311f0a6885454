// Trains an in-code model (graph/models.h) on Fashion-MNIST with its training
// graph, on the dataflow executor with one 1-core CPU device (or the reference
// executor), then prints test accuracy: the end-to-end check that gradient rules,
// kernels, updates and the executor train a real model.
//
//   train_fashion_mnist [--model lenet|mlp|two_branch] [--epochs E] [--batch B]
//                       [--lr LR] [--optimizer sgd|momentum] [--data DIR]
//                       [--executor dataflow|reference]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <string>

#include "data/fashion_mnist.h"
#include "frontend/args.h"
#include "graph/models.h"
#include "graph/training.h"
#include "runtime/executor.h"
#include "runtime/reference_executor.h"

namespace {

int Fail(const std::string& msg) {
  std::fprintf(stderr, "train_fashion_mnist: %s\n", msg.c_str());
  return 1;
}

}  // namespace

const frontend::CommandSpec kSpec{
    "train_fashion_mnist",
    "[--model lenet|mlp|two_branch] [--epochs E] [--batch B] [--lr LR]\n"
    "       [--optimizer sgd|momentum] [--data DIR] [--executor dataflow|reference]",
    "Trains an in-code model on Fashion-MNIST with its training graph and prints its test\n"
    "accuracy.",
    {},
    {{"--model", "NAME", "lenet (default), mlp or two_branch"},
     {"--epochs", "E", "passes over the training set (default 1)"},
     {"--batch", "B", "examples per step (default 64)"},
     {"--lr", "LR", "learning rate (default 0.01)"},
     {"--optimizer", "NAME", "sgd or momentum (default)"},
     {"--data", "DIR", "Fashion-MNIST's files (default: Debian's dataset-fashion-mnist)"},
     {"--executor", "NAME", "dataflow (default) or reference"}},
    /*program=*/""};

int main(int argc, char** argv) {
  const frontend::Args args = frontend::ParseProgramArgs(kSpec, argc, argv);
  const std::string model = args.Get("--model", "lenet");
  const std::string optimizer = args.Get("--optimizer", "momentum");
  const std::string dir = args.Get("--data", data::DefaultFashionMnistDir());
  const std::string executor = args.Get("--executor", "dataflow");
  frontend::TypedFlags flags(args);
  const int epochs = flags.Int("--epochs", 1, 1, 1000);
  const int64_t batch = flags.Int("--batch", 64, 1, 60000);
  const float lr = static_cast<float>(flags.Number("--lr", 0.01, 0, 10));
  if (!flags.status().ok()) return frontend::UsageError(kSpec, flags.status());
  at::set_num_threads(1);
  auto train_set = data::LoadFashionMnist(dir, true);
  if (!train_set.ok()) return Fail(train_set.status().message());
  auto test_set = data::LoadFashionMnist(dir, false);
  if (!test_set.ok()) return Fail(test_set.status().message());

  graph::Result<graph::Graph> fwd = graph::InvalidArgument("unknown model '" + model + "'");
  if (model == "lenet") fwd = graph::BuildLeNet({batch, 1});
  if (model == "mlp") fwd = graph::BuildMlp({batch, {256, 256}, 1});
  if (model == "two_branch") fwd = graph::BuildTwoBranch({batch, {512, 512}, 1});
  if (!fwd.ok()) return Fail(fwd.status().message());
  graph::InferShapes(*fwd);
  graph::TrainingOptions opts;
  opts.optimizer = optimizer;
  opts.learning_rate = lr;
  auto train = graph::BuildTrainingGraph(*fwd, opts);
  if (!train.ok()) return Fail(train.status().message());
  // One interface over both executors: run a step, read a parameter.
  std::function<graph::Status(const std::map<std::string, at::Tensor>&, std::vector<at::Tensor>*)>
      step;
  std::function<at::Tensor(const std::string&)> param;
  std::unique_ptr<runtime::Executor> dataflow;
  std::optional<runtime::ReferenceExecutor> reference;
  auto one_cpu =
      cluster::ParseDevicesYaml("devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n", "one-cpu");
  if (!one_cpu.ok()) return Fail(one_cpu.status().message());
  if (executor == "dataflow") {
    auto ex =
        runtime::Executor::Create(train->graph, *one_cpu, std::vector<int>(train->graph.size(), 0));
    if (!ex.ok()) return Fail(ex.status().message());
    dataflow = std::move(ex).value();
    step = [&](const auto& f, auto* out) { return dataflow->Run(f, {train->loss}, out); };
    param = [&](const std::string& n) { return dataflow->state(n); };
  } else if (executor == "reference") {
    auto ex = runtime::ReferenceExecutor::Create(train->graph);
    if (!ex.ok()) return Fail(ex.status().message());
    reference.emplace(std::move(ex).value());
    step = [&](const auto& f, auto* out) { return reference->Run(f, {train->loss}, out); };
    param = [&](const std::string& n) { return reference->state(n); };
  } else {
    return Fail("unknown executor '" + executor + "'");
  }
  auto evaluator = runtime::ReferenceExecutor::Create(*fwd);
  if (!evaluator.ok()) return Fail(evaluator.status().message());
  // The evaluator reads the trainer's parameter tensors (shared storage).
  for (graph::NodeId p : train->parameters) {
    const std::string& name = train->graph.node(p).name;
    evaluator->set_state(name, param(name));
  }

  std::vector<int64_t> order(train_set->count);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(1);
  std::vector<float> images;
  std::vector<int32_t> labels;
  auto feed = [&](const std::vector<int64_t>& idx, const data::Dataset& d,
                  std::map<std::string, at::Tensor>* f) -> graph::Status {
    GRAPH_RETURN_IF_ERROR(data::FillBatch(d, idx, &images, &labels));
    int64_t b = static_cast<int64_t>(idx.size());
    (*f)["images"] = at::from_blob(images.data(), {b, d.rows, d.cols, 1}, at::kFloat).clone();
    (*f)["labels"] = at::from_blob(labels.data(), {b}, at::kInt).clone();
    return graph::Status::Ok();
  };
  auto t0 = std::chrono::steady_clock::now();
  int64_t steps_per_epoch = train_set->count / batch;
  for (int e = 0; e < epochs; ++e) {
    std::shuffle(order.begin(), order.end(), rng);
    double running = 0;
    for (int64_t s = 0; s < steps_per_epoch; ++s) {
      std::vector<int64_t> idx(order.begin() + s * batch, order.begin() + (s + 1) * batch);
      std::map<std::string, at::Tensor> f;
      if (auto st = feed(idx, *train_set, &f); !st.ok()) return Fail(st.message());
      std::vector<at::Tensor> out;
      if (auto st = step(f, &out); !st.ok()) return Fail(st.message());
      running += out[0].item<double>();
      if ((s + 1) % 200 == 0) {
        std::printf("epoch %d step %lld/%lld loss %.4f\n", e + 1, static_cast<long long>(s + 1),
                    static_cast<long long>(steps_per_epoch), running / 200);
        running = 0;
      }
    }
  }
  double train_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t correct = 0, seen = 0;
  for (int64_t s = 0; s + batch <= test_set->count; s += batch) {
    std::vector<int64_t> idx(batch);
    std::iota(idx.begin(), idx.end(), s);
    std::map<std::string, at::Tensor> f;
    if (auto st = feed(idx, *test_set, &f); !st.ok()) return Fail(st.message());
    std::vector<at::Tensor> out;
    if (auto st = evaluator->Run(f, {"logits"}, &out); !st.ok()) return Fail(st.message());
    correct += out[0].argmax(1).eq(f["labels"].to(at::kLong)).sum().item<int64_t>();
    seen += batch;
  }
  std::printf(
      "%s, %d epoch(s), batch %lld, %s lr %.3g: test accuracy %.2f%% (%lld/%lld), "
      "training %.1f s (%.2f ms/step, %s)\n",
      model.c_str(), epochs, static_cast<long long>(batch), optimizer.c_str(), lr,
      100.0 * correct / seen, static_cast<long long>(correct), static_cast<long long>(seen),
      train_s, 1000 * train_s / (epochs * steps_per_epoch),
      executor == "dataflow" ? "dataflow executor, one 1-core CPU device"
                             : "reference executor, the calling thread");
  return 0;
}
