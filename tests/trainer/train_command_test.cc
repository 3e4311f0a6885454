// `trainer train` and `trainer launch` as real processes on loopback: ranks that
// train, die, hang, resume, and take bad input.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "graph/file_util.h"
#include "processes.h"
#include "tests/scratch_dir.h"

namespace {

using planner::testing::FreePort;
using planner::testing::Processes;

const std::string kTrainer = TRAINER_BIN;

std::string Log(const std::string& path) {
  auto s = graph::ReadFile(path);
  return s.ok() ? *s : "";
}

// In the test process's scratch folder, removed when it exits (ctest runs each
// test in its own process, several at once).
std::string Tmp(const std::string& name) { return planner_test::ScratchDir() + "/trainer-" + name; }

// A socket listening on loopback `port` (close-on-exec: not the ranks' too),
// or with a negative `backlog` bound there and not listening (connections are
// refused); -1 when it cannot.
int ListenOn(int port, int backlog) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      (backlog >= 0 && ::listen(fd, backlog) != 0)) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
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

// The pid `trainer launch` says it started rank `rank` as, or -1.
pid_t RankPid(const std::string& launch_log, int rank) {
  const std::string said = "trainer launch: rank " + std::to_string(rank) + " is pid ";
  const size_t at = launch_log.find(said);
  return at == std::string::npos ? -1 : std::atoi(launch_log.c_str() + at + said.size());
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
  // 60 synchronous steps of 2 x 32 images learn: 63.69% on 2026-11-27 (seeded,
  // the same every run); chance is 10%.
  const size_t at = out.find("final test accuracy ");
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_GE(std::atof(out.c_str() + at + 20), 50.0) << out;
}

// A rank killed mid-epoch: the survivor stops within the timeout and says which.
TEST(TrainCommandTest, LaunchRefusesAnotherCommandAndAFlagItDoesNotKnowInOneLine) {
  std::string out;
  EXPECT_EQ(Shell(kTrainer + " launch --nproc 2 lenet", &out), 2);
  EXPECT_EQ(out, "trainer launch: the command to run, train ..., is missing\n");
  EXPECT_EQ(Shell(kTrainer + " launch --nproc 2 --bogus=1 train lenet", &out), 2);
  EXPECT_EQ(out, "trainer launch: unknown option '--bogus' (see --help)\n");
  EXPECT_EQ(Shell(kTrainer + " launch --nproc= train lenet", &out), 2);
  EXPECT_EQ(out, "trainer launch: --nproc needs a value N\n");
}

// A --port something listens on (another run's store) is refused before any
// rank starts: rank 0 could not serve the store, and rank 1 was blamed first.
TEST(TrainCommandTest, ABusyPortIsRefusedBeforeAnyRankStarts) {
  const int port = FreePort();
  const int fd = ListenOn(port, 4);
  ASSERT_GE(fd, 0);
  std::string out;
  EXPECT_EQ(Shell(kTrainer + " launch --nproc 2 --port " + std::to_string(port) +
                      " train lenet --data synthetic --steps 1",
                  &out),
            2);
  ::close(fd);
  EXPECT_EQ(out, "trainer launch: --port " + std::to_string(port) +
                     " is in use on this host: choose another, or leave --port out for a free one\n");
}

