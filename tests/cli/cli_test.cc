// Runs the real `planner` binary on real files and checks exit codes and output.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
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

TEST(PlannerCliTest, ImportWithoutOutputIsAUsageError) {
  RunResult r = Planner("import " + Model("emotion"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "planner import: -o OUT is required\n");
}

TEST(PlannerCliTest, UnknownOptionAndUnknownCommandAreUsageErrors) {
  RunResult r = Planner("inspect --frobnicate " + Model("emotion"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "planner inspect: unknown option '--frobnicate' (see --help)\n");
  RunResult c = Planner("frobnicate");
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.err, "planner: unknown command 'frobnicate' (see planner --help)\n");
}

TEST(PlannerCliTest, EveryCommandHasHelp) {
  for (const char* cmd : {"inspect", "import", "devices"}) {
    RunResult r = Planner(std::string(cmd) + " --help");
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_EQ(r.out.rfind(std::string("usage: planner ") + cmd, 0), 0u) << r.out;
  }
  EXPECT_EQ(Planner("--help").code, 0);
}

TEST(PlannerCliTest, DevicesShowsAShippedConfig) {
  RunResult r = Planner(std::string("devices ") + PLANNER_CONFIGS_DIR + "/k40-paper-4gpu.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("5 devices"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/job:localhost/replica:0/task:0/device:GPU:3"), std::string::npos);
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
