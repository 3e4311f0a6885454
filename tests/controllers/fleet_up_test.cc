// `planner fleet up`: a one-machine fleet of real processes that runs, stops on
// a signal, and never leaves a process behind.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>

#include "processes.h"
#include "tests/cli/cli_util.h"

namespace planner::testing {
namespace {

std::string Dir() { return planner_test::ScratchDir(); }

// Whether `cmdline` holds `text` not followed by a digit (an endpoint's port
// is not the start of a longer one, another fleet's).
bool Mentions(const std::string& cmdline, const std::string& text) {
  for (size_t at = cmdline.find(text); at != std::string::npos; at = cmdline.find(text, at + 1)) {
    const size_t end = at + text.size();
    if (end == cmdline.size() || !std::isdigit(static_cast<unsigned char>(cmdline[end]))) {
      return true;
    }
  }
  return false;
}

// Processes whose command line mentions `text` (the run directory names them all).
int ProcessesMentioning(const std::string& text) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (Mentions(cmdline, text) && name != std::to_string(::getpid())) ++n;
  }
  return n;
}

// The fleet's processes: all but the workers name the run directory; the
// workers name their controller's endpoint, which its fleet file holds.
int FleetProcesses(const std::string& run) {
  int n = ProcessesMentioning(run);
  for (int i = 1; i <= 2; ++i) {
    const std::string fleet = Slurp(run + "/fleet-" + std::to_string(i) + ".yaml");
    const size_t at = fleet.find("tcp://");
    if (at != std::string::npos)
      n += ProcessesMentioning(fleet.substr(at, fleet.find('\n', at) - at));
  }
  return n;
}

