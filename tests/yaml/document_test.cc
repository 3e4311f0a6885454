// The yaml adapter: parse errors and node errors name "file:line", keys are
// checked once for every file, typed reads refuse what is not their type, and
// what the writer writes reads back.
#include "yaml/document.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace yaml {
namespace {

TEST(YamlDocument, ASyntaxErrorNamesTheFileAndLine) {
  auto r = Parse("a: 1\nb: [1, 2\n", "f.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("f.yaml:", 0), 0u) << r.status().message();
  EXPECT_NE(r.status().message().find("invalid YAML"), std::string::npos);
}

// yaml-cpp's own words for it were "bad file", as if the file could not be read.
TEST(YamlDocument, NestingDeeperThanTheParserGoesSaysSo) {
  auto r = Parse("a: " + std::string(5000, '[') + std::string(5000, ']') + "\n", "f.yaml");
  ASSERT_FALSE(r.ok());
  // The depth is yaml-cpp's (500 in Debian bookworm's 0.7).
  EXPECT_EQ(r.status().message().rfind(
                "f.yaml:1: invalid YAML: nested too deeply (the parser stops at depth ", 0),
            0u)
      << r.status().message();
}

TEST(YamlDocument, SeveralDocumentsAreRefused) {
  auto r = Parse("a: 1\n---\nb: 2\n", "two.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "two.yaml: holds 2 YAML documents; expected one");
}

// yaml-cpp 0.7's LoadAll added an empty document after empty document for a
// file holding only a comma, until memory ran out (jbeder/yaml-cpp#1040). In a
// child killed after 20 s, so that a return of that loop fails the test.
TEST(YamlDocument, AFileHoldingOnlyACommaIsReadAtOnce) {
  EXPECT_EXIT(
      {
        ::alarm(20);
        auto r = Parse(",\n", "comma.yaml");
        std::exit(r.ok() && r->IsNull() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  auto r = Parse(",\n", "comma.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->Error("needs a map").message(), "comma.yaml:1: needs a map");
}

TEST(YamlDocument, AnEmptyFileIsANullNodeNamingTheFile) {
  auto r = Parse("", "empty.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->IsNull());
  EXPECT_EQ(r->Error("needs a map").message(), "empty.yaml: needs a map");
}

TEST(YamlDocument, NodesKnowTheirLine) {
  auto r = Parse("a: 1\nb:\n  c: [x, y]\n", "n.yaml");
  ASSERT_TRUE(r.ok());
  const Node c = r->Get("b").Get("c");
  ASSERT_TRUE(c.IsSequence());
  EXPECT_EQ(c.Line(), 3);
  EXPECT_EQ(c.Where(), "n.yaml:3");
  EXPECT_EQ(c.Items()[1].Scalar(), "y");
  EXPECT_EQ(c.Error("bad").message(), "n.yaml:3: bad");
  EXPECT_TRUE(r->Get("missing").IsNull());
  EXPECT_STREQ(r->Get("b").KindName(), "a map");
}

TEST(YamlDocument, EntriesRefuseARepeatedOrNonScalarKey) {
  auto twice = Parse("a: 1\nb: 2\na: 3\n", "t.yaml");
  ASSERT_TRUE(twice.ok());
  auto e = twice->Entries("top level");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(), "t.yaml:3: top level: duplicate key 'a'");
  // Pairs leave them to the caller.
  EXPECT_EQ(twice->Pairs().size(), 3u);

  auto complex = Parse("? [a, b]\n: 1\n", "c.yaml");
  ASSERT_TRUE(complex.ok());
  auto k = complex->Entries("top level");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("keys must be plain names"), std::string::npos);
}

TEST(YamlDocument, EntriesKeepFileOrder) {
  auto r = Parse("z: 1\na: 2\nm: 3\n", "o.yaml");
  ASSERT_TRUE(r.ok());
  auto e = r->Entries("top level");
  ASSERT_TRUE(e.ok());
  ASSERT_EQ(e->size(), 3u);
  EXPECT_EQ((*e)[0].key, "z");
  EXPECT_EQ((*e)[2].key, "m");
  EXPECT_EQ((*e)[1].key_node.Line(), 2);
}

TEST(YamlDocument, TypedReadsRefuseOtherTypes) {
  auto r = Parse("i: 42\nf: 1.5e-3\ns: fast\nl: [1]\nbig: 99999999999999999999\n", "t.yaml");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Get("i").AsInt(), 42);
  EXPECT_DOUBLE_EQ(*r->Get("f").AsNumber(), 1.5e-3);
  EXPECT_FALSE(r->Get("f").AsInt());
  EXPECT_FALSE(r->Get("s").AsNumber());
  EXPECT_FALSE(r->Get("l").AsInt());
  EXPECT_FALSE(r->Get("big").AsInt());
  EXPECT_EQ(r->Get("l").Scalar(), "");
}

// yaml-cpp read "010" as 8 and "0x100" as 256 where the devices file read 10,
// and took .inf seconds and .nan statistics as numbers.
TEST(YamlDocument, WholeNumbersAreDecimalAndNumbersFinite) {
  auto r = Parse("o: 010\nh: 0x100\np: +7\nn: -3\ninf: .inf\nnan: .nan\nx: 7x\n", "t.yaml");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Get("o").AsInt(), 10);
  EXPECT_FALSE(r->Get("h").AsInt());
  EXPECT_EQ(r->Get("p").AsInt(), 7);
  EXPECT_EQ(r->Get("n").AsInt(), -3);
  EXPECT_FALSE(r->Get("x").AsInt());
  EXPECT_FALSE(r->Get("inf").AsNumber());
  EXPECT_FALSE(r->Get("nan").AsNumber());
  EXPECT_DOUBLE_EQ(*r->Get("o").AsNumber(), 10);
}

TEST(YamlWriter, WhatItWritesReadsBack) {
  Writer w;
  w.Comment("made by a test");
  w.BeginMap();
  w.Pair("name", std::string("a: b"));
  w.DoublePrecision(9);
  w.Pair("seconds", 0.123456789);
  w.Key("inner");
  w.BeginMap();
  w.Pair("x", std::string("1"));
  w.EndMap();
  w.EndMap();
  auto text = w.Text();
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(text->rfind("# made by a test", 0), 0u) << *text;
  auto back = Parse(*text, "w.yaml");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->Get("name").Scalar(), "a: b");
  EXPECT_DOUBLE_EQ(*back->Get("seconds").AsNumber(), 0.123456789);
  EXPECT_EQ(back->Get("inner").Get("x").Scalar(), "1");
}

// A node named "yes" or "1.5" was written plain: yaml-cpp reads it back as a
// string, but PyYAML's safe_load, which the Python scripts beside a placement
// use, read a boolean or a number (and refused "=" and "<<", YAML 1.1's value
// and merge keys). Such names are written double-quoted.
TEST(YamlWriter, StringsAYaml11ReaderWouldTakeForOtherTypesAreQuoted) {
  const std::vector<std::string> names = {"yes",   "On", "~",  "1.5", "0x1F", "007", ".nan",
                                          "1_000", "-3", "+2", "",    "=",    "<<"};
  Writer w;
  w.BeginMap();
  for (const std::string& n : names) w.Pair(n, n);
  w.Pair("conv1/Conv", std::string("gpu0"));
  w.EndMap();
  auto text = w.Text();
  ASSERT_TRUE(text.ok()) << text.status().message();
  for (const std::string& n : names) {
    EXPECT_NE(text->find("\"" + n + "\": \"" + n + "\"\n"), std::string::npos) << n << "\n"
                                                                               << *text;
  }
  EXPECT_NE(text->find("\nconv1/Conv: gpu0\n"), std::string::npos) << *text;
  auto back = Parse(*text, "w.yaml");
  ASSERT_TRUE(back.ok()) << back.status().message();
  for (const std::string& n : names) EXPECT_EQ(back->Get(n).Scalar(), n);
}

}  // namespace
}  // namespace yaml
