// Runs the real `planner` binary on real files and checks exit codes and output.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "graph/file_util.h"
#include "tests/cli/cli_util.h"
#include "tests/graph/test_util.h"
#include "tests/scratch_dir.h"

namespace {

using namespace planner::testing;

TEST(PlannerCliTest, InspectShowsFullStaticShapesAndATrainingGraphForEveryModel) {
  for (const std::string& m : graph::testing::ModelNames()) {
    RunResult r = Planner("inspect --json " + Model(m));
    ASSERT_EQ(r.code, 0) << m << ": " << r.err;
    EXPECT_NE(r.out.find("\"unsupported_ops\":[]"), std::string::npos) << m;
    EXPECT_NE(r.out.find("\"unknown_shape_nodes\":[]"), std::string::npos) << m;
    EXPECT_NE(r.out.find("\"unknown_cost_nodes\":[]"), std::string::npos) << m;
    EXPECT_NE(r.out.find("\"shape_problems\":[]"), std::string::npos) << m;
    EXPECT_NE(r.out.find("\"training\":{\"built\":true"), std::string::npos) << m << ": " << r.out;
  }
}

TEST(PlannerCliTest, InspectSaysWhyAModelWithALoopCannotTrain) {
  RunResult r = Planner("inspect " + std::string(PLANNER_CONTROL_FLOW_DIR) + "/faceboxes.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("training graph   not built: node 'nms/map/while/Enter_1' is TensorFlow "
                       "control flow (Enter): graphs with loops or conditionals are not supported "
                       "for training\n"),
            std::string::npos)
      << r.out;
}

// A text GraphDef whose image input has unknown height and width.
std::string FreeSizeModel() {
  std::string path =
      planner_test::ScratchDir() + "/free_size_" + std::to_string(::getpid()) + ".pbtxt";
  std::ofstream(path) << R"(
node { name: 'image' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { dim { size: 1 } dim { size: -1 } dim { size: -1 }
  dim { size: 3 } } } } }
node { name: 'w' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value'
  value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 3 } dim { size: 3 }
  dim { size: 4 } } float_val: 0.1 } } } }
node { name: 'conv' op: 'Conv2D' input: 'image' input: 'w' attr { key: 'T' value { type: DT_FLOAT } }
  attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: 'padding' value { s: 'SAME' } } }
)";
  return path;
}

TEST(PlannerCliTest, InputShapeGivesTheSizesAnInputLeavesOpen) {
  const std::string model = FreeSizeModel(), devices = Config("local-2cpu");
  RunResult asks = Planner("measure --steps 1 --warmup 0 " + model + " " + devices);
  EXPECT_EQ(asks.code, 1);
  EXPECT_EQ(asks.err, "planner measure: " + model +
                          ": input 'image' has shape [1,?,?,3]; give its size with --input-shape "
                          "image=1,?,?,3, each ? replaced by a size\n");
  RunResult inspect = Planner("inspect --input-shape image=1,16,12,3 " + model);
  ASSERT_EQ(inspect.code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("image  float32 [1,16,12,3]"), std::string::npos) << inspect.out;
  EXPECT_NE(inspect.out.find("conv  float32 [1,16,12,4]"), std::string::npos) << inspect.out;
  RunResult runs = Planner("measure --steps 1 --warmup 0 --input-shape=image=1,16,12,3 " + model +
                           " " + devices);
  EXPECT_EQ(runs.code, 0) << runs.err;

  RunResult unknown = Planner("inspect --input-shape img=1,16,12,3 " + model);
  EXPECT_EQ(unknown.code, 1);
  EXPECT_EQ(unknown.err,
            "planner inspect: " + model +
                ": --input-shape names 'img', which is not an input (inputs: image)\n");
  RunResult misfit = Planner("inspect --input-shape image=2,16,12,3 " + model);
  EXPECT_EQ(misfit.code, 1);
  EXPECT_NE(misfit.err.find("--input-shape image=[2,16,12,3] does not fit its declared shape "
                            "[1,?,?,3]"),
            std::string::npos)
      << misfit.err;
  RunResult malformed = Planner("inspect --input-shape image " + model);
  EXPECT_EQ(malformed.code, 2);
  EXPECT_EQ(Lines(malformed.err), 1) << malformed.err;
  // A size 0, refused as --batch 0 is (it reached the kernels as an empty tensor).
  RunResult empty = Planner("inspect --input-shape image=1,0,12,3 " + model);
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("--input-shape 'image=1,0,12,3' must be NAME=D0,D1,... with sizes "
                           "from 1 to 1073741824"),
            std::string::npos)
      << empty.err;
  // "image=" is a scalar, as promised: refused as a shape that does not fit,
  // not as a malformed flag.
  RunResult scalar = Planner("inspect --input-shape image= " + model);
  EXPECT_EQ(scalar.code, 1) << scalar.err;
  EXPECT_NE(scalar.err.find("--input-shape image=[] does not fit its declared shape [1,?,?,3]"),
            std::string::npos)
      << scalar.err;
}

