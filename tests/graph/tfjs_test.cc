#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "graph/file_util.h"
#include "graph/importer.h"
#include "test_util.h"
#include "tests/scratch_dir.h"

namespace graph {
namespace {

using testing::ModelJson;

// A temporary TF.js model: model.json text plus weight bytes in weights.bin.
class TfjsDir {
 public:
  explicit TfjsDir(const std::string& name) : dir_(planner_test::ScratchDir() + "/tfjs_" + name) {
    ::mkdir(dir_.c_str(), 0755);
  }
  std::string Write(const std::string& json, const std::string& bin) {
    EXPECT_TRUE(WriteFileAtomic(dir_ + "/weights.bin", bin).ok());
    EXPECT_TRUE(WriteFileAtomic(dir_ + "/model.json", json).ok());
    return dir_ + "/model.json";
  }
  std::string dir() const { return dir_; }

 private:
  std::string dir_;
};

std::string ModelJsonText(const std::string& weight_spec, const std::string& extra_nodes = "") {
  return R"({"format":"graph-model","modelTopology":{"node":[
    {"name":"x","op":"Placeholder","attr":{"dtype":{"type":"DT_FLOAT"},
      "shape":{"shape":{"dim":[{"size":"1"},{"size":"4"}]}}}},
    {"name":"w","op":"Const","attr":{"dtype":{"type":"DT_FLOAT"},
      "value":{"tensor":{"dtype":"DT_FLOAT","tensorShape":{"dim":[{"size":"4"}]}}}}},
    {"name":"y","op":"Mul","input":["x","w"],"attr":{"T":{"type":"DT_FLOAT"}}})" +
         extra_nodes + R"(]},
    "weightsManifest":[{"paths":["weights.bin"],"weights":[)" +
         weight_spec + "]}]}";
}

const Tensor& ConstValue(const Graph& g, const std::string& name) {
  return *g.node(g.Find(name)).attr("value")->get<Tensor>();
}

// A Keras layers model (what tfjs.converters.save_keras_model writes) is not
// a graph of ops: the error says so and how to convert it, not "no nodes".
TEST(TfjsTest, ALayersModelIsNamedWithHowToConvertIt) {
  TfjsDir d("layers");
  const std::string path = d.Write(
      R"({"format":"layers-model","generatedBy":"keras v2.11.0","convertedBy":"TensorFlow.js Converter v4.2.0",
        "modelTopology":{"class_name":"Sequential","config":{"name":"sequential","layers":[]}},
        "weightsManifest":[{"paths":["weights.bin"],"weights":[]}]})",
      "");
  auto g = ImportModel(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            path + ": a TensorFlow.js layers model; the planner reads graph models (convert it with "
                   "tensorflowjs_converter --input_format tfjs_layers_model --output_format "
                   "tfjs_graph_model)");
}

TEST(TfjsTest, Float32WeightsAreReadVerbatim) {
  TfjsDir d("f32");
  float w[4] = {1.0f, -2.0f, 3.5f, 0.25f};
  auto g = ImportModel(d.Write(ModelJsonText(R"({"name":"w","shape":[4],"dtype":"float32"})"),
                               std::string(reinterpret_cast<char*>(w), 16)));
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(ConstValue(*g, "w").ToDoubles(), (std::vector<double>{1.0, -2.0, 3.5, 0.25}));
}

TEST(TfjsTest, Uint8QuantizedWeightsAreDequantizedWithScaleAndMin) {
  TfjsDir d("u8");
  std::string bin = {0, 1, 2, static_cast<char>(255)};
  auto g = ImportModel(d.Write(ModelJsonText(R"({"name":"w","shape":[4],"dtype":"float32",
          "quantization":{"dtype":"uint8","scale":0.5,"min":-1.0,"original_dtype":"float32"}})"),
                               bin));
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(ConstValue(*g, "w").ToDoubles(), (std::vector<double>{-1.0, -0.5, 0.0, 126.5}));
}

TEST(TfjsTest, Float16QuantizedWeightsAreWidenedToFloat32) {
  TfjsDir d("f16");
  uint16_t h[4] = {FloatToHalf(1.0f), FloatToHalf(-0.5f), FloatToHalf(2.0f), FloatToHalf(0.0f)};
  auto g = ImportModel(d.Write(ModelJsonText(R"({"name":"w","shape":[4],"dtype":"float32",
          "quantization":{"dtype":"float16","original_dtype":"float32"}})"),
                               std::string(reinterpret_cast<char*>(h), 8)));
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Tensor& t = ConstValue(*g, "w");
  EXPECT_EQ(t.dtype(), DType::kFloat);
  EXPECT_EQ(t.ToDoubles(), (std::vector<double>{1.0, -0.5, 2.0, 0.0}));
}

