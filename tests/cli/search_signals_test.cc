// `planner search`, the real binary, stopped: by SIGINT or SIGTERM (files
// complete, no unjudged gain claimed), by SIGKILL (a resume loses nothing the
// killed search wrote), and resumed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/search_util.h"

namespace {

using namespace planner::testing;

TEST(SearchSignalsTest, ASignalBeforeTheVerdictClaimsNoGainAndWritesTheBaseline) {
  // Stopped before the hardware judged it, the found placement's own figure
  // (the best of many noisy measurements) is no result: -o gets the baseline,
  // and the found placement, if it differs, goes beside it labelled.
  const std::string model = Temp("sig_real.pb"), out = Temp("sig_real.yaml"),
                    log = Temp("sig_real.out");
  ASSERT_EQ(Planner("zoo two_branch -o " + model).code, 0);
  const std::string cmd = std::string(PLANNER_BIN) + " search " + model + " " +
                          Config("local-2cpu") + " --reward real --steps 2 --budget 10m --config " +
                          PLANNER_CONFIGS_DIR + "/../tests/planner/search_small.yaml -o " + out +
                          " --svg " + out + ".svg";
  const int status = TermAfterFirstWrite(cmd, out, log, 60000);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);  // its files written, it says it was stopped
  const std::string printed = Slurp(log);
  EXPECT_EQ(printed.find("% faster than the best baseline"), std::string::npos) << printed;
  EXPECT_NE(Slurp(out).find("method: baseline "), std::string::npos) << Slurp(out);
  const std::string unverified = Slurp(out + ".unverified");
  if (printed.find("not decided: stopped before the hardware's verdict") != std::string::npos) {
    EXPECT_NE(unverified.find("(unverified: stopped before the hardware's verdict)"),
              std::string::npos)
        << unverified;
  } else {
    EXPECT_NE(printed.find("no improvement over "), std::string::npos) << printed;
    EXPECT_EQ(unverified, "");
  }
  // After the signal the hardware runs no more steps, and the picture says so.
  EXPECT_NE(Slurp(out + ".svg").find("no step measured after the search (stopped by a signal)"),
            std::string::npos);
  for (const std::string& f : {model, out, out + ".ckpt", out + ".unverified", out + ".svg", log}) {
    std::remove(f.c_str());
  }
}

TEST(SearchSignalsTest, SigtermLeavesValidFiles) {
  const std::string out = Temp("sig.yaml"), csv = Temp("sig.csv");
  const std::string cmd = std::string(PLANNER_BIN) + " search " + SmallRnnlm() + " " +
                          Config("k40-paper-2gpu") + " --budget 10m --config " +
                          PLANNER_CONFIGS_DIR + "/../tests/planner/search_small.yaml -o " + out +
                          " --csv " + csv;
  // Stopped once the search has written its first placement.
  const int status = TermAfterFirstWrite(cmd, out, "/dev/null", 30000);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  RunResult sim =
      Planner("simulate " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + " --placement " + out);
  EXPECT_EQ(sim.code, 0) << sim.err;
  EXPECT_EQ(Slurp(out + ".ckpt").empty(), false) << "the checkpoint is written on the way out";
  for (const std::string& f : {out, out + ".ckpt", csv}) std::remove(f.c_str());
}

// "simulated_step_s: X" of a placement file, or -1.
double SimulatedStep(const std::string& placement) {
  const std::string text = Slurp(placement);
  const size_t at = text.find("simulated_step_s: ");
  return at == std::string::npos ? -1 : std::atof(text.c_str() + at + 18);
}

