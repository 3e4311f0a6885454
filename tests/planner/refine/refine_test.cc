#include "planner/refine/refine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "graph/graphdef.h"
#include "placement/placement.h"
#include "tests/planner/fake_reward.h"
#include "tests/planner/search_test_util.h"

namespace planner::refine {
namespace {

using Fixture = testing::SimProblem;

// The climb alone, within `budget_s`.
RefineOptions ClimbOnly(double budget_s = 60) {
  RefineOptions o;
  o.budget_s = budget_s;
  o.kicks = 0;
  return o;
}

TEST(RefineTest, MovesScopesOffASlowDeviceAndReportsTheTrueTime) {
  Fixture f;
  // Everything on the modelled CPU, 40x slower than a GPU.
  std::vector<int> start(f.p.forward.size(), 0);
  rewards::Evaluation e = f.reward->Evaluate(start);
  ASSERT_TRUE(e.status.ok()) << e.status.message();
  RefineResult r = Refine(f.p.forward, 3, *f.reward, start, e.step_s, ClimbOnly(), nullptr);
  EXPECT_GT(r.kept, 0);
  EXPECT_LT(r.step_s, 0.5 * e.step_s);
  rewards::Evaluation again = f.reward->Evaluate(r.device_of_node);
  EXPECT_DOUBLE_EQ(again.step_s, r.step_s) << "the reported time is the placement's";
  EXPECT_GT(r.units, 10);
}

// The cutoff (RefineOptions::cutoff) only stops moves that would not be kept:
// from the same start, the climb keeps the same moves with it and without.
TEST(RefineTest, TheCutoffKeepsTheMovesOfAClimbWithoutIt) {
  Fixture f;
  std::mt19937 rng(5);
  std::vector<int> scattered(f.p.forward.size());
  for (int& d : scattered) d = static_cast<int>(rng() % 3);
  for (const std::vector<int>& start : {std::vector<int>(f.p.forward.size(), 0), scattered}) {
    const double start_s = f.reward->Evaluate(start).step_s;
    RefineOptions o = ClimbOnly();
    o.sibling_runs = true;
    const RefineResult with = Refine(f.p.forward, 3, *f.reward, start, start_s, o, nullptr);
    o.cutoff = false;
    const RefineResult without = Refine(f.p.forward, 3, *f.reward, start, start_s, o, nullptr);
    EXPECT_GT(with.kept, 0);
    EXPECT_EQ(with.device_of_node, without.device_of_node);
    EXPECT_EQ(with.step_s, without.step_s);
    EXPECT_EQ(with.kept, without.kept);
    EXPECT_EQ(with.evaluated, without.evaluated);
    EXPECT_EQ(with.sweeps, without.sweeps);
    EXPECT_DOUBLE_EQ(f.reward->Evaluate(with.device_of_node).step_s, with.step_s);
  }
}

TEST(RefineTest, NeverReturnsASlowerPlacement) {
  Fixture f;
  std::vector<int> start(f.p.forward.size(), 1);
  rewards::Evaluation e = f.reward->Evaluate(start);
  RefineOptions o = ClimbOnly();
  o.kicks = 5;
  RefineResult r = Refine(f.p.forward, 3, *f.reward, start, e.step_s, o, nullptr);
  EXPECT_LE(r.step_s, e.step_s);
  EXPECT_DOUBLE_EQ(f.reward->Evaluate(r.device_of_node).step_s, r.step_s);
  if (r.kept == 0) {
    EXPECT_EQ(r.device_of_node, start);
  }
}

TEST(RefineTest, StopFlagEndsItBeforeAnyMove) {
  Fixture f;
  std::vector<int> start(f.p.forward.size(), 0);
  rewards::Evaluation e = f.reward->Evaluate(start);
  volatile std::sig_atomic_t stop = 1;
  RefineResult r = Refine(f.p.forward, 3, *f.reward, start, e.step_s, RefineOptions{}, &stop);
  EXPECT_EQ(r.evaluated, 0);
  EXPECT_EQ(r.kicks, 0);
  EXPECT_EQ(r.device_of_node, start);
}

TEST(RefineTest, KicksNeverLoseTheClimbsResultAndRepeatWithTheSeed) {
  Fixture f;
  std::vector<int> start(f.p.forward.size(), 1);
  rewards::Evaluation e = f.reward->Evaluate(start);
  RefineResult climb = Refine(f.p.forward, 3, *f.reward, start, e.step_s, ClimbOnly(), nullptr);
  RefineOptions o = ClimbOnly();
  o.kicks = 8;
  RefineResult a = Refine(f.p.forward, 3, *f.reward, start, e.step_s, o, nullptr);
  RefineResult b = Refine(f.p.forward, 3, *f.reward, start, e.step_s, o, nullptr);
  EXPECT_EQ(a.kicks, 8);
  EXPECT_LE(a.step_s, climb.step_s);
  EXPECT_EQ(a.device_of_node, b.device_of_node) << "same seed, same kicks";
  EXPECT_GT(a.evaluated, climb.evaluated);
  EXPECT_LE(a.kicks_kept, a.kicks);
}

TEST(RefineTest, KicksStopAtTheBudget) {
  Fixture f;
  std::vector<int> start(f.p.forward.size(), 1);
  rewards::Evaluation e = f.reward->Evaluate(start);
  // From a converged start, so the kicks begin at once however slow the
  // machine's sweeps are (under ASan the sweeps alone outlast half a second).
  const RefineResult climb =
      Refine(f.p.forward, 3, *f.reward, start, e.step_s, ClimbOnly(), nullptr);
  RefineOptions o;
  o.budget_s = 0.5;  // unlimited kicks: the time ends it
  o.start_converged = true;
  RefineResult r =
      Refine(f.p.forward, 3, *f.reward, climb.device_of_node, climb.step_s, o, nullptr);
  EXPECT_GT(r.kicks, 0);
  // The budget ended them, not the kicks' own patience (5 x patience in a row)...
  EXPECT_GE(r.seconds, o.budget_s);
  EXPECT_LT(r.kicks, 5 * o.patience);
  EXPECT_FALSE(r.stalled);
  // ...and soon after it passed: one kick's climb at most (slow under ASan).
  EXPECT_LT(r.seconds, o.budget_s + 2.0);
}

// After `patience` fruitless kicks in a row the kicks move twice as many
// units, four times, and `patience` more at the most units end them: on a flat
// reward, 5 x patience kicks.
TEST(RefineTest, FruitlessKicksGrowBeforeTheyEnd) {
  Fixture f;
  testing::FakeReward flat([](const std::vector<int>&, int) { return 1.0; });
  std::vector<int> start(f.p.forward.size(), 1);
  RefineOptions o;
  o.budget_s = 30;
  o.patience = 3;
  o.kick_units = 1;
  o.critical_path = false;
  const RefineResult r = Refine(f.p.forward, 3, flat, start, 1.0, o, nullptr);
  EXPECT_EQ(r.kicks, 15);
  EXPECT_EQ(r.kicks_kept, 0);
  EXPECT_FALSE(r.stalled);
}

// --order climb-first stops the climb for the policy and resumes it after: the
// resumed climb skips the sweeps of a converged start and makes the kicks that
// one run straight through would have made.
TEST(RefineTest, AResumedClimbMakesTheKicksOfOneRunStraightThrough) {
  Fixture f;
  std::vector<int> start(f.p.forward.size(), 1);
  const double start_s = f.reward->Evaluate(start).step_s;
  RefineOptions o;
  o.kicks = 8;
  const RefineResult straight = Refine(f.p.forward, 3, *f.reward, start, start_s, o, nullptr);
  o.kicks = 3;
  const RefineResult before = Refine(f.p.forward, 3, *f.reward, start, start_s, o, nullptr);
  ASSERT_EQ(before.kicks, 3);
  o.kicks = 5;
  o.first_kick = 3;
  o.start_converged = true;
  const RefineResult resumed =
      Refine(f.p.forward, 3, *f.reward, before.device_of_node, before.step_s, o, nullptr);
  EXPECT_EQ(resumed.kicks, 5);
  EXPECT_EQ(resumed.device_of_node, straight.device_of_node);
  EXPECT_DOUBLE_EQ(resumed.step_s, straight.step_s);
  EXPECT_EQ(resumed.kept + before.kept, straight.kept) << "no sweep of the converged start kept";
}

// stall_s ends the climb once its kicks have gone that long without a better
// best, and says so; the budget alone does not count as a stall.
TEST(RefineTest, StallEndsTheClimbOnceItsKicksStopImprovingTheBest) {
  Fixture f;
  testing::FakeReward flat([](const std::vector<int>&, int) { return 1.0; });
  std::vector<int> start(f.p.forward.size(), 1);
  RefineOptions o;
  o.budget_s = 30;
  o.patience = 1 << 30;  // only the stall or the budget can end the kicks
  o.critical_path = false;
  o.stall_s = 0.3;
  RefineResult r = Refine(f.p.forward, 3, flat, start, 1.0, o, nullptr);
  EXPECT_TRUE(r.stalled);
  EXPECT_GT(r.kicks, 0);
  EXPECT_LT(r.seconds, 10.0);
  EXPECT_EQ(r.device_of_node, start);

  o.stall_s = 0;
  o.budget_s = 0.3;
  EXPECT_FALSE(Refine(f.p.forward, 3, flat, start, 1.0, o, nullptr).stalled);
}

// The default search's kicks take their devices from the policy's samples
// (RefineOptions::kick_placement). A placement two scopes away from the
// start, faster than anything one move reaches, is found when the kicks move
// the units where the given placement differs onto its devices, and not by
// random kicks from the same seed; the kicks ask for it with their indices.
TEST(RefineTest, KicksMoveTheUnitsWhereTheGivenPlacementDiffersOntoIt) {
  Fixture f;
  const graph::Graph& g = f.p.forward;
  std::vector<int> start(g.size(), 0);
  std::vector<int> target = start;
  std::vector<std::string> scopes;
  for (graph::NodeId id = 0; id < static_cast<graph::NodeId>(g.size()); ++id) {
    const std::string& name = g.node(id).name;
    const size_t slash = name.find('/');
    if (slash == std::string::npos) continue;
    const std::string scope = name.substr(0, slash);
    if (std::find(scopes.begin(), scopes.end(), scope) == scopes.end()) {
      scopes.push_back(scope);
    }
    target[id] = 1;
  }
  ASSERT_EQ(scopes.size(), 2u) << "the fixture's model has two top-level scopes";
  testing::FakeReward valley(
      [&](const std::vector<int>& p, int) { return p == target ? 0.5 : 1.0; });
  RefineOptions o;
  o.budget_s = 30;
  o.kicks = 10;
  o.kick_units = 1000;  // every unit a kick may move
  o.critical_path = false;
  const RefineResult random = Refine(g, 3, valley, start, 1.0, o, nullptr);
  EXPECT_DOUBLE_EQ(random.step_s, 1.0) << "no single move, nor a random kick, reaches it";
  EXPECT_EQ(random.kicks, 10);

  std::vector<uint64_t> asked;
  o.kick_placement = [&](uint64_t kick) {
    asked.push_back(kick);
    return target;
  };
  const RefineResult guided = Refine(g, 3, valley, start, 1.0, o, nullptr);
  EXPECT_DOUBLE_EQ(guided.step_s, 0.5);
  EXPECT_EQ(guided.device_of_node, target);
  EXPECT_EQ(guided.kicks_kept, 1);
  EXPECT_EQ(guided.kicks_guided, 1) << "the kicks after it: the best is the placement itself";
  EXPECT_EQ(random.kicks_guided, 0);
  ASSERT_FALSE(asked.empty());
  EXPECT_EQ(asked[0], 0u);
  for (size_t i = 1; i < asked.size(); ++i) EXPECT_EQ(asked[i], asked[i - 1] + 1);

  // A placement of another size, or one equal to the best, leaves the kicks random.
  o.kick_placement = [](uint64_t) { return std::vector<int>{0}; };
  const RefineResult other = Refine(g, 3, valley, start, 1.0, o, nullptr);
  EXPECT_EQ(other.device_of_node, random.device_of_node);
  o.kick_placement = [&](uint64_t) { return start; };
  EXPECT_EQ(Refine(g, 3, valley, start, 1.0, o, nullptr).device_of_node, random.device_of_node);
}

// A parsed graph with shapes inferred into *g, and its training graph into *t.
void Trainable(graph::Result<graph::Graph> parsed, graph::Graph* g, graph::TrainingGraph* t) {
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  *g = std::move(parsed).value();
  graph::InferShapes(*g);
  auto training = graph::BuildTrainingGraph(*g, {});
  ASSERT_TRUE(training.ok()) << training.status().message();
  *t = std::move(training).value();
}

// On two modelled GPUs, scope "a" on gpu0 holds a big MatMul of two parameters
// and a Relu; scope "b" on gpu1 feeds the Relu (a Neg of the input) and reads it
// (another big MatMul). The Relu's input arrives once a's MatMul has started, so
// the Relu queues behind it, and b's MatMul waits; moving either scope whole puts
// both MatMuls on one device. Only the Relu alone changing sides helps, and it is
// on the critical path.
struct QueueProblem {
  graph::Graph g;
  graph::TrainingGraph t;
  cluster::Cluster c;  // two modelled GPUs
  std::unique_ptr<rewards::RewardSource> reward;
  std::vector<int> start;
  double start_s = 0;

