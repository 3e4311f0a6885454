// `planner search`, the real binary: outputs, bad input, signals, resume.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "graph/file_util.h"
#include "tests/cli/cli_util.h"
#include "tests/cli/search_util.h"
#include "tests/cli/softmax_problem.h"
#include "tests/scratch_dir.h"

namespace {

using namespace planner::testing;

TEST(SearchCommandTest, WritesPlacementCurvePictureAndGraphDef) {
  const std::string out = Temp("p.yaml"), csv = Temp("c.csv"), svg = Temp("r.svg"),
                    pb = Temp("placed.pb");
  RunResult r = Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + kFast + " -o " +
                        out + " --csv " + csv + " --svg " + svg + " --export-graphdef " + pb);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("baselines:\n  single:cpu0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  expert "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  etf "), std::string::npos) << r.out;
  // The default grouper (auto) says what it chose and why.
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex("\ngrouper: (name scopes|learned) \\(auto: cut "
                                          "where [a-z:0-9]+'s placement cuts them, [0-9]+ "
                                          "of the 8 groups stay name scopes; 4 needed\\)\n")))
      << r.out;
  EXPECT_NE(r.out.find("best found"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  lower bound    "), std::string::npos) << r.out;
  // The placement is valid for the model and devices: simulate accepts it.
  RunResult sim =
      Planner("simulate " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + " --placement " + out);
  EXPECT_EQ(sim.code, 0) << sim.err;
  EXPECT_EQ(Lines(Slurp(csv)), 7) << "a header and one row per update";
  const std::string picture = Slurp(svg);
  EXPECT_EQ(picture.rfind("<svg", 0), 0u);
  EXPECT_NE(picture.find("</svg>"), std::string::npos);
  EXPECT_NE(picture.find(">gpu1<"), std::string::npos) << "a timeline row per device";
  // The exported GraphDef carries TensorFlow device strings.
  RunResult text = Planner("import " + pb + " --text -o " + Temp("placed.pbtxt"));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(Slurp(Temp("placed.pbtxt")).find("device: \"/job:localhost/replica:0/task:0/device:"),
            std::string::npos);
  for (const std::string& f : {out, out + ".ckpt", csv, svg, pb, Temp("placed.pbtxt")})
    std::remove(f.c_str());
}

TEST(SearchCommandTest, SameSeedGivesTheSameCurve) {
  auto curve = [&](const std::string& csv) {
    RunResult r = Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + kFast +
                          " --seed 3 --csv " + csv);
    EXPECT_EQ(r.code, 0) << r.err;
    // Drop the elapsed-time column.
    std::string s = Slurp(csv), kept;
    size_t pos = 0;
    while (pos < s.size()) {
      size_t nl = s.find('\n', pos);
      std::string line = s.substr(pos, nl - pos);
      size_t a = line.find(','), b = line.find(',', a + 1);
      kept += line.substr(0, a) + line.substr(b) + "\n";
      pos = nl + 1;
    }
    std::remove(csv.c_str());
    return kept;
  };
  EXPECT_EQ(curve(Temp("a.csv")), curve(Temp("b.csv")));
}

TEST(SearchCommandTest, OneDeviceIsSaidAndWritten) {
  const std::string devices = Temp("one.yaml"), out = Temp("one_p.yaml");
  ASSERT_TRUE(graph::WriteFileAtomic(devices,
                                     "devices:\n  - {name: g0, kind: sim, simulates: gpu, "
                                     "peak_flops: 1T, memory_bandwidth: 100GB/s}\n")
                  .ok());
  RunResult r = Planner("search " + SmallRnnlm() + " " + devices + " -o " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("has one device, 'g0': every op runs on it and there is nothing to search"),
            std::string::npos)
      << r.out;
  EXPECT_NE(Slurp(out).find("method: baseline single:g0"), std::string::npos) << Slurp(out);
  std::remove(out.c_str());
  // --export-modules of a model without PyTorch modules is refused before the
  // one device's placement is written (it was refused after).
  const std::string graphdef = Temp("one_p.pb");
  r = Planner("search " + SmallRnnlm() + " " + devices + " -o " + out + " --export-graphdef " +
              graphdef + " --export-modules " + Temp("one_m.yaml"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(": no PyTorch modules"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(graphdef));
  std::remove(devices.c_str());
}

// The policy and the climb move a model's colocated ops (TensorFlow's _class
// "loc:@a") as one: the placement written and exported keeps them together
// (it split the two MatMuls across the GPUs, the fastest way otherwise).
TEST(SearchCommandTest, AModelsColocatedOpsStayTogether) {
  const std::string model = WriteColocatedModel(Temp("colocated.pbtxt"));
  const std::string out = Temp("colocated.yaml"), pb = Temp("colocated.pb");
  RunResult r = Planner("search " + model + " " + Config("k40-paper-2gpu") + kFast + " -o " + out +
                        " --export-graphdef " + pb);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string placed = Slurp(out);
  EXPECT_NE(PlacedOn(placed, "a"), "") << placed;
  EXPECT_EQ(PlacedOn(placed, "b"), PlacedOn(placed, "a")) << placed;
  const std::string exported = ExportedDevice(pb, "a");
  ASSERT_NE(exported, "") << pb;
  EXPECT_EQ(ExportedDevice(pb, "b"), exported);
  // Evaluated as written: simulate gives the step the file records.
  RunResult sim =
      Planner("simulate " + model + " " + Config("k40-paper-2gpu") + " --placement " + out);
  ASSERT_EQ(sim.code, 0) << sim.err;
  const size_t at = placed.find("simulated_step_s: "),
               shown = sim.out.find("simulated step time: ");
  ASSERT_NE(at, std::string::npos) << placed;
  ASSERT_NE(shown, std::string::npos) << sim.out;
  EXPECT_NEAR(std::atof(sim.out.c_str() + shown + 21), 1e3 * std::atof(placed.c_str() + at + 18),
              1e-3)
      << placed << sim.out;
  for (const std::string& f : {model, out, out + ".ckpt", pb}) std::remove(f.c_str());
}

// The same search run again without --resume keeps the earlier search's
// checkpoint as .prev (it was written over), and that one still resumes.
TEST(SearchCommandTest, ASearchRunAgainKeepsTheEarlierCheckpointAsPrev) {
  const std::string out = Temp("again.yaml"), ckpt = out + ".ckpt", prev = ckpt + ".prev";
  std::remove(prev.c_str());
  const std::string search = "search " + SmallRnnlm() + " " + Config("k40-paper-2gpu");
  RunResult first = Planner(search + kFast + " -o " + out);
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_EQ(first.out.find("note: "), std::string::npos) << first.out;
  const std::string earlier = Slurp(ckpt);
  ASSERT_FALSE(earlier.empty());
  RunResult second = Planner(search + " --iterations 3 --refine 0" + kSmallConfig + " -o " + out);
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_NE(second.out.find("note: " + ckpt + " held an earlier search's checkpoint: moved to " +
                            prev + " (--resume " + prev + " goes on with that search)\n"),
            std::string::npos)
      << second.out;
  EXPECT_EQ(Slurp(prev), earlier);
  // Again: the second's checkpoint goes over the first's .prev, and it is said.
  RunResult third = Planner(search + " --iterations 3 --refine 0" + kSmallConfig + " -o " + out);
  ASSERT_EQ(third.code, 0) << third.err;
  EXPECT_NE(third.out.find("moved to " + prev + ", over an older one (--resume "),
            std::string::npos)
      << third.out;
  std::ofstream(prev, std::ios::binary) << earlier;  // the first's (6 updates) resumes
  RunResult resumed =
      Planner(search + " --iterations 8 --refine 0" + kSmallConfig + " --resume " + prev);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("resumed " + prev + ": 6 updates done"), std::string::npos)
      << resumed.out;
  for (const std::string& f : {out, ckpt, prev}) std::remove(f.c_str());
}

// A resumed search is offered the placement the stopped one wrote last (its
// checkpoint may be 30 s older); one that placed gradients apart was not, and
// the checkpoint's best was written over it.
TEST(SearchCommandTest, AResumedSearchIsOfferedALastWrittenPlacementWithGradientsApart) {
  const std::string out = Temp("apart.yaml");
  const std::string common = "search " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                             " --gradients heavy -o " + out;
  RunResult first = Planner(common + " --iterations 2 --refine 2s");
  ASSERT_EQ(first.code, 0) << first.err;
  ASSERT_NE(Slurp(out).find("\ngradients_apart:\n"), std::string::npos) << Slurp(out);
  RunResult resumed = Planner(common + " --iterations 3 --refine 0 --resume " + out + ".ckpt");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("resume: " + out + " ("), std::string::npos) << resumed.out;
  EXPECT_EQ(resumed.out.find("not offered"), std::string::npos) << resumed.out;
  for (const std::string& f : {out, out + ".ckpt"}) std::remove(f.c_str());
}

