#include "planner/search/search.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "graph/file_util.h"
#include "planner/search/parameter_server.h"
#include "planner/sources/registry.h"
#include "tests/planner/search/small_policy.h"
#include "tests/planner/search_test_util.h"
#include "tests/scratch_dir.h"

namespace planner::search {
namespace {

using testing::SmallPolicy;

struct Fixture : testing::SimProblem {
  std::unique_ptr<Search> NewSearch(uint64_t seed, SearchOptions o = SmallPolicy()) {
    auto s = Search::Create(p.forward, static_cast<int>(c.devices.size()), o, seed);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return std::move(s).value();
  }
};

std::string TempPath(const std::string& name) {
  return planner_test::ScratchDir() + "/" + name + "_" + std::to_string(::getpid());
}

// Runs `updates` updates of a search with `o`: the mean cost of the last five
// must be under 0.8 of the first five's (the modelled CPU is 40x slower than the
// GPUs), and a search resumed from its checkpoint must sample what it samples.
void ExpectLearnsToAvoidTheSlowDeviceAndResumesExactly(const SearchOptions& o, uint64_t seed,
                                                       int updates, const std::string& name) {
  Fixture f;
  const SearchIdentity id{"m", "d", "sim"};
  const std::string path = TempPath(name);
  auto original = f.NewSearch(seed, o);
  double first = 0, last = 0;
  for (int i = 0; i < updates; ++i) {
    SearchIteration it = original->Step(*f.reward);
    ASSERT_TRUE(it.status.ok()) << it.status.message();
    if (i < 5) first += it.mean_cost / 5;
    if (i >= updates - 5) last += it.mean_cost / 5;
  }
  EXPECT_LT(last, 0.8 * first) << "first five updates' mean cost " << first << ", last five "
                               << last;
  ASSERT_TRUE(original->Save(path, id).ok());
  auto resumed = f.NewSearch(99, o);
  ASSERT_TRUE(resumed->Load(path, id).ok());
  for (int i = 0; i < 2; ++i) {
    SearchIteration x = original->Step(*f.reward), y = resumed->Step(*f.reward);
    EXPECT_EQ(x.placements, y.placements) << "update " << x.iteration;
  }
  std::remove(path.c_str());
}

TEST(SearchTest, UpdatesLowerTheMeanCostWhenOneDeviceIsFarSlower) {
  // The modelled CPU is 40x slower than the GPUs: REINFORCE must learn to avoid it.
  Fixture f;
  auto search = f.NewSearch(1);
  double first = 0, last = 0;
  const int updates = 40;
  for (int i = 0; i < updates; ++i) {
    SearchIteration it = search->Step(*f.reward);
    if (i < 5) first += it.mean_cost / 5;
    if (i >= updates - 5) last += it.mean_cost / 5;
  }
  EXPECT_LT(last, 0.8 * first) << "first five updates' mean cost " << first << ", last five "
                               << last;
  ASSERT_TRUE(search->best());
  EXPECT_EQ(search->iterations(), updates);
}

TEST(SearchTest, CostIsTheSquareRootOfTheStepTime) {
  Fixture f;
  auto search = f.NewSearch(2);
  SearchIteration it = search->Step(*f.reward);
  double mean = 0;
  for (const rewards::Evaluation& e : it.evaluations) {
    ASSERT_TRUE(e.status.ok()) << e.status.message();
    mean += std::sqrt(e.step_s) / it.evaluations.size();
  }
  EXPECT_NEAR(it.mean_cost, mean, 1e-6);
}

TEST(SearchTest, FailedPlacementsAreChargedTheFailingCost) {
  // GPUs of 1 KiB: any placement using one is out of memory.
  testing::Problem p = testing::SmallRnnlm();
  cluster::Cluster c = testing::SimCluster(2, "1KiB");
  auto reward = sources::MakeRewardSource("sim", {&p.forward, &p.training, &c, nullptr});
  ASSERT_TRUE(reward.ok()) << reward.status().message();
  SearchOptions o = SmallPolicy();
  o.failing_step_s = 64;
  auto search = Search::Create(p.forward, 3, o, 3);
  ASSERT_TRUE(search.ok());
  SearchIteration it = (*search)->Step(**reward);
  double expected = 0;
  for (const rewards::Evaluation& e : it.evaluations) {
    EXPECT_EQ(e.status.code(), graph::StatusCode::kOutOfMemory) << e.status.message();
    expected += 8.0 / it.evaluations.size();
  }
  EXPECT_NEAR(it.mean_cost, expected, 1e-9);
  EXPECT_FALSE((*search)->best()) << "a failed placement is never the best";
}

// The sim reward, except that every `every`-th placement it is asked for (1:
// all) comes back unavailable, as from a fleet that had no worker for it.
// Not concurrent: the batch is evaluated in turn, so the count is exact.
class LosingWorkers : public rewards::RewardSource {
 public:
  LosingWorkers(std::unique_ptr<rewards::RewardSource> inner, int every)
      : inner_(std::move(inner)), every_(every) {}
  const char* name() const override { return "fleet"; }
  rewards::Evaluation Evaluate(const std::vector<int>& d) const override {
    if (++calls_ % every_ == 0) {
      return {graph::Status(graph::StatusCode::kUnavailable, "no worker left")};
    }
    return inner_->Evaluate(d);
  }
  rewards::Evaluation Timeline(const std::vector<int>& d, sim::StepStats* st) const override {
    return inner_->Timeline(d, st);
  }
  const graph::Graph& executed_graph() const override { return inner_->executed_graph(); }
  double LowerBoundSeconds() const override { return inner_->LowerBoundSeconds(); }
  bool concurrent() const override { return false; }