  QueueProblem() {
    auto matrix = [](const std::string& name, int cols) {
      return "node { name: '" + name +
             "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' "
             "value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 512 } dim { size: " +
             std::to_string(cols) + " } } float_val: 0.5 } } } }\n";
    };
    auto op = [](const std::string& name, const std::string& type, const std::string& in1,
                 const std::string& in2 = "") {
      return "node { name: '" + name + "' op: '" + type + "' input: '" + in1 + "'" +
             (in2.empty() ? "" : " input: '" + in2 + "'") +
             " attr { key: 'T' value { type: DT_FLOAT } } }\n";
    };
    auto parsed = graph::ParseTextGraphDef(
        "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
        "attr { key: 'shape' value { shape { dim { size: 512 } dim { size: 512 } } } } }\n" +
            matrix("w0", 512) + matrix("w1", 2048) + matrix("w2", 2048) + op("b/n", "Neg", "x") +
            op("a/m1", "MatMul", "w0", "w1") + op("a/r", "Relu", "b/n") +
            op("b/m2", "MatMul", "a/r", "w2"),
        "queue.pbtxt");
    Trainable(std::move(parsed), &g, &t);
    auto devices = cluster::ParseDevicesYaml(
        "devices:\n"
        "  - {name: gpu0, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s}\n"
        "  - {name: gpu1, kind: sim, simulates: gpu, peak_flops: 4T, memory_bandwidth: 288GB/s}\n"
        "default_link: {bandwidth: 16GB/s, latency: 10us}\n",
        "two-gpus.yaml");
    EXPECT_TRUE(devices.ok()) << devices.status().message();
    c = std::move(devices).value();
    auto r = rewards::MakeSimReward({&g, &t, &c, nullptr});
    EXPECT_TRUE(r.ok()) << r.status().message();
    reward = std::move(r).value();
    start.assign(g.size(), 0);
    for (const char* name : {"x", "w2", "b/n", "b/m2"}) start[g.Find(name)] = 1;
    start_s = reward->Evaluate(start).step_s;
  }

