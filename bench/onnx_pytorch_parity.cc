// Checks the planner against PyTorch itself on models exported by
// scripts/pytorch/export_models.py: for each model directory, imports
// model.onnx, runs the forward graph on the dataflow executor (one CPU device)
// and compares its outputs with PyTorch's; then builds the training graph
// (graph/training.h, SGD at the script's learning rate), runs one step and
// compares the loss, every parameter's gradient and every updated parameter
// with PyTorch's autograd step.
//
// Prints one row per model with the largest relative errors (per tensor,
// max |ours - PyTorch| / max |PyTorch|; "param err" compares the parameters
// after the step with PyTorch's float32 SGD step from the same values), and
// exits 1 when one is above its tolerance or a model fails to import or run.
//
//   onnx_pytorch_parity DIR [MODEL...] [--forward-tol 1e-4] [--grad-tol 1e-3]
#include <ATen/ATen.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cluster/devices.h"
#include "frontend/args.h"
#include "graph/file_util.h"
#include "graph/onnx.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "runtime/executor.h"
#include "runtime/reference_executor.h"

namespace fs = std::filesystem;

namespace {

struct Row {
  std::string model;
  int forward_nodes = 0, training_nodes = 0, parameters = 0;
  double forward = 0, loss = 0, grad = 0, update = 0;
  std::string error;
};

// max |a - b| / max |b|: the error relative to the reference's scale.
double RelErr(const at::Tensor& got, const at::Tensor& want) {
  at::Tensor g = got.to(at::kDouble).reshape(want.sizes()), w = want.to(at::kDouble);
  double scale = std::max(w.abs().max().item<double>(), 1e-30);
  return (g - w).abs().max().item<double>() / scale;
}

graph::Result<at::Tensor> ReadTensor(const std::string& path, std::string* name = nullptr) {
  GRAPH_ASSIGN_OR_RETURN(graph::Tensor t, graph::ReadOnnxTensor(path, name));
  return runtime::ToAten(t);
}

double LearningRate(const fs::path& dir) {
  std::ifstream f(dir / "meta.txt");
  for (std::string key; f >> key;) {
    if (key == "learning_rate") {
      double v = 0;
      f >> v;
      return v;
    }
  }
  return -1;
}

graph::Status Check(const fs::path& dir, const cluster::Cluster& cpu, Row* row) {
  const std::string path = (dir / "model.onnx").string();
  GRAPH_ASSIGN_OR_RETURN(std::string contents, graph::ReadFile(path));
  graph::OnnxSignature sig;
  GRAPH_ASSIGN_OR_RETURN(graph::Graph forward, graph::ImportOnnx(contents, path, &sig));
  graph::InferenceOptions inference;
  std::map<std::string, at::Tensor> feeds;
  for (size_t i = 0; i < sig.inputs.size(); ++i) {
    const std::string f = (dir / ("input_" + std::to_string(i) + ".pb")).string();
    GRAPH_ASSIGN_OR_RETURN(at::Tensor x, ReadTensor(f));
    feeds[sig.inputs[i]] = x;
    inference.input_shapes[sig.inputs[i]] = x.sizes().vec();
  }
  graph::Graph fwd = forward;
  graph::InferenceReport report = graph::InferShapes(fwd, inference);
  if (!report.unknown_ops.empty())
    return graph::Unimplemented("unknown op " + report.unknown_ops[0]);
  if (!report.problems.empty()) return graph::Internal(report.problems[0]);
  row->forward_nodes = fwd.size();

  // Forward outputs against PyTorch's.
  GRAPH_ASSIGN_OR_RETURN(auto ex,
                         runtime::Executor::Create(fwd, cpu, std::vector<int>(fwd.size(), 0)));
  std::vector<at::Tensor> ys;
  GRAPH_RETURN_IF_ERROR(ex->Run(feeds, sig.outputs, &ys));
  for (size_t k = 0; k < ys.size(); ++k) {
    GRAPH_ASSIGN_OR_RETURN(at::Tensor want,
                           ReadTensor((dir / ("output_" + std::to_string(k) + ".pb")).string()));
    row->forward = std::max(row->forward, RelErr(ys[k], want));
  }

  // One SGD step of the training graph against PyTorch's autograd step.
  const double lr = LearningRate(dir);
  if (lr <= 0) return graph::InvalidArgument((dir / "meta.txt").string() + ": no learning_rate");
  graph::TrainingOptions topts;
  topts.learning_rate = static_cast<float>(lr);
  GRAPH_ASSIGN_OR_RETURN(graph::TrainingGraph train,
                         graph::BuildTrainingGraph(forward, topts, inference));
  row->training_nodes = train.graph.size();
  std::map<std::string, size_t> index;  // parameter name -> update number
  std::vector<std::string> fetch = {train.loss};
  for (size_t k = 0; k < train.updates.size(); ++k) {
    const graph::Node& u = train.graph.node(train.updates[k]);
    index[train.graph.node(train.parameters[k]).name] = k;
    fetch.push_back(train.graph.TensorName(u.inputs[2]));
  }
  GRAPH_ASSIGN_OR_RETURN(auto step, runtime::Executor::Create(
                                        train.graph, cpu, std::vector<int>(train.graph.size(), 0)));
  std::map<std::string, at::Tensor> before;
  for (const auto& [name, k] : index) before[name] = step->state(name).clone();
  std::vector<at::Tensor> got;
  GRAPH_RETURN_IF_ERROR(step->Run(feeds, fetch, &got));
  GRAPH_ASSIGN_OR_RETURN(at::Tensor loss, ReadTensor((dir / "loss.pb").string()));
  row->loss = RelErr(got[0], loss);
  std::set<std::string> seen;
  for (const auto& e : fs::directory_iterator(dir / "grads")) {
    std::string name;
    GRAPH_ASSIGN_OR_RETURN(at::Tensor want, ReadTensor(e.path().string(), &name));
    auto it = index.find(name);
    if (it == index.end()) {
      return graph::Internal("PyTorch trains '" + name + "', the training graph does not");
    }
    seen.insert(name);
    row->grad = std::max(row->grad, RelErr(got[1 + it->second], want));
    // PyTorch's SGD step in float32: p - lr * grad.
    at::Tensor expected = before[name] - want.to(before[name].scalar_type()) * lr;
    row->update = std::max(row->update, RelErr(step->state(name), expected));
  }
  row->parameters = static_cast<int>(seen.size());
  for (const auto& [name, k] : index) {
    // Parameters PyTorch does not train must not move here either.
    if (!seen.count(name) && got[1 + k].abs().max().item<double>() > 0) {
      return graph::Internal("the training graph updates '" + name + "', PyTorch does not");
    }
  }
  return graph::Status::Ok();
}

}  // namespace

