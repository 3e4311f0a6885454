#include "planner/search_options.h"

#include <gtest/gtest.h>

#include "graph/file_util.h"

namespace planner {
namespace {

TEST(SearchOptionsTest, ShippedConfigStatesTheCompiledDefaults) {
  auto o = ReadSearchConfig(std::string(PLANNER_CONFIGS_DIR) + "/search.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  const SearchOptions d;
  EXPECT_EQ(o->num_groups, d.num_groups);
  EXPECT_EQ(o->type_embedding, d.type_embedding);
  EXPECT_EQ(o->grouper_hidden, d.grouper_hidden);
  EXPECT_EQ(o->placer_hidden, d.placer_hidden);
  EXPECT_EQ(o->attention, d.attention);
  EXPECT_EQ(o->device_embedding, d.device_embedding);
  EXPECT_EQ(o->temperature, d.temperature);
  EXPECT_EQ(o->tanh_constant, d.tanh_constant);
  EXPECT_EQ(o->grouper_samples, d.grouper_samples);
  EXPECT_EQ(o->placer_samples, d.placer_samples);
  EXPECT_EQ(o->learning_rate, d.learning_rate);
  EXPECT_EQ(o->lr_decay, d.lr_decay);
  EXPECT_EQ(o->lr_decay_every, d.lr_decay_every);
  EXPECT_EQ(o->lr_decay_start, d.lr_decay_start);
  EXPECT_EQ(o->grad_clip, d.grad_clip);
  EXPECT_EQ(o->baseline_decay, d.baseline_decay);
  EXPECT_EQ(o->failing_step_s, d.failing_step_s);
  EXPECT_EQ(o->logit_noise, d.logit_noise);
  EXPECT_EQ(o->logit_noise_until, d.logit_noise_until);
  EXPECT_EQ(o->threads, d.threads);
  EXPECT_EQ(o->scope_embedding, d.scope_embedding);
  EXPECT_EQ(o->policy_optimizer, d.policy_optimizer);
  EXPECT_EQ(o->warm_start_steps, d.warm_start_steps);
  EXPECT_EQ(o->warm_start_loss, d.warm_start_loss);
  EXPECT_EQ(o->warm_start_grouper_lr, d.warm_start_grouper_lr);
  EXPECT_EQ(o->warm_start_placer_lr, d.warm_start_placer_lr);
  EXPECT_EQ(o->update, d.update);
  EXPECT_EQ(o->ppo_epochs, d.ppo_epochs);
  EXPECT_EQ(o->ppo_clip, d.ppo_clip);
  EXPECT_EQ(o->advantage, d.advantage);
  EXPECT_EQ(o->entropy_weight, d.entropy_weight);
  EXPECT_EQ(o->imitate_best, d.imitate_best);
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

TEST(SearchOptionsTest, ShippedWarmConfigWarmStartsWithScopesAndSgd) {
  auto o = ReadSearchConfig(std::string(PLANNER_CONFIGS_DIR) + "/search-warm.yaml");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_GT(o->warm_start_steps, 0);
  EXPECT_GT(o->scope_embedding, 0);
  EXPECT_EQ(o->policy_optimizer, "sgd");
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
  auto alone = ParseSearchConfig("imitation_weight: 0.5\n", "s.yaml");
  ASSERT_FALSE(alone.ok());
  EXPECT_EQ(alone.status().message(),
            "s.yaml: 'imitation_weight' needs 'imitate_best: 1' (it weights the best "
            "placement's cross-entropy)");
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
}  // namespace planner