 private:
  std::unique_ptr<rewards::RewardSource> inner_;
  int every_;
  mutable int calls_ = 0;
};

TEST(SearchTest, PlacementsNoOneCouldEvaluateNeitherPushNorPullThePolicy) {
  testing::Problem p = testing::SmallRnnlm();
  cluster::Cluster c = testing::SimCluster(2);
  auto sim = sources::MakeRewardSource("sim", {&p.forward, &p.training, &c, nullptr});
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  LosingWorkers some(std::move(*sim), 2);
  auto search = Search::Create(p.forward, 2, SmallPolicy(), 5);
  ASSERT_TRUE(search.ok());
  SearchIteration it = (*search)->Step(some);
  ASSERT_TRUE(it.status.ok()) << it.status.message();
  // The mean cost is the evaluated placements' alone, not the failing cost's.
  double sum = 0;
  int evaluated = 0, lost = 0;
  for (const rewards::Evaluation& e : it.evaluations) {
    if (e.status.code() == graph::StatusCode::kUnavailable) {
      ++lost;
      continue;
    }
    ASSERT_TRUE(e.status.ok()) << e.status.message();
    sum += std::sqrt(e.step_s);
    ++evaluated;
  }
  ASSERT_EQ(lost, static_cast<int>(it.evaluations.size()) / 2);
  EXPECT_NEAR(it.mean_cost, sum / evaluated, 1e-6);
  // An update none of whose placements could be evaluated is not made.
  auto none_sim = sources::MakeRewardSource("sim", {&p.forward, &p.training, &c, nullptr});
  ASSERT_TRUE(none_sim.ok());
  auto all_lost = Search::Create(p.forward, 2, SmallPolicy(), 5);
  ASSERT_TRUE(all_lost.ok());
  LosingWorkers none(std::move(*none_sim), 1);
  it = (*all_lost)->Step(none);
  EXPECT_EQ(it.status.code(), graph::StatusCode::kUnavailable) << it.status.message();
  EXPECT_NE(it.status.message().find("could be evaluated (no worker left)"), std::string::npos)
      << it.status.message();
  EXPECT_EQ((*all_lost)->iterations(), 0);
}

TEST(SearchTest, BestKeepsTheFastestOffered) {
  Fixture f;
  auto search = f.NewSearch(4);
  std::vector<int> a(f.p.forward.size(), 1), b(f.p.forward.size(), 0);
  EXPECT_TRUE(search->Offer("single:gpu0", a, {graph::Status::Ok(), 2.0}, 0));
  EXPECT_FALSE(search->Offer("single:cpu0", b, {graph::Status::Ok(), 3.0}, 0));
  EXPECT_FALSE(search->Offer("oom", b, {graph::Status(graph::StatusCode::kOutOfMemory, "x")}, 0));
  EXPECT_EQ(search->best()->method, "single:gpu0");
  EXPECT_EQ(search->best()->step_s, 2.0);
}

TEST(SearchTest, SameSeedRepeatsTheSearchExactly) {
  Fixture f;
  auto a = f.NewSearch(9), b = f.NewSearch(9);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(a->Step(*f.reward).placements, b->Step(*f.reward).placements) << "update " << i;
  }
}

// The climb's kicks after the search move units onto placements sampled from
// the policy (Search::SamplePlacement): one device per node, repeatable by
// seed, drawn from the policy as trained (their steps get faster as it learns
// to avoid the slow CPU), and without touching the search's own draws.
TEST(SearchTest, SampledPlacementsRepeatFollowThePolicyAndLeaveTheSearchsDrawsAlone) {
  Fixture f;
  auto a = f.NewSearch(9), b = f.NewSearch(9);
  auto mean_step_s = [&](Search& s) {
    double sum = 0;
    for (uint64_t seed = 0; seed < 8; ++seed) {
      const std::vector<int> p = s.SamplePlacement(seed);
      EXPECT_EQ(p.size(), f.p.forward.size());
      const rewards::Evaluation e = f.reward->Evaluate(p);
      EXPECT_TRUE(e.status.ok()) << e.status.message();
      sum += e.step_s / 8;
    }
    return sum;
  };
  const std::vector<int> first = a->SamplePlacement(5);
  EXPECT_EQ(a->SamplePlacement(5), first);
  EXPECT_NE(a->SamplePlacement(6), first);
  const double untrained_s = mean_step_s(*a);
  for (int i = 0; i < 40; ++i) {
    a->SamplePlacement(static_cast<uint64_t>(i));
    ASSERT_EQ(a->Step(*f.reward).placements, b->Step(*f.reward).placements) << "update " << i;
  }
  EXPECT_LT(mean_step_s(*a), 0.8 * untrained_s) << "8 samples' mean step, after 40 updates";
}

TEST(SearchTest, ResumedSearchContinuesExactlyWhereItStopped) {
  Fixture f;
  const SearchIdentity id{"m", "d", "sim"};
  const std::string path = TempPath("resume.ckpt");
  auto original = f.NewSearch(5);
  for (int i = 0; i < 3; ++i) original->Step(*f.reward);
  ASSERT_TRUE(original->Save(path, id).ok());
  auto resumed = f.NewSearch(99);  // another seed: everything must come from the file
  graph::Status st = resumed->Load(path, id);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(resumed->iterations(), 3);
  ASSERT_TRUE(resumed->best());
  EXPECT_EQ(resumed->best()->device_of_node, original->best()->device_of_node);
  for (int i = 0; i < 2; ++i) {
    SearchIteration x = original->Step(*f.reward), y = resumed->Step(*f.reward);
    EXPECT_EQ(x.placements, y.placements) << "update " << x.iteration;
    EXPECT_DOUBLE_EQ(x.baseline, y.baseline);
  }
  std::remove(path.c_str());
}

// Every tensor record of a checkpoint's zip archive (stored, not compressed)
// whose name passes `which`, rewritten by `change`. The sizes are the central
// directory's (LibTorch's local headers defer theirs to data descriptors). With
// `keep_crcs` the directory's CRC-32s are set to the new bytes': an edit made
// on purpose, which only the checks of what was read can see.
void RewriteTensorRecords(const std::string& path, const std::function<void(char*, size_t)>& change,
                          bool keep_crcs = true,
                          const std::function<bool(const std::string&)>& which = nullptr) {
  std::string z = *graph::ReadFile(path);
  auto u16 = [&](size_t at) { return size_t{uint8_t(z[at])} | size_t{uint8_t(z[at + 1])} << 8; };
  auto u32 = [&](size_t at) { return u16(at) | u16(at + 2) << 16; };
  const size_t end = z.rfind("PK\x05\x06");
  ASSERT_NE(end, std::string::npos);
  int changed = 0;
  for (size_t at = u32(end + 16); z.compare(at, 4, "PK\x01\x02") == 0;
       at += 46 + u16(at + 28) + u16(at + 30) + u16(at + 32)) {
    const std::string name = z.substr(at + 46, u16(at + 28));
    if (name.find("/data/") == std::string::npos || u16(at + 10) != 0) continue;
    if (which && !which(name)) continue;
    const size_t local = u32(at + 42);
    char* data = &z[local + 30 + u16(local + 26) + u16(local + 28)];
    change(data, u32(at + 20));
    if (keep_crcs) {
      const uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(data), u32(at + 20));
      for (int i = 0; i < 4; ++i) z[at + 16 + i] = static_cast<char>(crc >> (8 * i) & 0xff);
    }
    ++changed;
  }
  ASSERT_GT(changed, 0);
  ASSERT_TRUE(graph::WriteFileAtomic(path, z).ok());
}