// A string field that is not UTF-8 fails protobuf's parse, which also logs
// why on stderr: the user sees our one line, not protobuf's log.
TEST(PlannerCliTest, AGraphDefWithInvalidUtf8IsOneLineWithoutProtobufsLog) {
  const std::string path = planner_test::ScratchDir() + "/utf8.pb";
  // GraphDef { node { name: "a" op: "Relu" input: "\xff" } }
  const std::string node = std::string(
      "\x0a\x01"
      "a"
      "\x12\x04"
      "Relu"
      "\x1a\x01\xff",
      12);
  ASSERT_TRUE(graph::WriteFileAtomic(path, "\x0a" + std::string(1, char(node.size())) + node).ok());
  RunResult r = Planner("inspect " + path);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "planner inspect: " + path + ": not a valid binary GraphDef (protobuf parse failed)\n");
}

// An op type with no shape rule leaves the shapes after it unknown, and the
// training graph needs them: the error names the op type, not only the node
// where the unknown shape was first needed.
TEST(PlannerCliTest, AnOpTypeWithNoShapeRuleIsNamedWhenTrainingNeedsItsShapes) {
  const std::string path = planner_test::ScratchDir() + "/unknown_op.pbtxt";
  ASSERT_TRUE(graph::WriteFileAtomic(
                  path,
                  "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT "
                  "} } attr { key: 'shape' value { shape { dim { size: 4 } dim { size: 8 } } } } "
                  "}\n"
                  "node { name: 'w' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
                  "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { "
                  "size: 8 } dim { size: 8 } } float_val: 0.5 } } } }\n"
                  "node { name: 'odd' op: 'FrobnicateXYZ' input: 'x' attr { key: 'T' value { "
                  "type: DT_FLOAT } } }\n"
                  "node { name: 'm' op: 'MatMul' input: 'odd' input: 'w' attr { key: 'T' value "
                  "{ type: DT_FLOAT } } }\n")
                  .ok());
  RunResult r = Planner("simulate " + path + " " + Config("k40-paper-2gpu"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(": node 'odd' (FrobnicateXYZ) has an op type this planner has no shape "
                       "rule for, so its training step cannot be built"),
            std::string::npos)
      << r.err;
}

// An output named twice, or naming an input, would destroy a file: refused
// before any work, naming both.
TEST(PlannerCliTest, AnOutputThatWouldOverwriteAnotherFileIsRefused) {
  const std::string dir = planner_test::ScratchDir();
  const std::string model = dir + "/overwrite_model.json", out = dir + "/overwrite.yaml";
  ASSERT_TRUE(graph::WriteFileAtomic(model, Slurp(Model("emotion"))).ok());
  const std::string devices = Config("k40-paper-2gpu");
  RunResult twice = Planner("search " + model + " " + devices + " --iterations 1 -o " + out +
                            " --checkpoint " + out);
  EXPECT_EQ(twice.code, 1);
  EXPECT_EQ(twice.err, "planner search: " + out +
                           ": named by both -o and --checkpoint (one would overwrite the other)\n");
  RunResult resume =
      Planner("search " + model + " " + devices + " --iterations 1 -o " + out + " --resume " + out);
  EXPECT_EQ(resume.code, 1);
  EXPECT_NE(resume.err.find("named by both -o and --checkpoint (--resume's file)"),
            std::string::npos)
      << resume.err;
  RunResult csv = Planner("search " + model + " " + devices + " --iterations 1 -o " + out +
                          " --csv " + dir + "/./overwrite.yaml");
  EXPECT_EQ(csv.code, 1);
  EXPECT_NE(csv.err.find("named by both -o and --csv"), std::string::npos) << csv.err;
  RunResult input = Planner("search " + model + " " + devices + " --iterations 1 -o " + model);
  EXPECT_EQ(input.code, 1);
  EXPECT_EQ(input.err, "planner search: " + model + ": -o would overwrite the model\n");
  RunResult baseline = Planner("baseline " + model + " " + devices + " -o " + devices);
  EXPECT_EQ(baseline.code, 1);
  EXPECT_NE(baseline.err.find(": -o would overwrite the devices file"), std::string::npos)
      << baseline.err;
  EXPECT_EQ(Slurp(model), Slurp(Model("emotion")));
  RunResult directory = Planner("search " + model + " " + devices + " --iterations 1 -o " + dir);
  EXPECT_EQ(directory.code, 1);
  EXPECT_EQ(directory.err, "planner search: " + dir + ": cannot write -o output (a directory)\n");
}

// Outputs written after the work are checked before it.
TEST(PlannerCliTest, AnUnwritableOutputIsRefusedBeforeTheWork) {
  RunResult trace = Planner("simulate " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                            " --trace /no/such/dir/t.json");
  EXPECT_EQ(trace.code, 1);
  EXPECT_EQ(trace.out, "") << "the results were printed before the trace failed";
  EXPECT_NE(trace.err.find("/no/such/dir/t.json: cannot write --trace output"), std::string::npos)
      << trace.err;
  const std::string run = planner_test::ScratchDir() + "/fleet_unwritable";
  RunResult fleet =
      Planner("fleet up local:1x1 " + Model("emotion") + " " + Config("k40-paper-2gpu") +
              " --dir " + run + " -o /no/such/dir/best.yaml -- --iterations 1");
  EXPECT_EQ(fleet.code, 1);
  EXPECT_EQ(fleet.err,
            "planner fleet up: /no/such/dir/best.yaml: cannot write -o output (directory "
            "'/no/such/dir' is missing or not writable)\n");
  EXPECT_EQ(fleet.out.find("controller"), std::string::npos) << fleet.out;
  RunResult ps = Planner("ps --bind tcp://127.0.0.1:0 --checkpoint " + planner_test::ScratchDir());
  EXPECT_EQ(ps.code, 1);
  EXPECT_NE(ps.err.find("cannot write --checkpoint output (a directory)"), std::string::npos)
      << ps.err;
}

// ps --checkpoint-every without --checkpoint was accepted and wrote nothing.
// Under `timeout`: a server that accepted it would serve until stopped.
TEST(PlannerCliTest, APsCheckpointIntervalWithoutACheckpointIsRefused) {
  const std::string err = planner_test::ScratchDir() + "/ps-interval.err";
  const int status = std::system(("timeout 20 " + std::string(PLANNER_BIN) +
                                  " ps --bind tcp://127.0.0.1:0 --checkpoint-every 5s 2>" + err)
                                     .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2) << Slurp(err);
  EXPECT_EQ(Slurp(err), "planner ps: --checkpoint-every needs --checkpoint FILE\n");
}

TEST(PlannerCliTest, InspectTextNamesTheHeadlineFigures) {
  RunResult r = Planner("inspect " + Model("emotion"));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* key : {"nodes            45", "parameters", "forward FLOPs", "activations",
                          "inputs", "outputs", "op types (10)", "unsupported ops (0): none"}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key << "\n" << r.out;
  }
  // emotion's input has a free batch dimension; the default binds it to 1.
  EXPECT_NE(r.out.find("input_1  float32 [1,64,64,1]"), std::string::npos) << r.out;
}