TEST(SearchSignalsTest, ASearchKilledOutrightAfterItsPolicyIsSetUpCanBeResumed) {
  // SIGKILL leaves no chance to save: the checkpoint written once the policy
  // is set up is what a resume starts from (the periodic one comes at 30 s,
  // after this test's 20 s wait).
  const std::string out = Temp("kill.yaml"), ckpt = out + ".ckpt";
  const std::string cmd = std::string(PLANNER_BIN) + " search " + SmallRnnlm() + " " +
                          Config("k40-paper-2gpu") + " --budget 10m --config " +
                          PLANNER_CONFIGS_DIR + "/../tests/planner/search_small.yaml -o " + out;
  const int status = TermAfterFirstWrite(cmd, ckpt, "/dev/null", 20000, SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_FALSE(Slurp(ckpt).empty()) << "no checkpoint 20 s into the search";
  // -o is newer than the checkpoint: the resumed search is offered it, and
  // writes nothing slower over it.
  const double killed = SimulatedStep(out);
  ASSERT_GT(killed, 0) << Slurp(out);
  RunResult resumed =
      Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") +
              " --iterations 3 --refine 0 --config " + std::string(PLANNER_CONFIGS_DIR) +
              "/../tests/planner/search_small.yaml --resume " + ckpt + " -o " + out);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("resumed " + ckpt + ": "), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("resume: " + out + " ("), std::string::npos) << resumed.out;
  EXPECT_LE(SimulatedStep(out), killed) << resumed.out;
  for (const std::string& f : {out, ckpt}) std::remove(f.c_str());
}

// The climb's best was written to -o but not to the checkpoint: a resumed
// search started again from the policy's best and wrote it over the climb's
// faster placement.
TEST(SearchSignalsTest, AResumedSearchKeepsTheClimbsBest) {
  // A small NMT, where 3 s of climbing pass metis's placement (the RNNLM's
  // best is one GPU, which the climb keeps).
  const std::string nmt = Temp("nmt.pb");
  ASSERT_EQ(Planner("zoo nmt --layers 2 --sizes small --steps 5 -o " + nmt).code, 0);
  const std::string out = Temp("climbed.yaml"), ckpt = out + ".ckpt";
  RunResult first = Planner("search " + nmt + " " + Config("k40-paper-2gpu") +
                            " --iterations 2 --refine 3s" + kSmallConfig + " -o " + out);
  ASSERT_EQ(first.code, 0) << first.err;
  const double climbed = SimulatedStep(out);
  ASSERT_GT(climbed, 0) << Slurp(out);
  ASSERT_NE(Slurp(out).find("+refine"), std::string::npos) << "the climb found nothing:\n"
                                                           << first.out;
  RunResult resumed =
      Planner("search " + nmt + " " + Config("k40-paper-2gpu") + " --iterations 3 --refine 0" +
              kSmallConfig + " -o " + out + " --resume " + ckpt);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_LE(SimulatedStep(out), climbed) << resumed.out;
  for (const std::string& f : {nmt, out, ckpt}) std::remove(f.c_str());
}

// A search killed outright wrote CSV rows past its last checkpoint; resumed, it
// wrote those updates' numbers again.
TEST(SearchSignalsTest, AResumedSearchDropsTheCsvRowsPastItsCheckpoint) {
  const std::string out = Temp("rows.yaml"), ckpt = out + ".ckpt", csv = Temp("rows.csv");
  const std::string run = "search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") +
                          " --refine 0" + kSmallConfig + " -o " + out + " --csv " + csv;
  ASSERT_EQ(Planner(run + " --iterations 2").code, 0);
  {
    std::ofstream rows(csv, std::ios::app);  // as if killed after 2 more updates
    rows << "3,1,1,1,0,1,1,0.01,1\n4,1,1,1,0,1,1,0.01,1\n";
  }
  RunResult resumed = Planner(run + " --iterations 4 --resume " + ckpt);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  std::istringstream lines(Slurp(csv));
  std::vector<int> iterations;
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) iterations.push_back(std::atoi(line.c_str()));
  EXPECT_EQ(iterations, (std::vector<int>{1, 2, 3, 4})) << Slurp(csv);
  for (const std::string& f : {out, ckpt, csv}) std::remove(f.c_str());
}