// 0xff bytes: a float NaN.
TEST(SearchTest, ACheckpointWhoseParametersAreNotFiniteIsRefusedNamingIt) {
  Fixture f;
  const std::string path = TempPath("nan.ckpt");
  auto s = f.NewSearch(6);
  s->Step(*f.reward);
  ASSERT_TRUE(s->Save(path, {"m", "d", "sim"}).ok());
  RewriteTensorRecords(path, [](char* data, size_t size) { std::fill(data, data + size, '\xff'); });
  graph::Status st = f.NewSearch(6)->Load(path, {"m", "d", "sim"});
  EXPECT_EQ(st.message().rfind(path + ": a corrupt checkpoint (parameter '", 0), 0u)
      << st.message();
  EXPECT_NE(st.message().find("' is not finite)"), std::string::npos) << st.message();
  std::remove(path.c_str());
}

// The lowest byte of every 4-byte word changed: each float still finite, a
// little off, which only the parameters' digest shows.
TEST(SearchTest, ACheckpointWhoseParametersChangedOnDiskIsRefused) {
  Fixture f;
  const std::string path = TempPath("changed.ckpt");
  auto s = f.NewSearch(6);
  s->Step(*f.reward);
  ASSERT_TRUE(s->Save(path, {"m", "d", "sim"}).ok());
  ASSERT_TRUE(f.NewSearch(6)->Load(path, {"m", "d", "sim"}).ok());
  RewriteTensorRecords(path, [](char* data, size_t size) {
    for (size_t i = 0; i + 4 <= size; i += 4) data[i] ^= 1;
  });
  EXPECT_EQ(f.NewSearch(6)->Load(path, {"m", "d", "sim"}).message(),
            path + ": a corrupt checkpoint (its parameters do not match their digest)");
  std::remove(path.c_str());
}