TEST(PlannerCliTest, BatchFlagSetsTheFreeBatchDimension) {
  RunResult r = Planner("inspect --batch 16 " + Model("emotion"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("input_1  float32 [16,64,64,1]"), std::string::npos) << r.out;
  RunResult bad = Planner("inspect --batch 0 " + Model("emotion"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "planner inspect: --batch must be an integer from 1 to 1048576, got '0'\n");
}

TEST(PlannerCliTest, ImportWritesABinaryGraphDefThatReimports) {
  std::string out = planner_test::ScratchDir() + "/selfie.pb";
  RunResult r = Planner("import " + Model("selfie") + " -o " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  RunResult again = Planner("inspect --json " + out);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("\"nodes\":361"), std::string::npos);
  EXPECT_NE(again.out.find("\"unknown_shape_nodes\":[]"), std::string::npos);
  // The text form too.
  std::string txt = planner_test::ScratchDir() + "/selfie.pbtxt";
  ASSERT_EQ(Planner("import --text " + out + " -o " + txt).code, 0);
  EXPECT_EQ(Planner("inspect " + txt).code, 0);
}

TEST(PlannerCliTest, CorruptModelExitsNonZeroWithOneLineNamingTheFile) {
  std::string path = planner_test::ScratchDir() + "/corrupt.pb";
  ASSERT_TRUE(graph::WriteFileAtomic(path, std::string("\x0a\xff\xff\xff\x0f garbage", 14)).ok());
  RunResult r = Planner("inspect " + path);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("planner inspect: " + path + ": ", 0), 0u) << r.err;
}

TEST(PlannerCliTest, TruncatedTfjsJsonExitsNonZeroWithOneLine) {
  std::string json = Slurp(Model("blazeface"));
  std::string dir = planner_test::ScratchDir() + "/truncated_tfjs";
  ::mkdir(dir.c_str(), 0755);
  ASSERT_TRUE(graph::WriteFileAtomic(dir + "/model.json", json.substr(0, json.size() / 3)).ok());
  RunResult r = Planner("inspect " + dir + "/model.json");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(dir + "/model.json: "), std::string::npos) << r.err;
}