TEST(TfjsTest, RealFloat16ModelDecodesLikeTheRawBytes) {
  // movenet stores its first float weight as float16 right after one int32 scalar.
  auto g = ImportModel(ModelJson("movenet-lightning"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto bin = ReadFile(testing::ModelsDir() + "/movenet-lightning.bin");
  ASSERT_TRUE(bin.ok());
  const Tensor& t = ConstValue(
      *g,
      "StatefulPartitionedCall/kpt_offset_0/separable_conv2d_6/separable_conv2d/ReadVariableOp");
  ASSERT_EQ(t.shape(), Shape({3, 3, 24, 1}));
  uint16_t first;
  std::memcpy(&first, bin->data() + 4, 2);
  EXPECT_EQ(t.ToDoubles()[0], HalfToFloat(first));
}

TEST(TfjsTest, MissingWeightsFileIsAnErrorNamingIt) {
  TfjsDir d("missing_bin");
  std::string json = d.Write(ModelJsonText(R"({"name":"w","shape":[4],"dtype":"float32"})"), "");
  ::unlink((d.dir() + "/weights.bin").c_str());
  auto g = ImportModel(json);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("weights file 'weights.bin' is unreadable"),
            std::string::npos)
      << g.status().message();
  EXPECT_EQ(g.status().message().find('\n'), std::string::npos);
}

TEST(TfjsTest, ShortWeightsFileIsAnErrorNamingTheWeight) {
  TfjsDir d("short_bin");
  auto g = ImportModel(
      d.Write(ModelJsonText(R"({"name":"w","shape":[4],"dtype":"float32"})"), std::string(10, 0)));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("weight 'w': needs 16 bytes but only 10 remain"),
            std::string::npos)
      << g.status().message();
}

TEST(TfjsTest, HugeDeclaredQuantizedWeightFailsBeforeAllocating) {
  TfjsDir d("huge");
  auto g = ImportModel(d.Write(ModelJsonText(R"({"name":"w","shape":[32768,32768],"dtype":"float32",
          "quantization":{"dtype":"uint8","scale":1,"min":0}})"),
                               ""));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("needs 1073741824 bytes but only 0 remain"),
            std::string::npos)
      << g.status().message();
}

// One weight may decode to at most 4 GiB, a GraphDef constant's limit: a
// 4 GiB file of uint8 values would be 16 GiB of floats. (It was refused only
// for want of the 4 GiB of bytes its manifest declared.)
TEST(TfjsTest, AWeightDecodingPastFourGibibytesIsAnError) {
  TfjsDir d("past_4gib");
  auto g = ImportModel(d.Write(ModelJsonText(R"({"name":"w","shape":[65536,65536],"dtype":"float32",
          "quantization":{"dtype":"uint8","scale":1,"min":0}})"),
                               ""));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find(
                "weight 'w': [65536,65536] float32 is larger than 4 GiB (one constant's limit)"),
            std::string::npos)
      << g.status().message();
}

// A weight's Const declares only its shape; the importer read it as a
// constant given by no values, expanded it to zeros and charged that to the
// 1 GiB limit for such constants, so a model with more than 1 GiB of weights
// was refused as one that "would expand past the 1 GiB limit".
TEST(TfjsTest, AModelWithMoreThanOneGibibyteOfWeightsImports) {
  TfjsDir d("past_1gib");
  // The 256 MiB weights file goes however the test ends.
  struct Unlink {
    std::string path;
    ~Unlink() { ::unlink(path.c_str()); }
  } unlink_bin{d.dir() + "/weights.bin"};
  const int64_t n = (int64_t{1} << 28) + 16;  // float32: 16 x 4 bytes past 1 GiB
  std::string json = ModelJsonText(R"({"name":"w","shape":[)" + std::to_string(n) +
                                   R"(],"dtype":"float32",
          "quantization":{"dtype":"uint8","scale":0.5,"min":1}})");
  for (size_t at; (at = json.find(R"("size":"4")")) != std::string::npos;) {
    json.replace(at, 10, R"("size":")" + std::to_string(n) + "\"");
  }
  std::string bin(static_cast<size_t>(n), '\x02');
  bin.back() = 4;
  const std::string path = d.Write(json, bin);
  bin.clear();
  bin.shrink_to_fit();
  auto g = ImportModel(path);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Tensor& t = ConstValue(*g, "w");
  ASSERT_EQ(t.shape(), Shape({n}));
  ASSERT_EQ(t.byte_size(), 4 * n);
  float first, last;
  std::memcpy(&first, t.bytes().data(), 4);
  std::memcpy(&last, t.bytes().data() + 4 * (n - 1), 4);
  EXPECT_EQ(first, 2.0f);  // 1 + 0.5 * 2
  EXPECT_EQ(last, 3.0f);   // 1 + 0.5 * 4
}

