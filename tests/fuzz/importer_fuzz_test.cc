// Feeds mutated copies of the real model files to every importer and checks that
// each either imports (and then survives shape inference, costing, summary and
// export) or fails with a one-line error naming the file. Crashes, hangs and
// sanitizer reports fail the run. FUZZ_ITERATIONS overrides the count per model
// and format (see Iterations()).
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <random>

#include "graph/file_util.h"
#include "graph/graphdef.h"
#include "graph/importer.h"
#include "graph/proto/tf_graph.pb.h"
#include "graph/shape_inference.h"
#include "graph/summary.h"
#include "tests/graph/test_util.h"
#include "tests/scratch_dir.h"

namespace graph {
namespace {

// Mutations per model and file kind: FUZZ_ITERATIONS, else 3,000 shared by the
// models of the folder (at least 100 each), so that a model added to the folder
// widens what is mutated without lengthening the run much. The seeds are fixed,
// so CI replays the same mutations each run: a regression suite, not a campaign
// (FUZZ_ITERATIONS=100000 for one).
int Iterations() {
  const char* env = std::getenv("FUZZ_ITERATIONS");
  if (env) return std::max(1, std::atoi(env));
  static const int n = std::max<int>(100, 3000 / std::max<size_t>(1, testing::ModelNames().size()));
  return n;
}

// One random edit of the kinds that real corruption and hostile files produce.
std::string Mutate(std::string s, std::mt19937_64& rng, bool text) {
  if (s.empty()) return s;
  auto pos = [&] { return std::uniform_int_distribution<size_t>(0, s.size() - 1)(rng); };
  int kind = std::uniform_int_distribution<int>(0, text ? 7 : 5)(rng);
  switch (kind) {
    case 0: {  // flip a few bits
      int flips = std::uniform_int_distribution<int>(1, 8)(rng);
      for (int i = 0; i < flips; ++i) s[pos()] ^= static_cast<char>(1 << (rng() % 8));
      break;
    }
    case 1:  // random byte
      s[pos()] = static_cast<char>(rng());
      break;
    case 2:  // truncate
      s.resize(pos());
      break;
    case 3: {  // delete a span
      size_t p = pos();
      s.erase(p, std::uniform_int_distribution<size_t>(1, 64)(rng));
      break;
    }
    case 4: {  // duplicate a span somewhere else
      size_t p = pos();
      std::string chunk = s.substr(p, std::uniform_int_distribution<size_t>(1, 256)(rng));
      s.insert(pos(), chunk);
      break;
    }
    case 5: {  // insert random bytes
      std::string junk(std::uniform_int_distribution<size_t>(1, 16)(rng), '\0');
      for (char& c : junk) c = static_cast<char>(rng());
      s.insert(pos(), junk);
      break;
    }
    default: {  // text only: change numbers, which keeps the syntax valid
      for (int tries = 0; tries < 64; ++tries) {
        size_t p = pos();
        if (s[p] < '0' || s[p] > '9') continue;
        static const char* kReplacements[] = {"0", "-1", "9", "99999999999", "-7", "1", "3"};
        s.replace(p, 1, kReplacements[rng() % 7]);
        break;
      }
    }
  }
  return s;
}

// Everything a command does with an imported model.
void Exercise(Graph& g) {
  InferenceReport r = InferShapes(g);
  GraphSummary s = Summarize(g, r, {});
  std::string text = SummaryToText(s, "fuzz");
  std::string json = SummaryToJson(s, "fuzz");
  std::string bytes = SerializeGraphDef(g);
  EXPECT_FALSE(text.empty());
  EXPECT_FALSE(json.empty());
  EXPECT_FALSE(bytes.empty());
}

void CheckOne(const std::string& contents, const std::string& path, int* imported) {
  Result<Graph> g = ImportModelContents(contents, path);
  if (g.ok()) {
    ++*imported;
    Exercise(*g);
  } else {
    // The error names the file at fault: the model file or one beside it (weights).
    const std::string& m = g.status().message();
    std::string dir = path.substr(0, path.rfind('/') + 1);
    ASSERT_EQ(m.rfind(dir.empty() ? path : dir, 0), 0u) << m;
    ASSERT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

// The GraphDef with every constant over 256 bytes written as one repeated value
// (TensorFlow's short form), so mutations hit structure rather than weight bytes
// and each import stays fast (with the weights, the binary GraphDefs' mutations
// were the largest part of CI's sanitizer run).
// Constants of 256 bytes or less keep their tensor_content, whose parsing is
// still mutated.
tensorflow::GraphDef SmallConstants(const Graph& g) {
  tensorflow::GraphDef gd;
  EXPECT_TRUE(gd.ParseFromString(SerializeGraphDef(g)));
  for (tensorflow::NodeDef& n : *gd.mutable_node()) {
    for (auto& [key, value] : *n.mutable_attr()) {
      if (!value.has_tensor() || value.tensor().tensor_content().size() <= 256) continue;
      tensorflow::TensorProto* t = value.mutable_tensor();
      t->clear_tensor_content();
      if (t->dtype() == tensorflow::DT_FLOAT) {
        t->add_float_val(0.5f);
      } else {
        t->add_int_val(1);
      }
    }
  }
  return gd;
}

// Its bytes, the same in every process: protobuf writes map fields (NodeDef.attr)
// in an order seeded per process otherwise, and the mutations pick byte offsets.
std::string DeterministicBytes(const tensorflow::GraphDef& gd) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    gd.SerializeToCodedStream(&coded);
  }
  return out;
}

class ImporterFuzzTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string JsonPath() const {
    return std::string(PLANNER_MODELS_DIR) + "/" + GetParam() + ".json";
  }
};

TEST_P(ImporterFuzzTest, MutatedTfjsJsonNeverCrashes) {
  auto json = ReadFile(JsonPath());
  ASSERT_TRUE(json.ok());
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()));
  int imported = 0;
  for (int i = 0; i < Iterations(); ++i) {
    // Same directory as the real model so its weights are found.
    CheckOne(Mutate(*json, rng, /*text=*/true), JsonPath(), &imported);
  }
  std::printf("%s: %d of %d mutated model.json imported\n", GetParam().c_str(), imported,
              Iterations());
}

