#include "planner/search/search_options.h"

#include <gtest/gtest.h>

#include "graph/file_util.h"

namespace planner::search {
namespace {

// Every field of `got` equals `want`'s.
void ExpectSameOptions(const SearchOptions& got, const SearchOptions& want) {
  EXPECT_EQ(got.num_groups, want.num_groups);
  EXPECT_EQ(got.type_embedding, want.type_embedding);
  EXPECT_EQ(got.grouper_hidden, want.grouper_hidden);
  EXPECT_EQ(got.placer_hidden, want.placer_hidden);
  EXPECT_EQ(got.attention, want.attention);
  EXPECT_EQ(got.device_embedding, want.device_embedding);
  EXPECT_EQ(got.temperature, want.temperature);
  EXPECT_EQ(got.tanh_constant, want.tanh_constant);
  EXPECT_EQ(got.grouper_samples, want.grouper_samples);
  EXPECT_EQ(got.placer_samples, want.placer_samples);
  EXPECT_EQ(got.learning_rate, want.learning_rate);
  EXPECT_EQ(got.lr_decay, want.lr_decay);
  EXPECT_EQ(got.lr_decay_every, want.lr_decay_every);
  EXPECT_EQ(got.lr_decay_start, want.lr_decay_start);
  EXPECT_EQ(got.grad_clip, want.grad_clip);
  EXPECT_EQ(got.baseline_decay, want.baseline_decay);
  EXPECT_EQ(got.failing_step_s, want.failing_step_s);
  EXPECT_EQ(got.logit_noise, want.logit_noise);
  EXPECT_EQ(got.logit_noise_until, want.logit_noise_until);
  EXPECT_EQ(got.threads, want.threads);
  EXPECT_EQ(got.scope_embedding, want.scope_embedding);
  EXPECT_EQ(got.grouper, want.grouper);
  EXPECT_EQ(got.auto_scope_share, want.auto_scope_share);
  EXPECT_EQ(got.policy_optimizer, want.policy_optimizer);
  EXPECT_EQ(got.warm_start_steps, want.warm_start_steps);
  EXPECT_EQ(got.warm_start_loss, want.warm_start_loss);
  EXPECT_EQ(got.warm_start_grouper_lr, want.warm_start_grouper_lr);
  EXPECT_EQ(got.warm_start_placer_lr, want.warm_start_placer_lr);
  EXPECT_EQ(got.update, want.update);
  EXPECT_EQ(got.ppo_epochs, want.ppo_epochs);
  EXPECT_EQ(got.ppo_clip, want.ppo_clip);
  EXPECT_EQ(got.advantage, want.advantage);
  EXPECT_EQ(got.entropy_weight, want.entropy_weight);
  EXPECT_EQ(got.imitate_best, want.imitate_best);
  EXPECT_EQ(got.imitation_weight, want.imitation_weight);
  EXPECT_EQ(got.incumbent_features, want.incumbent_features);
  EXPECT_EQ(got.apart_colocated, want.apart_colocated);
}

TEST(SearchOptionsTest, ShippedConfigStatesTheCompiledDefaults) {
  auto o = ReadSearchConfig(std::string(PLANNER_CONFIGS_DIR) + "/search.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  ExpectSameOptions(*o, SearchOptions());
}

// configs/search-128.yaml, measured in docs/benchmarks.md ("A 128-wide
// Placer"): the defaults but for the Placer's and its attention's widths.
TEST(SearchOptionsTest, Shipped128ConfigIsTheDefaultsWithANarrowerPlacer) {
  auto o = ReadSearchConfig(std::string(PLANNER_CONFIGS_DIR) + "/search-128.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->placer_hidden, 128);
  EXPECT_EQ(o->attention, 128);
  SearchOptions want;
  want.placer_hidden = 128;
  want.attention = 128;
  ExpectSameOptions(*o, want);
}

TEST(SearchOptionsTest, ShippedPaperConfigIsThePapersSettings) {
  auto o = ReadSearchConfig(std::string(PLANNER_CONFIGS_DIR) + "/search-paper.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  ExpectSameOptions(*o, PaperSearchOptions());
  EXPECT_EQ(o->update, "reinforce");
  EXPECT_EQ(o->advantage, "ema");
  EXPECT_EQ(o->placer_samples, 4);
  EXPECT_EQ(o->learning_rate, 0.1);
  EXPECT_EQ(o->imitate_best, 0);
}

TEST(SearchOptionsTest, PresetAppliesFirstWhereverItStands) {
  auto o = ParseSearchConfig("placer_samples: 8\npreset: paper\n", "s.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->placer_samples, 8);
  EXPECT_EQ(o->update, "reinforce");
  auto d = ParseSearchConfig("preset: default\n", "s.yaml");
  ASSERT_TRUE(d.ok()) << d.status().message();
  ExpectSameOptions(*d, SearchOptions());
  auto bad = ParseSearchConfig("\npreset: tf\n", "s.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "s.yaml:2: 'preset' must be one of default, paper");
}

TEST(SearchOptionsTest, UpdateAndAdvantageAreOneOfTheirNames) {
  auto o = ParseSearchConfig("update: ppo\nadvantage: batch\ngrouper_samples: 2\n", "s.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->update, "ppo");
  EXPECT_EQ(o->advantage, "batch");
  EXPECT_EQ(o->grouper_samples, 2);
  auto bad = ParseSearchConfig("update: a2c\n", "s.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "s.yaml:1: 'update' must be one of reinforce, ppo");
  auto one = ParseSearchConfig("advantage: batch\nplacer_samples: 1\n", "s.yaml");
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.status().message().find("at least 2 samples"), std::string::npos);
}

TEST(SearchOptionsTest, GrouperIsAutoLearnedOrScopes) {
  EXPECT_EQ(SearchOptions().grouper, "auto");
  EXPECT_EQ(PaperSearchOptions().grouper, "learned");
  auto share = ParseSearchConfig("grouper: auto\nauto_scope_share: 0.25\n", "s.yaml");
  ASSERT_TRUE(share.ok()) << share.status().message();
  EXPECT_EQ(share->grouper, "auto");
  EXPECT_EQ(share->auto_scope_share, 0.25);
  auto over = ParseSearchConfig("auto_scope_share: 1.5\n", "s.yaml");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().message(), "s.yaml:1: 'auto_scope_share' must be a number in [0, 1]");
  auto o = ParseSearchConfig("grouper: scopes\n", "s.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->grouper, "scopes");
  auto shipped = ReadSearchConfig(std::string(PLANNER_CONFIGS_DIR) + "/search-scopes.yaml");
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  EXPECT_EQ(shipped->grouper, "scopes");
  auto learned = ReadSearchConfig(std::string(PLANNER_CONFIGS_DIR) + "/search-learned.yaml");
  ASSERT_TRUE(learned.ok()) << learned.status().message();
  EXPECT_EQ(learned->grouper, "learned");
  auto bad = ParseSearchConfig("grouper: metis\n", "s.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "s.yaml:1: 'grouper' must be one of auto, learned, scopes");
}

TEST(SearchOptionsTest, ShippedWarmConfigWarmStartsWithScopesAndSgd) {
  auto o = ReadSearchConfig(std::string(PLANNER_CONFIGS_DIR) + "/search-warm.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_GT(o->warm_start_steps, 0);
  EXPECT_GT(o->scope_embedding, 0);
  EXPECT_EQ(o->policy_optimizer, "sgd");
  EXPECT_EQ(o->update, "reinforce");  // measured on top of the paper's settings
}

TEST(SearchOptionsTest, ShippedPpoConfigUsesTheClippedUpdateOnStandardisedCosts) {
  auto o = ReadSearchConfig(std::string(PLANNER_CONFIGS_DIR) + "/search-ppo.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->update, "ppo");
  EXPECT_EQ(o->advantage, "batch");
  EXPECT_GE(o->grouper_samples * o->placer_samples, 2);
  EXPECT_EQ(o->imitate_best, 1);
  EXPECT_GT(o->imitation_weight, 0);
  EXPECT_GT(o->scope_embedding, 0);
  EXPECT_EQ(o->incumbent_features, 1);
}

TEST(SearchOptionsTest, ImitationWeightNeedsTheBestImitated) {
  auto o = ParseSearchConfig("imitate_best: 1\nimitation_weight: 0.5\n", "s.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->imitation_weight, 0.5);
  auto off = ParseSearchConfig("imitate_best: 0\nimitation_weight: 0.5\n", "s.yaml");
  ASSERT_FALSE(off.ok());
  EXPECT_EQ(off.status().message(),
            "s.yaml: 'imitation_weight' needs 'imitate_best: 1' (it weights the best "
            "placement's cross-entropy)");
  // Turning the imitation off leaves the default weight unused, not an error.
  auto plain = ParseSearchConfig("imitate_best: 0\n", "s.yaml");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->imitate_best, 0);
  EXPECT_FALSE(ParseSearchConfig("imitate_best: 1\nimitation_weight: -1\n", "s.yaml").ok());
}

TEST(SearchOptionsTest, PolicyOptimizerIsOneOfItsNames) {
  auto sgd = ParseSearchConfig("policy_optimizer: sgd\n", "s.yaml");
  ASSERT_TRUE(sgd.ok()) << sgd.status().message();
  EXPECT_EQ(sgd->policy_optimizer, "sgd");
  auto bad = ParseSearchConfig("\npolicy_optimizer: rmsprop\n", "s.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "s.yaml:2: 'policy_optimizer' must be one of adam, sgd");
  EXPECT_FALSE(ParseSearchConfig("policy_optimizer: [adam]\n", "s.yaml").ok());
}

TEST(SearchOptionsTest, ValuesOverrideDefaults) {
  auto o = ParseSearchConfig("learning_rate: 0.01\nplacer_samples: 8\n", "s.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->learning_rate, 0.01);
  EXPECT_EQ(o->placer_samples, 8);
  EXPECT_EQ(o->grad_clip, SearchOptions().grad_clip);
}

TEST(SearchOptionsTest, UnknownKeyNamesFileAndLine) {
  auto o = ParseSearchConfig("learning_rate: 0.01\nlearning_rat: 3\n", "s.yaml");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "s.yaml:2: unknown key 'learning_rat'");
}

TEST(SearchOptionsTest, OutOfRangeAndWrongTypesAreRefused) {
  EXPECT_FALSE(ParseSearchConfig("placer_samples: 0\n", "s.yaml").ok());
  EXPECT_FALSE(ParseSearchConfig("learning_rate: fast\n", "s.yaml").ok());
  EXPECT_FALSE(ParseSearchConfig("baseline_decay: 1.5\n", "s.yaml").ok());
  EXPECT_FALSE(ParseSearchConfig("placer_hidden: 511\n", "s.yaml").ok());
  auto o = ParseSearchConfig("temperature: [1, 2]\n", "s.yaml");
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("s.yaml:1: 'temperature' must be a number"),
            std::string::npos)
      << o.status().message();
}

TEST(SearchOptionsTest, BadYamlIsOneLineNamingTheFile) {
  auto o = ParseSearchConfig("learning_rate: [0.1\n", "s.yaml");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message().rfind("s.yaml:", 0), 0u) << o.status().message();
  EXPECT_EQ(o.status().message().find('\n'), std::string::npos);
}

TEST(SearchOptionsTest, GroupsFollowTensorFlowsRule) {
  SearchOptions o;
  EXPECT_EQ(NumGroups(o, 3), 60);
  EXPECT_EQ(NumGroups(o, 9), 180);
  EXPECT_EQ(NumGroups(o, 20), 256);
  o.num_groups = 7;
  EXPECT_EQ(NumGroups(o, 20), 7);
}

}  // namespace
}  // namespace planner::search