// What a resumed search cannot take of the placement written last is said,
// and the search goes on from its checkpoint: a gradient apart on a device
// the devices file lacks, and gradients apart where this search keeps them
// with their ops.
TEST(SearchCommandTest, AResumedSearchSaysWhyTheGradientsApartWrittenLastAreNotOffered) {
  const std::string heavy = Temp("apart_h.yaml"), kept = Temp("apart_c.yaml");
  const std::string model = Model("emotion") + " " + Config("k40-paper-2gpu");
  RunResult first =
      Planner("search " + model + " --gradients heavy --iterations 2 --refine 2s -o " + heavy);
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string written = Slurp(heavy);
  const size_t entry = written.find("\ngradients_apart:\n  ");
  ASSERT_NE(entry, std::string::npos) << written;
  const size_t device = written.find(": ", entry + 20) + 2;
  std::string elsewhere = written;
  elsewhere.replace(device, written.find('\n', device) - device, "gpu9");
  std::ofstream(heavy) << elsewhere;
  RunResult r = Planner("search " + model + " --gradients heavy --iterations 3 --refine 0 -o " +
                        heavy + " --resume " + heavy + ".ckpt");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("resume: " + heavy +
                                                  " not offered to the search: it places '[^']+' "
                                                  "on 'gpu9'\n")))
      << r.out;

  ASSERT_EQ(Planner("search " + model + " --iterations 2 --refine 0 -o " + kept).code, 0);
  std::ofstream(kept) << written;  // valid, but with gradients apart
  r = Planner("search " + model + " --iterations 3 --refine 0 -o " + kept + " --resume " + kept +
              ".ckpt");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("resume: " + kept +
                        " not offered to the search: it places '[^']+' apart, which this "
                        "search does not \\(--gradients\\)\n")))
      << r.out;
  for (const std::string& f : {heavy, heavy + ".ckpt", kept, kept + ".ckpt"})
    std::remove(f.c_str());
}

TEST(SearchCommandTest, UnwritableOutputIsAOneLineErrorBeforeAnyWork) {
  RunResult r = Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") +
                        " -o /nonexistent/dir/p.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/dir/p.yaml: cannot write -o output"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(SearchCommandTest, ResumeOfAnotherModelIsRefused) {
  const std::string out = Temp("r.yaml");
  RunResult first =
      Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + kFast + " -o " + out);
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string other = Temp("lenet.pb");
  ASSERT_EQ(Planner("zoo lenet -o " + other).code, 0);
  RunResult r = Planner("search " + other + " " + Config("k40-paper-2gpu") + kFast + " --resume " +
                        out + ".ckpt");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(out + ".ckpt: a checkpoint of another model"), std::string::npos) << r.err;
  // The same model resumes and goes on counting.
  RunResult again =
      Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") +
              " --iterations 8 --refine 1s" + kSmallConfig + " --resume " + out + ".ckpt");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("resumed " + out + ".ckpt: 6 updates done"), std::string::npos)
      << again.out;
  EXPECT_NE(again.out.find("8 updates"), std::string::npos) << again.out;
  for (const std::string& f : {out, out + ".ckpt", other}) std::remove(f.c_str());
}

