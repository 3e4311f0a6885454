// `planner ps` with real `planner search` processes on loopback: searches
// train one policy through it, a search started later (or restarted after
// being killed) continues from its parameters, and a server killed and
// restarted restores its checkpoint while the search waits and goes on.
#include <gtest/gtest.h>

#include <regex>

#include "processes.h"
#include "tests/cli/cli_util.h"

namespace planner::testing {
namespace {

std::string Dir() { return planner_test::ScratchDir(); }
std::string Bin() { return "env PLANNER_CACHE_DIR=" + Dir() + "/cache " + PLANNER_BIN; }

std::string Endpoint(int port) { return "tcp://127.0.0.1:" + std::to_string(port); }

pid_t StartPs(Processes& p, int port, const std::string& log) {
  return p.Start(Bin() + " ps --bind " + Endpoint(port) + " --checkpoint " + Dir() +
                     "/ps.ckpt --checkpoint-every 1s",
                 Dir() + "/" + log);
}

std::string SearchArgs(int port, const std::string& more) {
  return "search " + Model("emotion") + " " + Config("k40-paper-2gpu") + " --refine 0 --ps " +
         Endpoint(port) + " " + more;
}

long JoinedAt(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("ps: joined \\S+ at parameter version ([0-9]+)"))) {
    return -1;
  }
  return std::stol(m[1]);
}

bool WaitFor(const std::string& path, const std::string& text, double seconds) {
  for (int i = 0; i < seconds * 10; ++i) {
    if (Slurp(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// Waits until the search at `path` reports update `n` or a later one: it prints
// progress at most every so often, so a given number may never appear.
bool WaitForUpdate(const std::string& path, int n, double seconds) {
  const std::regex update("update ([0-9]+):");
  for (int i = 0; i < seconds * 10; ++i) {
    const std::string text = Slurp(path);
    for (std::sregex_iterator it(text.begin(), text.end(), update), end; it != end; ++it) {
      if (std::stoi((*it)[1]) >= n) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

TEST(PsProcess, TwoSearchesTrainOnePolicy) {
  Processes p;
  const int port = FreePort();
  const pid_t ps = StartPs(p, port, "ps.log");
  ASSERT_TRUE(WaitFor(Dir() + "/ps.log", "serving", 30));
  const pid_t a = p.Start(Bin() + " " + SearchArgs(port, "--iterations 4 --seed 1"), Dir() + "/a");
  const pid_t b = p.Start(Bin() + " " + SearchArgs(port, "--iterations 4 --seed 2"), Dir() + "/b");
  ASSERT_EQ(p.Wait(a, 120), 0) << Slurp(Dir() + "/a");
  ASSERT_EQ(p.Wait(b, 120), 0) << Slurp(Dir() + "/b");
  EXPECT_NE(Slurp(Dir() + "/a").find("4 gradients pushed"), std::string::npos)
      << Slurp(Dir() + "/a");
  p.Signal(ps, SIGTERM);
  ASSERT_EQ(p.Wait(ps, 30), 128 + SIGTERM);
  const std::string log = Slurp(Dir() + "/ps.log");
  EXPECT_NE(log.find("stopped at version 8 (8 gradients applied"), std::string::npos) << log;
}

TEST(PsProcess, KilledSearchRestartsFromTheServersParameters) {
  Processes p;
  const int port = FreePort();
  StartPs(p, port, "ps.log");
  ASSERT_TRUE(WaitFor(Dir() + "/ps.log", "serving", 30));
  const std::string first = Dir() + "/first";
  const pid_t a = p.Start(Bin() + " " + SearchArgs(port, "--iterations 1000"), first);
  ASSERT_TRUE(WaitForUpdate(first, 3, 120)) << Slurp(first);
  p.Signal(a, SIGKILL);
  p.Wait(a, 10);
  RunResult again = Planner(SearchArgs(port, "--iterations 1"));
  ASSERT_EQ(again.code, 0) << again.out << again.err;
  EXPECT_GE(JoinedAt(again.out), 3) << again.out;
}

TEST(PsProcess, RestartedServerRestoresItsCheckpointAndTheSearchGoesOn) {
  Processes p;
  const int port = FreePort();
  pid_t ps = StartPs(p, port, "ps1.log");
  ASSERT_TRUE(WaitFor(Dir() + "/ps1.log", "serving", 30));
  const std::string out = Dir() + "/search";
  const pid_t search =
      p.Start(Bin() + " " + SearchArgs(port, "--budget 12s --ps-timeout 60s"), out);
  ASSERT_TRUE(WaitForUpdate(out, 3, 120)) << Slurp(out);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // a checkpoint is written
  p.Signal(ps, SIGKILL);
  p.Wait(ps, 10);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the search waits
  ps = StartPs(p, port, "ps2.log");
  ASSERT_EQ(p.Wait(search, 120), 0) << Slurp(out);
  const std::string restarted = Slurp(Dir() + "/ps2.log");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(restarted, m, std::regex("restored \\S+: version ([0-9]+)")))
      << restarted;
  EXPECT_GE(std::stol(m[1]), 1);
  EXPECT_NE(Slurp(out).find("gradients pushed"), std::string::npos);
  p.Signal(ps, SIGTERM);
  ASSERT_EQ(p.Wait(ps, 30), 128 + SIGTERM);
  std::smatch fin;
  const std::string log = Slurp(Dir() + "/ps2.log");
  ASSERT_TRUE(std::regex_search(log, fin, std::regex("stopped at version ([0-9]+)"))) << log;
  EXPECT_GT(std::stol(fin[1]), std::stol(m[1])) << log;  // it trained on after the restart
}

TEST(PsProcess, SearchWithoutServerFailsInOneLineAfterTheTimeout) {
  const int port = FreePort();
  RunResult r = Planner(SearchArgs(port, "--iterations 1 --ps-timeout 2s"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("did not answer within 2 s"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace planner::testing
