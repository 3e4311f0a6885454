// Runs ONNX's own backend tests (Debian's libonnx-testdata: data/node,
// pytorch-converted, pytorch-operator, simple) through the planner: each test's
// model.onnx is imported (graph/onnx.h), its inputs fed, and the graph run by
// the dataflow executor on one CPU device; every output is compared with the
// test's expected output (ONNX's backend tolerance: rtol 1e-3, atol 1e-7). A
// test refused as given (an operand the planner needs constant, such as
// Resize's scales, is a graph input there) is tried again with its inputs
// after the first written into the model as initializers, and says so.
//
// Prints one line per test (pass, fail or refused, with the reason) and the
// counts per suite. With --expect-pass FILE, also checks that every test named
// in FILE passes (the ones docs/onnx.md claims) and exits 1 if one does not.
//
//   onnx_conformance [--data DIR] [--suite NAME]... [--only NAME]... [--expect-pass FILE]
//                    [--quiet]
//   onnx_conformance --ops     (the translation table: each ONNX op, and whether the
//                               training graph differentiates through it)
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
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
#include "runtime/executor.h"
#include "runtime/reference_executor.h"

namespace fs = std::filesystem;

namespace {

enum class Verdict { kPass, kFail, kRefused };

struct Outcome {
  Verdict verdict;
  std::string reason;
  bool float_only = true;  // every input and output is a floating tensor
};

Outcome Fail(std::string r) { return {Verdict::kFail, std::move(r)}; }
Outcome Refuse(std::string r) { return {Verdict::kRefused, std::move(r)}; }

std::vector<std::string> SortedFiles(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> out;
  for (int i = 0;; ++i) {
    fs::path p = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    out.push_back(p.string());
  }
  return out;
}

std::string Compare(const at::Tensor& got, const at::Tensor& want) {
  if (got.scalar_type() != want.scalar_type()) {
    return std::string("dtype ") + c10::toString(got.scalar_type()) + " != expected " +
           c10::toString(want.scalar_type());
  }
  if (got.sizes() != want.sizes()) {
    std::ostringstream s;
    s << "shape " << got.sizes() << " != expected " << want.sizes();
    return s.str();
  }
  if (want.numel() == 0) return "";
  if (at::isFloatingType(want.scalar_type())) {
    at::Tensor g = got.to(at::kDouble), w = want.to(at::kDouble);
    at::Tensor both_nan = at::isnan(g) & at::isnan(w);
    at::Tensor close = (g - w).abs() <= 1e-7 + 1e-3 * w.abs();
    at::Tensor same_inf = (g == w);
    at::Tensor ok = close | both_nan | same_inf;
    if (!ok.all().item<bool>()) {
      double err = ((g - w).abs() * (~both_nan)).nan_to_num(0).max().item<double>();
      return "values differ (max abs error " + std::to_string(err) + ")";
    }
    return "";
  }
  if (!at::equal(got, want)) return "values differ";
  return "";
}

// Whether every input and expected output of the first data set is a
// floating-point tensor (a file that is not a tensor, such as a sequence, is not).
bool FloatOnly(const fs::path& dir) {
  const fs::path set = dir / "test_data_set_0";
  std::vector<std::string> files = SortedFiles(set, "input_");
  for (const std::string& f : SortedFiles(set, "output_")) files.push_back(f);
  for (const std::string& f : files) {
    auto t = graph::ReadOnnxTensor(f);
    if (!t.ok() || !graph::IsFloating(t->dtype())) return false;
  }
  return true;
}

// The model with inputs 1.. of a data set written in as initializers: what an
// exporter that folds constants gives (ONNX's tests feed Resize's scales,
// Slice's bounds, Pad's pads as inputs; the planner needs them constant).
graph::Result<std::string> Freeze(const std::string& model,
                                  const std::vector<std::string>& inputs) {
  onnx::ModelProto m;
  if (!m.ParseFromString(model)) return graph::InvalidArgument("model does not parse");
  auto* g = m.mutable_graph();
  std::vector<std::string> names;  // the graph inputs the data set feeds, in order
  for (const auto& in : g->input()) {
    bool init = false;
    for (const auto& x : g->initializer()) init |= x.name() == in.name();
    if (!init) names.push_back(in.name());
  }
  if (names.size() != inputs.size()) return graph::Unimplemented("inputs do not match");
  for (const auto& in : g->input()) {
    if (!in.type().has_tensor_type()) return graph::Unimplemented("a non-tensor input");
  }
  std::vector<std::string> frozen;
  for (size_t i = 1; i < inputs.size(); ++i) {
    auto bytes = graph::ReadFile(inputs[i]);
    if (!bytes.ok()) return bytes.status();
    onnx::TensorProto t;
    if (!t.ParseFromString(*bytes) || t.data_type() == onnx::TensorProto::UNDEFINED) {
      return graph::Unimplemented(inputs[i] + ": not a tensor");
    }
    t.set_name(names[i]);
    frozen.push_back(names[i]);
    *g->add_initializer() = t;
  }
  // Before IR version 4 every initializer is also listed as an input.
  if (m.ir_version() >= 4) {
    google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> kept;
    for (const auto& in : g->input()) {
      if (std::find(frozen.begin(), frozen.end(), in.name()) == frozen.end()) *kept.Add() = in;
    }
    g->mutable_input()->Swap(&kept);
  }
  return m.SerializeAsString();
}

// Imports, runs and compares one data set.
Outcome RunSet(const std::string& contents, const std::string& model_path, const fs::path& set,
               bool frozen, const cluster::Cluster& cpu) {
  std::vector<std::string> in_files = SortedFiles(set, "input_");
  std::vector<std::string> out_files = SortedFiles(set, "output_");
  std::string model = contents;
  if (frozen) {
    auto f = Freeze(contents, in_files);
    if (!f.ok()) return Refuse(f.status().message());
    model = *f;
    in_files.resize(std::min<size_t>(in_files.size(), 1));
  }
  graph::OnnxSignature sig;
  auto g = graph::ImportOnnx(model, model_path, &sig);
  if (!g.ok()) {
    std::string m = g.status().message();
    const std::string prefix = model_path + ": ";
    if (m.rfind(prefix, 0) == 0) m = m.substr(prefix.size());
    // A model we rewrote that does not import says nothing about the importer.
    if (frozen) return Refuse(m);
    return g.status().code() == graph::StatusCode::kUnimplemented ? Refuse(m) : Fail(m);
  }
  if (in_files.size() != sig.inputs.size() || out_files.size() != sig.outputs.size()) {
    return Refuse(
        "the test's inputs or outputs do not match the graph's (optional or sequence values)");
  }
  graph::InferenceOptions opts;
  std::map<std::string, at::Tensor> feeds;
  for (size_t i = 0; i < in_files.size(); ++i) {
    auto t = graph::ReadOnnxTensor(in_files[i]);
    if (!t.ok()) return Refuse(t.status().message());
    opts.input_shapes[sig.inputs[i]] = t->shape().dims();
    auto a = runtime::ToAten(*t);
    if (!a.ok()) return Refuse(a.status().message());
    feeds[sig.inputs[i]] = *a;
  }
  graph::InferenceReport report = graph::InferShapes(*g, opts);
  if (!report.problems.empty()) return Fail("shape inference: " + report.problems[0]);
  auto ex = runtime::Executor::Create(*g, cpu, std::vector<int>(g->size(), 0));
  if (!ex.ok()) return Refuse(ex.status().message());
  std::vector<at::Tensor> got;
  graph::Status st = (*ex)->Run(feeds, sig.outputs, &got);
  if (!st.ok()) return Fail(st.message());
  for (size_t k = 0; k < out_files.size(); ++k) {
    auto want = graph::ReadOnnxTensor(out_files[k]);
    if (!want.ok()) return Refuse(want.status().message());
    auto w = runtime::ToAten(*want);
    if (!w.ok()) return Refuse(w.status().message());
    std::string diff = Compare(got[k].contiguous(), *w);
    if (!diff.empty()) return Fail("output " + std::to_string(k) + ": " + diff);
  }
  return {Verdict::kPass, frozen ? "with inputs 1.. as constants" : ""};
}

// Every data set of a test must pass. Refused as given, a test with more than
// one input is tried again with inputs 1.. as constants.
Outcome RunTest(const fs::path& dir, const cluster::Cluster& cpu) {
  const std::string model_path = (dir / "model.onnx").string();
  auto contents = graph::ReadFile(model_path);
  if (!contents.ok()) return Fail(contents.status().message());
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return Refuse("no test data set");
  const bool float_only = FloatOnly(dir);
  Outcome result{Verdict::kPass, ""};
  for (const fs::path& set : sets) {
    Outcome o = RunSet(*contents, model_path, set, false, cpu);
    if (o.verdict == Verdict::kRefused && SortedFiles(set, "input_").size() > 1) {
      Outcome f = RunSet(*contents, model_path, set, true, cpu);
      if (f.verdict != Verdict::kRefused) {
        o = f;
        if (o.verdict == Verdict::kFail) o.reason += " (with inputs 1.. as constants)";
      }
    }
    if (o.verdict != Verdict::kPass) {
      o.float_only = float_only;
      return o;
    }
    result.reason = o.reason;
  }
  result.float_only = float_only;
  return result;
}

struct Counts {
  int pass = 0, fail = 0, refused = 0, float_tests = 0, float_pass = 0;
  int pass_as_constants = 0;  // passes with inputs 1.. written in as initializers
};

}  // namespace