TEST(SearchCommandTest, WarmStartFitsTheBestBaselineOnceAndNotOnResume) {
  const std::string config = Temp("warm.yaml"), out = Temp("w.yaml");
  ASSERT_TRUE(graph::WriteFileAtomic(config, Slurp(std::string(PLANNER_CONFIGS_DIR) +
                                                   "/../tests/planner/search_small.yaml") +
                                                 "warm_start_steps: 50\nscope_embedding: 4\n"
                                                 "policy_optimizer: sgd\n")
                  .ok());
  const std::string args =
      "search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + " --refine 1s --config " + config;
  RunResult r = Planner(args + " --iterations 2 -o " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("warm start from single:gpu0: cross-entropy "), std::string::npos) << r.out;
  RunResult again = Planner(args + " --iterations 3 --resume " + out + ".ckpt");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out.find("warm start"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("3 updates"), std::string::npos) << again.out;
  for (const std::string& f : {config, out, out + ".ckpt"}) std::remove(f.c_str());
}

TEST(SearchCommandTest, WhenNothingFitsTheSearchFailsWithOneLine) {
  const std::string devices = Temp("tiny.yaml");
  ASSERT_TRUE(graph::WriteFileAtomic(devices,
                                     "devices:\n"
                                     "  - {name: g0, kind: sim, simulates: gpu, peak_flops: 1T, "
                                     "memory_bandwidth: 100GB/s, memory: 1KiB}\n"
                                     "  - {name: g1, kind: sim, simulates: gpu, peak_flops: 1T, "
                                     "memory_bandwidth: 100GB/s, memory: 1KiB}\n"
                                     "default_link: {bandwidth: 10GB/s, latency: 10us}\n")
                  .ok());
  RunResult r = Planner("search " + SmallRnnlm() + " " + devices + kFast);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("no placement ran (every baseline and sample failed; device 'g0' is out of "
                       "memory"),
            std::string::npos)
      << r.err;
  std::remove(devices.c_str());
}

// The small RNNLM searched with `flags` is a usage error (exit 2) printing `err`.
void ExpectUsageError(const std::string& flags, const std::string& err) {
  RunResult bad = Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + flags);
  EXPECT_EQ(bad.code, 2) << flags;
  EXPECT_EQ(bad.err, err) << flags;
}

// --patience ends the policy's search once its best stops improving and hands
// the budget left to the hill climb; without --budget or a climb it is refused.
TEST(SearchCommandTest, PatienceHandsAStalledPolicysBudgetToTheClimb) {
  RunResult r = Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + kSmallConfig +
                        " --budget 8s --patience 1s --patience-gain 0 --refine 1s");
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t handed = r.out.find("policy search: no better placement in the last ");
  ASSERT_NE(handed, std::string::npos) << r.out;
  const size_t left_at = r.out.find("; its ", handed),
               searched_at = r.out.find(" updates, ", handed);
  ASSERT_NE(left_at, std::string::npos) << r.out;
  ASSERT_NE(searched_at, std::string::npos) << r.out;
  double left_s = -1, searched_s = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + left_at, "; its %lf s left", &left_s), 1);
  ASSERT_EQ(std::sscanf(r.out.c_str() + searched_at, " updates, %lf s", &searched_s), 1);
  EXPECT_GE(left_s, 0);
  EXPECT_NEAR(left_s + searched_s, 8, 0.6) << r.out;  // printed to 1 s and 0.1 s
  EXPECT_NE(r.out.find("refine: ", handed), std::string::npos) << r.out;

  for (const char* flags : {" --patience 1s", " --patience 1s --budget 8s --refine 0"}) {
    ExpectUsageError(flags,
                     "planner search: --patience goes with --budget and a hill climb to hand it to "
                     "(not --refine 0)\n");
  }
  for (const char* flags : {" --patience-gain 0.5%", " --budget 8s --patience 0 --patience-gain 1%",
                            " --budget 8s --order climb-first --patience-gain 1%"}) {
    ExpectUsageError(flags,
                     "planner search: --patience-gain goes with --budget, a hill climb and "
                     "--order policy-first (not --patience 0)\n");
  }
  ExpectUsageError(" --budget 8s --patience 1s --patience-gain 60",
                   "planner search: --patience-gain must be a number from 0 to 50, got '60'\n");
}

// With --budget and a climb the stall rule is on by default (60 s, 0.5%):
// --patience-gain alone adjusts it, and --patience 0 turns it off. The flags
// are accepted and the rule is not on at a short patience here; what each
// sets is SearchJob.TheStallRuleIsOnWithABudgetAndAClimbUnlessTurnedOff's.
TEST(SearchCommandTest, PatienceGainAloneTakesTheDefaultPatienceAndPatienceZeroIsOff) {
  for (const char* flags :
       {" --budget 3s --refine 1s --patience-gain 50%", " --budget 3s --refine 1s --patience 0"}) {
    RunResult r =
        Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + kSmallConfig + flags);
    ASSERT_EQ(r.code, 0) << flags << ": " << r.err;
    EXPECT_EQ(r.out.find("policy search: no "), std::string::npos)
        << flags << ": 60 s of patience cannot end a 3 s search\n"
        << r.out;
  }
}

// --patience-gain: a policy whose best keeps improving by less than the gain
// hands its budget to the climb after --patience, and says so.
TEST(SearchCommandTest, PatienceGainIgnoresImprovementsBelowIt) {
  RunResult r = Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + kSmallConfig +
                        " --budget 8s --patience 1s --patience-gain 50% --refine 1s");
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t handed = r.out.find("policy search: no gain of 50% in the last ");
  ASSERT_NE(handed, std::string::npos) << r.out;
  double searched_s = 0;
  ASSERT_EQ(
      std::sscanf(r.out.c_str() + r.out.find(" updates, ", handed), " updates, %lf s", &searched_s),
      1);
  EXPECT_LT(searched_s, 4) << r.out;  // 1 s of patience and one update, with room for a slow VM
}

// --patience-first: a policy that has not yet gained on the best baseline
// hands its budget to the climb after this shorter patience, naming the
// baseline; it goes where --patience-gain goes.
TEST(SearchCommandTest, PatienceFirstEndsAPolicyThatBeatsNoBaselineSooner) {
  RunResult r = Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + kSmallConfig +
                        " --budget 20s --patience 15s --patience-gain 50% --patience-first 1s"
                        " --refine 1s");
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t handed = r.out.find("policy search: no gain of 50% on ");
  ASSERT_NE(handed, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'s ", handed), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" in its first ", handed), std::string::npos) << r.out;
  double searched_s = 0;
  ASSERT_EQ(
      std::sscanf(r.out.c_str() + r.out.find(" updates, ", handed), " updates, %lf s", &searched_s),
      1);
  EXPECT_LT(searched_s, 10) << r.out;  // 1 s, not 15, with room for a slow VM

  for (const char* flags : {" --patience-first 1s", " --budget 8s --patience 0 --patience-first 1s",
                            " --budget 8s --order climb-first --patience-first 1s"}) {
    ExpectUsageError(flags,
                     "planner search: --patience-first goes with --budget, a hill climb and "
                     "--order policy-first (not --patience 0)\n");
  }
}

