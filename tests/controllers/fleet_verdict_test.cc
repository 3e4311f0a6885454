// The fleet's verdict level: C controllers each test at ALPHA / C.
#include "controllers/fleet_verdict.h"

#include <gtest/gtest.h>

namespace controllers {
namespace {

using Flags = std::vector<std::string>;

TEST(FleetVerdict, EachOfFourControllersTestsAtAQuarterOfTheDefaultLevel) {
  std::string note;
  const Flags out = *BonferroniSearchFlags({"--refine", "0"}, 4, &note);
  EXPECT_EQ(out, (Flags{"--refine", "0", "--significance", "0.0125"}));
  EXPECT_NE(note.find("0.05 / 4 = 0.0125"), std::string::npos) << note;
  EXPECT_EQ(note.find("cannot reach"), std::string::npos) << "2^-9 < 0.0125: " << note;
}

TEST(FleetVerdict, AGivenLevelIsDividedInPlace) {
  std::string note;
  const Flags out = *BonferroniSearchFlags({"--significance", "0.1", "--steps", "3"}, 2, &note);
  EXPECT_EQ(out, (Flags{"--significance", "0.05", "--steps", "3"}));
}

TEST(FleetVerdict, AnInlineLevelAndRoundsAreReadToo) {
  std::string note;
  const Flags out = *BonferroniSearchFlags({"--significance=0.2", "--rounds=5"}, 4, &note);
  EXPECT_EQ(out, (Flags{"--significance=0.05", "--rounds=5"}));
  EXPECT_EQ(note.find("rounds"), std::string::npos) << note;
}

TEST(FleetVerdict, OneControllerChangesNothing) {
  std::string note = "stale";
  const Flags in = {"--significance", "0.1"};
  EXPECT_EQ(*BonferroniSearchFlags(in, 1, &note), in);
  EXPECT_TRUE(note.empty());
}

TEST(FleetVerdict, RoundsGivenTooFewForTheLevelAreRefusedWithHowManyWouldDo) {
  // 0.05 / 16 = 0.003125 > 2^-9 = 0.00195: nine rounds still reach it;
  // five (2^-5 = 0.03125) do not, and nine would.
  std::string note;
  auto out = BonferroniSearchFlags({"--rounds", "5"}, 16, &note);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "--rounds 5 cannot reach the level each of the 16 controllers tests at, 0.003125 "
            "(their smallest p-value is 2^-5): give -- --rounds 9 or more");
  EXPECT_EQ(*BonferroniSearchFlags({}, 16, &note), (Flags{"--significance", "0.003125"}));
}

TEST(FleetVerdict, TheDefaultRoundsAreRaisedWhenTheyCannotReachTheLevel) {
  // 0.05 / 32 = 0.0015625 < 2^-9: ten rounds (2^-10 = 0.00098) reach it.
  std::string note;
  EXPECT_EQ(*BonferroniSearchFlags({}, 32, &note),
            (Flags{"--significance", "0.0015625", "--rounds", "10"}));
  EXPECT_NE(note.find("the default 9 rounds cannot reach it (their smallest p-value is 2^-9), so "
                      "each measures 10"),
            std::string::npos)
      << note;
}

TEST(FleetVerdict, ALevelThatIsNotANumberIsLeftForTheSearchToRefuse) {
  std::string note;
  const Flags in = {"--significance", "lots"};
  EXPECT_EQ(*BonferroniSearchFlags(in, 3, &note), in);
  EXPECT_TRUE(note.empty());
}

}  // namespace
}  // namespace controllers