TEST(TfjsTest, WeightsFileListedTwiceIsAnError) {
  TfjsDir d("twice");
  std::string json = ModelJsonText(R"({"name":"w","shape":[4],"dtype":"float32"})");
  json.replace(json.find("\"weights.bin\""), 13, "\"weights.bin\",\"weights.bin\"");
  auto g = ImportModel(d.Write(json, std::string(16, 0)));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("'weights.bin' is listed twice"), std::string::npos)
      << g.status().message();
}

TEST(TfjsTest, ConstWithoutWeightIsAnError) {
  TfjsDir d("no_weight");
  auto g = ImportModel(d.Write(ModelJsonText(""), ""));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("Const 'w' has no entry in the weights manifest"),
            std::string::npos)
      << g.status().message();
}

TEST(TfjsTest, WeightShapeDisagreeingWithConstIsAnError) {
  TfjsDir d("shape_mismatch");
  auto g = ImportModel(d.Write(ModelJsonText(R"({"name":"w","shape":[2,2],"dtype":"float32"})"),
                               std::string(16, 0)));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("declares shape [4] but its weight has [2,2]"),
            std::string::npos)
      << g.status().message();
}

TEST(TfjsTest, WeightPathOutsideTheModelDirectoryIsRejected) {
  TfjsDir d("escape");
  std::string json = ModelJsonText(R"({"name":"w","shape":[4],"dtype":"float32"})");
  json.replace(json.find("weights.bin"), 11, "../etc/passwd");
  auto g = ImportModel(d.Write(json, ""));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("must be a relative path"), std::string::npos);
}

// A link in the model's directory to a file outside it was followed: a model
// could read any file as its weights (and carry it into an export).
TEST(TfjsTest, AWeightFileLinkedFromOutsideTheModelDirectoryIsRejected) {
  TfjsDir d("link_out");
  const std::string model =
      d.Write(ModelJsonText(R"({"name":"w","shape":[4],"dtype":"float32"})"), std::string(16, 0));
  const std::string outside = planner_test::ScratchDir() + "/tfjs_outside.bin";
  ASSERT_TRUE(WriteFileAtomic(outside, std::string(16, 0)).ok());
  ASSERT_EQ(std::remove((d.dir() + "/weights.bin").c_str()), 0);
  ASSERT_EQ(::symlink(outside.c_str(), (d.dir() + "/weights.bin").c_str()), 0);
  auto g = ImportModel(model);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("'weights.bin' must be a relative path inside the model's "
                                      "directory"),
            std::string::npos)
      << g.status().message();
  // A link that stays inside is followed.
  ASSERT_TRUE(WriteFileAtomic(d.dir() + "/real.bin", std::string(16, 0)).ok());
  ASSERT_EQ(std::remove((d.dir() + "/weights.bin").c_str()), 0);
  ASSERT_EQ(::symlink("real.bin", (d.dir() + "/weights.bin").c_str()), 0);
  EXPECT_TRUE(ImportModel(model).ok());
}

// A quantized weight the manifest misdescribes, or extra bytes in a shard,
// loaded with every later weight read at the wrong offset.
TEST(TfjsTest, WeightFilesHoldingMoreThanTheManifestReadsAreRejected) {
  TfjsDir d("long_shard");
  auto g = ImportModel(d.Write(ModelJsonText(R"({"name":"w","shape":[4],"dtype":"float32"})"),
                               std::string(16 + 1000, 0)));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("the manifest's weights read 16 bytes of " + d.dir() +
                                      "/weights.bin, which hold 1016"),
            std::string::npos)
      << g.status().message();
  auto quantized = ImportModel(d.Write(ModelJsonText(R"({"name":"w","shape":[4],"dtype":"float32",
                        "quantization":{"dtype":"uint8","scale":0.1,"min":0}})"),
                                       std::string(16, 0)));
  ASSERT_FALSE(quantized.ok());
  EXPECT_NE(quantized.status().message().find("read 4 bytes"), std::string::npos)
      << quantized.status().message();
}

TEST(TfjsTest, MissingTopologyIsAnError) {
  TfjsDir d("no_topology");
  auto g = ImportModel(d.Write(R"({"modelTopology":{}, "weightsManifest":[]})", ""));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("has no modelTopology nodes"), std::string::npos);
}