const frontend::CommandSpec kSpec{
    "onnx_pytorch_parity",
    "DIR [MODEL...] [--forward-tol X] [--grad-tol X]",
    "Checks the forward pass and one SGD step of each model exported by\n"
    "scripts/pytorch/export_models.py into DIR against PyTorch's own.",
    {"DIR", "MODEL..."},
    {{"--forward-tol", "X", "largest relative error of an output (default 1e-4)"},
     {"--grad-tol", "X", "largest relative error of a gradient or parameter (default 1e-3)"}},
    /*program=*/""};

int main(int argc, char** argv) {
  const frontend::Args args = frontend::ParseProgramArgs(kSpec, argc, argv);
  frontend::TypedFlags flags(args);
  const double forward_tol = flags.Number("--forward-tol", 1e-4, 0, 1e9);
  const double grad_tol = flags.Number("--grad-tol", 1e-3, 0, 1e9);
  if (!flags.status().ok()) return frontend::UsageError(kSpec, flags.status());
  const std::string dir = args.positional()[0];
  std::vector<std::string> models(args.positional().begin() + 1, args.positional().end());
  if (models.empty()) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (fs::exists(e.path() / "model.onnx")) models.push_back(e.path().filename().string());
    }
    std::sort(models.begin(), models.end());
  }
  auto cpu =
      cluster::ParseDevicesYaml("devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n", "cpu");
  if (!cpu.ok()) {
    std::cerr << cpu.status().message() << "\n";
    return 2;
  }
  bool ok = !models.empty();
  std::printf("%-16s %8s %8s %6s %12s %12s %12s %12s\n", "model", "forward", "training", "params",
              "forward err", "loss err", "grad err", "param err");
  for (const std::string& m : models) {
    Row row;
    row.model = m;
    graph::Status st = Check(fs::path(dir) / m, *cpu, &row);
    if (!st.ok()) {
      std::printf("%-16s error: %s\n", m.c_str(), st.message().c_str());
      ok = false;
      continue;
    }
    bool pass = row.forward <= forward_tol && row.loss <= forward_tol && row.grad <= grad_tol &&
                row.update <= forward_tol;
    ok &= pass;
    std::printf("%-16s %8d %8d %6d %12.2e %12.2e %12.2e %12.2e %s\n", m.c_str(), row.forward_nodes,
                row.training_nodes, row.parameters, row.forward, row.loss, row.grad, row.update,
                pass ? "ok" : "ABOVE TOLERANCE");
  }
  std::printf(
      "tolerances: forward, loss and parameters %.0e, gradients %.0e (max |ours - PyTorch| / "
      "max |PyTorch| per tensor)\n",
      forward_tol, grad_tol);
  return ok ? 0 : 1;
}