// --order climb-first: the climb from the baselines until it stalls, then the
// policy from its result, then the climb again, all within --budget + --refine;
// it needs both and sim rewards, and an unknown order is named.
TEST(SearchCommandTest, ClimbFirstHandsAStalledClimbsResultToThePolicy) {
  const std::string out = Temp("climb_first.yaml");
  RunResult r = Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + kSmallConfig +
                        " --budget 6s --refine 1s --order climb-first --patience 1s -o " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t first = r.out.find("climb first: ");
  ASSERT_NE(first, std::string::npos) << r.out;
  EXPECT_LT(r.out.find("refine: from 3 start(s)"), first) << r.out;
  double climbed_s = -1, policy_s = -1;
  ASSERT_EQ(std::sscanf(r.out.c_str() + r.out.find(" after ", first), " after %lf s", &climbed_s),
            1);
  ASSERT_EQ(std::sscanf(r.out.c_str() + r.out.find(" with ", first), " with %lf s", &policy_s), 1);
  // Ended before its time: by the patience, or by the kicks' own limit.
  EXPECT_EQ(r.out.find("(out of time)", first), std::string::npos) << r.out;
  EXPECT_NEAR(climbed_s + policy_s, 6, 1.01) << r.out;  // both printed to 1 s
  const size_t updates = r.out.find("policy search: best ", first);
  ASSERT_NE(updates, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refine: from 1 start(s)", updates), std::string::npos) << r.out;
  EXPECT_TRUE(std::ifstream(out).good());

  for (const char* flags :
       {" --order climb-first", " --order climb-first --budget 4s --refine 0"}) {
    ExpectUsageError(flags,
                     "planner search: --order climb-first goes with --budget, --reward sim and a "
                     "hill climb (not --refine 0)\n");
  }
  ExpectUsageError(" --order random",
                   "planner search: --order: 'random' is not an order (policy-first or "
                   "climb-first)\n");
}

// --climb-starts: the climb after the policy tries the best so far and the
// fastest baselines that place differently, three by default (the small
// RNNLM has that many), the best so far alone with 1; out of range is named.
TEST(SearchCommandTest, ClimbStartsSetsHowManyPlacementsTheClimbTries) {
  const std::string flags =
      " " + Config("k40-paper-2gpu") + kSmallConfig + " --iterations 1 --refine 1s";
  RunResult three = Planner("search " + SmallRnnlm() + flags);
  ASSERT_EQ(three.code, 0) << three.err;
  EXPECT_NE(three.out.find("refine: from 3 start(s)"), std::string::npos) << three.out;
  RunResult one = Planner("search " + SmallRnnlm() + flags + " --climb-starts 1");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("refine: from 1 start(s)"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("refine: from 3 start(s)"), std::string::npos) << one.out;
  for (const char* n : {"0", "9", "two"}) {
    ExpectUsageError(std::string(" --climb-starts ") + n,
                     std::string("planner search: --climb-starts must be an integer from 1 to 8, "
                                 "got '") +
                         n + "'\n");
  }
}

// --kicks: once the policy's own sample beats every baseline (two_branch,
// where 3 updates find one), the last climb's kicks move units onto
// placements sampled from it (the log counts them); a policy that beat none
// (the small RNNLM, whose single:gpu0 no sample beats) gets random kicks and
// the log says why; with --kicks random, or a policy without updates (the
// climb alone), they are random too; an unknown kind is named.
TEST(SearchCommandTest, KicksComeFromThePolicysSamplesOnlyOnceItBeatsTheBaselines) {
  const std::string two_branch = Temp("two_branch_kicks.pb");
  ASSERT_EQ(Planner("zoo two_branch -o " + two_branch).code, 0);
  const std::string devices = " " + Config("k40-paper-2gpu") + kSmallConfig;
  RunResult guided = Planner("search " + two_branch + devices + " --iterations 3 --refine 2s");
  ASSERT_EQ(guided.code, 0) << guided.err;
  ASSERT_NE(guided.out.find(" ms (search) after 3 updates"), std::string::npos) << guided.out;
  const size_t kicks = guided.out.find(" kicks (");
  ASSERT_NE(kicks, std::string::npos) << guided.out;
  int onto = 0;
  ASSERT_EQ(std::sscanf(guided.out.c_str() + kicks, " kicks (%d onto the policy's samples", &onto),
            1)
      << guided.out;
  EXPECT_GT(onto, 0) << guided.out;
  EXPECT_EQ(guided.out.find("random kicks"), std::string::npos) << guided.out;

  const std::string rnnlm = "search " + SmallRnnlm() + devices;
  RunResult unguided = Planner(rnnlm + " --iterations 3 --refine 2s");
  ASSERT_EQ(unguided.code, 0) << unguided.err;
  EXPECT_NE(unguided.out.find("refine: random kicks: the policy found nothing faster than "
                              "single:gpu0's "),
            std::string::npos)
      << unguided.out;
  EXPECT_EQ(unguided.out.find("onto the policy's samples"), std::string::npos) << unguided.out;
  for (const std::string& flags :
       {rnnlm + " --iterations 0 --refine 2s",
        "search " + two_branch + devices + " --iterations 3 --refine 2s --kicks random"}) {
    RunResult r = Planner(flags);
    ASSERT_EQ(r.code, 0) << flags << ": " << r.err;
    EXPECT_NE(r.out.find(" kicks ("), std::string::npos) << flags << ": " << r.out;
    EXPECT_EQ(r.out.find("onto the policy's samples"), std::string::npos) << flags << ": " << r.out;
  }
  ExpectUsageError(" --kicks uniform",
                   "planner search: --kicks: 'uniform' is not a kind of kick (policy or random)\n");
}

// --sweeps: by default the climb's sweeps after the first try only what a
// kept move touched, so a sweep tries fewer moves than with --sweeps full,
// which tries every name scope every sweep; an unknown kind is named.
TEST(SearchCommandTest, FocusedSweepsTryFewerMovesASweepThanFullOnes) {
  const std::string base = "search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") +
                           kSmallConfig + " --iterations 0 --refine 2s";
  auto moves_a_sweep = [&](const std::string& flags) {
    RunResult r = Planner(base + flags);
    EXPECT_EQ(r.code, 0) << flags << ": " << r.err;
    const size_t at = r.out.find(" moves tried, ");
    if (at == std::string::npos) {
      ADD_FAILURE() << flags << ": " << r.out;
      return 0.0;
    }
    const size_t line = r.out.rfind(',', at);  // "..., N moves tried, K kept in S sweeps"
    double moves = 0, kept = 0, sweeps = 0;
    EXPECT_EQ(std::sscanf(r.out.c_str() + line, ", %lf moves tried, %lf kept in %lf sweeps", &moves,
                          &kept, &sweeps),
              3)
        << r.out;
    return sweeps > 0 ? moves / sweeps : 0.0;
  };
  const double focused = moves_a_sweep("");
  const double full = moves_a_sweep(" --sweeps full");
  EXPECT_GT(focused, 0);
  EXPECT_LT(focused, full);
  ExpectUsageError(" --sweeps some",
                   "planner search: --sweeps: 'some' is not a kind of sweep (focused or full)\n");
}