// One bit of the last tensor written (the best placement's devices) flipped:
// a device index still in range, which LibTorch's reader, checking no CRC-32,
// loaded as a best placement the search never found.
TEST(SearchTest, ACheckpointChangedOnDiskOutsideItsParametersIsRefusedNamingTheEntry) {
  Fixture f;
  const std::string path = TempPath("bestflip.ckpt");
  auto s = f.NewSearch(6);
  s->Step(*f.reward);
  ASSERT_TRUE(s->best().has_value());
  ASSERT_TRUE(s->Save(path, {"m", "d", "sim"}).ok());
  std::string last;  // the highest-numbered tensor record: written last
  RewriteTensorRecords(
      path, [](char*, size_t) {}, true,
      [&](const std::string& name) {
        const std::string n = name.substr(name.rfind('/') + 1);
        if (last.empty() || std::stoi(n) > std::stoi(last.substr(last.rfind('/') + 1))) last = name;
        return true;  // each record unchanged, its CRC-32 rewritten as it was
      });
  ASSERT_FALSE(last.empty());
  RewriteTensorRecords(
      path, [](char* data, size_t) { data[0] ^= 1; }, false,
      [&](const std::string& name) { return name == last; });
  graph::Status st = f.NewSearch(6)->Load(path, {"m", "d", "sim"});
  EXPECT_EQ(st.message(), path + ": a corrupt checkpoint: entry '" + last +
                              "' does not match its CRC-32 (changed on disk)");
  std::remove(path.c_str());
}

TEST(SearchTest, CheckpointOfAnotherModelDevicesOrRewardIsRefused) {
  Fixture f;
  const std::string path = TempPath("other.ckpt");
  auto s = f.NewSearch(6);
  s->Step(*f.reward);
  ASSERT_TRUE(s->Save(path, {"m", "d", "sim"}).ok());
  graph::Status model = f.NewSearch(6)->Load(path, {"other", "d", "sim"});
  EXPECT_EQ(model.message(),
            path + ": a checkpoint of another model (digest m, this search has other)");
  EXPECT_FALSE(f.NewSearch(6)->Load(path, {"m", "e", "sim"}).ok());
  EXPECT_FALSE(f.NewSearch(6)->Load(path, {"m", "d", "real"}).ok());
  SearchOptions wide = SmallPolicy();
  wide.num_groups = 9;
  graph::Status shape = f.NewSearch(6, wide)->Load(path, {"m", "d", "sim"});
  EXPECT_NE(shape.message().find("policy shape"), std::string::npos) << shape.message();
  SearchOptions scopes = SmallPolicy();
  scopes.scope_embedding = 4;  // the same groups, other parameters
  graph::Status features = f.NewSearch(6, scopes)->Load(path, {"m", "d", "sim"});
  EXPECT_EQ(features.message().rfind(path + ": a checkpoint of another policy shape (", 0), 0u)
      << features.message();
  EXPECT_NE(features.message().find("(see --config)"), std::string::npos) << features.message();
  EXPECT_EQ(features.message().find('\n'), std::string::npos) << features.message();
  std::remove(path.c_str());
}

