// `planner search --reward fleet` with real `planner worker` processes on
// loopback: the fleet search repeats the in-process one, loses no sample when
// workers are killed or stopped, measures on real CPUs, places gradients apart,
// and fails in one line when no worker comes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <regex>

#include "processes.h"
#include "tests/cli/cli_util.h"
#include "tests/cli/softmax_problem.h"

namespace planner::testing {
namespace {

std::string Dir() { return planner_test::ScratchDir(); }

// `extra` may set register_timeout_s itself: a fleet file refuses a key given twice.
std::string WriteFleet(const std::string& name, int port, const std::string& extra) {
  const std::string path = Dir() + "/" + name + ".yaml";
  const bool own_timeout = extra.find("register_timeout_s:") != std::string::npos;
  std::ofstream(path) << "bind: tcp://127.0.0.1:" << port << "\nheartbeat_ms: 100\nsilence_s: 1\n"
                      << (own_timeout ? "" : "register_timeout_s: 30\n") << extra;
  return path;
}

// The measurement lock is this test process's: another test's worker, run
// alongside by ctest -j, held the host's default one while this one's waited
// (and a test that stopped its worker then found no result).
std::string WorkerCommand(const std::string& devices, int port, const std::string& name) {
  return std::string(PLANNER_BIN) + " worker --devices " + devices +
         " --connect tcp://127.0.0.1:" + std::to_string(port) + " --name " + name +
         " --measure-lock " + Dir() + "/measure.lock";
}

std::string Env() { return "env PLANNER_CACHE_DIR=" + Dir() + "/cache "; }

// "fleet: N placements, M outcomes (U unavailable...), ..." -> {N, M, re-sent,
// workers lost, U}: U counts the placements no worker gave a result for.
std::vector<long> FleetCounts(const std::string& out) {
  std::smatch m;
  const std::regex line(
      "fleet: ([0-9]+) placements, ([0-9]+) outcomes \\(([0-9]+) unavailable[^)]*\\), [0-9]+ sends "
      "\\(([0-9]+) re-sent\\), [0-9]+ late results dropped, ([0-9]+) workers lost");
  if (!std::regex_search(out, m, line)) return {};
  return {std::stol(m[1]), std::stol(m[2]), std::stol(m[4]), std::stol(m[5]), std::stol(m[3])};
}

std::string CurveColumns(const std::string& csv_path) {
  // iteration, mean, min and best step: everything but the times.
  std::ifstream f(csv_path);
  std::string row, out;
  while (std::getline(f, row)) {
    std::stringstream s(row);
    std::string cell;
    for (int col = 0; std::getline(s, cell, ','); ++col) {
      if (col == 0 || col == 2 || col == 3 || col == 5) out += cell + ",";
    }
    out += "\n";
  }
  return out;
}

TEST(FleetSearch, OneWorkerFleetSearchRepeatsTheInProcessSearch) {
  Processes p;
  const int port = FreePort();
  const std::string fleet = WriteFleet("same", port, "workers: 1\n");
  p.Start(WorkerCommand(Config("k40-paper-2gpu"), port, "w1"), Dir() + "/w1.log");
  const std::string common =
      Model("emotion") + " " + Config("k40-paper-2gpu") + " --iterations 3 --refine 0 --seed 5";
  RunResult remote = Planner("search " + common + " --reward fleet --fleet " + fleet + " --csv " +
                             Dir() + "/fleet.csv --svg " + Dir() + "/fleet.svg");
  ASSERT_EQ(remote.code, 0) << remote.out << remote.err;
  RunResult local =
      Planner("search " + common + " --csv " + Dir() + "/local.csv --svg " + Dir() + "/local.svg");
  ASSERT_EQ(local.code, 0) << local.err;
  // The same picture, timeline included, but for the title's reward source.
  std::string fleet_svg = Slurp(Dir() + "/fleet.svg"), local_svg = Slurp(Dir() + "/local.svg");
  fleet_svg.replace(fleet_svg.find("(fleet)"), 7, "(sim)");
  EXPECT_GT(local_svg.size(), 10000u);
  EXPECT_EQ(fleet_svg, local_svg);
  const std::string curve = CurveColumns(Dir() + "/fleet.csv");
  EXPECT_GT(Lines(curve), 3);
  EXPECT_EQ(curve, CurveColumns(Dir() + "/local.csv"));
  const std::vector<long> n = FleetCounts(remote.out);
  ASSERT_EQ(n.size(), 5u) << remote.out;
  EXPECT_EQ(n[0], n[1]);
  EXPECT_EQ(n[4], 0);  // every placement got a result
  EXPECT_EQ(n[2], 0);
}

TEST(FleetSearch, KilledAndStoppedWorkersLoseNoSample) {
  Processes p;
  const int port = FreePort();
  const std::string fleet = WriteFleet("faults", port, "workers: 3\n");
  std::vector<pid_t> w;
  for (int i = 0; i < 3; ++i) {
    const std::string name = "w" + std::to_string(i);
    w.push_back(
        p.Start(WorkerCommand(Config("k40-paper-2gpu"), port, name), Dir() + "/" + name + ".log"));
  }
  const std::string out = Dir() + "/search.out";
  const pid_t search = p.Start(Env() + PLANNER_BIN + std::string(" search ") + Model("emotion") +
                                   " " + Config("k40-paper-2gpu") + " --reward fleet --fleet " +
                                   fleet + " --budget 8s --refine 3s -o " + Dir() + "/best.yaml",
                               out);
  // Once the search runs (its first progress line), one worker dies, one stops.
  for (int i = 0; i < 300 && Slurp(out).find("update ") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_NE(Slurp(out).find("update "), std::string::npos) << Slurp(out);
  p.Signal(w[0], SIGKILL);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  p.Signal(w[1], SIGSTOP);
  ASSERT_EQ(p.Wait(search, 120), 0) << Slurp(out);
  const std::string text = Slurp(out);
  const std::vector<long> n = FleetCounts(text);
  ASSERT_EQ(n.size(), 5u) << text;
  EXPECT_GT(n[0], 0);
  EXPECT_EQ(n[0], n[1]) << text;
  EXPECT_EQ(n[4], 0) << text;  // every placement got a result
  EXPECT_GE(n[3], 1) << text;  // the stopped worker, at least, held a placement
  EXPECT_NE(text.find("best found"), std::string::npos);
  EXPECT_NE(Slurp(Dir() + "/best.yaml").find("devices:"), std::string::npos);
  // The stopped worker resumes, and every worker left stops on SIGTERM.
  p.Signal(w[1], SIGCONT);
  for (int i = 1; i < 3; ++i) {
    p.Signal(w[i], SIGTERM);
    EXPECT_EQ(p.Wait(w[i], 10), 128 + SIGTERM) << Slurp(Dir() + "/w" + std::to_string(i) + ".log");
  }
}

TEST(FleetSearch, RealRewardsOnALoopbackFleetReachAVerdict) {
  Processes p;
  const int port = FreePort();
  const std::string fleet = WriteFleet("real", port, "workers: 2\nmode: real\n");
  for (int i = 0; i < 2; ++i) {
    p.Start(WorkerCommand(Config("local-2cpu"), port, "r" + std::to_string(i)),
            Dir() + "/r" + std::to_string(i) + ".log");
  }
  RunResult r = Planner("search " + Model("emotion") + " " + Config("local-2cpu") +
                        " --reward fleet --fleet " + fleet +
                        " --iterations 1 --steps 1 --rounds 5 --refine 0");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("  on hardware  "), std::string::npos) << r.out;
  const std::vector<long> n = FleetCounts(r.out);
  ASSERT_EQ(n.size(), 5u) << r.out;
  EXPECT_EQ(n[0], n[1]);
  EXPECT_EQ(n[4], 0);  // every placement got a result
}

// --gradients heavy on a fleet: the workers place each gradient op as the
// placement says (wire::pb::Model::apart), so the search's best runs one
// apart, faster than any colocated placement, and `planner simulate` of the
// file it wrote gives the step the worker gave.
TEST(FleetSearch, WorkersRunGradientsApartAsTheSearchPlacesThem) {
  Processes p;
  const auto [model, devices] = SoftmaxFiles(Dir() + "/fleet_");
  const int port = FreePort();
  const std::string fleet = WriteFleet("apart", port, "workers: 1\n");
  p.Start(WorkerCommand(devices, port, "a1"), Dir() + "/a1.log");
  const std::string out = Dir() + "/fleet-apart.yaml";
  const std::string base = "search " + model + " " + devices + " --iterations 0 --refine 1s";
  RunResult colocated = Planner(base + " -o " + Dir() + "/fleet-colocated.yaml");
  ASSERT_EQ(colocated.code, 0) << colocated.err;
  RunResult apart =
      Planner(base + " --gradients heavy --reward fleet --fleet " + fleet + " -o " + out);
  ASSERT_EQ(apart.code, 0) << apart.out << apart.err;
  EXPECT_NE(apart.out.find("gradients: 4 gradient op(s) may run apart from their op"),
            std::string::npos)
      << apart.out;
  const double apart_ms = BestFoundMs(apart.out);
  EXPECT_LT(apart_ms, 0.95 * BestFoundMs(colocated.out)) << apart.out;
  EXPECT_NE(Slurp(out).find("gradients_apart:\n  gradients/soft/m/MatMul"), std::string::npos)
      << Slurp(out);
  RunResult simulated = Planner("simulate " + model + " " + devices + " --placement " + out);
  ASSERT_EQ(simulated.code, 0) << simulated.err;
  char expected[64];
  std::snprintf(expected, sizeof expected, "simulated step time: %.3f ms", apart_ms);
  EXPECT_NE(simulated.out.find(expected), std::string::npos) << simulated.out;
  const std::vector<long> n = FleetCounts(apart.out);
  ASSERT_EQ(n.size(), 5u) << apart.out;
  EXPECT_EQ(n[0], n[1]);
  EXPECT_EQ(n[4], 0);  // every placement got a result
}

// With its only worker killed, a search waited out register_timeout_s (60 s)
// for another before a SIGTERM took effect, and then failed.
TEST(FleetSearch, ASearchWhoseWorkersAreGoneStopsOnSigtermAtOnce) {
  Processes p;
  const int port = FreePort();
  const std::string fleet = WriteFleet("gone", port, "workers: 1\n");
  const pid_t worker =
      p.Start(WorkerCommand(Config("k40-paper-2gpu"), port, "g1"), Dir() + "/g1.log");
  const std::string out = Dir() + "/gone.out";
  const pid_t search =
      p.Start(Env() + PLANNER_BIN + std::string(" search ") + Model("emotion") + " " +
                  Config("k40-paper-2gpu") + " --reward fleet --fleet " + fleet +
                  " --budget 10m --refine 0 -o " + Dir() + "/gone-best.yaml",
              out);
  for (int i = 0; i < 300 && Slurp(out).find("update ") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_NE(Slurp(out).find("update "), std::string::npos) << Slurp(out);
  p.Signal(worker, SIGKILL);
  std::this_thread::sleep_for(std::chrono::seconds(4));  // past silence_s: the worker is gone
  p.Signal(search, SIGTERM);
  EXPECT_EQ(p.Wait(search, 20), 128 + SIGTERM) << Slurp(out);
  EXPECT_NE(Slurp(out).find("stopped by a signal after "), std::string::npos) << Slurp(out);
  EXPECT_NE(Slurp(Dir() + "/gone-best.yaml").find("placement:"), std::string::npos);
}

// A search on the local CPUs whose fleet (`fleet_extra`: mode real and more)
// has one worker, `worker`: started, and waited for until the worker registered.
struct RealFleetSearch {
  pid_t worker = -1, search = -1;
  std::string out;
};
RealFleetSearch StartRealFleetSearch(Processes& p, const std::string& name,
                                     const std::string& fleet_extra, int steps) {
  RealFleetSearch r;
  const int port = FreePort();
  const std::string fleet = WriteFleet(name, port, "workers: 1\nmode: real\n" + fleet_extra);
  r.worker =
      p.Start(WorkerCommand(Config("local-2cpu"), port, name + "1"), Dir() + "/" + name + "1.log");
  r.out = Dir() + "/" + name + ".out";
  r.search = p.Start(Env() + PLANNER_BIN + std::string(" search ") + Model("emotion") + " " +
                         Config("local-2cpu") + " --reward fleet --fleet " + fleet + " --steps " +
                         std::to_string(steps) + " --budget 10m --refine 0 -o " + Dir() + "/" +
                         name + "-best.yaml",
                     r.out);
  for (int i = 0; i < 300 && Slurp(r.out).find("workers registered at") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return r;
}

// With a worker busy on a long real evaluation, a SIGTERM waited for its
// result (up to evaluation_s, 600 s): `fleet up` then killed the controller
// before it wrote anything. Now what is in flight has stop_wait_s to answer.
TEST(FleetSearch, ASearchWhoseWorkerIsBusyStopsOnSigtermWithinStopWait) {
  Processes p;
  // An emotion step takes ~20 ms on these CPUs: 2,000 steps are ~40 s an evaluation.
  const RealFleetSearch r = StartRealFleetSearch(p, "b", "stop_wait_s: 1\n", 2000);
  const std::string& out = r.out;
  const pid_t search = r.search;
  ASSERT_NE(Slurp(out).find("workers registered at"), std::string::npos) << Slurp(out);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // its first evaluation is under way
  const auto signalled = std::chrono::steady_clock::now();
  p.Signal(search, SIGTERM);
  // Nothing was measured before the signal: no result, and it says why.
  EXPECT_EQ(p.Wait(search, 20), 1) << Slurp(out);
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, std::chrono::seconds(15)) << Slurp(out);
  EXPECT_NE(Slurp(out).find("single:cpu0      failed: stopped by a signal: worker b1 did not "
                            "answer within stop_wait_s (1 s)"),
            std::string::npos)
      << Slurp(out);
  EXPECT_NE(Slurp(out).find("planner search: "), std::string::npos) << Slurp(out);
}

// A worker stopped mid-evaluation finished it, then said Bye without sending
// the result, and fell silent meanwhile: the placement was lost or sent again.
TEST(FleetSearch, AWorkerStoppedMidEvaluationSendsItsResultBeforeItGoes) {
  Processes p;
  // ~20 ms an emotion step: 150 steps are ~3 s an evaluation.
  const RealFleetSearch r = StartRealFleetSearch(p, "m", "", 150);
  const std::string& out = r.out;
  const pid_t worker = r.worker, search = r.search;
  ASSERT_NE(Slurp(out).find("workers registered at"), std::string::npos) << Slurp(out);
  std::this_thread::sleep_for(std::chrono::seconds(1));  // single:cpu0 is under way
  p.Signal(worker, SIGTERM);
  EXPECT_EQ(p.Wait(worker, 30), 128 + SIGTERM) << Slurp(Dir() + "/m1.log");
  EXPECT_NE(Slurp(Dir() + "/m1.log").find("worker m1: stopping after its current evaluation"),
            std::string::npos)
      << Slurp(Dir() + "/m1.log");
  p.Signal(search, SIGTERM);
  p.Wait(search, 30);
  const std::string log = Slurp(out);
  const size_t line = log.find("  single:cpu0 ");
  ASSERT_NE(line, std::string::npos) << log;
  const std::string first = log.substr(line, log.find('\n', line) - line);
  EXPECT_NE(first.find(" ms"), std::string::npos) << log;  // measured, not "failed: ..."
  EXPECT_EQ(first.find("failed"), std::string::npos) << log;
  // (The next placement, sent as it said bye, goes elsewhere: "said bye: its
  // placement goes to another worker" may follow, rightly.)
}

TEST(FleetSearch, SearchWithoutWorkersFailsInOneLineNamingTheEndpoint) {
  const int port = FreePort();
  const std::string fleet = WriteFleet("empty", port, "register_timeout_s: 0.3\n");
  RunResult r = Planner("search " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                        " --reward fleet --fleet " + fleet + " --iterations 1");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("0 of 1 workers registered at tcp://127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << r.err;
}

TEST(FleetSearch, FleetFlagGoesOnlyWithFleetRewards) {
  RunResult r = Planner("search " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                        " --fleet fleet.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--fleet"), std::string::npos);
  RunResult missing =
      Planner("search " + Model("emotion") + " " + Config("k40-paper-2gpu") + " --reward fleet");
  EXPECT_EQ(missing.code, 2);
  // An output named like the fleet file overwrote it with a placement.
  const std::string fleet = WriteFleet("over", FreePort(), "workers: 1\n"), before = Slurp(fleet);
  RunResult over = Planner("search " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                           " --reward fleet --fleet " + fleet + " -o " + fleet);
  EXPECT_EQ(over.code, 1);
  EXPECT_NE(over.err.find(fleet + ": -o would overwrite --fleet's file"), std::string::npos)
      << over.err;
  EXPECT_EQ(Slurp(fleet), before);
}

TEST(FleetSearch, OnlyAWorkerWithAnAllowedKeyGetsAPlacement) {
  for (const char* name : {"controller", "member", "intruder"}) {
    RunResult k = Planner("fleet keygen " + Dir() + "/" + name);
    ASSERT_EQ(k.code, 0) << k.err;
  }
  // A second keygen would have replaced the pair, cutting off member.pub's holders.
  const std::string pub = Slurp(Dir() + "/controller.pub");
  RunResult again = Planner("fleet keygen " + Dir() + "/controller");
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.err.find(Dir() + "/controller.key: exists; a new key pair would cut off"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(Slurp(Dir() + "/controller.pub"), pub);
  Processes p;
  const int port = FreePort();
  const std::string fleet =
      WriteFleet("curve", port,
                 "register_timeout_s: 3\nserver_key: controller.key\nclient_keys: [member.pub]\n");
  const std::string common = Model("emotion") + " " + Config("k40-paper-2gpu") +
                             " --reward fleet --fleet " + fleet + " --iterations 1 --refine 0";
  auto worker = [&](const std::string& key, const std::string& log) {
    return p.Start(WorkerCommand(Config("k40-paper-2gpu"), port, key) + " --key " + Dir() + "/" +
                       key + ".key --server-key " + Dir() + "/controller.pub",
                   Dir() + "/" + log);
  };
  const pid_t intruder = worker("intruder", "intruder.log");
  RunResult refused = Planner("search " + common);
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("0 of 1 workers registered"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("is not allowed"), std::string::npos) << refused.err;
  // The intruder is told, and stops: ZeroMQ does not retry a refused handshake.
  EXPECT_EQ(p.Wait(intruder, 10), 1);
  const std::string told = Slurp(Dir() + "/intruder.log");
  EXPECT_NE(told.find("planner worker: the controller refused this worker's key "),
            std::string::npos)
      << told;
  EXPECT_NE(told.find("it is not among the keys the controller lets in"), std::string::npos)
      << told;
  worker("member", "member.log");
  RunResult served = Planner("search " + common);
  EXPECT_EQ(served.code, 0) << served.out << served.err;
}

TEST(FleetSearch, ListeningWorkerSurvivesGarbageAndIsReachedByTheController) {
  Processes p;
  const int worker_port = FreePort();
  const pid_t w =
      p.Start(std::string(PLANNER_BIN) + " worker --devices " + Config("k40-paper-2gpu") +
                  " --bind tcp://127.0.0.1:" + std::to_string(worker_port) +
                  " --name listener --measure-lock " + Dir() + "/measure.lock",
              Dir() + "/listener.log");
  for (int i = 0; i < 100 && Slurp(Dir() + "/listener.log").find("listening") == std::string::npos;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::mt19937 gen(5);
  for (int i = 0; i < 20; ++i) {
    std::string bytes(1 + gen() % 2048, '\0');
    for (char& c : bytes) c = static_cast<char>(gen());
    SendRawBytes(worker_port, bytes);
  }
  const std::string fleet = Dir() + "/reach.yaml";
  std::ofstream(fleet) << "bind: tcp://127.0.0.1:*\nconnect: [tcp://127.0.0.1:" << worker_port
                       << "]\nregister_timeout_s: 30\n";
  RunResult r = Planner("search " + Model("emotion") + " " + Config("k40-paper-2gpu") +
                        " --reward fleet --fleet " + fleet + " --iterations 2 --refine 0");
  ASSERT_EQ(r.code, 0) << r.out << r.err << Slurp(Dir() + "/listener.log");
  EXPECT_NE(r.out.find("worker listener registered"), std::string::npos) << r.out;
  const std::vector<long> n = FleetCounts(r.out);
  ASSERT_EQ(n.size(), 5u);
  EXPECT_EQ(n[0], n[1]);
  EXPECT_EQ(n[4], 0);  // every placement got a result
  p.Signal(w, SIGTERM);
  EXPECT_EQ(p.Wait(w, 10), 128 + SIGTERM);
}

TEST(FleetWorker, ListeningOffThisHostWithoutKeysIsRefused) {
  RunResult r = Planner("worker --devices " + Config("local-2cpu") + " --bind tcp://0.0.0.0:5999");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--key"), std::string::npos) << r.err;
}

TEST(FleetWorker, BadDevicesFileIsAOneLineError) {
  RunResult r = Planner("worker --devices /nonexistent/devices.yaml --connect tcp://127.0.0.1:1");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/devices.yaml"), std::string::npos);
}

TEST(FleetWorker, MissingFlagsAreAUsageError) {
  EXPECT_EQ(Planner("worker --devices " + Config("local-2cpu")).code, 2);
  // A name with a newline broke the controller's one-line log messages.
  RunResult r = Planner("worker --devices " + Config("local-2cpu") +
                        " --connect tcp://127.0.0.1:1 --name \"$(printf 'a\\nb')\"");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--name must be at most 128 printable characters"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace planner::testing