  RefineResult Run(bool critical_path) const {
    RefineOptions o = ClimbOnly();
    o.critical_path = critical_path;
    return Refine(g, 2, *reward, start, start_s, o, nullptr);
  }
};

TEST(RefineTest, MovesASingleOpWhereTheCriticalPathQueues) {
  QueueProblem q;
  RefineResult without = q.Run(false);
  RefineResult with = q.Run(true);
  EXPECT_GT(with.critical_kept, 0);
  EXPECT_LE(with.critical_kept, with.critical_tried);
  EXPECT_EQ(with.device_of_node[q.g.Find("a/r")], 1) << "the Relu joins its reader";
  EXPECT_LT(with.step_s, 0.95 * without.step_s);
  EXPECT_EQ(without.critical_tried, 0);
}

// The climb alone from every op on the CPU, with focused sweeps or full ones.
struct FromTheCpu {
  Fixture f;
  std::vector<int> start = std::vector<int>(f.p.forward.size(), 0);
  double start_s = f.reward->Evaluate(start).step_s;

  RefineResult Climb(bool focused, const std::vector<int>& from, double from_s,
                     bool skip_repeats = true) const {
    RefineOptions o = ClimbOnly();
    o.focused_sweeps = focused;
    o.skip_repeats = skip_repeats;
    return Refine(f.p.forward, 3, *f.reward, from, from_s, o, nullptr);
  }
  RefineResult Climb(bool focused) const { return Climb(focused, start, start_s); }
};

TEST(RefineTest, FocusedSweepsEndWhereNoSingleMoveGains) {
  const FromTheCpu c;
  const Fixture& f = c.f;
  const RefineResult r = c.Climb(/*focused=*/true);
  ASSERT_GT(r.kept, 0);
  EXPECT_DOUBLE_EQ(f.reward->Evaluate(r.device_of_node).step_s, r.step_s);
  // A climb that tries every unit and every critical-path op from there keeps
  // nothing: the focused climb's last sweep tried them all.
  const RefineResult again = c.Climb(/*focused=*/false, r.device_of_node, r.step_s);
  EXPECT_EQ(again.kept, 0);
  EXPECT_EQ(again.sweeps, 1);
  EXPECT_EQ(again.device_of_node, r.device_of_node);
}

TEST(RefineTest, FocusedSweepsSkipWhatKeptNothingUntilAMoveNextToIt) {
  const FromTheCpu c;
  // Repeats tried again: a full sweep then tries every unit.
  const RefineResult a = c.Climb(/*focused=*/true, c.start, c.start_s, /*skip_repeats=*/false);
  const RefineResult b = c.Climb(/*focused=*/false, c.start, c.start_s, /*skip_repeats=*/false);
  ASSERT_GT(b.sweeps, 2) << "the full climb needs several sweeps, or the test shows nothing";
  // Every full sweep tries each unit on each other device; the focused ones
  // between the first and the last try fewer.
  const int per_sweep = a.units * 2;
  EXPECT_LT(a.evaluated - a.critical_tried * 2, a.sweeps * per_sweep);
  EXPECT_GE(b.evaluated - b.critical_tried * 2, (b.sweeps - 1) * per_sweep);
}

// A unit tried since the last move kept is not simulated again
// (RefineOptions::skip_repeats): the climb makes the same moves with fewer
// evaluations, focused or full, and says how many it skipped.
TEST(RefineTest, SkippingRepeatsKeepsTheMovesOfAClimbThatTriesThemAgain) {
  const FromTheCpu c;
  for (bool focused : {true, false}) {
    const RefineResult skip = c.Climb(focused, c.start, c.start_s, /*skip_repeats=*/true);
    const RefineResult again = c.Climb(focused, c.start, c.start_s, /*skip_repeats=*/false);
    ASSERT_GT(again.kept, 0) << focused;
    EXPECT_EQ(skip.device_of_node, again.device_of_node) << focused;
    EXPECT_EQ(skip.step_s, again.step_s) << focused;
    EXPECT_EQ(skip.kept, again.kept) << focused;
    EXPECT_EQ(skip.critical_kept, again.critical_kept) << focused;
    EXPECT_EQ(skip.sweeps, again.sweeps) << focused;
    EXPECT_EQ(again.repeats_skipped, 0) << focused;
    EXPECT_GT(skip.repeats_skipped, 0) << focused;
    EXPECT_LT(skip.evaluated, again.evaluated) << focused;
  }
}

// A fleet's evaluation can come back kUnavailable (no worker answered): the
// sim source, with each batch of moves answered so the first time it is asked
// for when its hash is odd, and the same as the source after that.
class FirstAskUnavailable : public rewards::RewardSource {
 public:
  explicit FirstAskUnavailable(const rewards::RewardSource& inner) : inner_(inner) {}
  const char* name() const override { return "flaky"; }
  rewards::Evaluation Evaluate(const std::vector<int>& d) const override {
    return inner_.Evaluate(d);
  }
  std::vector<rewards::Evaluation> EvaluateBatchBelow(const std::vector<std::vector<int>>& batch,
                                                      double cutoff_s) const override {
    size_t hash = batch.size();
    for (const std::vector<int>& p : batch) {
      for (int d : p) hash = hash * 1000003 + static_cast<size_t>(d);
    }
    const bool first = asked_.insert(hash).second;
    if (!first && hash % 2 == 1) ++asked_again;  // first answered unavailable
    if (first && hash % 2 == 1) {
      ++unavailable;
      return std::vector<rewards::Evaluation>(
          batch.size(), {graph::Status(graph::StatusCode::kUnavailable, "no worker"), 0, 0});
    }
    return inner_.EvaluateBatchBelow(batch, cutoff_s);
  }
  rewards::Evaluation Timeline(const std::vector<int>& d, sim::StepStats* s) const override {
    return inner_.Timeline(d, s);
  }
  const graph::Graph& executed_graph() const override { return inner_.executed_graph(); }
  double LowerBoundSeconds() const override { return inner_.LowerBoundSeconds(); }
  bool concurrent() const override { return false; }
  mutable int unavailable = 0;
  mutable int asked_again = 0;  // batches asked for again after an unavailable answer