TEST(PlannerCliTest, MissingModelFileExitsNonZero) {
  RunResult r = Planner("inspect /no/such/model.pb");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "planner inspect: /no/such/model.pb: cannot open: No such file or directory\n");
}

TEST(PlannerCliTest, ImportToAnUnwritablePathFailsAndLeavesNothing) {
  RunResult r = Planner("import " + Model("emotion") + " -o /no/such/dir/out.pb");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1);
  EXPECT_NE(r.err.find("/no/such/dir/out.pb: cannot write"), std::string::npos) << r.err;
}

// import -o named the model's own weights file (or the model) and wrote the
// GraphDef over it; zoo -o replaced a FIFO or a device node.
TEST(PlannerCliTest, ImportAndZooRefuseAnOutputOverAnInputOrASpecialFile) {
  // A copy: were the check to fail, the repository's model would be lost.
  const std::string dir = planner_test::ScratchDir();
  for (const char* name : {"emotion.json", "emotion.bin"}) {
    ASSERT_TRUE(graph::WriteFileAtomic(dir + "/" + name,
                                       Slurp(std::string(PLANNER_MODELS_DIR) + "/" + name))
                    .ok());
  }
  const std::string weights = dir + "/emotion.bin";
  const std::string before = Slurp(weights);
  RunResult over = Planner("import " + dir + "/emotion.json -o " + weights);
  EXPECT_EQ(over.code, 1);
  EXPECT_EQ(over.err,
            "planner import: " + weights + ": -o would overwrite the model's weights file\n");
  EXPECT_EQ(Slurp(weights), before);
  RunResult null = Planner("zoo mlp -o /dev/null");
  EXPECT_EQ(null.code, 1);
  EXPECT_EQ(null.err, "planner zoo: /dev/null: cannot write -o output (not a regular file)\n");
}

