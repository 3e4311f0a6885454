// `planner baseline`, the real binary on the shared models and shipped configs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/cli/cli_util.h"
#include "tests/scratch_dir.h"

namespace {

using namespace planner::testing;

// The number right after `key` in `out`, or NaN (failing the test) without it.
double NumberAfter(const std::string& out, const std::string& key) {
  const size_t at = out.find(key);
  EXPECT_NE(at, std::string::npos) << key << " in\n" << out;
  return at == std::string::npos ? std::nan("") : std::atof(out.c_str() + at + key.size());
}

std::string Temp(const std::string& name) {
  return planner_test::ScratchDir() + "/baseline_" + std::to_string(::getpid()) + "_" + name;
}

TEST(BaselineCommandTest, EveryMethodPrintsItsStepAndTheFastestIsNamed) {
  RunResult r = Planner("baseline --batch 32 " + Model("emotion") + " " + Config("k40-paper-2gpu"));
  ASSERT_EQ(r.code, 0) << r.err;
  double fastest = 1e300;
  for (const char* m :
       {"single:cpu0", "single:gpu0", "single:gpu1", "expert", "etf", "msct", "metis", "scotch"}) {
    const double ms = NumberAfter(r.out, std::string("  ") + m);
    EXPECT_GT(ms, 0) << m;
    const size_t line = r.out.find(std::string("  ") + m);
    EXPECT_NE(r.out.substr(line, r.out.find('\n', line) - line).find(" ms (planned in "),
              std::string::npos)
        << m << ": " << r.out;
    fastest = std::min(fastest, ms);
  }
  const size_t best = r.out.find("best: ");
  ASSERT_NE(best, std::string::npos) << r.out;
  EXPECT_NEAR(NumberAfter(r.out.substr(r.out.find(", ", best)), ", "), fastest, 1e-3) << r.out;
}

TEST(BaselineCommandTest, TheWrittenPlacementSimulatesToThePrintedTime) {
  const std::string out = Temp("etf.yaml");
  RunResult r = Planner("baseline --batch 32 --method etf -o " + out + " " + Model("emotion") +
                        " " + Config("k40-paper-2gpu"));
  ASSERT_EQ(r.code, 0) << r.err;
  const double printed = NumberAfter(r.out, "  etf");
  EXPECT_EQ(r.out.find("best: "), std::string::npos) << "one method, no summary: " << r.out;
  EXPECT_NE(Slurp(out).find("method: baseline etf"), std::string::npos);
  RunResult s = Planner("simulate --batch 32 --placement " + out + " " + Model("emotion") + " " +
                        Config("k40-paper-2gpu"));
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_NEAR(NumberAfter(s.out, "simulated step time: "), printed, 1e-3) << s.out;
  std::remove(out.c_str());
}

// A model's own colocated ops (TensorFlow's _class "loc:@a") are one unit:
// every method's placement keeps them together, in the file and the exported
// GraphDef, where etf had put the two MatMuls on the two GPUs.
TEST(BaselineCommandTest, AModelsColocatedOpsArePlacedAndExportedTogether) {
  const std::string model = WriteColocatedModel(Temp("colocated.pbtxt"));
  const std::string out = Temp("colocated.yaml"), pb = Temp("colocated.pb");
  for (const char* method : {"etf", "all"}) {
    RunResult r =
        Planner(std::string("baseline --method ") + method + " -o " + out + " --export-graphdef " +
                pb + " " + model + " " + Config("k40-paper-2gpu"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string placed = Slurp(out);
    EXPECT_NE(PlacedOn(placed, "a"), "") << placed;
    EXPECT_EQ(PlacedOn(placed, "b"), PlacedOn(placed, "a")) << method << ":\n" << placed;
    const std::string exported = ExportedDevice(pb, "a");
    ASSERT_NE(exported, "") << pb;
    EXPECT_EQ(ExportedDevice(pb, "b"), exported) << method;
    // The file is valid for the model, and simulates to the step printed: the
    // group was evaluated together too, not only written so.
    RunResult s =
        Planner("simulate --placement " + out + " " + model + " " + Config("k40-paper-2gpu"));
    EXPECT_EQ(s.code, 0) << s.err;
    const double printed = std::string(method) == "etf"
                               ? NumberAfter(r.out, "  etf")
                               : NumberAfter(r.out.substr(r.out.find("best: ")), ", ");
    EXPECT_NEAR(NumberAfter(s.out, "simulated step time: "), printed, 1e-3) << method << r.out;
  }
  // A file that splits them (hand-edited) is refused in one line naming both.
  std::string split = Slurp(out);
  const std::string a = PlacedOn(split, "a");
  const std::string other = a == "gpu0" ? "gpu1" : "gpu0";
  split.replace(split.find("\n  b: ") + 6, a.size(), other);
  std::ofstream(out) << split;
  RunResult s =
      Planner("simulate --placement " + out + " " + model + " " + Config("k40-paper-2gpu"));
  EXPECT_EQ(s.code, 1) << s.out;
  EXPECT_EQ(Lines(s.err), 1) << s.err;
  EXPECT_NE(s.err.find("'b' on '" + other + "' but its group's 'a' on '" + a + "'"),
            std::string::npos)
      << s.err;
  for (const std::string& f : {model, out, pb}) std::remove(f.c_str());
}

TEST(BaselineCommandTest, MsctByTheDualSimplexIsAMethodOfItsOwnNotInAll) {
  RunResult r = Planner("baseline --batch 32 --method msct:dual " + Model("emotion") + " " +
                        Config("k40-paper-2gpu"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_GT(NumberAfter(r.out, "  msct:dual"), 0) << r.out;
  RunResult all =
      Planner("baseline --batch 32 " + Model("emotion") + " " + Config("k40-paper-2gpu"));
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_EQ(all.out.find("msct:dual"), std::string::npos) << all.out;
}

TEST(BaselineCommandTest, MsctByTheDualSimplexPlacesOtherwiseThanByThePrimal) {
  // On this NMT the two simplex methods return different optima of m-SCT's
  // relaxation (docs/search.md, "Baselines"), so a msct:dual that solved by
  // the primal would print msct's step.
  const std::string nmt = Temp("nmt.pb");
  ASSERT_EQ(Planner("zoo nmt --layers 2 --sizes small --steps 20 -o " + nmt).code, 0);
  double ms[2];
  const char* methods[2] = {"msct", "msct:dual"};
  for (int i = 0; i < 2; ++i) {
    RunResult r = Planner(std::string("baseline --method ") + methods[i] + " " + nmt + " " +
                          Config("k40-paper-2gpu"));
    ASSERT_EQ(r.code, 0) << r.err;
    ms[i] = NumberAfter(r.out, std::string("  ") + methods[i] + " ");
    EXPECT_GT(ms[i], 0) << r.out;
  }
  EXPECT_NE(ms[0], ms[1]);
  std::remove(nmt.c_str());
}

// A fleet evaluates a search's placements; baseline's help says sim|real, and
// its error lists those two, not the search's third.
// More GPUs than ops: METIS printed "***Cannot bisect a graph with 0
// vertices!" and "too many parts" on stdout.
TEST(BaselineCommandTest, MetisWithMoreDevicesThanOpsPrintsNothingOfItsOwn) {
  const std::string model = Temp("two_ops.pbtxt");
  {
    std::ofstream f(model);
    f << "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
         "attr { key: 'shape' value { shape { dim { size: 2 } } } } }\n"
         "node { name: 'y' op: 'Relu' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } }\n";
  }
  RunResult r = Planner("baseline " + model + " " + Config("k40-paper-8gpu") + " --method metis");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("***"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  metis "), std::string::npos) << r.out;
}

TEST(BaselineCommandTest, AFleetIsNoRewardOfTheBaselines) {
  RunResult r =
      Planner("baseline --reward fleet " + Model("emotion") + " " + Config("k40-paper-2gpu"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--reward must be sim or real, not 'fleet'"), std::string::npos) << r.err;
}

TEST(BaselineCommandTest, AnUnknownMethodIsAUsageErrorListingTheMethods) {
  RunResult r =
      Planner("baseline --method mincut " + Model("emotion") + " " + Config("k40-paper-2gpu"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("unknown baseline method 'mincut'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("single:cpu0, single:gpu0, single:gpu1, expert, etf, msct, metis, scotch"),
            std::string::npos)
      << r.err;
}

TEST(BaselineCommandTest, ModulePlacementOfAModelWithoutPyTorchNamesFailsInOneLine) {
  const std::string out = Temp("modules.yaml");
  RunResult r = Planner("baseline --batch 32 --method etf --export-modules " + out + " " +
                        Model("emotion") + " " + Config("k40-paper-2gpu"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(Model("emotion") + ": no PyTorch modules"), std::string::npos) << r.err;
}

TEST(BaselineCommandTest, AnUnwritableOutputFailsBeforeAnyWork) {
  RunResult r = Planner("baseline -o /nonexistent/dir/p.yaml " + Model("emotion") + " " +
                        Config("k40-paper-2gpu"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/dir/p.yaml: cannot write -o output"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(BaselineCommandTest, RealDevicesWithoutAProfileMeasureTheRulesAndSkipTheCostBasedOnes) {
  RunResult r = Planner("baseline --reward real --steps 1 --profile-cache off " + Model("emotion") +
                        " " + Config("local-2cpu"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_GT(NumberAfter(r.out, "  single:cpu1"), 0);
  for (const char* m : {"etf   ", "msct  ", "metis ", "scotch"}) {
    EXPECT_NE(r.out.find(std::string("  ") + m + "           skipped: "), std::string::npos)
        << m << ": " << r.out;
  }
  EXPECT_NE(r.out.find("planner profile"), std::string::npos) << r.out;
}

TEST(BaselineCommandTest, RealDevicesAreProfiledSoTheCostBasedOnesRun) {
  RunResult r =
      Planner("baseline --reward real --steps 1 " + Model("emotion") + " " + Config("local-2cpu"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("profile: "), std::string::npos) << r.out;
  for (const char* m : {"etf", "msct", "metis", "scotch"}) {
    EXPECT_GT(NumberAfter(r.out, std::string("  ") + m), 0) << m << ": " << r.out;
  }
}

TEST(BaselineCommandTest, RealDevicesMeasureTheFastestAgainAndTheLowestMedianIsBest) {
  // One draw each is noise: the three fastest are measured again, and the best
  // (printed and written) is the one whose median is lowest, at that median.
  const std::string out = Temp("real_best.yaml");
  const std::string run = "baseline --reward real --steps 1 --profile-cache off " +
                          Model("emotion") + " " + Config("local-2cpu");
  RunResult r = Planner(run + " -o " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string head = "  measured again (3 rounds, the ";
  const size_t at = r.out.find(head);
  ASSERT_NE(at, std::string::npos) << r.out;
  const size_t colon = r.out.find("): ", at);
  std::istringstream line(r.out.substr(colon + 3, r.out.find('\n', at) - colon - 3));
  std::string entry, fastest;
  double best_ms = 1e300;
  int names = 0;
  while (std::getline(line, entry, ',')) {
    std::istringstream words(entry);
    std::string name;
    double ms = 0;
    ASSERT_TRUE(words >> name >> ms) << entry;
    ++names;
    if (ms < best_ms) best_ms = ms, fastest = name;
  }
  EXPECT_GE(names, 2) << r.out;
  const size_t best = r.out.find("best: " + fastest + ", ");
  ASSERT_NE(best, std::string::npos) << fastest << " in\n" << r.out;
  EXPECT_NEAR(NumberAfter(r.out.substr(best), ", "), best_ms, 1e-3) << r.out;
  const std::string written = Slurp(out);
  EXPECT_NE(written.find("method: baseline " + fastest + "\n"), std::string::npos) << written;
  EXPECT_NEAR(NumberAfter(written, "measured_step_s: ") * 1e3, best_ms, 1e-3) << written;
  std::remove(out.c_str());

  r = Planner(run + " --baseline-rounds 0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("measured again"), std::string::npos) << r.out;
}

TEST(BaselineCommandTest, ASignalWritesTheFastestOfThoseRunAndNamesTheRest) {
  // SIGINT ended the process with nothing written, however many baselines
  // had been measured. Now the baselines run so far decide: the rest are
  // named, or the rounds measuring again stop, and -o is complete.
  const std::string out = Temp("signal.yaml"), log = Temp("signal.out");
  const std::string cmd = std::string(PLANNER_BIN) +
                          " baseline --reward real --steps 1 --baseline-rounds 100 "
                          "--profile-cache off " +
                          Model("emotion") + " " + Config("local-2cpu") + " -o " + out;
  const int status = SignalAfterPrinted(cmd, log, "  single:cpu0 ", 60000, 0, SIGINT);
  const std::string printed = Slurp(log);
  ASSERT_TRUE(WIFEXITED(status)) << printed;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << printed;
  const bool during_baselines = printed.find("  stopped by a signal: ") != std::string::npos &&
                                printed.find(" not run\n") != std::string::npos;
  const bool during_rounds =
      printed.find("  stopped by a signal while measuring again: ") != std::string::npos;
  const bool between = printed.find(
                           "  stopped by a signal: none measured again, each one's draw "
                           "decides\n") != std::string::npos;
  EXPECT_EQ(during_baselines + during_rounds + between, 1) << printed;
  if (during_baselines) {
    EXPECT_NE(printed.find(" (of those run before the signal)\n"), std::string::npos) << printed;
  }
  // 100 rounds of three placements were asked; the signal ended them early.
  EXPECT_EQ(printed.find("  measured again (100 rounds, the 3 fastest; median [range] of each "
                         "one's 101)"),
            std::string::npos)
      << printed;
  // Written: the fastest of those run, each at its one draw or, where it was
  // measured again, at its median.
  std::map<std::string, double> ms;
  std::istringstream lines(printed);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string method;
    double t = 0;
    if (line.rfind("  ", 0) == 0 && words >> method >> t &&
        line.find(" ms (planned in ") != std::string::npos)
      ms[method] = t;
  }
  const size_t again = printed.find("  measured again (");
  if (again != std::string::npos) {
    const size_t colon = printed.find("): ", again);
    std::istringstream entries(printed.substr(colon + 3, printed.find('\n', again) - colon - 3));
    for (std::string entry; std::getline(entries, entry, ',');) {
      std::istringstream words(entry);
      std::string method;
      double t = 0;
      ASSERT_TRUE(words >> method >> t) << entry;
      ms[method] = t;
    }
  }
  ASSERT_FALSE(ms.empty()) << printed;
  double fastest = 1e300;
  for (const auto& [method, t] : ms) fastest = std::min(fastest, t);
  const std::string written = Slurp(out);
  EXPECT_NE(written.find("method: baseline "), std::string::npos) << written;
  EXPECT_NEAR(NumberAfter(written, "measured_step_s: ") * 1e3, fastest, 1e-3) << printed << written;
  for (const std::string& f : {out, log}) std::remove(f.c_str());
}

TEST(BaselineCommandTest, BaselineRoundsOutOfRangeIsAUsageErrorInOneLine) {
  for (const char* rounds : {"-1", "101", "three"}) {
    RunResult r = Planner(std::string("baseline --reward real --baseline-rounds ") + rounds + " " +
                          Model("emotion") + " " + Config("local-2cpu"));
    EXPECT_EQ(r.code, 2) << rounds << ": " << r.err;
    EXPECT_EQ(Lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--baseline-rounds"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << rounds;
  }
}

// Accepted and ignored before: a simulated run measures nothing, and one
// method has no rival to measure again against.
TEST(BaselineCommandTest, FlagsTheRunWouldNotUseAreUsageErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"--steps 3",
       "--steps goes with --reward real: with --reward sim every placement is simulated"},
      {"--baseline-rounds 2",
       "--baseline-rounds goes with --reward real: with --reward sim every "
       "placement is simulated"},
      {"--reward real --method etf --baseline-rounds 2",
       "--baseline-rounds goes with --method all: the rounds measure the fastest methods' "
       "placements again against each other"},
      {"--profile p.profile --profile-cache off",
       "--profile-cache goes without --profile: with --profile's costs, no device is profiled "
       "into a cache"}};
  for (const auto& [flags, message] : cases) {
    RunResult r = Planner(std::string("baseline ") + flags + " " + Model("emotion") + " " +
                          Config("local-2cpu"));
    EXPECT_EQ(r.code, 2) << flags;
    EXPECT_EQ(r.err, std::string("planner baseline: ") + message + "\n") << flags;
    EXPECT_EQ(r.out, "") << flags;
  }
}

}  // namespace
