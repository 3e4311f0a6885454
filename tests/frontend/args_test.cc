// Command-line parsing through CLI11: values in order, repeated flags, switches,
// inline values, the argument count, a command that follows, a variadic last
// argument, and one-line errors for each way a command line goes wrong.
#include "frontend/args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace frontend {
namespace {

const CommandSpec kSpec{"demo",
                        "MODEL DEVICES [--steps N] [--shape S]... [--json] [-o FILE]",
                        "A command for the tests.",
                        {"MODEL", "DEVICES"},
                        {{"--steps", "N", "steps"},
                         {"--shape", "S", "a shape (repeatable)"},
                         {"--json", "", "as JSON"},
                         {"-o", "FILE", "output"}}};

graph::Result<Args> ParseWords(const CommandSpec& spec, std::vector<std::string> words) {
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return Args::Parse(spec, static_cast<int>(argv.size()), argv.data());
}

TEST(Args, FlagsAndArgumentsInAnyOrder) {
  auto a = ParseWords(kSpec, {"--steps", "3", "m.pb", "--shape=x=1", "d.yaml", "--shape", "y=2",
                              "--json", "-o", "out.yaml"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->positional(), (std::vector<std::string>{"m.pb", "d.yaml"}));
  EXPECT_EQ(a->Get("--steps"), "3");
  EXPECT_EQ(a->GetAll("--shape"), (std::vector<std::string>{"x=1", "y=2"}));
  EXPECT_TRUE(a->Has("--json"));
  EXPECT_EQ(a->Get("-o"), "out.yaml");
  EXPECT_FALSE(a->Has("--nothing"));
  EXPECT_EQ(a->Get("--nothing", "dflt"), "dflt");
}

TEST(Args, TheLastOfARepeatedFlagWins) {
  auto a = ParseWords(kSpec, {"m", "d", "--steps", "1", "--steps", "2"});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->Get("--steps"), "2");
}

TEST(Args, EachMistakeIsOneLine) {
  auto unknown = ParseWords(kSpec, {"m", "d", "--frobnicate"});
  EXPECT_EQ(unknown.status().message(), "demo: unknown option '--frobnicate' (see --help)");
  auto missing = ParseWords(kSpec, {"m", "d", "--steps"});
  EXPECT_EQ(missing.status().message(), "demo: --steps needs a value N");
  auto valued = ParseWords(kSpec, {"m", "d", "--json=1"});
  EXPECT_EQ(valued.status().message(), "demo: --json takes no value");
  // An empty inline value never takes the next argument as the flag's.
  auto empty = ParseWords(kSpec, {"--steps=", "m", "d"});
  EXPECT_EQ(empty.status().message(), "demo: --steps needs a value N");
  auto count = ParseWords(kSpec, {"m"});
  EXPECT_EQ(
      count.status().message().rfind("demo: expected 2 argument(s), got 1; usage: planner demo", 0),
      0u)
      << count.status().message();
  auto extra = ParseWords(kSpec, {"m", "d", "e"});
  EXPECT_NE(extra.status().message().find("got 3"), std::string::npos);
  for (const auto& r : {unknown, missing, valued, empty, count, extra}) {
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos) << r.status().message();
  }
}

TEST(Args, HelpIsGeneratedFromTheSpecUnderTheProgramsName) {
  auto h = ParseWords(kSpec, {"--help"});
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->help());
  CommandSpec trainer = kSpec;
  trainer.program = "trainer";
  const std::string text = HelpText(trainer);
  EXPECT_EQ(text.rfind("usage: trainer demo MODEL DEVICES", 0), 0u) << text;
  EXPECT_NE(text.find("--steps N"), std::string::npos) << text;
  EXPECT_NE(text.find("a shape (repeatable)"), std::string::npos) << text;
  CommandSpec bench = kSpec;
  bench.program = "";
  EXPECT_EQ(HelpText(bench).rfind("usage: demo MODEL", 0), 0u);
}