// Sizes too large to count overflowed to "unknown": 0 bytes and a 0 ms step.
TEST(PlannerCliTest, ATensorTooLargeToCountIsRefusedNamingItsNode) {
  const std::string path = planner_test::ScratchDir() + "/huge.pbtxt";
  ASSERT_TRUE(graph::WriteFileAtomic(
                  path,
                  "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT "
                  "} } attr { key: 'shape' value { shape { dim { size: 3037000500 } dim { size: "
                  "3037000500 } } } } }\n"
                  "node { name: 'y' op: 'Relu' input: 'x' attr { key: 'T' value { type: "
                  "DT_FLOAT } } }\n")
                  .ok());
  RunResult r = Planner("simulate " + path + " " + Config("k40-paper-2gpu"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "planner simulate: " + path +
                       ": output 0 of node 'x' has shape [3037000500,3037000500], more than 2^62 "
                       "bytes: no device holds it\n");
}

TEST(PlannerCliTest, ImportWithoutOutputIsAUsageError) {
  RunResult r = Planner("import " + Model("emotion"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "planner import: -o OUT is required\n");
}

// An ONNX model's symbolic sizes are fixed before its LSTMs are unrolled
// (tests/graph/onnx_test.cc); a GraphDef keeps its declared shapes here.
TEST(PlannerCliTest, ImportTakesInputShapesForOnnxModelsOnly) {
  RunResult r = Planner("import " + Model("emotion") + " -o " + planner_test::ScratchDir() +
                        "/e.pb" + " --input-shape x=1,2");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "planner import: --input-shape applies to ONNX models here (a GraphDef keeps its "
            "declared shapes; inspect, simulate and search take it)\n");
}

TEST(PlannerCliTest, UnknownOptionAndUnknownCommandAreUsageErrors) {
  RunResult r = Planner("inspect --frobnicate " + Model("emotion"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "planner inspect: unknown option '--frobnicate' (see --help)\n");
  RunResult c = Planner("frobnicate");
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.err, "planner: unknown command 'frobnicate' (see planner --help)\n");
  // The design brief's "planner worker | controller | ps": a controller is a search.
  RunResult k = Planner("controller");
  EXPECT_EQ(k.code, 2);
  EXPECT_NE(k.err.find("a fleet's controller is planner search MODEL DEVICES --ps ENDPOINT"),
            std::string::npos)
      << k.err;
}

TEST(PlannerCliTest, EveryCommandHasHelp) {
  // Every command `planner --help` lists, so that a new one is covered too.
  RunResult all = Planner("--help");
  ASSERT_EQ(all.code, 0);
  std::istringstream lines(all.out.substr(all.out.find("commands:\n") + 10));
  int commands = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string cmd;
    if (!(words >> cmd)) continue;
    ++commands;
    RunResult r = Planner(cmd + " --help");
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_EQ(r.out.rfind("usage: planner " + cmd, 0), 0u) << r.out;
    EXPECT_EQ(r.err, "") << cmd;
  }
  EXPECT_GE(commands, 12) << all.out;
}

TEST(PlannerCliTest, DevicesShowsAShippedConfig) {
  RunResult r = Planner(std::string("devices ") + PLANNER_CONFIGS_DIR + "/k40-paper-4gpu.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("5 devices"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/job:localhost/replica:0/task:0/device:GPU:3"), std::string::npos);
}

// A placement's error quoted a "digest" that planner devices did not print
// (it printed the file bytes' one): both are printed, named.
TEST(PlannerCliTest, DevicesPrintsThePlacementDigestThatPlacementsRecord) {
  const std::string devices = std::string(PLANNER_CONFIGS_DIR) + "/k40-paper-2gpu.yaml";
  const std::string placed = planner_test::ScratchDir() + "/digest_placement.yaml";
  ASSERT_EQ(
      Planner("baseline " + Model("emotion") + " " + devices + " --method expert -o " + placed)
          .code,
      0);
  const std::string text = Slurp(placed);
  const size_t at = text.find("devices_digest: ");
  ASSERT_NE(at, std::string::npos) << text;
  std::string digest = text.substr(at + 16, text.find('\n', at) - at - 16);
  digest.erase(std::remove(digest.begin(), digest.end(), '"'), digest.end());
  RunResult r = Planner("devices " + devices);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(", placement digest " + digest + "): "), std::string::npos) << digest << "\n"
                                                                                   << r.out;
  EXPECT_NE(r.out.find(" (file digest "), std::string::npos) << r.out;
  std::remove(placed.c_str());
}

TEST(PlannerCliTest, BadDevicesYamlExitsNonZeroWithOneLineNamingTheFile) {
  std::string path = planner_test::ScratchDir() + "/bad_devices.yaml";
  ASSERT_TRUE(graph::WriteFileAtomic(path, "devices:\n  - name: a\n    kind: tpu\n").ok());
  RunResult r = Planner("devices " + path);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(path + ":3: device 'a': unknown kind 'tpu'"), std::string::npos) << r.err;
}

}  // namespace