TEST(SearchCommandTest, TheClimbMovesRunsOfSiblingScopesUnlessToldScopes) {
  const std::string base = "search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") +
                           kSmallConfig + " --iterations 0 --refine 1s";
  // "refine: S name scopes[ and R runs of sibling scopes], ..."
  auto units = [&](const std::string& flags) {
    RunResult r = Planner(base + flags);
    EXPECT_EQ(r.code, 0) << flags << ": " << r.err;
    int scopes = -1, runs = 0;
    for (size_t at = r.out.find("refine: "); at != std::string::npos && scopes < 0;
         at = r.out.find("refine: ", at + 1)) {
      std::sscanf(r.out.c_str() + at, "refine: %d name scopes and %d runs", &scopes, &runs);
    }
    if (scopes < 0) ADD_FAILURE() << flags << ": " << r.out;
    return std::make_pair(scopes, runs);
  };
  const auto [scopes, none] = units(" --units scopes");
  const auto [same, runs] = units("");
  EXPECT_GT(scopes, 0);
  EXPECT_EQ(none, 0);
  EXPECT_EQ(same, scopes);
  EXPECT_GT(runs, 0) << "RNNLM's layers hold runs of time steps";
  ExpectUsageError(" --units some",
                   "planner search: --units: 'some' is not a kind of unit (runs or scopes)\n");
}

// The climb's moves are simulated with the incumbent's time as the cutoff:
// the log counts those stopped early, and --cutoff off simulates each whole.
TEST(SearchCommandTest, TheClimbsCutoffStopsMovesEarlyUnlessOff) {
  const std::string base = "search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") +
                           kSmallConfig + " --iterations 0 --refine 1s";
  RunResult on = Planner(base);
  ASSERT_EQ(on.code, 0) << on.err;
  int cut = -1, moves = -1;
  const size_t at = on.out.find("refine: the simulator stopped ");
  ASSERT_NE(at, std::string::npos) << on.out;
  ASSERT_EQ(std::sscanf(on.out.c_str() + at, "refine: the simulator stopped %d of the %d moves",
                        &cut, &moves),
            2);
  EXPECT_GT(cut, 0);
  EXPECT_LT(cut, moves) << "moves that were kept ran to their end";
  RunResult off = Planner(base + " --cutoff off");
  ASSERT_EQ(off.code, 0) << off.err;
  EXPECT_EQ(off.out.find("refine: the simulator stopped"), std::string::npos) << off.out;
  ExpectUsageError(" --cutoff maybe",
                   "planner search: --cutoff: 'maybe' is not a cutoff setting (on or off)\n");
}

TEST(SearchCommandTest, GradientsHeavyRunsAGradientApartThatSimulateReproduces) {
  const auto [model, devices] = SoftmaxFiles(Temp(""));
  const std::string out = Temp("apart.yaml"), colocated_out = Temp("colocated.yaml");
  const std::string base = "search " + model + " " + devices + " --iterations 0 --refine 1s";
  RunResult colocated = Planner(base + " -o " + colocated_out);
  ASSERT_EQ(colocated.code, 0) << colocated.err;
  EXPECT_EQ(colocated.out.find("gradients:"), std::string::npos) << colocated.out;
  RunResult apart = Planner(base + " --gradients heavy -o " + out);
  ASSERT_EQ(apart.code, 0) << apart.err;
  EXPECT_NE(apart.out.find("gradients: 4 gradient op(s) may run apart from their op"),
            std::string::npos)
      << apart.out;
  EXPECT_NE(apart.out.find(", 4 gradient ops apart, "), std::string::npos) << apart.out;
  const double apart_ms = BestFoundMs(apart.out);
  EXPECT_LT(apart_ms, 0.95 * BestFoundMs(colocated.out));
  const std::string file = *graph::ReadFile(out);
  EXPECT_NE(file.find("gradients_apart:\n  gradients/soft/m/MatMul"), std::string::npos) << file;
  EXPECT_EQ(graph::ReadFile(colocated_out)->find("gradients_apart"), std::string::npos);
  // The file is the placement the search timed: simulate gives its time.
  RunResult simulated = Planner("simulate " + model + " " + devices + " --placement " + out);
  ASSERT_EQ(simulated.code, 0) << simulated.err;
  char expected[64];
  std::snprintf(expected, sizeof expected, "simulated step time: %.3f ms", apart_ms);
  EXPECT_NE(simulated.out.find(expected), std::string::npos) << simulated.out;
}