// Grouper "auto" chooses before the first update and the checkpoint keeps the
// choice: a resumed auto search places the scopes again and samples what the
// original samples; a search with the Grouper refuses the checkpoint.
TEST(SearchTest, AutoGroupersChoiceResumesAndASearchWithAnotherGrouperRefusesIt) {
  Fixture f;
  const SearchIdentity id{"m", "d", "sim"};
  const std::string path = TempPath("auto.ckpt");
  SearchOptions o = SmallPolicy();
  o.grouper = "auto";
  auto original = f.NewSearch(5, o);
  ASSERT_TRUE(original->ChooseGrouper(std::vector<int>(f.p.forward.size(), 0)).scopes);
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(original->Step(*f.reward).status.ok());
  ASSERT_TRUE(original->Save(path, id).ok());
  auto resumed = f.NewSearch(99, o);
  EXPECT_FALSE(resumed->places_scopes());
  graph::Status st = resumed->Load(path, id);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_TRUE(resumed->places_scopes());
  for (int i = 0; i < 2; ++i) {
    SearchIteration x = original->Step(*f.reward), y = resumed->Step(*f.reward);
    EXPECT_EQ(x.placements, y.placements) << "update " << x.iteration;
  }
  graph::Status refused = f.NewSearch(6)->Load(path, id);  // SmallPolicy: the Grouper
  EXPECT_EQ(refused.message(), path +
                                   ": a checkpoint of another grouper (scopes, this search has "
                                   "learned (see --config))");
  std::remove(path.c_str());
}

TEST(SearchTest, CheckpointOfAnotherPolicyOptimizerIsRefused) {
  Fixture f;
  const std::string path = TempPath("optimizer.ckpt");
  auto s = f.NewSearch(6);
  s->Step(*f.reward);
  ASSERT_TRUE(s->Save(path, {"m", "d", "sim"}).ok());
  SearchOptions sgd = SmallPolicy();
  sgd.policy_optimizer = "sgd";
  graph::Status st = f.NewSearch(6, sgd)->Load(path, {"m", "d", "sim"});
  EXPECT_EQ(st.message(), path +
                              ": a checkpoint of another policy optimizer (adam, this search has "
                              "sgd (see --config))");
  std::remove(path.c_str());
}

TEST(SearchTest, SgdSearchResumesExactlyAndLearnsToAvoidTheSlowDevice) {
  SearchOptions o = SmallPolicy();
  o.policy_optimizer = "sgd";
  o.learning_rate = 30;
  ExpectLearnsToAvoidTheSlowDeviceAndResumesExactly(o, 5, 40, "sgd.ckpt");
}

TEST(SearchTest, SeveralGroupingsPerUpdateGiveMTimesKPlacements) {
  Fixture f;
  SearchOptions o = SmallPolicy();
  o.grouper_samples = 3;
  o.placer_samples = 2;
  auto search = f.NewSearch(6, o);
  SearchIteration it = search->Step(*f.reward);
  ASSERT_TRUE(it.status.ok()) << it.status.message();
  EXPECT_EQ(it.placements.size(), 6u);
  EXPECT_EQ(it.evaluations.size(), 6u);
}

// PPO's clipped surrogate on standardised costs learns what REINFORCE learns,
// and a resumed PPO search continues exactly.
// The small policy with PPO's update on standardised costs, without noise.
SearchOptions SmallPpoPolicy() {
  SearchOptions o = SmallPolicy();
  o.update = "ppo";
  o.advantage = "batch";
  o.learning_rate = 0.003;
  o.logit_noise = 0;
  return o;
}

