// controllers/ps.h: the parameter server's state, without sockets.
#include "controllers/ps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "graph/file_util.h"
#include "tests/scratch_dir.h"
#include "wire/proto/fleet.pb.h"

namespace controllers {
namespace {

JoinRequest JoinOf(std::vector<float> w, std::vector<float> b, const std::string& opt = "adam") {
  return {"model on devices", opt, {{"w", {2}, std::move(w)}, {"b", {}, std::move(b)}}};
}

// Every field of a reply, in order, to compare two replies whole.
std::vector<double> Flat(const ParametersReply& r) {
  std::vector<double> out{static_cast<double>(r.version), r.applied ? 1.0 : 0.0,
                          static_cast<double>(r.staleness)};
  for (const PolicyTensor& t : r.parameters) {
    out.push_back(static_cast<double>(t.name.size()));
    out.insert(out.end(), t.shape.begin(), t.shape.end());
    out.insert(out.end(), t.values.begin(), t.values.end());
  }
  return out;
}

PushRequest PushOf(int64_t version, uint64_t sequence, std::vector<float> gw, float gb,
                   double lr = 0.1) {
  return {version, sequence, lr, {{"w", {2}, std::move(gw)}, {"b", {}, {gb}}}};
}

TEST(ParameterState, FirstJoinIsAdoptedAndLaterJoinsGetIt) {
  ParameterState s;
  ASSERT_TRUE(s.Join(JoinOf({1, 2}, {3})).ok());
  ASSERT_TRUE(s.Join(JoinOf({9, 9}, {9})).ok());  // same policy, other values: the held ones win
  const ParametersReply p = s.Current();
  EXPECT_EQ(p.parameters[0].values[1], 2.f);
  EXPECT_EQ(p.version, 0);
}

TEST(ParameterState, JoinOfAnotherPolicyIsRefusedNamingTheDifference) {
  ParameterState s;
  ASSERT_TRUE(s.Join(JoinOf({1, 2}, {3})).ok());
  JoinRequest other = JoinOf({1, 2}, {3});
  other.identity = "another model";
  EXPECT_NE(s.Join(other).message().find("another model"), std::string::npos);
  JoinRequest wider = JoinOf({1, 2}, {3});
  wider.parameters[0] = {"w", {3}, {1, 2, 3}};
  EXPECT_NE(s.Join(wider).message().find("w 3"), std::string::npos) << s.Join(wider).message();
  EXPECT_FALSE(s.Join(JoinOf({1, 2}, {3}, "sgd")).ok());
  JoinRequest short_values = JoinOf({1}, {3});
  ParameterState fresh;
  EXPECT_FALSE(fresh.Join(short_values).ok());
}

TEST(ParameterState, AdamStepsFollowTorchsFormula) {
  ParameterState s;
  ASSERT_TRUE(s.Join(JoinOf({1, -1}, {0.5f})).ok());
  const std::vector<std::vector<float>> grads = {{0.5f, -2.f}, {0.1f, 0.3f}};
  double p = 1, m = 0, v = 0;
  for (int t = 1; t <= 2; ++t) {
    auto r = s.Push(PushOf(t - 1, t, grads[t - 1], 0.f), "c");
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(r->applied);
    const double g = grads[t - 1][0];
    m = 0.9 * m + 0.1 * g;
    v = 0.999 * v + 0.001 * g * g;
    p -= 0.1 / (1 - std::pow(0.9, t)) * m /
         (std::sqrt(v) / std::sqrt(1 - std::pow(0.999, t)) + 1e-8);
    EXPECT_NEAR(r->parameters[0].values[0], p, 1e-6);
    EXPECT_EQ(r->version, t);
  }
}

TEST(ParameterState, SgdStepIsLearningRateTimesGradient) {
  ParameterState s;
  ASSERT_TRUE(s.Join(JoinOf({1, 1}, {1}, "sgd")).ok());
  auto r = s.Push(PushOf(0, 1, {1, -2}, 0.5f, 0.1), "c");
  ASSERT_TRUE(r.ok());
  EXPECT_FLOAT_EQ(r->parameters[0].values[0], 0.9f);
  EXPECT_FLOAT_EQ(r->parameters[0].values[1], 1.2f);
  EXPECT_FLOAT_EQ(r->parameters[1].values[0], 0.95f);
}

TEST(ParameterState, GradientStalerThanTheBoundIsDroppedAndCounted) {
  ParameterState s;
  s.set_staleness_bound(1);
  ASSERT_TRUE(s.Join(JoinOf({1, 1}, {1}, "sgd")).ok());
  ASSERT_TRUE(s.Push(PushOf(0, 1, {1, 1}, 1), "a").ok());
  ASSERT_TRUE(s.Push(PushOf(1, 2, {1, 1}, 1), "a").ok());
  auto late = s.Push(PushOf(0, 1, {1, 1}, 1), "b");  // computed at version 0, server at 2
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(late->applied);
  EXPECT_EQ(late->staleness, 2);
  EXPECT_EQ(late->version, 2);
  EXPECT_EQ(s.counters().stale, 1);
  auto within = s.Push(PushOf(1, 2, {1, 1}, 1), "b");  // one version behind: applied
  EXPECT_TRUE(within->applied);
}

TEST(ParameterState, RepeatedPushIsAppliedOnce) {
  ParameterState s;
  ASSERT_TRUE(s.Join(JoinOf({1, 1}, {1}, "sgd")).ok());
  ASSERT_TRUE(s.Push(PushOf(0, 7, {1, 1}, 1), "a").ok());
  auto again = s.Push(PushOf(0, 7, {1, 1}, 1), "a");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->applied);
  EXPECT_EQ(s.version(), 1);
  EXPECT_EQ(s.counters().repeats, 1);
}

TEST(ParameterState, NonFiniteGradientIsRefusedAndChangesNothing) {
  ParameterState s;
  ASSERT_TRUE(s.Join(JoinOf({1, 1}, {1}, "sgd")).ok());
  auto r = s.Push(PushOf(0, 1, {std::nanf(""), 1}, 1), "a");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("non-finite"), std::string::npos);
  EXPECT_EQ(s.version(), 0);
  EXPECT_EQ(s.Current().parameters[0].values[0], 1.f);
}