// The policy places the apart slots too: alone (--refine 0), in a few
// updates, it runs a gradient apart from its op, faster than any placement
// with the gradients colocated can be (the climb's colocated best).
TEST(SearchCommandTest, ThePolicyAlonePlacesGradientsApart) {
  const auto [model, devices] = SoftmaxFiles(Temp(""));
  const std::string out = Temp("policy-apart.yaml");
  RunResult colocated = Planner("search " + model + " " + devices +
                                " --iterations 0 --refine 1s -o " + Temp("climbed-colocated.yaml"));
  ASSERT_EQ(colocated.code, 0) << colocated.err;
  RunResult policy = Planner("search " + model + " " + devices +
                             " --iterations 20 --refine 0 --gradients heavy -o " + out);
  ASSERT_EQ(policy.code, 0) << policy.err;
  EXPECT_NE(policy.out.find("placed by the policy and the climb"), std::string::npos) << policy.out;
  EXPECT_LT(BestFoundMs(policy.out), 0.95 * BestFoundMs(colocated.out)) << policy.out;
  EXPECT_NE(graph::ReadFile(out)->find("gradients_apart:\n  gradients/"), std::string::npos);
}

// With --order climb-first the climb's result, gradients apart, is the
// search's best, which the checkpoint keeps: a resume needs the same setting.
TEST(SearchCommandTest, AResumeKeepsTheGradientsSettingOfItsCheckpoint) {
  const auto [model, devices] = SoftmaxFiles(Temp(""));
  const std::string out = Temp("climbed.yaml");
  RunResult first =
      Planner("search " + model + " " + devices +
              " --budget 2s --order climb-first --refine 1s --gradients heavy -o " + out);
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string resume = "search " + model + " " + devices +
                             " --budget 3s --order climb-first --refine 1s --resume " + out +
                             ".ckpt --checkpoint " + Temp("again.ckpt");
  RunResult without = Planner(resume);
  EXPECT_EQ(without.code, 1);
  EXPECT_EQ(without.err, "planner search: " + out +
                             ".ckpt: a checkpoint of a search that places 4 gradient op(s) apart "
                             "from their op, and this search none: resume with the --gradients "
                             "setting it was made with\n");
  RunResult with = Planner(resume + " --gradients heavy");
  EXPECT_EQ(with.code, 0) << with.err;
  EXPECT_NE(with.out.find("resumed "), std::string::npos) << with.out;
}

TEST(SearchCommandTest, GradientsHeavyIsRefusedWhereItsPlacementCannotGo) {
  const std::pair<const char*, const char*> cases[] = {
      {" --gradients heavy --export-modules MODULES",
       "planner search: --export-modules carries the devices of the model's own ops, and a "
       "gradient runs with its op there: it cannot carry --gradients heavy's placement (use the "
       "placement file)\n"},
      {" --gradients heavy --export-graphdef PB",
       "planner search: --export-graphdef carries the devices of the model's own ops, and a "
       "gradient runs with its op there: it cannot carry --gradients heavy's placement (use the "
       "placement file)\n"},
      {" --gradients some",
       "planner search: --gradients: 'some' is not a gradient placement (colocated or heavy)\n"}};
  for (const auto& [flags, err] : cases) {
    std::string f = flags;
    f = std::regex_replace(f, std::regex("MODULES"), Temp("modules.yaml"));
    f = std::regex_replace(f, std::regex("PB"), Temp("placed.pb"));
    ExpectUsageError(f, err);
  }
}

TEST(SearchCommandTest, BadFlagsAreUsageErrors) {
  for (const char* flags : {"--reward fleet", "--budget 5x", "--iterations -1", "--seed x"}) {
    RunResult r = Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + " " + flags);
    EXPECT_EQ(r.code, 2) << flags;
    EXPECT_EQ(Lines(r.err), 1) << flags << ": " << r.err;
  }
}

TEST(SearchCommandTest, RealRewardsNeedRealDevices) {
  RunResult r =
      Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + " --reward real");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("'cpu0' is a sim device (use --reward sim)"), std::string::npos) << r.err;
}

TEST(SearchCommandTest, SimRewardsOnRealDevicesNeedAProfileWhenTheCacheIsOff) {
  RunResult r =
      Planner("search " + SmallRnnlm() + " " + Config("local-2cpu") + " --profile-cache off");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("planner profile"), std::string::npos) << r.err;
}

TEST(SearchCommandTest, RealDevicesAreProfiledOnceIntoTheCache) {
  const std::string cache = Temp("cache");
  const std::string cmd = "search " + SmallRnnlm() + " " + Config("local-2cpu") +
                          " --iterations 2 --refine 1s --profile-cache " + cache + kSmallConfig;
  RunResult first = Planner(cmd);
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_NE(first.out.find("new op entries"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("  etf "), std::string::npos) << first.out;
  EXPECT_EQ(first.out.find("skipped"), std::string::npos) << "etf, metis, scotch have costs";
  EXPECT_NE(first.out.find("on the real devices"), std::string::npos) << first.out;
  RunResult second = Planner(cmd);
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_NE(second.out.find("every op signature cached"), std::string::npos) << second.out;
  std::system(("rm -rf " + cache).c_str());
}

TEST(SearchCommandTest, AnUnwritableProfileCacheIsAOneLineError) {
  RunResult r = Planner("search " + SmallRnnlm() + " " + Config("local-2cpu") +
                        " --profile-cache /proc/no/such/dir");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/proc/no"), std::string::npos) << r.err;
}

TEST(SearchCommandTest, RealRewardSearchOnLocalCpusReMeasuresTheResult) {
  const std::string model = Temp("two_branch.pb");
  ASSERT_EQ(Planner("zoo two_branch -o " + model).code, 0);
  RunResult r = Planner("search " + model + " " + Config("local-2cpu") +
                        " --reward real --iterations 3 --steps 2 --config " +
                        std::string(PLANNER_CONFIGS_DIR) + "/../tests/planner/search_small.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("reward real"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("best found"), std::string::npos) << r.out;
  // A placement other than the best baseline's is measured again against it
  // in interleaved rounds, listed under the verdict, one pair each (9 by
  // default). Only when the search measured nothing faster than the best
  // baseline is there nothing to measure again, and the result is the baseline.
  const size_t verdict = r.out.find("on the hardware, ");
  if (verdict == std::string::npos) {
    const size_t none = r.out.find("no improvement over ");
    ASSERT_NE(none, std::string::npos) << r.out;
    const std::string baseline =
        r.out.substr(none + 20, r.out.find(": the search", none) - none - 20);  // X of single:cpu0
    EXPECT_NE(r.out.find(": the search measured no other placement faster", none),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("  best found     " + baseline + " "), std::string::npos) << r.out;
  } else {
    EXPECT_TRUE(r.out.find("% faster than ", verdict) != std::string::npos ||
                r.out.find("no significant improvement over ", verdict) != std::string::npos)
        << r.out;
    const size_t rounds = r.out.find("\n  its rounds, ms (found/", verdict);
    ASSERT_EQ(rounds, r.out.find('\n', verdict)) << r.out;
    const std::string line = r.out.substr(rounds + 1, r.out.find('\n', rounds + 1) - rounds - 1);
    EXPECT_EQ(std::count(line.begin(), line.end(), '/'), 1 + 9) << line;
  }
  // Before the climb, its simulator is refitted to what the search measured
  // (the single-device baselines, one step each, and the placements that
  // split), and the candidate that predicts the measured placements best is
  // kept: the line gives each one's error.
  const size_t refit = r.out.find(" measured steps (");
  ASSERT_NE(refit, std::string::npos) << r.out;
  int single = 0, shared = 0, placements = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + refit,
                        " measured steps (%d on one device, %d shared); median |simulated - "
                        "measured| over the %d measured placements",
                        &single, &shared, &placements),
            3)
      << r.out;
  // single:cpu0 and single:cpu1, and any sample whose timed ops all ran on
  // one device (a Placer over 7 name scopes samples a few).
  EXPECT_GE(single, 2) << r.out;
  EXPECT_GE(shared, 1) << r.out;  // etf, metis or scotch split the branches
  EXPECT_GE(placements, 3) << r.out;
  const size_t line_end = r.out.find('\n', refit);
  for (const char* candidate : {": profile as made ", ", op times refitted ",
                                ", op times and sharing refitted ", "; the climb runs on the "}) {
    EXPECT_LT(r.out.find(candidate, refit), line_end) << candidate << "\n" << r.out;
  }
  EXPECT_LT(refit, r.out.find("refine: from ")) << r.out;
  std::remove(model.c_str());
}