TEST(SearchTest, PpoSearchLearnsToAvoidTheSlowDeviceAndResumesExactly) {
  SearchOptions o = SmallPpoPolicy();
  o.grouper_samples = 2;
  o.placer_samples = 4;
  o.entropy_weight = 0.01;
  ExpectLearnsToAvoidTheSlowDeviceAndResumesExactly(o, 7, 30, "ppo.ckpt");
}

// The incumbent is read from the best placement, which the checkpoint keeps:
// a resumed search is shown the same one and samples the same placements.
TEST(SearchTest, SearchShownTheIncumbentLearnsAndResumesExactly) {
  SearchOptions o = SmallPpoPolicy();
  o.placer_samples = 8;
  o.imitate_best = 1;
  o.incumbent_features = 1;
  ExpectLearnsToAvoidTheSlowDeviceAndResumesExactly(o, 7, 30, "incumbent.ckpt");
}

// The compiled defaults (ours: one PPO step on 16 standardised costs, the best
// imitated and shown), at the small policy's sizes.
TEST(SearchTest, DefaultSearchLearnsToAvoidTheSlowDeviceAndResumesExactly) {
  SearchOptions o;
  o.placer_hidden = 32;
  o.attention = 16;
  o.num_groups = 8;
  ExpectLearnsToAvoidTheSlowDeviceAndResumesExactly(o, 7, 30, "default.ckpt");
}

// The placements each of `updates` updates sampled, in a search with `o` and
// imitate_best offered every op on `device` as its best placement, at `best_s`
// seconds a step (0: its simulated time).
std::vector<std::vector<std::vector<int>>> SamplesImitatingOneDevice(SearchOptions o, int device,
                                                                     double best_s, int updates) {
  Fixture f;
  o.imitate_best = 1;
  auto search = f.NewSearch(8, o);
  const std::vector<int> all_on(f.p.forward.size(), device);
  rewards::Evaluation e = f.reward->Evaluate(all_on);
  if (best_s > 0) e.step_s = best_s;
  search->Offer("single", all_on, e, 0);
  std::vector<std::vector<std::vector<int>>> sampled;
  for (int i = 0; i < updates; ++i) {
    SearchIteration it = search->Step(*f.reward);
    EXPECT_TRUE(it.status.ok()) << it.status.message();
    sampled.push_back(std::move(it.placements));
  }
  return sampled;
}

// The share of the samples' ops on `device` over updates 26-30 of a PPO
// search imitating every op on `device` with `imitation_weight`. Every op on
// gpu0 is as fast as every op on gpu1, so which GPU the samples end on is the
// imitation's doing.
double ShareOnTheImitatedDevice(int device, double imitation_weight) {
  SearchOptions o = SmallPpoPolicy();
  o.placer_samples = 8;
  o.imitation_weight = imitation_weight;
  const auto sampled = SamplesImitatingOneDevice(o, device, 0, 30);
  int on_device = 0, ops = 0;
  for (size_t i = 25; i < sampled.size(); ++i) {
    for (const std::vector<int>& p : sampled[i]) {
      for (int d : p) on_device += d == device, ++ops;
    }
  }
  return static_cast<double>(on_device) / ops;
}

// With imitate_best the best placement so far is a sample of every update: the
// policy's samples come to agree with it, whichever GPU it is on.
TEST(SearchTest, ImitatingTheBestPullsTheSamplesTowardIt) {
  EXPECT_GT(ShareOnTheImitatedDevice(1, 0), 0.8);
  EXPECT_GT(ShareOnTheImitatedDevice(2, 0), 0.8);
}

// With imitation_weight the best placement is no sample but a cross-entropy
// term of its own, and pulls the samples toward it as well.
TEST(SearchTest, ImitationAsCrossEntropyPullsTheSamplesTowardTheBest) {
  EXPECT_GT(ShareOnTheImitatedDevice(1, 1), 0.8);
  EXPECT_GT(ShareOnTheImitatedDevice(2, 1), 0.8);
}

// With imitation_weight the best's step time enters no advantage: two searches
// whose best differs only in it sample the same placements, with either update
// and advantage, with or without logit noise. As a sample it does enter them.
TEST(SearchTest, BestImitatedByCrossEntropyTakesNoPartInTheAdvantages) {
  SearchOptions ppo = SmallPpoPolicy(), noisy_ppo = SmallPpoPolicy();
  noisy_ppo.logit_noise = 0.5;
  const std::vector<std::pair<std::string, SearchOptions>> updates = {
      {"ppo, batch", ppo},
      {"ppo, batch, noise", noisy_ppo},
      {"reinforce, ema, noise", SmallPolicy()}};
  for (auto [name, o] : updates) {
    o.imitation_weight = 1;
    EXPECT_EQ(SamplesImitatingOneDevice(o, 1, 1e-6, 8), SamplesImitatingOneDevice(o, 1, 1e-4, 8))
        << name;
    o.imitation_weight = 0;
    EXPECT_NE(SamplesImitatingOneDevice(o, 1, 1e-6, 8), SamplesImitatingOneDevice(o, 1, 1e-4, 8))
        << name;
  }
}