 private:
  const rewards::RewardSource& inner_;
  mutable std::set<size_t> asked_;
};

// A unit whose moves came back unavailable is tried again, as a climb that
// tries every repeat does: skipping repeats keeps its moves there too.
TEST(RefineTest, SkippingRepeatsTriesAgainWhatNoWorkerAnswered) {
  const FromTheCpu c;
  RefineResult r[2];
  int unavailable = 0;
  for (bool skip : {true, false}) {
    const FirstAskUnavailable flaky(*c.f.reward);
    RefineOptions o = ClimbOnly();
    o.skip_repeats = skip;
    r[skip] = Refine(c.f.p.forward, 3, flaky, c.start, c.start_s, o, nullptr);
    unavailable += flaky.unavailable;
    // The climb that skips repeats asked again for what went unanswered.
    if (skip) {
      EXPECT_GT(flaky.asked_again, 0);
    }
  }
  ASSERT_GT(unavailable, 0);
  ASSERT_GT(r[0].kept, 0);
  EXPECT_EQ(r[1].device_of_node, r[0].device_of_node);
  EXPECT_EQ(r[1].step_s, r[0].step_s);
  EXPECT_EQ(r[1].kept, r[0].kept);
}

// Scope "s" holds eight time steps, s/t_0 to s/t_7 (an Identity each, in a
// chain); the step is fast only with t_0 to t_3 on device 1 and the rest on
// device 0. No scope's move reaches that (a step alone, or the whole of s);
// the first half of s's steps as one unit does.
TEST(RefineTest, SiblingRunsMoveConsecutiveScopesThatNoScopeAloneReaches) {
  std::string text =
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n";
  std::string previous = "x";
  for (int t = 0; t < 8; ++t) {
    const std::string name = "s/t_" + std::to_string(t) + "/y";
    text += "node { name: '" + name + "' op: 'Identity' input: '" + previous +
            "' attr { key: 'T' value { type: DT_FLOAT } } }\n";
    previous = name;
  }
  auto parsed = graph::ParseTextGraphDef(text, "steps.pbtxt");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const graph::Graph& g = *parsed;
  const std::vector<int> start(g.size(), 0);
  std::vector<int> target = start;
  for (int t = 0; t < 4; ++t) target[g.Find("s/t_" + std::to_string(t) + "/y")] = 1;
  testing::FakeReward valley(
      [&](const std::vector<int>& p, int) { return p == target ? 0.5 : 1.0; });
  RefineOptions o = ClimbOnly(30);
  o.critical_path = false;
  const RefineResult scopes = Refine(g, 2, valley, start, 1.0, o, nullptr);
  EXPECT_EQ(scopes.units, 10) << "x, s and its eight steps";
  EXPECT_EQ(scopes.runs, 0);
  EXPECT_DOUBLE_EQ(scopes.step_s, 1.0);
  EXPECT_EQ(scopes.kept, 0);

  o.sibling_runs = true;
  const RefineResult runs = Refine(g, 2, valley, start, 1.0, o, nullptr);
  EXPECT_EQ(runs.units, 16) << "and s's steps in halves (two runs of four), quarters (four of two)";
  EXPECT_EQ(runs.runs, 6);
  EXPECT_DOUBLE_EQ(runs.step_s, 0.5);
  EXPECT_EQ(runs.device_of_node, target);
}

TEST(RefineTest, SeveralStartsEndNoSlowerThanTheFastestAndReportTheTrueTime) {
  Fixture f;
  std::vector<RefineStart> starts;
  for (int d : {0, 1, 2}) {  // every op on the CPU, then on each GPU
    std::vector<int> all(f.p.forward.size(), d);
    rewards::Evaluation e = f.reward->Evaluate(all);
    ASSERT_TRUE(e.status.ok()) << e.status.message();
    starts.push_back({"single:" + std::to_string(d), all, e.step_s});
  }
  MultiStartResult m = RefineFromStarts(f.p.forward, 3, *f.reward, starts, ClimbOnly(), nullptr);
  ASSERT_GE(m.chosen, 0);
  ASSERT_LT(m.chosen, 3);
  EXPECT_LE(m.refine.step_s, std::min({starts[0].step_s, starts[1].step_s, starts[2].step_s}));
  EXPECT_DOUBLE_EQ(f.reward->Evaluate(m.refine.device_of_node).step_s, m.refine.step_s);
  // Four climbs: one from each start, and the chosen one's continuation.
  RefineResult one = Refine(f.p.forward, 3, *f.reward, starts[0].device_of_node, starts[0].step_s,
                            ClimbOnly(), nullptr);
  EXPECT_GT(m.refine.evaluated, one.evaluated);
}

TEST(RefineTest, OneStartIsThePlainClimb) {
  Fixture f;
  std::vector<int> start(f.p.forward.size(), 1);
  rewards::Evaluation e = f.reward->Evaluate(start);
  RefineResult plain = Refine(f.p.forward, 3, *f.reward, start, e.step_s, ClimbOnly(), nullptr);
  MultiStartResult m = RefineFromStarts(f.p.forward, 3, *f.reward,
                                        {{"single:gpu0", start, e.step_s}}, ClimbOnly(), nullptr);
  EXPECT_EQ(m.chosen, 0);
  EXPECT_EQ(m.refine.device_of_node, plain.device_of_node);
  EXPECT_EQ(m.refine.evaluated, plain.evaluated);
}

// A softmax-like layer on two GPUs: its two gradient MatMuls (the input's and
// the weight's), each as long as the forward MatMul, follow it onto one GPU
// and run one after the other. No placement of the forward graph splits them;
// with them apart (HeavyGradientOps), the climb runs one on the other GPU.
struct SoftmaxProblem {
  graph::Graph g;
  graph::TrainingGraph t;
  cluster::Cluster c = testing::SimCluster(2);  // cpu0, gpu0, gpu1
  std::vector<int> start;