// c10d logs its failures through glog before it throws them ("W... socket.cpp:
// 426] [c10d] The server socket has failed to bind", after glog's "Logging
// before InitGoogleLogging()"): a rank that cannot serve or reach the store
// prints only our line.
TEST(TrainCommandTest, ARankThatCannotServeOrReachTheStoreSaysSoInOneLine) {
  // Rank 0 on a port something listens on cannot serve the store; rank 1 on
  // a port bound here and never listened on (connections refused, and no
  // other test can take it) times out reaching it.
  for (const auto& [rank, backlog, what] :
       {std::tuple{0, 4, "serve"}, std::tuple{1, -1, "reach"}}) {
    const int port = FreePort();
    const int fd = ListenOn(port, backlog);
    ASSERT_GE(fd, 0);
    std::string out;
    EXPECT_EQ(Shell(Rank(rank, port, "lenet --data synthetic --steps 1 --timeout 1"), &out), 1);
    ::close(fd);
    EXPECT_EQ(out.rfind(std::string("trainer train: cannot ") + what +
                            " the rendezvous store at 127.0.0.1:" + std::to_string(port) + ": ",
                        0),
              0u)
        << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
}

// c10d's own lines are silenced only where the user did not ask for them: with
// GLOG_minloglevel (or TORCH_CPP_LOG_LEVEL) set, they are printed beside ours.
TEST(TrainCommandTest, ALogLevelTheUserSetsKeepsLibTorchsLines) {
  const int port = FreePort();
  const int fd = ListenOn(port, 4);
  ASSERT_GE(fd, 0);
  std::string out;
  EXPECT_EQ(Shell("env GLOG_minloglevel=0 " +
                      Rank(0, port, "lenet --data synthetic --steps 1 --timeout 1"),
                  &out),
            1);
  ::close(fd);
  EXPECT_NE(out.find("trainer train: cannot serve the rendezvous store at 127.0.0.1:" +
                     std::to_string(port) + ": "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("[c10d] The server socket has failed"), std::string::npos) << out;
}

// A MASTER_PORT owned by something that is not the store (it accepts, then
// resets the connection) threw on c10d's own store thread: the rank aborted
// with "terminate called after throwing" (exit 134). It ends in one line
// naming the store, exit 1, whichever of its connections notices first.
TEST(TrainCommandTest, AStoreThatResetsTheConnectionEndsTheRankInOneLine) {
  const int port = FreePort();
  // Connections wait in the backlog, never accepted.
  const int fd = ListenOn(port, 128);
  ASSERT_GE(fd, 0);
  Processes p;
  const std::string log = Tmp("reset-store.log");
  const pid_t rank = p.Start(Rank(1, port, "lenet --data synthetic --steps 5 --timeout 5"), log);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  ::close(fd);  // resets what waits in the backlog
  EXPECT_EQ(p.Wait(rank, 40), 1) << Log(log);
  // Which connection notices first depends on timing: the store's thread
  // ("the connection to the rendezvous store at ... broke") or Gloo's
  // rendezvous ("not every one of the 2 ranks joined at ..."); both name it.
  EXPECT_NE(Log(log).find("trainer train: rank 1: "), std::string::npos) << Log(log);
  EXPECT_NE(Log(log).find("127.0.0.1:" + std::to_string(port)), std::string::npos) << Log(log);
  EXPECT_EQ(Log(log).find("terminate called"), std::string::npos) << Log(log);
}

// A flag the run would not use was accepted and ignored: it is refused,
// naming what it applies to.
TEST(TrainCommandTest, AFlagTheRunWouldNotUseIsRefused) {
  std::string out;
  for (const auto& [flags, said] : std::vector<std::pair<std::string, std::string>>{
           {"--groups 2", "--groups applies to --strategy async"},
           {"--strategy gossip --alpha 0.2", "--alpha applies to --strategy easgd"},
           {"--mix 0.3", "--mix applies to --strategy gossip"},
           {"--checkpoint-every 5", "--checkpoint-every needs --checkpoint DIR"},
           {"--data synthetic --target-accuracy 0.5", "--target-accuracy needs test accuracy"},
           {"--optimizer adam", "--optimizer must be sgd or momentum, not 'adam'"},
           {"--optimizer sgd --momentum 0.5", "--momentum applies to --optimizer momentum"},
           {"--strategy easgd --bucket-kb 64",
            "--bucket-kb applies to the all-reduce of --strategy sync, or of async with --groups"},
           {"--strategy gossip --first-bucket-kb 16",
            "--first-bucket-kb applies to the all-reduce"},
           {"--strategy async --bucket-kb 64", "--bucket-kb applies to the all-reduce"},
           {"--data synthetic --data-dir /tmp", "--data-dir applies to --data fashion-mnist"},
           {"--data synthetic --seed 3", "--seed orders --data fashion-mnist and pairs"},
           {"--shared-devices", "--shared-devices applies to --devices"},
           {"--no-eval --eval-every 10", "--eval-every needs test accuracy"},
           {"--data synthetic --eval-every 10", "--eval-every needs test accuracy"},
           {"--epochs 2 --steps 10", "--steps replaces --epochs: give one of them"},
           {"--probe-steps 10", "--probe-steps applies to --probe"},
           {"--probe 1:0.1:0.9 --lr 0.1", "--lr goes with training: --probe runs each"},
           {"--probe 1:0.1:0.9 --strategy async", "--strategy goes with training"},
           {"--probe 1:0.1:0.9 --steps 5", "--steps goes with training"},
           // A probe's flags are named before a rule whose advice --probe refuses.
           {"--probe 1:0.1:0.9 --period 5", "--period goes with training"},
           {"--probe 1:0.1:0.9 --log-every 5", "--log-every goes with training"},
           {"--probe 1:0.1:0.9 --optimizer sgd",
            "--optimizer sgd with --probe would drop the probes' momenta: leave --optimizer "
            "out"},
           {"--probe 1:0.1:0.9 --data synthetic --data-dir /tmp",
            "--data-dir applies to --data fashion-mnist"},
           {"--probe 1:0.1:0.9 --checkpoint " + planner_test::ScratchDir() + "/probe-ckpt",
            "--checkpoint with --probe needs --resume"}}) {
    EXPECT_EQ(Shell(kTrainer + " train lenet " + flags, &out), 2) << flags;
    EXPECT_NE(out.find("trainer train: " + said), std::string::npos) << out;
  }
  // --groups 1 is sync's own (trainer tune's command to train on gives it).
  EXPECT_EQ(Shell(kTrainer + " train lenet --data synthetic --steps 1 --groups 1", &out), 0)
      << out;
  // As many groups as ranks (known only from the rendezvous's environment):
  // each rank is a group of its own, with no all-reduce. Refused before it
  // connects, so no peer is needed.
  EXPECT_EQ(Shell("RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" +
                      std::to_string(FreePort()) + " " + kTrainer +
                      " train lenet --strategy async --groups 2 --bucket-kb 64 --timeout 5",
                  &out),
            2)
      << out;
  EXPECT_NE(out.find("trainer train: --bucket-kb applies to the all-reduce of --strategy sync, or "
                     "of async with fewer --groups than ranks (2)"),
            std::string::npos)
      << out;
}

// Ranks started with different models made Gloo abort rank 1 (exit 134, its
// text on stderr) and rank 0 blame "rank 1 stopped answering"; different
// buckets aborted rank 0. Both now refuse at the rendezvous, naming the setting.
TEST(TrainCommandTest, RanksStartedWithDifferentSettingsRefuseNamingTheSetting) {
  struct Case {
    std::string rank0, rank1, said;
  };
  const std::string common = " --data synthetic --steps 20 --no-eval --timeout 20";
  for (const Case& c : {Case{"lenet" + common, "mlp" + common, "'s model (digest) is "},
                        Case{"lenet --first-bucket-kb 16 --bucket-kb 64" + common, "lenet" + common,
                             "'s --bucket-kb is "},
                        // As given, not as a float's 17 digits (0.019999999552965164).
                        Case{"lenet --lr 0.02" + common, "lenet" + common, "'s --lr is 0.0"}}) {
    Processes p;
    const int port = FreePort();
    const pid_t r0 = p.Start(Rank(0, port, c.rank0), Tmp("settings0.log"));
    const pid_t r1 = p.Start(Rank(1, port, c.rank1), Tmp("settings1.log"));
    EXPECT_EQ(p.Wait(r0, 60), 1) << Log(Tmp("settings0.log"));
    EXPECT_EQ(p.Wait(r1, 60), 1) << Log(Tmp("settings1.log"));
    for (const std::string& log : {Tmp("settings0.log"), Tmp("settings1.log")}) {
      EXPECT_NE(Log(log).find(c.said), std::string::npos) << Log(log);
      EXPECT_EQ(Log(log).find("0.0199999"), std::string::npos) << Log(log);
      EXPECT_NE(Log(log).find(": start every rank with the same settings"), std::string::npos)
          << Log(log);
      EXPECT_EQ(Log(log).find("gloo"), std::string::npos) << Log(log);
    }
  }
}

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

// The parameter server receives from whichever group sends first: Gloo waited
// out the whole --timeout (60 s) for a killed sender there, where a collective
// notices at once. The server's watch on the senders' heartbeats names it.
TEST(TrainCommandTest, AKilledRankIsNamedByTheParameterServerWithinSeconds) {
  Processes p;
  int port = FreePort();
  std::string args =
      "lenet --strategy async --data synthetic --steps 1000000 --log-every 20 --timeout 60";
  pid_t r0 = p.Start(Rank(0, port, args), Tmp("akill0.log"));
  pid_t r1 = p.Start(Rank(1, port, args), Tmp("akill1.log"));
  ASSERT_TRUE(WaitFor(Tmp("akill0.log"), "step 40/", 60)) << Log(Tmp("akill0.log"));
  p.Signal(r1, SIGKILL);
  EXPECT_EQ(p.Wait(r0, 20), 1) << Log(Tmp("akill0.log"));
  EXPECT_NE(Log(Tmp("akill0.log")).find("rank 1 stopped answering"), std::string::npos)
      << Log(Tmp("akill0.log"));
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
  const pid_t rank1 = RankPid(log, 1);
  ASSERT_GT(rank1, 0) << log;
  p.Signal(rank1, SIGKILL);
  EXPECT_EQ(p.Wait(launch, 40), 1) << Log(Tmp("launch.log"));
  log = Log(Tmp("launch.log"));
  EXPECT_NE(log.find("trainer launch: rank 1 (pid"), std::string::npos) << log;
  EXPECT_NE(log.find("killed by signal 9"), std::string::npos) << log;
  EXPECT_NE(log.find("rank 1 stopped answering"), std::string::npos) << log;
}

// Stopping halfway and resuming gives the run that never stopped: the
// checkpoint holds parameters, momentum and the position in the data.
TEST(TrainCommandTest, ResumingFromACheckpointContinuesTheSameRun) {
  std::string dir = Tmp("ckpt"), unstopped = Tmp("ckpt-whole");
  std::string out, whole, resumed;
  ASSERT_EQ(
      Shell("rm -rf " + dir + " " + unstopped + " && mkdir -p " + dir + " " + unstopped, &out), 0);
  const std::string common = kTrainer + " train lenet --batch 32 --log-every 0 --eval-every 80";
  ASSERT_EQ(Shell(common + " --steps 80 --checkpoint " + unstopped, &whole), 0) << whole;
  ASSERT_EQ(Shell(common + " --steps 40 --checkpoint " + dir, &out), 0) << out;
  ASSERT_EQ(Shell(common + " --steps 80 --checkpoint " + dir + " --resume", &resumed), 0)
      << resumed;
  EXPECT_NE(resumed.find("resumed from " + dir + "/rank-0.ckpt at step 40"), std::string::npos)
      << resumed;
  auto accuracy = [](const std::string& s) {
    size_t at = s.find("final test accuracy");
    return at == std::string::npos ? std::string("none") : s.substr(at, s.find('\n', at) - at);
  };
  ASSERT_NE(accuracy(whole), "none") << whole;
  EXPECT_EQ(accuracy(resumed), accuracy(whole)) << whole << "\n---\n" << resumed;
  // The same parameters, momentum and data position, byte for byte.
  EXPECT_EQ(Shell("cmp " + unstopped + "/rank-0.ckpt " + dir + "/rank-0.ckpt", &out), 0) << out;
  EXPECT_NE(resumed.find("40 steps"), std::string::npos) << resumed;
  // Another batch would read the data in another order: not the same run.
  EXPECT_EQ(Shell(kTrainer + " train lenet --batch 64 --steps 90 --checkpoint " + dir + " --resume",
                  &out),
            1);
  EXPECT_EQ(out, "trainer train: " + dir +
                     "/rank-0.ckpt: written at --batch 32, not 64: resume with the batch it was "
                     "made with\n");
}

// Under sync every rank resumes with rank 0's state, momentum included: rank
// 1's checkpoint is swapped for one of another run (another learning rate, so
// other momentum), and after two more steps the two ranks' files still match.
TEST(TrainCommandTest, ResumingUnderSyncGivesEveryRankRankZerosWholeState) {
  std::string a = Tmp("sync-a"), b = Tmp("sync-b"), out;
  ASSERT_EQ(Shell("rm -rf " + a + " " + b + " && mkdir -p " + a + " " + b, &out), 0);
  const std::string run =
      kTrainer + " launch --nproc 2 train lenet --data synthetic --batch 8 --log-every 0";
  ASSERT_EQ(Shell(run + " --steps 4 --checkpoint " + a, &out), 0) << out;
  ASSERT_EQ(Shell(run + " --steps 4 --lr 0.05 --checkpoint " + b, &out), 0) << out;
  ASSERT_EQ(Shell("cp " + b + "/rank-1.ckpt " + a + "/rank-1.ckpt", &out), 0) << out;
  ASSERT_EQ(Shell(run + " --steps 6 --checkpoint " + a + " --resume", &out), 0) << out;
  EXPECT_EQ(Shell("cmp " + a + "/rank-0.ckpt " + a + "/rank-1.ckpt", &out), 0) << out;
}

// Ranks whose checkpoints are at different steps do not train on: all fail,
// naming the rank and both steps.
TEST(TrainCommandTest, RanksResumingFromDifferentStepsAllFailSayingSo) {
  std::string a = Tmp("steps-a"), b = Tmp("steps-b"), out;
  ASSERT_EQ(Shell("rm -rf " + a + " " + b + " && mkdir -p " + a + " " + b, &out), 0);
  const std::string run = kTrainer +
                          " launch --nproc 2 train lenet --data synthetic --batch 8 --log-every 0"
                          " --timeout 20";
  ASSERT_EQ(Shell(run + " --steps 4 --checkpoint " + a, &out), 0) << out;
  ASSERT_EQ(Shell(run + " --steps 2 --checkpoint " + b, &out), 0) << out;
  ASSERT_EQ(Shell("cp " + b + "/rank-1.ckpt " + a + "/rank-1.ckpt", &out), 0) << out;
  EXPECT_EQ(Shell(run + " --steps 6 --checkpoint " + a + " --resume", &out), 1) << out;
  EXPECT_NE(out.find("checkpoints in " + a + " share no step (rank 0 at 4/-, rank 1 at 2/-, "
                     "newest/previous): they do not come from one run"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("stopped answering"), std::string::npos) << out;
}

// A run stopped between two ranks' checkpoint writes (rank 1 wrote step 4,
// rank 0 did not) resumes from the step before, which each rank kept as
// rank-R.ckpt.prev, and goes on as one run: under sync the two ranks' files
// then match.
TEST(TrainCommandTest, ARunStoppedBetweenTwoRanksWritesResumesFromTheStepBefore) {
  std::string a = Tmp("between"), out;
  ASSERT_EQ(Shell("rm -rf " + a + " && mkdir -p " + a, &out), 0);
  const std::string run = kTrainer +
                          " launch --nproc 2 train lenet --data synthetic --batch 8 --log-every 0"
                          " --timeout 20 --checkpoint-every 2 --checkpoint " + a;
  ASSERT_EQ(Shell(run + " --steps 4", &out), 0) << out;
  // Rank 0 as if stopped before it wrote step 4.
  ASSERT_EQ(Shell("mv " + a + "/rank-0.ckpt.prev " + a + "/rank-0.ckpt", &out), 0) << out;
  ASSERT_EQ(Shell(run + " --steps 6 --resume", &out), 0) << out;
  EXPECT_NE(out.find(a + "/rank-1.ckpt is at step 4, past the other ranks'; resuming from " + a +
                     "/rank-1.ckpt.prev at step 2"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("resumed from " + a + "/rank-0.ckpt at step 2"), std::string::npos) << out;
  EXPECT_EQ(Shell("cmp " + a + "/rank-0.ckpt " + a + "/rank-1.ckpt", &out), 0) << out;
}

// Whether `pid` has ended (gone, or a zombie nobody has reaped yet).
bool Ended(pid_t pid) {
  std::string stat = Log("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  return paren == std::string::npos || stat.compare(paren + 2, 1, "Z") == 0;
}

// A launcher killed outright (no chance to stop its ranks) takes them with it.
TEST(TrainCommandTest, ALauncherKilledOutrightTakesItsRanksWithIt) {
  Processes p;
  pid_t launch = p.Start(kTrainer +
                             " launch --nproc 2 train lenet --data synthetic --steps 1000000"
                             " --log-every 20",
                         Tmp("orphans.log"));
  ASSERT_TRUE(WaitFor(Tmp("orphans.log"), "step 20/", 60)) << Log(Tmp("orphans.log"));
  std::vector<pid_t> ranks;
  const std::string log = Log(Tmp("orphans.log"));
  for (int r = 0; r < 2; ++r) {
    ranks.push_back(RankPid(log, r));
    ASSERT_GT(ranks.back(), 0) << log;
  }
  p.Signal(launch, SIGKILL);
  p.Wait(launch, 5);
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < end && !(Ended(ranks[0]) && Ended(ranks[1]))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (pid_t r : ranks) {
    EXPECT_TRUE(Ended(r)) << "rank pid " << r << " outlived its launcher";
    if (!Ended(r)) kill(r, SIGKILL);
  }
}

// ^C at a terminal reaches the launcher and its ranks at once: the ranks stop,
// no rank is blamed for it, and launch ends as a shell reports ^C (130).
TEST(TrainCommandTest, ACtrlCStopsTheRanksAndIsNoFailure) {
  Processes p;
  const std::string log = Tmp("ctrl-c.log");
  // setsid: a process group of its own (launch and its ranks), as a terminal's job.
  pid_t launch = p.Start("setsid " + kTrainer +
                             " launch --nproc 2 train lenet --data synthetic --steps 1000000"
                             " --log-every 20",
                         log);
  ASSERT_TRUE(WaitFor(log, "step 20/", 60)) << Log(log);
  ::kill(-launch, SIGINT);
  EXPECT_EQ(p.Wait(launch, 30), 130) << Log(log);
  EXPECT_NE(Log(log).find("trainer launch: stopped by SIGINT: passed on to the ranks, which have "
                          "stopped"),
            std::string::npos)
      << Log(log);
  EXPECT_EQ(Log(log).find("was killed by signal"), std::string::npos) << Log(log);
}

// A model whose images have a fixed batch trains at it on Fashion-MNIST (it
// failed mid-step at the default --batch 64), and another --batch is refused.
TEST(TrainCommandTest, AFixedBatchModelTrainsAtItsBatchOnFashionMnist) {
  std::string out, model = Tmp("lenet32.pb");
  ASSERT_EQ(Shell(std::string(PLANNER_BIN) + " zoo lenet --batch 32 -o " + model, &out), 0) << out;
  ASSERT_EQ(Shell(kTrainer + " train " + model + " --steps 2 --no-eval", &out), 0) << out;
  EXPECT_NE(out.find("2 steps, 64 images"), std::string::npos) << out;
  EXPECT_EQ(Shell(kTrainer + " train " + model + " --steps 2 --batch 16", &out), 1) << out;
  EXPECT_NE(out.find("--batch 16 does not fit input 'images' of fixed shape [32,28,28,1]"),
            std::string::npos)
      << out;
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

// The cpu cores the threads of process `pid` may run on (each thread's
// Cpus_allowed_list), as a set of the lists seen, e.g. {"0-1", "1"}.
std::set<std::string> ThreadCores(pid_t pid) {
  std::set<std::string> lists;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& t : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream in(t.path() / "status");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("Cpus_allowed_list:", 0) == 0)
        lists.insert(line.substr(line.find_last_of("\t ") + 1));
    }
  }
  return lists;
}

// The ranks launch starts on one host each run on their own copy of the
// devices file's cores where this process may run on every copy
// (trainer/rank_devices.h), and share them otherwise; rank 0 says which, and
// rank 1's device threads are pinned to its copy.
TEST(TrainCommandTest, LaunchedRanksRunOnTheirOwnCopyOfTheDevicesFilesCores) {
  const std::string devices = Tmp("one-core.yaml");
  std::ofstream(devices) << "devices:\n  - {name: cpu0, kind: cpu, cores: [0], threads: 1}\n";
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const bool room = CPU_ISSET(0, &set) && CPU_ISSET(1, &set);
  Processes p;
  const std::string log = Tmp("spread.log");
  const pid_t launch = p.Start(kTrainer + " launch --nproc 2 train lenet --devices " + devices +
                                   " --data synthetic --batch 8 --steps 1000000 --no-eval "
                                   "--log-every 0",
                               log);
  ASSERT_TRUE(WaitFor(log, "training lenet", 60)) << Log(log);
  const std::string said = room ? "each of the 2 ranks on this host runs on its own copy of " +
                                      devices + "'s devices: local rank r's cores + 1r\n"
                                : "the 2 ranks on this host share the devices of " + devices;
  EXPECT_TRUE(WaitFor(log, said, 10)) << Log(log);
  const pid_t rank1 = RankPid(Log(log), 1);
  ASSERT_GT(rank1, 0) << Log(log);
  // Its device's worker, pinned when its executor was made (by now, or soon).
  const std::string core = room ? "1" : "0";
  bool pinned = false;
  for (int i = 0; i < 200 && !pinned; ++i) {
    pinned = ThreadCores(rank1).count(core) > 0;
    if (!pinned) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(pinned) << "rank 1's threads' cores:" << [&] {
    std::string s;
    for (const std::string& l : ThreadCores(rank1)) s += " " + l;
    return s;
  }();
  p.Signal(launch, SIGTERM);
  EXPECT_EQ(p.Wait(launch, 60), 143) << Log(log);
  // Per-rank devices files, as by hand: --shared-devices keeps the file as written.
  std::string out;
  ASSERT_EQ(Shell(kTrainer + " launch --nproc 2 train lenet --devices " + devices +
                      " --shared-devices --data synthetic --batch 8 --steps 2 --no-eval "
                      "--log-every 0",
                  &out),
            0)
      << out;
  EXPECT_EQ(out.find("copy of"), std::string::npos) << out;
  EXPECT_EQ(out.find("share the devices"), std::string::npos) << out;
}

// A model whose input has a fixed batch trained at it whatever --batch said.
TEST(TrainCommandTest, ABatchTheModelCannotTakeIsRefusedNamingTheInput) {
  std::string out;
  const std::string model = Tmp("mlp4.pb");
  ASSERT_EQ(Shell(std::string(PLANNER_BIN) + " zoo mlp --batch 4 -o " + model, &out), 0) << out;
  EXPECT_EQ(Shell(kTrainer + " train " + model + " --data synthetic --batch 8 --steps 1", &out), 1);
  EXPECT_EQ(out, "trainer train: " + model +
                     ": --batch 8 does not fit input 'images' of fixed shape [4,28,28,1] (export "
                     "the model with a dynamic batch axis, or leave --batch out)\n");
  EXPECT_EQ(
      Shell(kTrainer + " train " + model + " --data synthetic --steps 1 --no-eval --log-every 0",
            &out),
      0)
      << out;
  EXPECT_NE(out.find("1 steps, 4 images"), std::string::npos) << out;
}

// Test accuracy is the argmax over a [batch, classes] 'logits': one of rank 1
// threw inside LibTorch after an interval's training, and the rank's terminate
// handler blamed the rendezvous store. Now one line names the node and shapes.
TEST(TrainCommandTest, LogitsThatAreNotBatchByClassesAreNamedWithTheirShape) {
  const std::string model = Tmp("rank1_logits.pbtxt");
  std::ofstream(model)
      << "node { name: 'images' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
         "attr { key: 'shape' value { shape { dim { size: -1 } dim { size: 28 } dim { size: 28 } "
         "dim { size: 1 } } } } }\n"
         "node { name: 'labels' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } } "
         "attr { key: 'shape' value { shape { dim { size: -1 } } } } }\n"
         "node { name: 'w' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } } "
         "attr { key: 'shape' value { shape { dim { size: 1 } } } } }\n"
         "node { name: 'scaled' op: 'Mul' input: 'images' input: 'w' "
         "attr { key: 'T' value { type: DT_FLOAT } } }\n"
         "node { name: 'axes' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
         "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } "
         "int_val: 1 int_val: 2 int_val: 3 } } } }\n"
         "node { name: 'logits' op: 'Sum' input: 'scaled' input: 'axes' "
         "attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'Tidx' value { type: DT_INT32 } } "
         "attr { key: 'keep_dims' value { b: false } } }\n";
  std::string out;
  EXPECT_EQ(Shell(kTrainer + " train " + model + " --steps 2 --log-every 0 --batch 16", &out), 1)
      << out;
  EXPECT_NE(out.find("test accuracy from 'logits' of shape [16] against labels of shape [16]: "),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("rendezvous store"), std::string::npos) << out;
}

TEST(TrainCommandTest, BadInputGetsOneLineNamingTheProblem) {
  std::string out;
  // A name no flag takes is a usage error, as a number out of range is (it
  // was found only once training started, and exited 1).
  EXPECT_EQ(Shell(kTrainer + " train lenet --strategy allgather --steps 1", &out), 2);
  EXPECT_NE(out.find("unknown strategy 'allgather'"), std::string::npos) << out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --data mnist --steps 1", &out), 2);
  EXPECT_EQ(out, "trainer train: unknown --data 'mnist' (fashion-mnist, synthetic)\n");
  EXPECT_EQ(Shell(kTrainer + " train lenet --momentum 2", &out), 2);
  EXPECT_EQ(out, "trainer train: --momentum must be a number from 0 to 1, got '2'\n");
  // --timeout is a duration, as --grace and planner's are ("60s" was refused).
  EXPECT_EQ(Shell(kTrainer + " train lenet --data synthetic --steps 1 --timeout 60s", &out), 0)
      << out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --timeout 50ms", &out), 2);
  EXPECT_EQ(out, "trainer train: --timeout must be from 100ms to 1000000s, got '50ms'\n");
  EXPECT_EQ(Shell(kTrainer + " train lenet --timeout soon", &out), 2);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("--timeout"), std::string::npos) << out;
  EXPECT_EQ(Shell("env RANK=5 WORLD_SIZE=2 MASTER_PORT=1234 " + kTrainer + " train lenet", &out),
            2);
  EXPECT_NE(out.find("RANK='5'"), std::string::npos) << out;
  EXPECT_EQ(Shell("env RANK=1 WORLD_SIZE=2 MASTER_PORT=1234 LOCAL_RANK=2 LOCAL_WORLD_SIZE=2 " +
                      kTrainer + " train lenet",
                  &out),
            2);
  EXPECT_NE(out.find("LOCAL_RANK='2' is not an integer in [0, 1]"), std::string::npos) << out;
  EXPECT_EQ(Shell("env RANK=1 WORLD_SIZE=2 MASTER_PORT=1234 LOCAL_RANK=1 LOCAL_WORLD_SIZE=3 " +
                      kTrainer + " train lenet",
                  &out),
            2);
  EXPECT_NE(out.find("LOCAL_WORLD_SIZE='3' is not an integer in [1, 2]"), std::string::npos) << out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --resume", &out), 2);
  EXPECT_NE(out.find("--resume needs --checkpoint"), std::string::npos) << out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --placement /nonexistent.yaml", &out), 1);
  EXPECT_NE(out.find("--placement needs the --devices file"), std::string::npos) << out;
  EXPECT_EQ(Shell(kTrainer + " train no-such-model", &out), 1);
  EXPECT_NE(out.find("no-such-model: no such file"), std::string::npos) << out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --checkpoint /nonexistent-dir --resume", &out), 1);
  EXPECT_NE(out.find("/nonexistent-dir/rank-0.ckpt"), std::string::npos) << out;
  // --checkpoint's directory is made before the training, or refused before it.
  const std::string made = Tmp("made") + "/sub";
  ASSERT_EQ(Shell("rm -rf " + Tmp("made"), &out), 0);
  EXPECT_EQ(
      Shell(kTrainer + " train lenet --steps 1 --log-every 0 --no-eval --checkpoint " + made, &out),
      0)
      << out;
  EXPECT_TRUE(std::ifstream(made + "/rank-0.ckpt").good()) << out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --steps 1 --checkpoint " + made + "/rank-0.ckpt", &out),
            1);
  EXPECT_NE(out.find(made + "/rank-0.ckpt: cannot write --checkpoint's directory"),
            std::string::npos)
      << out;
  EXPECT_EQ(Shell(kTrainer + " train lenet --probe 1:0.1:0.9,3:0.1:0", &out), 2);
  EXPECT_NE(out.find("--probe item '3:0.1:0' must be GROUPS:LR:MOMENTUM"), std::string::npos)
      << out;
  EXPECT_EQ(Shell(kTrainer + " launch train lenet", &out), 2);
  EXPECT_NE(out.find("--nproc N is required"), std::string::npos) << out;
  // The command's own usage errors, once, before any rank starts.
  EXPECT_EQ(Shell(kTrainer + " launch --nproc 2 train lenet --strategy allgather", &out), 2);
  EXPECT_EQ(out,
            "trainer train: unknown strategy 'allgather' (known: sync, async, easgd, "
            "gossip)\n");
  EXPECT_EQ(Shell(kTrainer + " launch --nproc 2 train", &out), 2);
  EXPECT_EQ(out.find("rank 0 is pid"), std::string::npos) << out;
  EXPECT_NE(out.find("trainer train: expected 1 argument(s), got 0"), std::string::npos) << out;
}

}  // namespace