TEST(SearchTest, WarmStartMakesThePolicyProposeTheGivenPlacement) {
  Fixture f;
  SearchOptions o = SmallPolicy();
  o.warm_start_steps = 1000;
  o.scope_embedding = 8;  // as configs/search-warm.yaml
  o.logit_noise = 0;
  auto search = f.NewSearch(7, o);
  // The expert's kind of placement: the first half of the ops (in node order)
  // on gpu0, the rest on gpu1.
  const int ops = f.p.forward.size();
  std::vector<int> target(ops);
  for (int i = 0; i < ops; ++i) target[i] = i < ops / 2 ? 1 : 2;
  WarmStartResult w = search->WarmStart(target);
  ASSERT_TRUE(w.status.ok()) << w.status.message();
  EXPECT_LT(w.grouper_loss, 0.05);
  EXPECT_LT(w.placer_loss, o.warm_start_loss);
  EXPECT_GT(w.grouper_steps + w.placer_steps, 0);
  EXPECT_GT(search->elapsed_s(), 0.0) << "the warm start's time is search time";
  SearchIteration it = search->Step(*f.reward);
  ASSERT_TRUE(it.status.ok()) << it.status.message();
  for (const std::vector<int>& placement : it.placements) {
    int same = 0;
    for (int i = 0; i < ops; ++i) same += placement[i] == target[i];
    EXPECT_GE(same, ops * 9 / 10) << "of " << ops << " ops";
  }
}

// With the name scopes as the groups the Grouper samples nothing: the warm
// start fits the Placer alone, and the samples still propose the placement.
TEST(SearchTest, WarmStartFitsOnlyThePlacerWhenTheGroupsAreNameScopes) {
  Fixture f;
  SearchOptions o = SmallPolicy();
  o.grouper = "scopes";
  o.warm_start_steps = 1000;
  o.logit_noise = 0;
  auto search = f.NewSearch(7, o);
  ASSERT_TRUE(search->places_scopes());
  const int ops = f.p.forward.size();
  std::vector<int> target(ops);
  for (int i = 0; i < ops; ++i) target[i] = i < ops / 2 ? 1 : 2;
  search->Offer("expert", target, f.reward->Evaluate(target), 0);
  WarmStartResult w = search->WarmStart(target);
  ASSERT_TRUE(w.status.ok()) << w.status.message();
  EXPECT_EQ(w.grouper_steps, 0);
  EXPECT_EQ(w.grouper_s, 0.0);
  EXPECT_GT(w.placer_steps, 0);
  EXPECT_LT(w.placer_loss, o.warm_start_loss);
  // Each group's device is drawn, so a sample may still misplace one (here one
  // of the four moves a large scope): the ops' agreement over all the samples,
  // against about a third for samples at random among the three devices.
  SearchIteration it = search->Step(*f.reward);
  ASSERT_TRUE(it.status.ok()) << it.status.message();
  int same = 0, all = 0;
  for (const std::vector<int>& placement : it.placements) {
    for (int i = 0; i < ops; ++i) same += placement[i] == target[i], ++all;
  }
  EXPECT_GT(static_cast<double>(same) / all, 0.85) << same << " of " << all;
}

