// `planner fleet up`: a one-machine fleet of real processes that runs, stops on
// a signal, and never leaves a process behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "planner/cli_util.h"
#include "processes.h"

namespace planner::testing {
namespace {

std::string Dir() { return planner_test::ScratchDir(); }

// Processes whose command line mentions `text` (the run directory names them all).
int ProcessesMentioning(const std::string& text) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (cmdline.find(text) != std::string::npos && name != std::to_string(::getpid())) ++n;
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
  EXPECT_EQ(p.Wait(up, 90), 0) << Slurp(Dir() + "/up");
  EXPECT_NE(Slurp(Dir() + "/up").find("stopping on a signal"), std::string::npos);
  EXPECT_NE(Slurp(run + "/best.yaml").find("devices:"), std::string::npos) << Slurp(Dir() + "/up");
  EXPECT_TRUE(NoneLeft(run, 10));
}

TEST(FleetUp, KilledFleetTakesItsProcessesWithIt) {
  Processes p;
  const std::string run = Dir() + "/run-c";
  const pid_t up = p.Start(std::string(PLANNER_BIN) + " " + Up(run, "--budget 10m"), Dir() + "/up");
  for (int i = 0; i < 300 && FleetProcesses(run) < 8; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(FleetProcesses(run), 8);  // fleet up, the server, 2 controllers, 4 workers
  p.Signal(up, SIGKILL);
  p.Wait(up, 10);
  EXPECT_TRUE(NoneLeft(run, 30));
}

TEST(FleetUp, BadShapeIsAUsageError) {
  RunResult r = Planner("fleet up local:0x2 " + Model("emotion") + " " + Config("k40-paper-2gpu"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("local:CxW"), std::string::npos) << r.err;
  EXPECT_EQ(Planner("fleet down").code, 2);
}

}  // namespace
}  // namespace planner::testing
