// `trainer train` and `trainer launch` as real processes on loopback: ranks that
// train, die, hang, resume, and take bad input.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "graph/file_util.h"
#include "processes.h"

namespace {

using planner::testing::FreePort;
using planner::testing::Processes;

const std::string kTrainer = TRAINER_BIN;

std::string Log(const std::string& path) {
  auto s = graph::ReadFile(path);
  return s.ok() ? *s : "";
}

// Per process: ctest runs each test in its own process, several at once.
std::string Tmp(const std::string& name) {
  return ::testing::TempDir() + "/trainer-" + std::to_string(getpid()) + "-" + name;
}

// Runs a shell command; returns its exit code, with its output in *out.
int Shell(const std::string& cmd, std::string* out) {
  std::string log = Tmp("shell.log");
  int rc = std::system((cmd + " >" + log + " 2>&1").c_str());
  *out = Log(log);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// Waits until `log` holds `text` (true) or `timeout_s` passes.
bool WaitFor(const std::string& log, const std::string& text, double timeout_s) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    if (Log(log).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::string Rank(int rank, int port, const std::string& args) {
  return "env MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port) +
         " WORLD_SIZE=2 RANK=" + std::to_string(rank) + " " + kTrainer + " train " + args;
}

TEST(TrainCommandTest, LaunchTrainsTwoRanksAndPrintsTheirFigures) {
  std::string out;
  ASSERT_EQ(
      Shell(kTrainer + " launch --nproc 2 train lenet --batch 32 --steps 60 --log-every 30", &out),
      0)
      << out;
  EXPECT_NE(out.find("on 2 rank(s)"), std::string::npos) << out;
  EXPECT_NE(out.find("t_comm"), std::string::npos);
  EXPECT_NE(out.find("final test accuracy"), std::string::npos);
}

// A rank killed mid-epoch: the survivor stops within the timeout and says which.
TEST(TrainCommandTest, AKilledRankIsNamedByTheOther) {
  Processes p;
  int port = FreePort();
  std::string args = "lenet --data synthetic --steps 1000000 --log-every 20 --timeout 20";
  pid_t r0 = p.Start(Rank(0, port, args), Tmp("kill0.log"));
  pid_t r1 = p.Start(Rank(1, port, args), Tmp("kill1.log"));
  ASSERT_TRUE(WaitFor(Tmp("kill0.log"), "step 40/", 60)) << Log(Tmp("kill0.log"));
  p.Signal(r1, SIGKILL);
  EXPECT_EQ(p.Wait(r0, 30), 1) << Log(Tmp("kill0.log"));
  EXPECT_NE(Log(Tmp("kill0.log")).find("rank 1 stopped answering"), std::string::npos)
      << Log(Tmp("kill0.log"));
  p.Wait(r1, 5);
}

// A rank that hangs (stopped): the other gives up after --timeout, naming it.
TEST(TrainCommandTest, AHungRankIsNamedWithinTheTimeout) {
  Processes p;
  int port = FreePort();
  std::string args = "lenet --data synthetic --steps 1000000 --log-every 20 --timeout 5";
  pid_t r0 = p.Start(Rank(0, port, args), Tmp("hang0.log"));
  pid_t r1 = p.Start(Rank(1, port, args), Tmp("hang1.log"));
  ASSERT_TRUE(WaitFor(Tmp("hang0.log"), "step 40/", 60)) << Log(Tmp("hang0.log"));
  p.Signal(r1, SIGSTOP);
  EXPECT_EQ(p.Wait(r0, 25), 1) << Log(Tmp("hang0.log"));
  EXPECT_NE(Log(Tmp("hang0.log")).find("rank 1 stopped answering"), std::string::npos)
      << Log(Tmp("hang0.log"));
}

TEST(TrainCommandTest, LaunchNamesTheRankThatDiedAndEndsTheOthers) {
  Processes p;
  pid_t launch = p.Start(kTrainer +
                             " launch --nproc 2 train lenet --data synthetic --steps 1000000"
                             " --log-every 20 --timeout 10",
                         Tmp("launch.log"));
  ASSERT_TRUE(WaitFor(Tmp("launch.log"), "step 40/", 60)) << Log(Tmp("launch.log"));
  std::string log = Log(Tmp("launch.log"));
  const std::string said = "trainer launch: rank 1 is pid ";
  size_t at = log.find(said);
  ASSERT_NE(at, std::string::npos) << log;
  p.Signal(std::atoi(log.c_str() + at + said.size()), SIGKILL);
  EXPECT_EQ(p.Wait(launch, 40), 1) << Log(Tmp("launch.log"));
  log = Log(Tmp("launch.log"));
  EXPECT_NE(log.find("trainer launch: rank 1 (pid"), std::string::npos) << log;
  EXPECT_NE(log.find("killed by signal 9"), std::string::npos) << log;
  EXPECT_NE(log.find("rank 1 stopped answering"), std::string::npos) << log;
}

// Stopping halfway and resuming gives the run that never stopped: the
// checkpoint holds parameters, momentum and the position in the data.
TEST(TrainCommandTest, ResumingFromACheckpointContinuesTheSameRun) {
  std::string dir = Tmp("ckpt");
  std::string out, whole, resumed;
  ASSERT_EQ(Shell("rm -rf " + dir + " && mkdir -p " + dir, &out), 0);
  const std::string common = kTrainer + " train lenet --batch 32 --log-every 0 --eval-every 80";
  ASSERT_EQ(Shell(common + " --steps 80", &whole), 0) << whole;
  ASSERT_EQ(Shell(common + " --steps 40 --checkpoint " + dir, &out), 0) << out;
  ASSERT_EQ(Shell(common + " --steps 80 --checkpoint " + dir + " --resume", &resumed), 0)
      << resumed;
  EXPECT_NE(resumed.find("resumed from " + dir + "/rank-0.ckpt at step 40"), std::string::npos)
      << resumed;
  auto accuracy = [](const std::string& s) {
    size_t at = s.find("final test accuracy");
    return at == std::string::npos ? std::string("none") : s.substr(at, s.find('\n', at) - at);
  };
  EXPECT_EQ(accuracy(resumed), accuracy(whole)) << whole << "\n---\n" << resumed;
  EXPECT_NE(resumed.find("40 steps"), std::string::npos) << resumed;
}

TEST(TrainCommandTest, APlannerPlacementTrainsOnItsDevices) {
  std::string out, model = Tmp("lenet.pb"), placement = Tmp("lenet-metis.yaml");
  std::string devices = std::string(PLANNER_CONFIGS_DIR) + "/local-2cpu.yaml";
  ASSERT_EQ(Shell(std::string(PLANNER_BIN) + " zoo lenet --batch 32 -o " + model, &out), 0) << out;
  ASSERT_EQ(Shell(std::string(PLANNER_BIN) + " baseline " + model + " " + devices +
                      " --method metis -o " + placement,
                  &out),
            0)
      << out;
  ASSERT_EQ(Shell(kTrainer + " launch --nproc 2 train " + model + " --devices " + devices +
                      " --placement " + placement + " --batch 32 --steps 30 --log-every 10",
                  &out),
            0)
      << out;
  EXPECT_NE(out.find("placement baseline metis"), std::string::npos) << out;
  EXPECT_NE(out.find("final test accuracy"), std::string::npos) << out;
}

TEST(TrainCommandTest, BadInputGetsOneLineNamingTheProblem) {
  std::string out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --strategy allgather --steps 1", &out), 1);
  EXPECT_NE(out.find("unknown strategy 'allgather'"), std::string::npos) << out;
  EXPECT_EQ(Shell("env RANK=5 WORLD_SIZE=2 MASTER_PORT=1234 " + kTrainer + " train lenet", &out),
            2);
  EXPECT_NE(out.find("RANK='5'"), std::string::npos) << out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --resume", &out), 2);
  EXPECT_NE(out.find("--resume needs --checkpoint"), std::string::npos) << out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --placement /nonexistent.yaml", &out), 1);
  EXPECT_NE(out.find("--placement needs the --devices file"), std::string::npos) << out;
  EXPECT_EQ(Shell(kTrainer + " train no-such-model", &out), 1);
  EXPECT_NE(out.find("no-such-model: no such file"), std::string::npos) << out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --checkpoint /nonexistent-dir --resume", &out), 1);
  EXPECT_NE(out.find("/nonexistent-dir/rank-0.ckpt"), std::string::npos) << out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --probe 1:0.1:0.9,3:0.1:0", &out), 2);
  EXPECT_NE(out.find("--probe item '3:0.1:0' must be GROUPS:LR:MOMENTUM"), std::string::npos)
      << out;
  EXPECT_EQ(Shell(kTrainer + " launch train lenet", &out), 2);
  EXPECT_NE(out.find("--nproc N is required"), std::string::npos) << out;
}

}  // namespace