TEST_P(ImporterFuzzTest, MutatedBinaryGraphDefNeverCrashes) {
  auto g = ImportModel(JsonPath());
  ASSERT_TRUE(g.ok());
  std::string pb = DeterministicBytes(SmallConstants(*g));
  int unmutated = 0;
  CheckOne(pb, "m.pb", &unmutated);
  ASSERT_EQ(unmutated, 1) << "the unmutated GraphDef does not import";
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()) + 1);
  int imported = 0;
  for (int i = 0; i < Iterations(); ++i) CheckOne(Mutate(pb, rng, false), "m.pb", &imported);
  std::printf("%s: %d of %d mutated GraphDefs imported\n", GetParam().c_str(), imported,
              Iterations());
}

TEST_P(ImporterFuzzTest, MutatedTextGraphDefNeverCrashes) {
  auto g = ImportModel(JsonPath());
  ASSERT_TRUE(g.ok());
  std::string pbtxt;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(SmallConstants(*g), &pbtxt));
  int unmutated = 0;
  CheckOne(pbtxt, "m.pbtxt", &unmutated);
  ASSERT_EQ(unmutated, 1) << "the unmutated text GraphDef does not import";
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()) + 2);
  int imported = 0;
  for (int i = 0; i < Iterations(); ++i) {
    CheckOne(Mutate(pbtxt, rng, /*text=*/true), "m.pbtxt", &imported);
  }
  std::printf("%s: %d of %d mutated text GraphDefs imported\n", GetParam().c_str(), imported,
              Iterations());
}

TEST_P(ImporterFuzzTest, MutatedWeightFilesNeverCrash) {
  auto json = ReadFile(JsonPath());
  auto bin = ReadFile(std::string(PLANNER_MODELS_DIR) + "/" + GetParam() + ".bin");
  ASSERT_TRUE(json.ok() && bin.ok());
  std::string dir = planner_test::ScratchDir() + "/fuzz_" + GetParam();
  ::mkdir(dir.c_str(), 0755);
  std::string path = dir + "/" + GetParam() + ".json";
  ASSERT_TRUE(WriteFileAtomic(path, *json).ok());
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()) + 3);
  int imported = 0;
  // Weight files are large; a quarter of the count still covers every mutation kind.
  int n = std::max(1, Iterations() / 4);
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(WriteFileAtomic(dir + "/" + GetParam() + ".bin", Mutate(*bin, rng, false)).ok());
    CheckOne(*json, path, &imported);
  }
  std::printf("%s: %d of %d mutated weight files imported\n", GetParam().c_str(), imported, n);
}

INSTANTIATE_TEST_SUITE_P(SharedModels, ImporterFuzzTest, ::testing::ValuesIn(testing::ModelNames()),
                         testing::ParamName);

// ONNX models written by others (Debian's libonnx-testdata: ONNX's backend
// tests and PyTorch's converted modules), mutated: the importer, ONNX's
// checker and its shape inference behind it must fail in one line.
const std::vector<std::string> kOnnxModels = {
    "pytorch-converted/test_Conv2d_groups",  "pytorch-converted/test_BatchNorm2d_eval",
    "pytorch-converted/test_Embedding",      "pytorch-operator/test_operator_maxpool",
    "node/test_lstm_with_initial_bias",      "node/test_layer_normalization_4d_axis1",
    "node/test_gemm_all_attributes",         "node/test_conv_with_strides_and_asymmetric_padding",
};

class OnnxFuzzTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxFuzzTest, MutatedOnnxModelNeverCrashes) {
#ifndef PLANNER_ONNX
  GTEST_SKIP() << "built without ONNX (PLANNER_ONNX=OFF)";
#endif
  const std::string path =
      std::string(PLANNER_ONNX_TESTDATA) + "/" + GetParam() + "/model.onnx";
  auto bytes = ReadFile(path);
  if (!bytes.ok()) GTEST_SKIP() << "libonnx-testdata is not installed: " << path;
  ASSERT_TRUE(ImportModelContents(*bytes, path).ok());
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()));
  int imported = 0;
  const int n = std::max(1, Iterations() / 4);
  for (int i = 0; i < n; ++i) CheckOne(Mutate(*bytes, rng, false), "m.onnx", &imported);
  std::printf("%s: %d of %d mutated ONNX models imported\n", GetParam().c_str(), imported, n);
}

INSTANTIATE_TEST_SUITE_P(LibOnnxTestdata, OnnxFuzzTest, ::testing::ValuesIn(kOnnxModels),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return s;
                         });

}  // namespace
}  // namespace graph