// A partition that follows no structure (each op's device drawn at random, as
// metis's and etf's follow no name scope) can be learned only from the
// incumbent's devices: without them the warm start's Grouper cannot tell the
// two devices' ops apart (0.26 nats per op here, against 0.01 with them).
TEST(SearchTest, IncumbentFeaturesLetThePolicyLearnAPartitionThatFollowsNoStructure) {
  struct Fit {
    double grouper_loss = 0, agreement = 0;
  };
  auto fit = [](int incumbent_features) {
    Fixture f;
    SearchOptions o = SmallPolicy();
    o.warm_start_steps = 400;
    o.logit_noise = 0;
    o.incumbent_features = incumbent_features;
    auto search = f.NewSearch(7, o);
    const int ops = f.p.forward.size();
    std::vector<int> target(ops);
    std::mt19937 rng(11);
    for (int i = 0; i < ops; ++i) target[i] = 1 + static_cast<int>(rng() % 2);
    search->Offer("random", target, f.reward->Evaluate(target), 0);
    WarmStartResult w = search->WarmStart(target);
    EXPECT_TRUE(w.status.ok()) << w.status.message();
    SearchIteration it = search->Step(*f.reward);
    EXPECT_TRUE(it.status.ok()) << it.status.message();
    int same = 0, all = 0;
    for (const std::vector<int>& placement : it.placements) {
      for (int i = 0; i < ops; ++i) same += placement[i] == target[i], ++all;
    }
    return Fit{w.grouper_loss, static_cast<double>(same) / all};
  };
  const Fit without = fit(0), with = fit(1);
  EXPECT_GT(without.grouper_loss, 0.15);
  EXPECT_LT(with.grouper_loss, 0.05);
  EXPECT_GT(with.agreement, 0.85) << "of the ops, in the first update's samples";
  EXPECT_GT(with.agreement, without.agreement);
}

TEST(SearchTest, CorruptOrMissingCheckpointIsAOneLineError) {
  Fixture f;
  const std::string path = TempPath("corrupt.ckpt");
  // Not a zip archive, as LibTorch's are: said in our words, not LibTorch's.
  ASSERT_TRUE(graph::WriteFileAtomic(path, "not a checkpoint").ok());
  graph::Status st = f.NewSearch(1)->Load(path, {"m", "d", "sim"});
  EXPECT_EQ(st.message(), path + ": not a search checkpoint (a checkpoint is a zip archive)");
  // A zip's first bytes and then garbage: the archive's check fails, in one line.
  ASSERT_TRUE(graph::WriteFileAtomic(path, std::string("PK\x03\x04", 4) + "garbage").ok());
  st = f.NewSearch(1)->Load(path, {"m", "d", "sim"});
  EXPECT_EQ(st.message(),
            path + ": a corrupt checkpoint: not a zip archive (no end of central directory)");
  EXPECT_EQ(st.message().find('\n'), std::string::npos);
  std::remove(path.c_str());
  EXPECT_FALSE(f.NewSearch(1)->Load(path, {"m", "d", "sim"}).ok());
  // A FIFO, which LibTorch would wait on for a writer: refused at once.
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(f.NewSearch(1)->Load(path, {"m", "d", "sim"}).message(),
            path + ": is not a regular file");
  std::remove(path.c_str());
}

// A parameter server whose pushes fail as a signal makes them fail (the
// client's wait ends on one): it takes the policy it is given.
class StoppedServer : public ParameterServer {
 public:
  graph::Result<PolicyParameters> Join(const std::string&, const std::string&, const PolicyLayout&,
                                       const std::vector<std::vector<float>>& initial) override {
    PolicyParameters p;
    p.values = initial;
    return p;
  }
  graph::Result<PolicyParameters> Push(int64_t, double,
                                       const std::vector<std::vector<float>>&) override {
    return graph::Status(graph::StatusCode::kUnavailable, "stopped by a signal");
  }
  std::string Summary() const override { return "stopped"; }
};

// The update's placements were evaluated before its push failed: the best of
// them is the search's, labelled with the update it belonged to. It was thrown
// away with the update, a new best that -o never got.
TEST(SearchTest, AnUpdateWhosePushFailsStillOffersItsEvaluatedPlacements) {
  Fixture f;
  auto search = f.NewSearch(1);
  StoppedServer server;
  ASSERT_TRUE(search->UseParameterServer(&server, "m d").ok());
  SearchIteration it = search->Step(*f.reward);
  EXPECT_FALSE(it.status.ok());
  EXPECT_NE(it.status.message().find("stopped by a signal"), std::string::npos)
      << it.status.message();
  EXPECT_EQ(search->iterations(), 0);
  ASSERT_TRUE(search->best());
  EXPECT_EQ(search->best()->method, "search");
  EXPECT_EQ(search->best()->iteration, 1);
  double fastest = 0;
  for (const rewards::Evaluation& e : it.evaluations) {
    if (e.status.ok() && (fastest == 0 || e.step_s < fastest)) fastest = e.step_s;
  }
  EXPECT_EQ(search->best()->step_s, fastest);
}

}  // namespace
}  // namespace planner::search
