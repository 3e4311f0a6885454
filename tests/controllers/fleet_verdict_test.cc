// The fleet's verdict level: C controllers each test at ALPHA / C.
#include "controllers/fleet_verdict.h"

#include <gtest/gtest.h>

namespace controllers {
namespace {

using Flags = std::vector<std::string>;

TEST(FleetVerdict, EachOfFourControllersTestsAtAQuarterOfTheDefaultLevel) {
  std::string note;
  const Flags out = BonferroniSearchFlags({"--refine", "0"}, 4, &note);
  EXPECT_EQ(out, (Flags{"--refine", "0", "--significance", "0.0125"}));
  EXPECT_NE(note.find("0.05 / 4 = 0.0125"), std::string::npos) << note;
  EXPECT_EQ(note.find("cannot reach"), std::string::npos) << "2^-9 < 0.0125: " << note;
}

TEST(FleetVerdict, AGivenLevelIsDividedInPlace) {
  std::string note;
  const Flags out = BonferroniSearchFlags({"--significance", "0.1", "--steps", "3"}, 2, &note);
  EXPECT_EQ(out, (Flags{"--significance", "0.05", "--steps", "3"}));
}

TEST(FleetVerdict, AnInlineLevelAndRoundsAreReadToo) {
  std::string note;
  const Flags out = BonferroniSearchFlags({"--significance=0.2", "--rounds=3"}, 4, &note);
  EXPECT_EQ(out, (Flags{"--significance=0.05", "--rounds=3"}));
  EXPECT_NE(note.find("3 rounds cannot reach it"), std::string::npos) << note;
}

TEST(FleetVerdict, OneControllerChangesNothing) {
  std::string note = "stale";
  const Flags in = {"--significance", "0.1"};
  EXPECT_EQ(BonferroniSearchFlags(in, 1, &note), in);
  EXPECT_TRUE(note.empty());
}

TEST(FleetVerdict, RoundsTooFewForTheLevelAreSaidWithHowManyWouldDo) {
  // 0.05 / 16 = 0.003125 > 2^-9 = 0.00195: nine rounds still reach it;
  // five (2^-5 = 0.03125) do not, and ceil(log2(320)) = 9 would.
  std::string note;
  BonferroniSearchFlags({"--rounds", "5"}, 16, &note);
  EXPECT_NE(note.find("5 rounds cannot reach it"), std::string::npos) << note;
  EXPECT_NE(note.find("--rounds 9 or more"), std::string::npos) << note;
  BonferroniSearchFlags({}, 16, &note);
  EXPECT_EQ(note.find("cannot reach"), std::string::npos) << note;
}

TEST(FleetVerdict, ALevelThatIsNotANumberIsLeftForTheSearchToRefuse) {
  std::string note;
  const Flags in = {"--significance", "lots"};
  EXPECT_EQ(BonferroniSearchFlags(in, 3, &note), in);
  EXPECT_TRUE(note.empty());
}

}  // namespace
}  // namespace controllers