// A finite gradient at a finite but huge rate left -inf parameters, which
// every search then pulled; a joining policy could bring NaN in.
TEST(ParameterState, AnUpdateOrJoinThatWouldHoldNonFiniteValuesIsRefusedWhole) {
  for (const char* optimizer : {"sgd", "adam"}) {
    ParameterState s;
    ASSERT_TRUE(s.Join(JoinOf({1, 1}, {1}, optimizer)).ok());
    auto r = s.Push(PushOf(0, 1, {1, 1}, 1, 1e300), "a");
    ASSERT_FALSE(r.ok()) << optimizer;
    EXPECT_NE(r.status().message().find("would make w non-finite"), std::string::npos)
        << r.status().message();
    EXPECT_EQ(s.version(), 0);
    EXPECT_EQ(s.Current().parameters[0].values, (std::vector<float>{1, 1}));
    auto next = s.Push(PushOf(0, 2, {1, 1}, 1, 0.1), "a");  // the state went on as it was
    ASSERT_TRUE(next.ok());
    EXPECT_TRUE(next->applied);
  }
  ParameterState fresh;
  graph::Status st = fresh.Join(JoinOf({1, std::nanf("")}, {1}));
  EXPECT_EQ(st.message(), "the joining policy: w has non-finite values");
  EXPECT_TRUE(fresh.empty());
}

TEST(ParameterState, PeersNumbersCannotOverflow) {
  ParameterState s;
  JoinRequest huge = JoinOf({1, 1}, {1});
  huge.parameters[0] = {"w", {int64_t{1} << 40, int64_t{1} << 40}, {1}};
  EXPECT_FALSE(s.Join(huge).ok());
  JoinRequest negative = JoinOf({1, 1}, {1});
  negative.parameters[0] = {"w", {-2, -1}, {1, 1}};
  EXPECT_FALSE(s.Join(negative).ok());
  ASSERT_TRUE(s.Join(JoinOf({1, 1}, {1}, "sgd")).ok());
  for (int64_t v : {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    auto r = s.Push(PushOf(v, 1, {1, 1}, 1), "a");
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->applied);
  }
}