bool NoneLeft(const std::string& run, double seconds) {
  for (int i = 0; i < seconds * 10; ++i) {
    if (FleetProcesses(run) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::string Up(const std::string& run, const std::string& search_flags) {
  return "fleet up local:2x2 " + Model("emotion") + " " + Config("k40-paper-2gpu") + " --dir " +
         run + " -o " + run + "/best.yaml -- --refine 0 " + search_flags;
}

// A controller that fails says why in its log; fleet up says it too, on stderr.
TEST(FleetUp, AFailedControllersReasonIsPrinted) {
  const std::string run = Dir() + "/run-failed";
  RunResult r = Planner("fleet up local:1x1 " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                        " --dir " + run + " -- --bogus-flag");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("planner fleet up: controller 1 failed: "), std::string::npos)
      << r.out << r.err;
  EXPECT_NE(r.err.find("--bogus-flag"), std::string::npos) << r.err;
}

// Through 12 s of climbing the log gains no update line: the progress printed
// every 5 s used to repeat the last one.
TEST(FleetUp, EachProgressLineSaysSomethingNew) {
  const std::string run = Dir() + "/run-progress";
  RunResult r = Planner("fleet up local:1x1 " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                        " --dir " + run + " -- --budget 6s --refine 12s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  std::istringstream lines(r.out);
  std::vector<std::string> progress;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  controller 1: ", 0) == 0) progress.push_back(line);
  }
  ASSERT_GE(progress.size(), 2u) << r.out;
  for (size_t i = 1; i < progress.size(); ++i) EXPECT_NE(progress[i], progress[i - 1]) << r.out;
  EXPECT_EQ(progress.back(), "  controller 1: done") << r.out;
  bool climbing = false;
  for (const std::string& line : progress) climbing |= line.find(": refine: ") != std::string::npos;
  EXPECT_TRUE(climbing) << "no line says the controller is climbing:\n" << r.out;
}

TEST(FleetUp, AMissingModelIsRefusedLeavingNoRunDirectory) {
  const std::string run = Dir() + "/run-never";
  RunResult r = Planner("fleet up local:1x1 " + Dir() + "/no-such-model.pb " +
                        Config("k40-paper-2gpu") + " --dir " + run);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "planner fleet up: " + Dir() +
                       "/no-such-model.pb: cannot open: No such file or directory\n");
  EXPECT_FALSE(std::filesystem::exists(run));
  // A directory (which passed the old check, std::filesystem::exists) or a
  // path under a file is no model either: one line, before any process starts.
  for (const std::string& model : {Dir(), Config("k40-paper-2gpu") + "/model.pb"}) {
    r = Planner("fleet up local:1x1 " + model + " " + Config("k40-paper-2gpu") + " --dir " + run);
    EXPECT_EQ(r.code, 1) << model;
    EXPECT_EQ(Lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("planner fleet up: " + model + ": ", 0), 0u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(run));
  }
}

// A flag fleet up sets per controller, given after --, was appended after its
// own and won for every controller: one seed for all, or each controller's
// placement where fleet up never looked (its -o then went unwritten).
TEST(FleetUp, SearchFlagsThatFleetUpSetsPerControllerAreRefused) {
  const std::string run = Dir() + "/run-own-flags";
  const std::pair<const char*, const char*> cases[] = {
      {"--seed 7", "--seed after --: fleet up gives controller i seed i"},
      {"-o p.yaml",
       "-o after --: fleet up writes each controller's placement in RUN_DIR (its "
       "own -o takes the best)"},
      {"--ps=tcp://127.0.0.1:1", "--ps after --: fleet up sets it for each controller"},
      {"--ps-key k.key",
       "--ps-key after --: fleet up's parameter server is its own, on loopback, without keys"},
      {"--checkpoint c.ckpt",
       "--checkpoint after --: every controller would share one "
       "checkpoint file (each keeps its own in RUN_DIR)"},
      // Measured runs' flags, which sim workers' controllers would not use.
      {"--rounds 5",
       "--rounds after --: it goes with measured rewards, and --mode sim's workers simulate "
       "(--mode real measures)"},
      {"--steps=3",
       "--steps after --: it goes with measured rewards, and --mode sim's workers simulate "
       "(--mode real measures)"},
      {"--profile p.profile --profile-cache off",
       "--profile-cache after --: with --profile's costs, no device is profiled into a "
       "cache"}};
  for (const auto& [flags, message] : cases) {
    RunResult r =
        Planner("fleet up local:2x1 " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                " --dir " + run + " -- --iterations 2 " + flags);
    EXPECT_EQ(r.code, 2) << flags;
    EXPECT_EQ(r.err, std::string("planner fleet up: ") + message + "\n") << flags;
    EXPECT_FALSE(std::filesystem::exists(run));
  }
}

// --mode real on sim devices failed every placement of every update and then
// the search; an unwritable -o left the run directory made for it.
TEST(FleetUp, RealModeOnSimDevicesOrAnUnwritableOutputIsRefusedLeavingNoRunDirectory) {
  const std::string run = Dir() + "/run-refused";
  RunResult r = Planner("fleet up local:1x1 " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                        " --mode real --dir " + run);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "planner fleet up: --mode real runs the placements on the workers' devices, "
            "and " +
                Config("k40-paper-2gpu") + "'s 'cpu0' is a sim device (use --mode sim)\n");
  EXPECT_FALSE(std::filesystem::exists(run));
  r = Planner("fleet up local:1x1 " + Model("emotion") + " " + Config("k40-paper-2gpu") +
              " --measure-lock " + Dir() + "/measure.lock --dir " + run);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--measure-lock goes with --mode real"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(run));
  r = Planner("fleet up local:1x1 " + Model("emotion") + " " + Config("local-2cpu") +
              " --mode real --measure-lock '' --dir " + run);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--measure-lock needs a file"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(run));
  r = Planner("fleet up local:1x1 " + Model("emotion") + " " + Config("k40-paper-2gpu") +
              " -o /proc/fleet-best.yaml --dir " + run);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/proc/fleet-best.yaml: cannot write -o output"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(run));
}