const frontend::CommandSpec kSpec{
    "onnx_conformance",
    "[--data DIR] [--suite NAME]... [--only NAME]... [--expect-pass FILE] [--quiet] [--ops]",
    "Runs ONNX's own backend tests through the importer and the executor and prints each\n"
    "test's result and the counts per suite.",
    {},
    {{"--data", "DIR", "the tests (default Debian's /usr/share/libonnx-testdata/data)"},
     {"--suite", "NAME",
      "node, pytorch-converted, pytorch-operator or simple (repeatable; default all)"},
     {"--only", "NAME", "this test only (repeatable)"},
     {"--expect-pass", "FILE", "exit 1 unless every test named in FILE passes"},
     {"--quiet", "", "print only failures and the counts"},
     {"--ops", "", "print the translation table (each ONNX op, and whether it is differentiated)"}},
    /*program=*/""};

int main(int argc, char** argv) {
  const frontend::Args args = frontend::ParseProgramArgs(kSpec, argc, argv);
  if (args.Has("--ops")) {
    for (const graph::OnnxOpInfo& op : graph::SupportedOnnxOps()) {
      std::cout << op.op << (op.differentiable ? "" : " (not differentiated)") << "\n";
    }
    return 0;
  }
  const std::string data = args.Get("--data", "/usr/share/libonnx-testdata/data");
  std::vector<std::string> suites = args.GetAll("--suite");
  const std::vector<std::string> only_list = args.GetAll("--only");
  std::set<std::string> only(only_list.begin(), only_list.end());
  const std::string expect_file = args.Get("--expect-pass");
  const bool quiet = args.Has("--quiet");
  if (suites.empty()) suites = {"node", "pytorch-converted", "pytorch-operator", "simple"};
  std::set<std::string> expected;
  if (!expect_file.empty()) {
    std::ifstream f(expect_file);
    if (!f) {
      std::cerr << "onnx_conformance: " << expect_file << ": cannot be read\n";
      return 2;
    }
    for (std::string line; std::getline(f, line);) {
      if (!line.empty() && line[0] != '#') expected.insert(line);
    }
    if (only.empty()) only = expected;
  }
  if (!fs::is_directory(data)) {
    std::cerr << "onnx_conformance: " << data
              << ": no such directory (install Debian's libonnx-testdata)\n";
    return 2;
  }
  auto cpu =
      cluster::ParseDevicesYaml("devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n", "cpu");
  if (!cpu.ok()) {
    std::cerr << cpu.status().message() << "\n";
    return 2;
  }
  at::set_num_threads(1);
  std::map<std::string, Counts> counts;
  std::map<std::string, int> refusal_reasons;
  std::set<std::string> missed, ran;
  for (const std::string& suite : suites) {
    const fs::path root = fs::path(data) / suite;
    if (!fs::is_directory(root)) {
      std::cerr << "onnx_conformance: " << root.string() << ": no such suite\n";
      return 2;
    }
    std::vector<fs::path> tests;
    for (const auto& e : fs::directory_iterator(root)) {
      if (e.is_directory()) tests.push_back(e.path());
    }
    std::sort(tests.begin(), tests.end());
    for (const fs::path& t : tests) {
      const std::string name = suite + "/" + t.filename().string();
      if (!only.empty() && !only.count(name)) continue;
      Outcome o = RunTest(t, *cpu);
      ran.insert(name);
      Counts& c = counts[suite];
      const char* word = o.verdict == Verdict::kPass   ? "pass"
                         : o.verdict == Verdict::kFail ? "fail"
                                                       : "refused";
      (o.verdict == Verdict::kPass ? c.pass : o.verdict == Verdict::kFail ? c.fail : c.refused)++;
      c.pass_as_constants += o.verdict == Verdict::kPass && !o.reason.empty();
      if (o.float_only) {
        c.float_tests++;
        c.float_pass += o.verdict == Verdict::kPass;
      }
      if (o.verdict != Verdict::kPass && expected.count(name)) missed.insert(name);
      if (o.verdict == Verdict::kRefused) {
        std::string key = o.reason.substr(
            o.reason.find("): ") == std::string::npos ? 0 : o.reason.find("): ") + 3);
        refusal_reasons[key.substr(0, 60)]++;
      }
      if (!quiet || o.verdict == Verdict::kFail) {
        std::cout << name << ": " << word << (o.reason.empty() ? "" : ": " + o.reason) << "\n";
      }
    }
  }
  std::cout << "\nsuite                 pass  fail  refused  total  float tests passed\n";
  Counts all;
  auto row = [](const std::string& name, const Counts& c) {
    char line[160];
    std::snprintf(line, sizeof line, "%-20s %5d %5d %8d %6d  %d/%d (%.1f%%)\n", name.c_str(),
                  c.pass, c.fail, c.refused, c.pass + c.fail + c.refused, c.float_pass,
                  c.float_tests, c.float_tests ? 100.0 * c.float_pass / c.float_tests : 0.0);
    std::cout << line;
  };
  for (const auto& [suite, c] : counts) {
    row(suite, c);
    all.pass += c.pass;
    all.fail += c.fail;
    all.refused += c.refused;
    all.float_tests += c.float_tests;
    all.float_pass += c.float_pass;
    all.pass_as_constants += c.pass_as_constants;
  }
  if (counts.size() > 1) row("all", all);
  std::cout << all.pass_as_constants << " of the passes with inputs 1.. written in as constants\n";
  if (!expected.empty()) {
    // A claimed test of a suite run that is not in the data (renamed, or
    // another package version) passes nothing: it is missed too.
    for (const std::string& name : expected) {
      const std::string suite = name.substr(0, name.find('/'));
      if (!ran.count(name) && std::count(suites.begin(), suites.end(), suite)) {
        std::cout << "claimed but not in " << data << ": " << name << "\n";
        missed.insert(name);
      }
    }
    for (const std::string& m : missed) std::cout << "claimed but not passing: " << m << "\n";
    std::cout << (missed.empty() ? "every claimed test passes" : "claimed tests fail") << " ("
              << expected.size() << " claimed)\n";
    return missed.empty() ? 0 : 1;
  }
  return 0;
}