TEST(Args, ACommandThatFollowsIsKeptVerbatim) {
  const CommandSpec launch{
      "launch", "--nproc N COMMAND...", "", {}, {{"--nproc", "N", ""}}, "trainer", true};
  auto a = ParseWords(launch, {"--nproc", "2", "train", "m", "--steps", "5", "--json"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->Get("--nproc"), "2");
  EXPECT_EQ(a->positional(), (std::vector<std::string>{"train", "m", "--steps", "5", "--json"}));
  auto bad = ParseWords(launch, {"--bogus=1", "train"});
  EXPECT_EQ(bad.status().message(), "launch: unknown option '--bogus' (see --help)");
  auto separated = ParseWords(launch, {"--nproc", "2", "--", "train", "m"});
  ASSERT_TRUE(separated.ok()) << separated.status().message();
  EXPECT_EQ(separated->positional(), (std::vector<std::string>{"train", "m"}));
}

TEST(Args, AVariadicLastArgumentTakesZeroOrMore) {
  const CommandSpec spec{"parity", "DIR [MODEL...]", "", {"DIR", "MODEL..."}, {}, ""};
  auto none = ParseWords(spec, {"dir"});
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->positional(), (std::vector<std::string>{"dir"}));
  auto three = ParseWords(spec, {"dir", "a", "b", "c"});
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->positional(), (std::vector<std::string>{"dir", "a", "b", "c"}));
  auto empty = ParseWords(spec, {});
  EXPECT_EQ(empty.status().message().rfind("parity: expected at least 1 argument(s), got 0", 0),
            0u);
}

TEST(Args, TypedReadsNameTheFlagAndRange) {
  auto a = ParseWords(kSpec, {"m", "d", "--steps", "0"});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->GetInt("--steps", 5, 1, 10).status().message(),
            "--steps must be an integer from 1 to 10, got '0'");
  EXPECT_EQ(*a->GetInt("--absent", 5, 1, 10), 5);
  EXPECT_EQ(*a->GetNumber("--absent", 0.5, 0, 1), 0.5);
}

// --budget 1ms was refused as "must be a positive duration", and --refine 0s
// as not 0 although the help says 0 turns it off.
TEST(Args, DurationsTakeMillisecondsAndZeroIsOffInAnyUnit) {
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("--budget", "500ms"), 0.5);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("--budget", "15m"), 900);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("--budget", "90"), 90);
  EXPECT_EQ(ParseDurationSeconds("--budget", "0s").status().message(),
            "--budget must be a positive duration such as 90s, 15m, 2h or 500ms, got '0s'");
  for (const char* off : {"0", "0s", "0m", "0ms"}) {
    EXPECT_EQ(*ParseDurationOrOff("--refine", off), 0) << off;
  }
  EXPECT_DOUBLE_EQ(*ParseDurationOrOff("--refine", "2m"), 120);
  EXPECT_EQ(ParseDurationOrOff("--refine", "-1s").status().message(),
            "--refine must be a duration such as 90s, 15m, 2h or 500ms, or 0 for off, got '-1s'");
  EXPECT_FALSE(ParseDurationOrOff("--refine", "5 minutes").ok());
}

// 99999999999h was taken, and overflowed its callers' whole milliseconds and
// clock time points (a launch's grace deadline wrapped into the past).
TEST(Args, ADurationPast115DaysIsRefusedNamingTheLimit) {
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("--budget", "2777h"), 2777 * 3600.0);
  EXPECT_EQ(ParseDurationSeconds("--grace", "99999999999h").status().message(),
            "--grace must be at most 10000000s (115 days), got '99999999999h'");
  EXPECT_EQ(ParseDurationOrOff("--refine", "1e300s").status().message(),
            "--refine must be at most 10000000s (115 days), got '1e300s'");
}

// access() lets root write anywhere, /proc included, where no file can be
// made: such an output was refused only after the work, its result lost.
TEST(Args, AnOutputWhereNoFileCanBeMadeIsRefusedBeforeTheWork) {
  graph::Status proc = CheckOutputWritable("--trace", "/proc/planner_trace.json");
  EXPECT_FALSE(proc.ok());
  EXPECT_EQ(proc.message().rfind("/proc/planner_trace.json: cannot write --trace output (", 0), 0u)
      << proc.message();
  EXPECT_EQ(CheckOutputWritable("-o", "/nonexistent/dir/p.yaml").message(),
            "/nonexistent/dir/p.yaml: cannot write -o output (directory '/nonexistent/dir' is "
            "missing or not writable)");
  EXPECT_TRUE(CheckOutputWritable("-o", ::testing::TempDir() + "/planner_probe_ok.yaml").ok());
}

}  // namespace
}  // namespace frontend