TEST(SearchCommandTest, RecalibrateOffKeepsTheProfileAndBadValuesAreUsageErrors) {
  const std::string model = Temp("two_branch_off.pb");
  ASSERT_EQ(Planner("zoo two_branch -o " + model).code, 0);
  RunResult r = Planner("search " + model + " " + Config("local-2cpu") +
                        " --reward real --iterations 1 --steps 1 --refine 1s --recalibrate off "
                        "--config " +
                        std::string(PLANNER_CONFIGS_DIR) + "/../tests/planner/search_small.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("refine: from "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" measured steps ("), std::string::npos) << r.out;
  ExpectUsageError(" --recalibrate maybe",
                   "planner search: --recalibrate: 'maybe' is not on or off\n");
  std::remove(model.c_str());
}

TEST(SearchCommandTest, RealRewardSearchMeasuresTheFastestBaselinesAgainUnlessTold) {
  // One measurement of each baseline is a noisy draw, and the best baseline is
  // what the verdict compares with and what is written without a gain: the three
  // fastest distinct placements are measured again, and the best baseline is
  // the one whose median is lowest.
  const std::string model = Temp("two_branch_again.pb");
  ASSERT_EQ(Planner("zoo two_branch -o " + model).code, 0);
  const std::string search = "search " + model + " " + Config("local-2cpu") +
                             " --reward real --iterations 1 --steps 1 --refine 0 --config " +
                             std::string(PLANNER_CONFIGS_DIR) +
                             "/../tests/planner/search_small.yaml";
  RunResult r = Planner(search);
  ASSERT_EQ(r.code, 0) << r.err;
  // Three, or more when a placement measured once passed their medians.
  const std::string head = "  measured again (3 rounds, the ";
  const size_t at = r.out.find(head);
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" fastest; median [range] of each one's 4): ", at), std::string::npos)
      << r.out;
  const size_t colon = r.out.find("): ", at) + 3;
  std::istringstream line(r.out.substr(colon, r.out.find('\n', at) - colon));
  std::string fastest, name, entry;
  double best_ms = 1e300;
  int names = 0;
  while (std::getline(line, entry, ',')) {
    std::istringstream words(entry);
    double ms = 0;
    ASSERT_TRUE(words >> name >> ms) << entry;
    ++names;
    if (ms < best_ms) best_ms = ms, fastest = name;
  }
  EXPECT_GE(names, 3) << r.out;
  EXPECT_NE(r.out.find("cut where " + fastest + "'s placement"), std::string::npos) << r.out;
  EXPECT_LT(at, r.out.find("grouper: ")) << r.out;
  r = Planner(search + " --baseline-rounds 0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("measured again"), std::string::npos) << r.out;
}

TEST(SearchCommandTest, RealRewardSearchOfAChainClaimsOnlyWhatTheVerdictDecided) {
  // The zoo's "chain" trains as one chain of ops (graph/models.h): no op can run
  // beside another. That no split can beat the faster core is not a law of this
  // hardware, though: on a CI machine (2026-11-27) a placement found by the
  // search ran 3.7% faster than scotch's in all 9 rounds (two cores' caches
  // hold more of the chain than one). So the test checks what the search must
  // do whichever way the hardware goes: claim a gain only with the verdict's
  // evidence (all 9 rounds at --significance 0.002, p = 1/512), and write to -o
  // exactly what the verdict decided: the found placement with a claim, the
  // best baseline without one.
  const std::string model = Temp("chain.pb"), out = Temp("chain.yaml");
  ASSERT_EQ(Planner("zoo chain -o " + model).code, 0);
  RunResult r = Planner("search " + model + " " + Config("local-2cpu") +
                        " --reward real --iterations 20 --steps 3 --significance 0.002 -o " + out +
                        " --config " + std::string(PLANNER_CONFIGS_DIR) +
                        "/../tests/planner/search_small.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string written = Slurp(out);
  if (r.out.find("% faster than") != std::string::npos) {
    EXPECT_NE(r.out.find("p = 0.00195 over 9 interleaved rounds"), std::string::npos) << r.out;
    EXPECT_EQ(written.find("method: baseline "), std::string::npos) << written;
  } else if (r.out.find("on the hardware, ") != std::string::npos) {
    EXPECT_NE(r.out.find("no significant improvement over "), std::string::npos) << r.out;
    EXPECT_NE(written.find("method: baseline "), std::string::npos) << written;
  } else {  // nothing measured faster than the best baseline: no verdict to run
    EXPECT_NE(r.out.find(": the search measured no other placement faster"), std::string::npos)
        << r.out;
    EXPECT_NE(written.find("method: baseline "), std::string::npos) << written;
  }
  for (const std::string& f : {model, out, out + ".ckpt"}) std::remove(f.c_str());
}

// A profile of another model gave no climb on real rewards, and no line said so.
TEST(SearchCommandTest, AProfileOfAnotherModelSaysThereIsNoClimbAndWhy) {
  const std::string mlp = Temp("climbless_mlp.pb"), chain = Temp("climbless_chain.pb"),
                    prof = Temp("climbless.prof");
  ASSERT_EQ(Planner("zoo mlp -o " + mlp).code, 0);
  ASSERT_EQ(Planner("zoo chain -o " + chain).code, 0);
  ASSERT_EQ(
      Planner("profile --steps 1 --warmup 0 " + chain + " " + Config("local-2cpu") + " -o " + prof)
          .code,
      0);
  RunResult r = Planner("search " + mlp + " " + Config("local-2cpu") + " --reward real --profile " +
                        prof + " --steps 1 --iterations 1 --refine 5s --rounds 5" + kSmallConfig);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("refine: no hill climb: its simulator cannot time this model ("),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("lacks this op: planner profile MODEL DEVICES -o PROFILE adds it"),
            std::string::npos)
      << r.out;
  for (const std::string& f : {mlp, chain, prof}) std::remove(f.c_str());
}

TEST(SearchCommandTest, BadVerdictFlagsAreOneLineErrors) {
  for (const char* flags :
       {"--rounds 0", "--significance 0", "--significance 0.7", "--significance x", "--rounds 4",
        "--baseline-rounds -1", "--baseline-rounds 101", "--baseline-rounds x"}) {
    RunResult r = Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + " " + flags);
    EXPECT_EQ(r.code, 2) << flags;
    EXPECT_EQ(Lines(r.err), 1) << flags << ": " << r.err;
    const std::string flag(flags, std::strchr(flags, ' '));
    EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
  }
}