// A signal during the hardware's verdict ended the process with no result at
// all. Now the rounds measured decide if there are enough of them, else the
// result is undecided; either way every file is complete.
TEST(SearchSignalsTest, ASignalDuringTheVerdictLeavesAResultAndCompleteFiles) {
  const std::string model = Temp("verdict.pb"), out = Temp("verdict.yaml"),
                    svg = Temp("verdict.svg"), log = Temp("verdict.out");
  ASSERT_EQ(Planner("zoo two_branch -o " + model).code, 0);
  // Sim rewards on real devices: the climb passes the baselines in the
  // simulator, and the hardware judges that in 1,000 rounds.
  const std::string cmd = std::string(PLANNER_BIN) + " search " + model + " " +
                          Config("local-2cpu") + " --iterations 2 --refine 1s --seed 1 " +
                          "--rounds 1000" + kSmallConfig + " -o " + out + " --svg " + svg;
  const int status = SignalAfterPrinted(cmd, log, " ms -> ", 120000, 1500, SIGINT);
  ASSERT_TRUE(WIFEXITED(status)) << Slurp(log);
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << Slurp(log);
  const std::string printed = Slurp(log);
  const bool decided = printed.find(" of 1000 rounds: they decide\n") != std::string::npos;
  const bool undecided =
      printed.find("not decided: stopped during the hardware's verdict (") != std::string::npos;
  EXPECT_TRUE(decided != undecided) << printed;
  if (undecided) {
    EXPECT_NE(Slurp(out).find("method: baseline "), std::string::npos) << Slurp(out);
    EXPECT_NE(
        Slurp(out + ".unverified").find("(unverified: stopped during the hardware's verdict)"),
        std::string::npos);
  }
  // No step is measured after the signal.
  EXPECT_EQ(printed.find("on the real devices; simulator error"), std::string::npos) << printed;
  EXPECT_NE(Slurp(svg).find("</svg>"), std::string::npos);
  RunResult measured = Planner("measure " + model + " " + Config("local-2cpu") + " --steps 1 " +
                               "--placement " + out);
  EXPECT_EQ(measured.code, 0) << measured.err;
  for (const std::string& f : {model, out, out + ".ckpt", out + ".unverified", svg, log}) {
    std::remove(f.c_str());
  }
}

// On real devices -o held the best measured sample, unjudged and labelled
// plain "search", while the search ran: SIGKILL left it as the result.
TEST(SearchSignalsTest, ARealSearchKilledOutrightLeavesTheBaselineInOutAndItsBestBeside) {
  const std::string model = Temp("killreal.pb"), out = Temp("killreal.yaml");
  ASSERT_EQ(Planner("zoo two_branch -o " + model).code, 0);
  const std::string cmd = std::string(PLANNER_BIN) + " search " + model + " " +
                          Config("local-2cpu") + " --reward real --steps 2 --budget 10m" +
                          kSmallConfig + " -o " + out;
  const int status = TermAfterFirstWrite(cmd, out, "/dev/null", 60000, SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_NE(Slurp(out).find("method: baseline "), std::string::npos) << Slurp(out);
  const std::string beside = Slurp(out + ".unverified");
  if (!beside.empty()) {
    EXPECT_NE(beside.find("(unverified: the search's best so far, not yet judged by the "
                          "hardware)"),
              std::string::npos)
        << beside;
  }
  for (const std::string& f : {model, out, out + ".ckpt", out + ".unverified"}) {
    std::remove(f.c_str());
  }
}

TEST(SearchSignalsTest, ResumingAMissingCheckpointIsOneLineNamingIt) {
  const std::string missing = Temp("never-saved.ckpt");
  RunResult r = Planner("search " + SmallRnnlm() + " " + Config("k40-paper-2gpu") + kFast +
                        " --resume " + missing);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(missing + ": no checkpoint to resume (No such file or directory)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("fopen"), std::string::npos) << "LibTorch's words: " << r.err;
}

}  // namespace