TEST(FleetUp, RunsServerControllersAndWorkersAndStopsThemAll) {
  const std::string run = Dir() + "/run-a";
  RunResult r = Planner(Up(run, "--iterations 3"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("controller 1: best found"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("controller 2: best found"), std::string::npos) << r.out;
  EXPECT_NE(Slurp(run + "/best.yaml").find("devices:"), std::string::npos);
  EXPECT_NE(Slurp(run + "/ps.log").find("stopped at version 6 (6 gradients applied"),
            std::string::npos)
      << Slurp(run + "/ps.log");
  EXPECT_TRUE(NoneLeft(run, 5));
}

TEST(FleetUp, SigintStopsEveryProcessAndKeepsTheResults) {
  Processes p;
  const std::string run = Dir() + "/run-b";
  const pid_t up = p.Start(std::string(PLANNER_BIN) + " " + Up(run, "--budget 10m"), Dir() + "/up");
  for (int i = 0; i < 600 && Slurp(run + "/controller-1.log").find("update ") == std::string::npos;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_NE(Slurp(run + "/controller-1.log").find("update "), std::string::npos)
      << Slurp(Dir() + "/up");
  p.Signal(up, SIGINT);
  EXPECT_EQ(p.Wait(up, 90), 128 + SIGINT) << Slurp(Dir() + "/up");
  EXPECT_NE(Slurp(Dir() + "/up").find("stopping on a signal"), std::string::npos);
  EXPECT_NE(Slurp(run + "/best.yaml").find("devices:"), std::string::npos) << Slurp(Dir() + "/up");
  EXPECT_TRUE(NoneLeft(run, 10));
}

TEST(FleetUp, KilledFleetTakesItsProcessesWithIt) {
  Processes p;
  const std::string run = Dir() + "/run-c";
  const pid_t up = p.Start(std::string(PLANNER_BIN) + " " + Up(run, "--budget 10m"), Dir() + "/up");
  // Counted once the count has held for two reads: a child between its fork
  // and its exec still has its parent's command line, and counts twice.
  int count = FleetProcesses(run);
  for (int i = 0, held = 0; i < 300 && held < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const int now = FleetProcesses(run);
    held = now == count && now >= 8 ? held + 1 : 0;
    count = now;
  }
  ASSERT_EQ(count, 8);  // fleet up, the server, 2 controllers, 4 workers
  p.Signal(up, SIGKILL);
  p.Wait(up, 10);
  EXPECT_TRUE(NoneLeft(run, 30));
}

// The pid of the process whose command line holds `text`, or -1.
pid_t ProcessWith(const std::string& text) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    for (char& c : cmdline) c = c == '\0' ? ' ' : c;
    if (cmdline.find(text) != std::string::npos) return std::stoi(name);
  }
  return -1;
}

// "fleet: N placements, M outcomes (U unavailable...), ... K workers lost" of a
// controller's log -> {N, M, K, U}.
std::vector<long> Counts(const std::string& log) {
  std::smatch m;
  const std::regex line(
      "fleet: ([0-9]+) placements, ([0-9]+) outcomes \\(([0-9]+) unavailable.* ([0-9]+) workers "
      "lost");
  if (!std::regex_search(log, m, line)) return {};
  return {std::stol(m[1]), std::stol(m[2]), std::stol(m[4]), std::stol(m[3])};
}

// The whole fleet: a server, 2 controllers and 4 workers; a zoo model
// on simulated GPUs with a worker killed mid-run, then a model of the
// repository measured on the local CPUs.
TEST(FleetUp, ServerTwoControllersFourWorkersSurviveAKilledWorker) {
  const std::string zoo = Dir() + "/two_branch.pb";
  ASSERT_EQ(Planner("zoo two_branch -o " + zoo).code, 0);
  Processes p;
  const std::string run = Dir() + "/run-sim";
  const pid_t up = p.Start(std::string(PLANNER_BIN) + " fleet up local:2x2 " + zoo + " " +
                               Config("k40-paper-2gpu") + " --dir " + run + " -o " + run +
                               "/best.yaml -- --budget 8s --refine 2s",
                           Dir() + "/up-sim");
  for (int i = 0; i < 600 && Slurp(run + "/controller-1.log").find("update ") == std::string::npos;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Named by its controller's endpoint too: other tests' fleets have a c1w1.
  const std::string fleet1 = Slurp(run + "/fleet-1.yaml");
  const size_t at = fleet1.find("tcp://");
  ASSERT_NE(at, std::string::npos) << fleet1;
  const std::string endpoint = fleet1.substr(at, fleet1.find('\n', at) - at);
  const pid_t victim = ProcessWith(endpoint + " --name c1w1");
  ASSERT_GT(victim, 0) << Slurp(Dir() + "/up-sim");
  ::kill(victim, SIGKILL);
  ASSERT_EQ(p.Wait(up, 120), 0) << Slurp(Dir() + "/up-sim");
  for (int c = 1; c <= 2; ++c) {
    const std::vector<long> n = Counts(Slurp(run + "/controller-" + std::to_string(c) + ".log"));
    ASSERT_EQ(n.size(), 4u) << Slurp(run + "/controller-" + std::to_string(c) + ".log");
    EXPECT_GT(n[0], 0);
    EXPECT_EQ(n[0], n[1]);
    EXPECT_EQ(n[3], 0);  // every placement got a result
    if (c == 1) {
      EXPECT_GE(n[2], 1);
    }
  }
  EXPECT_NE(Slurp(run + "/best.yaml").find("devices:"), std::string::npos);
  EXPECT_TRUE(NoneLeft(run, 10));

  const std::string real = Dir() + "/run-real";
  RunResult r =
      Planner("fleet up local:2x2 " + Model("emotion") + " " + Config("local-2cpu") +
              " --mode real --measure-lock " + Dir() + "/measure.lock --dir " + real + " -o " +
              real + "/best.yaml -- --iterations 1 --steps 1 --rounds 6 --refine 0");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  for (int c = 1; c <= 2; ++c) {
    const std::vector<long> n = Counts(Slurp(real + "/controller-" + std::to_string(c) + ".log"));
    ASSERT_EQ(n.size(), 4u);
    EXPECT_EQ(n[0], n[1]);
    EXPECT_EQ(n[3], 0);  // every placement got a result
  }
  EXPECT_NE(Slurp(real + "/best.yaml").find("devices:"), std::string::npos);
  EXPECT_TRUE(NoneLeft(real, 10));
}

// -o named the model or the devices file and overwrote it with a placement;
// a reused --dir restored another model's policy and could hand back the
// earlier run's placement.
TEST(FleetUp, AnOutputOverAnInputOrARunDirOfAnEarlierFleetIsRefused) {
  const std::string devices = Dir() + "/devices-copy.yaml";
  std::filesystem::copy_file(Config("k40-paper-2gpu"), devices);
  const std::string before = Slurp(devices);
  RunResult over = Planner("fleet up local:1x1 " + Model("emotion") + " " + devices + " --dir " +
                           Dir() + "/run-over -o " + devices);
  EXPECT_EQ(over.code, 1);
  EXPECT_EQ(over.err, "planner fleet up: " + devices + ": -o would overwrite the devices file\n");
  EXPECT_EQ(Slurp(devices), before);
  const std::string earlier = Dir() + "/run-earlier";
  std::filesystem::create_directories(earlier);
  std::ofstream(earlier + "/controller-1.yaml") << "placement: {a: gpu0}\n";
  std::ofstream(earlier + "/ps.ckpt") << "x";
  RunResult reused = Planner("fleet up local:1x1 " + Model("emotion") + " " +
                             Config("k40-paper-2gpu") + " --dir " + earlier);
  EXPECT_EQ(reused.code, 1);
  EXPECT_EQ(reused.err, "planner fleet up: " + earlier +
                            ": --dir holds an earlier fleet's files (controller-1.yaml, ps.ckpt): "
                            "give a new --dir, or remove them\n");
}

// With its server killed the controllers waited out their timeout (60 s) and
// fleet up said nothing until then.
TEST(FleetUp, AKilledServerStopsTheFleetAtOnceSayingSo) {
  Processes p;
  const std::string run = Dir() + "/run-ps-killed";
  const pid_t up = p.Start(std::string(PLANNER_BIN) + " fleet up local:1x1 " + Model("emotion") +
                               " " + Config("k40-paper-2gpu") + " --dir " + run + " -o " + run +
                               "/best.yaml -- --budget 10m --refine 0",
                           Dir() + "/up-ps-killed");
  for (int i = 0; i < 600 && Slurp(run + "/controller-1.log").find("update ") == std::string::npos;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const pid_t server = ProcessWith(run + "/ps.ckpt");
  ASSERT_GT(server, 0) << Slurp(Dir() + "/up-ps-killed");
  ::kill(server, SIGKILL);
  // Not its 30 s grace: the controller stops on SIGTERM although its server is gone.
  EXPECT_EQ(p.Wait(up, 25), 1) << Slurp(Dir() + "/up-ps-killed");
  EXPECT_NE(Slurp(Dir() + "/up-ps-killed")
                .find("planner fleet up: the parameter server ended (killed by signal 9 (Killed)); "
                      "stopping\n"),
            std::string::npos)
      << Slurp(Dir() + "/up-ps-killed");
  EXPECT_NE(Slurp(run + "/best.yaml").find("devices:"), std::string::npos)
      << "the controller's placement so far is kept";
  EXPECT_TRUE(NoneLeft(run, 10));
}

TEST(FleetUp, BadShapeIsAUsageError) {
  RunResult r = Planner("fleet up local:0x2 " + Model("emotion") + " " + Config("k40-paper-2gpu"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("local:CxW"), std::string::npos) << r.err;
  EXPECT_EQ(Planner("fleet down").code, 2);
}

}  // namespace
}  // namespace planner::testing