// Accepted and ignored before: a simulated search measures nothing for the
// baselines' rounds or the climb's refit to use.
TEST(SearchCommandTest, FlagsOfMeasuredRewardsAreRefusedWithRewardSim) {
  ExpectUsageError(" --baseline-rounds 2",
                   "planner search: --baseline-rounds goes with measured rewards (--reward real, "
                   "or a fleet's): with --reward sim nothing is measured before the climb\n");
  ExpectUsageError(" --recalibrate off",
                   "planner search: --recalibrate goes with --reward real: with --reward sim "
                   "nothing is measured before the climb\n");
  ExpectUsageError(" --steps 20",
                   "planner search: --steps goes with measured rewards (--reward real, or a "
                   "fleet's): with --reward sim every placement is simulated\n");
  ExpectUsageError(" --reward fleet --fleet " + Config("fleet") + " --recalibrate off",
                   "planner search: --recalibrate goes with --reward real: a fleet's steps run on "
                   "its workers, whose timelines do not come back to refit the climb's "
                   "simulator\n");
  ExpectUsageError(" --profile p.profile --profile-cache off",
                   "planner search: --profile-cache goes without --profile: with --profile's "
                   "costs, no device is profiled into a cache\n");
}

// The verdict's flags with sim rewards on sim devices, and a measured run's
// flags with a fleet whose workers simulate, were accepted and did nothing.
TEST(SearchCommandTest, FlagsOfMeasurementAreRefusedWhereNothingIsMeasured) {
  for (const char* flag : {" --rounds 5", " --significance 0.01"}) {
    ExpectUsageError(flag, "planner search: " + std::string(flag + 1, std::strchr(flag + 1, ' ')) +
                               " goes with the hardware's verdict, which runs where every device "
                               "is real, and " +
                               Config("k40-paper-2gpu") + "'s 'cpu0' is a sim device\n");
  }
  for (const char* flag : {" --steps 3", " --baseline-rounds 2", " --rounds 5"}) {
    ExpectUsageError(" --reward fleet --fleet " + Config("fleet") + flag,
                     "planner search: " + std::string(flag + 1, std::strchr(flag + 1, ' ')) +
                         " goes with measured rewards, and " + Config("fleet") +
                         "'s workers simulate (mode: sim)\n");
  }
}

// The hill climb's flags with no climb, and climb-first with no patience,
// were accepted and did nothing (--patience 0 became 60 s).
TEST(SearchCommandTest, FlagsOfAClimbThatIsOffAreRefused) {
  for (const char* flag : {" --kicks random", " --climb-starts 2", " --sweeps full",
                           " --units scopes", " --cutoff off"}) {
    ExpectUsageError(std::string(" --refine 0") + flag,
                     "planner search: " + std::string(flag + 1, std::strchr(flag + 1, ' ')) +
                         " goes with the hill climb, which --refine 0 turns off\n");
  }
  ExpectUsageError(" --budget 8s --order climb-first --patience 0",
                   "planner search: --patience 0 with --order climb-first would never hand the "
                   "climb's result to the policy (for the climb alone: --iterations 0)\n");
}

// A TF.js model's weights live in files beside its model.json: --csv named one
// and overwrote it, and the model no longer loaded.
TEST(SearchCommandTest, AnOutputOverAModelsWeightsFileIsRefusedBeforeAnyWork) {
  const std::string dir = Temp("weights");
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  for (const char* name : {"emotion.json", "emotion.bin"}) {
    std::ifstream in(std::string(PLANNER_MODELS_DIR) + "/" + name, std::ios::binary);
    ASSERT_TRUE(in.good()) << name;
    std::ofstream(dir + "/" + name, std::ios::binary) << in.rdbuf();
  }
  const std::string bin = dir + "/emotion.bin", before = Slurp(bin);
  RunResult r = Planner("search " + dir + "/emotion.json " + Config("k40-paper-2gpu") +
                        " --iterations 1 --refine 0 -o " + dir + "/p.yaml --csv " + bin);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "planner search: " + bin + ": --csv would overwrite the model's weights file\n");
  EXPECT_EQ(Slurp(bin), before);
}

}  // namespace