TEST(ParameterState, ControllerThatJoinsAgainStartsItsSequenceAfresh) {
  ParameterState s;
  ASSERT_TRUE(s.Join(JoinOf({1, 1}, {1}, "sgd"), "host:1").ok());
  ASSERT_TRUE(s.Push(PushOf(0, 1, {1, 1}, 1), "host:1")->applied);
  ASSERT_TRUE(s.Push(PushOf(1, 2, {1, 1}, 1), "host:1")->applied);
  // A restarted controller under the same routing id counts from 1 again.
  ASSERT_TRUE(s.Join(JoinOf({1, 1}, {1}, "sgd"), "host:1").ok());
  EXPECT_TRUE(s.Push(PushOf(2, 1, {1, 1}, 1), "host:1")->applied);
}

TEST(ParameterState, PushBeforeAnyJoinIsNotFound) {
  ParameterState s;
  EXPECT_EQ(s.Push(PushOf(0, 1, {1, 1}, 1), "a").status().code(), graph::StatusCode::kNotFound);
}

TEST(ParameterState, GradientOfOtherShapeIsAnError) {
  ParameterState s;
  ASSERT_TRUE(s.Join(JoinOf({1, 1}, {1})).ok());
  PushRequest p = PushOf(0, 1, {1, 1}, 1);
  p.gradient[0] = {"w", {2}, {1}};
  EXPECT_FALSE(s.Push(p, "a").ok());
}

TEST(ParameterState, CheckpointRestoresParametersMomentsAndSequences) {
  ParameterState s;
  ASSERT_TRUE(s.Join(JoinOf({1, -1}, {0.5f})).ok());
  ASSERT_TRUE(s.Push(PushOf(0, 1, {0.5f, -2}, 0.1f), "a").ok());
  const std::string path = planner_test::ScratchDir() + "/ps.ckpt";
  ASSERT_TRUE(s.Save(path).ok());
  auto restored = ParameterState::Load(path);
  ASSERT_TRUE(restored.ok()) << restored.status().message();
  EXPECT_EQ(restored->version(), 1);
  EXPECT_FALSE(restored->Push(PushOf(1, 1, {1, 1}, 1), "a")->applied);  // a repeat
  auto a = s.Push(PushOf(1, 2, {0.2f, 0.2f}, 0.2f), "a");
  auto b = restored->Push(PushOf(1, 2, {0.2f, 0.2f}, 0.2f), "a");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(Flat(*a), Flat(*b));
}

TEST(ParameterState, CorruptCheckpointIsAnErrorNamingTheFile) {
  const std::string path = planner_test::ScratchDir() + "/bad.ckpt";
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fputs("\x08\x63garbage", f);
  std::fclose(f);
  auto r = ParameterState::Load(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(path), std::string::npos);
  ASSERT_TRUE(graph::WriteFileAtomic(path, "").ok());
  EXPECT_EQ(ParameterState::Load(path).status().message(),
            path + ": not a parameter server checkpoint");
}

// A value changed on disk, in a file that still parses: its digest says so.
TEST(ParameterState, ACheckpointWhoseValuesChangedOnDiskIsRefused) {
  ParameterState s;
  ASSERT_TRUE(s.Join(JoinOf({1, -1}, {0.5f})).ok());
  const std::string path = planner_test::ScratchDir() + "/changed.ckpt";
  ASSERT_TRUE(s.Save(path).ok());
  wire::pb::PsCheckpoint c;
  ASSERT_TRUE(c.ParseFromString(*graph::ReadFile(path)));
  ASSERT_FALSE(c.tensor_digest().empty());
  c.mutable_parameters(0)->set_values(1, 7.0f);
  ASSERT_TRUE(graph::WriteFileAtomic(path, c.SerializeAsString()).ok());
  EXPECT_EQ(ParameterState::Load(path).status().message(),
            path + ": a corrupt checkpoint (its tensors do not match their digest)");
  c.clear_tensor_digest();  // one written before the digest: read as it was
  ASSERT_TRUE(graph::WriteFileAtomic(path, c.SerializeAsString()).ok());
  EXPECT_TRUE(ParameterState::Load(path).ok());
}

}  // namespace
}  // namespace controllers