TEST(TfjsTest, MalformedJsonIsAnErrorNamingTheFile) {
  TfjsDir d("bad_json");
  std::string path = d.Write(R"({"modelTopology": {"node": [ {"name": "a", )", "");
  auto g = ImportModel(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message().rfind(path + ": not a TensorFlow.js model", 0), 0u)
      << g.status().message();
  EXPECT_EQ(g.status().message().find('\n'), std::string::npos);
}

TEST(TfjsTest, UnknownWeightDtypeIsAnError) {
  TfjsDir d("bad_dtype");
  auto g = ImportModel(
      d.Write(ModelJsonText(R"({"name":"w","shape":[4],"dtype":"float99"})"), std::string(16, 0)));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("unknown dtype 'float99'"), std::string::npos);
}

// A model of one Const 'c' declared with `declared` (TensorFlow's enum name) and
// `shape` dims, whose manifest entry is `weight_spec`.
std::string OneConstModel(const std::string& declared, const std::string& weight_spec) {
  return R"({"format":"graph-model","modelTopology":{"node":[
    {"name":"c","op":"Const","attr":{"dtype":{"type":")" +
         declared + R"("},
      "value":{"tensor":{"dtype":")" +
         declared + R"(","tensorShape":{"dim":[{"size":"3"}]}}}}}]},
    "weightsManifest":[{"paths":["weights.bin"],"weights":[)" +
         weight_spec + "]}]}";
}

TEST(TfjsTest, Int64ConstStoredAsInt32IsWidenedBack) {
  // tfjs-converter writes int64 tensors as int32 and keeps DT_INT64 in the graph.
  TfjsDir d("int64");
  int32_t v[3] = {-7, 0, 123456};
  auto g =
      ImportModel(d.Write(OneConstModel("DT_INT64", R"({"name":"c","shape":[3],"dtype":"int32"})"),
                          std::string(reinterpret_cast<char*>(v), 12)));
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Tensor& t = ConstValue(*g, "c");
  EXPECT_EQ(t.dtype(), DType::kInt64);
  EXPECT_EQ(t.ToInt64s(), (std::vector<int64_t>{-7, 0, 123456}));
}

TEST(TfjsTest, DoubleAndHalfConstsStoredAsFloat32GetTheirDeclaredType) {
  float v[3] = {1.5f, -2.0f, 0.25f};
  for (const char* declared : {"DT_DOUBLE", "DT_HALF"}) {
    TfjsDir d(declared);
    auto g = ImportModel(
        d.Write(OneConstModel(declared, R"({"name":"c","shape":[3],"dtype":"float32"})"),
                std::string(reinterpret_cast<char*>(v), 12)));
    ASSERT_TRUE(g.ok()) << g.status().message();
    const Tensor& t = ConstValue(*g, "c");
    EXPECT_EQ(t.dtype(), std::string(declared) == "DT_DOUBLE" ? DType::kDouble : DType::kHalf);
    EXPECT_EQ(t.ToDoubles(), (std::vector<double>{1.5, -2.0, 0.25})) << declared;
  }
}

TEST(TfjsTest, BoolAndStringWeightsFollowTheConvertersEncoding) {
  // bool: one byte per element; string: a little-endian uint32 length, then the bytes.
  TfjsDir d("bool");
  auto g =
      ImportModel(d.Write(OneConstModel("DT_BOOL", R"({"name":"c","shape":[3],"dtype":"bool"})"),
                          std::string("\1\0\1", 3)));
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(ConstValue(*g, "c").ToInt64s(), (std::vector<int64_t>{1, 0, 1}));

  TfjsDir s("string");
  std::string bin;
  for (std::string v : {"ab", "", "xyz"}) {
    uint32_t n = static_cast<uint32_t>(v.size());
    bin += std::string(reinterpret_cast<char*>(&n), 4) + v;
  }
  auto gs = ImportModel(
      s.Write(OneConstModel("DT_STRING", R"({"name":"c","shape":[3],"dtype":"string"})"), bin));
  ASSERT_TRUE(gs.ok()) << gs.status().message();
  EXPECT_EQ(ConstValue(*gs, "c").strings(), (std::vector<std::string>{"ab", "", "xyz"}));
}

TEST(TfjsTest, WeightOfAnotherTypeThanDeclaredIsAnErrorNamingBoth) {
  TfjsDir d("type_mismatch");
  auto g = ImportModel(
      d.Write(OneConstModel("DT_INT32", R"({"name":"c","shape":[3],"dtype":"float32"})"),
              std::string(12, 0)));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("Const 'c' declares int32 but its weight is float32"),
            std::string::npos)
      << g.status().message();
}

}  // namespace
}  // namespace graph