  SoftmaxProblem() {
    auto matrix = [](const std::string& name, int rows, int cols) {
      return "node { name: '" + name +
             "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' "
             "value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: " +
             std::to_string(rows) + " } dim { size: " + std::to_string(cols) +
             " } } float_val: 0.5 } } } }\n";
    };
    auto matmul = [](const std::string& name, const std::string& a, const std::string& b) {
      return "node { name: '" + name + "' op: 'MatMul' input: '" + a + "' input: '" + b +
             "' attr { key: 'T' value { type: DT_FLOAT } } }\n";
    };
    auto parsed = graph::ParseTextGraphDef(
        "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
        "attr { key: 'shape' value { shape { dim { size: 1024 } dim { size: 1024 } } } } }\n" +
            matrix("w0", 1024, 1024) + matrix("w1", 1024, 8192) + matmul("enc/m", "x", "w0") +
            matmul("soft/m", "enc/m", "w1"),
        "softmax.pbtxt");
    Trainable(std::move(parsed), &g, &t);
    start.assign(g.size(), 1);  // every op on gpu0
  }

  std::unique_ptr<rewards::RewardSource> Reward(std::vector<graph::NodeId> apart) const {
    rewards::RewardContext context{&g, &t, &c, nullptr};
    context.apart = std::move(apart);
    auto r = rewards::MakeSimReward(context);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return std::move(r).value();
  }
};

TEST(RefineTest, HeavyGradientOpsAreTheGradientsThatTakeAShareOfTheBound) {
  SoftmaxProblem s;
  const sim::Simulator sim = testing::SimCosts({s.g, s.t}, s.c);
  const std::vector<graph::NodeId> heavy = HeavyGradientOps(sim, s.g, 3, 0.2);
  std::vector<std::string> names;
  for (graph::NodeId id : heavy) names.push_back(s.t.graph.node(id).name);
  std::sort(names.begin(), names.end());
  // soft/m's two gradients; enc/m's one (x needs none) has an eighth of their work.
  EXPECT_EQ(names,
            (std::vector<std::string>{"gradients/soft/m/MatMul", "gradients/soft/m/MatMul_1"}));
  const std::vector<graph::NodeId> all = HeavyGradientOps(sim, s.g, 3, 0);
  EXPECT_EQ(all.size(), 4u) << "the three gradient MatMuls and the loss's gradient seed";
  for (graph::NodeId id : all) {
    const std::string& name = s.t.graph.node(id).name;
    EXPECT_EQ(s.g.Find(name), -1) << name << ": a forward op";
    EXPECT_EQ(name.rfind("gradients/", 0), 0u) << name << ": not a gradient (an update?)";
  }
  EXPECT_TRUE(HeavyGradientOps(sim, s.g, 3, 1.01).empty()) << "no op is longer than the bound";
}

TEST(RefineTest, GradientsApartRunWhereNoForwardPlacementCanPutThem) {
  SoftmaxProblem s;
  const sim::Simulator sim = testing::SimCosts({s.g, s.t}, s.c);
  const std::vector<graph::NodeId> heavy = HeavyGradientOps(sim, s.g, 3, 0.2);
  const auto colocated = s.Reward({});
  const auto apart = s.Reward(heavy);
  const double start_s = colocated->Evaluate(s.start).step_s;
  EXPECT_DOUBLE_EQ(apart->Evaluate(s.start).step_s, start_s) << "a forward placement is as before";
  const RefineResult with = Refine(s.g, 3, *apart, s.start, start_s, ClimbOnly(), nullptr);
  const RefineResult without = Refine(s.g, 3, *colocated, s.start, start_s, ClimbOnly(), nullptr);
  ASSERT_EQ(with.device_of_node.size(), s.g.size() + heavy.size());
  EXPECT_EQ(without.device_of_node.size(), static_cast<size_t>(s.g.size()));
  EXPECT_EQ(with.apart, 2);
  EXPECT_EQ(without.apart, 0);
  EXPECT_LT(with.step_s, 0.9 * without.step_s);
  EXPECT_DOUBLE_EQ(apart->Evaluate(with.device_of_node).step_s, with.step_s);
  const std::vector<graph::NodeId> source = placement::ForwardSourceOfNode(s.t.graph, s.g);
  const auto listed =
      placement::GradientsApart(s.t.graph, source, heavy, s.g.size(), with.device_of_node, s.c);
  ASSERT_FALSE(listed.empty());
  // What a placement file lists is what was climbed: the training graph's
  // devices from it match the climb's.
  placement::Placement p = placement::MakePlacement("softmax.pbtxt", s.g, "", "", s.c, "climb",
                                                    with.device_of_node, "sgd");
  p.gradients_apart = listed;
  auto devices = placement::TrainingDevices(p, s.t.graph, s.g, s.c, "p.yaml");
  ASSERT_TRUE(devices.ok()) << devices.status().message();
  EXPECT_EQ(*devices, placement::DeviceOfPlaced(source, heavy, s.g.size(), with.device_of_node));
}

}  // namespace
}  // namespace planner::refine
