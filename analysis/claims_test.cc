// claims_test.cc: the ledger's data holds every claim of shared/claims.md with
// a valid rule, and each rule kind gives the verdict its definition says, on
// the fixtures and on made-up series.

#include "analysis/claims.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"

namespace analysis {
namespace {

using ::testing::HasSubstr;

std::string Runfile(const std::string& rel) {
  absl::StatusOr<std::string> p = spawnlab::Runfile(rel);
  return p.ok() ? *p : rel;
}

std::vector<ResultsFile> Fixtures() {
  std::vector<ResultsFile> files;
  for (const char* f : {"good/6.1.0-test/clone3.json", "good/6.1.0-test/crosscheck.json"}) {
    absl::StatusOr<ResultsFile> r =
        LoadResultsFile(Runfile(std::string("analysis/testdata/") + f));
    EXPECT_TRUE(r.ok()) << r.status();
    if (r.ok()) files.push_back(*r);
  }
  return files;
}

const Claim& Find(const std::vector<Claim>& claims, const std::string& id,
                  const std::string& part = "") {
  for (const Claim& c : claims) {
    if (c.id == id && (part.empty() || c.part == part)) return c;
  }
  static const Claim none;
  ADD_FAILURE() << "no claim " << id << " " << part;
  return none;
}

class ClaimsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::vector<Claim>> c = LoadClaims(Runfile("analysis/claims.json"));
    ASSERT_TRUE(c.ok()) << c.status();
    claims_ = *c;
  }
  std::vector<Claim> claims_;
};

TEST_F(ClaimsFileTest, HoldsEveryClaimOfTheSharedList) {
  // The ids of shared/claims.md.
  const std::set<std::string> expected = {
      "S000-1", "S000-2", "S000-3", "S000-4", "S000-5", "S001-1", "S001-2", "S001-3",
      "S001-4", "S001-5", "S001-6", "S001-7", "S001-8", "S001-9", "S001-10", "S001-11",
      "S002-1", "S002-2", "S004-1", "S004-2", "S004-3", "P-1",   "P-2",    "P-3",
      "P-4",    "P-5",    "P-6",    "P-7",    "P-8",    "P-9"};
  std::set<std::string> ids;
  for (const Claim& c : claims_) ids.insert(c.id);
  EXPECT_EQ(ids, expected);
}

TEST_F(ClaimsFileTest, EveryVerdictIsAKnownWord) {
  const std::vector<std::string>& words = VerdictWords();
  for (const Claim& c : claims_) {
    for (const Verdict& v : Evaluate(c, Fixtures())) {
      EXPECT_NE(std::find(words.begin(), words.end(), v.word), words.end()) << c.id << v.word;
      EXPECT_FALSE(v.reason.empty()) << c.id;
    }
  }
}

TEST_F(ClaimsFileTest, VerdictsOnTheFixtures) {
  const std::vector<ResultsFile> files = Fixtures();
  auto word = [&](const char* id, const char* part) {
    std::vector<Verdict> v = Evaluate(Find(claims_, id, part), files);
    return v.empty() ? std::string() : v[0].word;
  };
  // posix_spawn 600 -> 630 us (flat), fork 1.4 -> 56 ms (grows).
  EXPECT_EQ(word("P-1", "the shape: flat vs growing"), "reproduced");
  // fork+exec / vfork+exec = 3.5x against the claimed 1.26x.
  EXPECT_EQ(word("P-3", "fork+exec / vfork+exec"), "direction-only");
  // fork-exit / vfork-exit from crosscheck, which has no repetitions.
  EXPECT_EQ(word("P-3", "fork / vfork, no exec"), "direction-only");
  // 347 ns against a floor of 310 us.
  EXPECT_EQ(word("S000-1", "347 ns vs the spawn floor"), "implausible");
  // 8-15 ms against a floor of 6.3 ms: within the 3x allowed for hardware.
  EXPECT_EQ(word("S001-9", ""), "reproduced");
  EXPECT_EQ(word("S001-4", ""), "contradicted");
  EXPECT_EQ(word("S001-1", ""), "inconsistent");
  EXPECT_EQ(word("S002-1", ""), "pending");
  EXPECT_EQ(word("S000-4", ""), "pending");
}

// A file with one series per (name, samples).
ResultsFile Synthetic(std::vector<std::pair<std::string, std::vector<double>>> rows,
                      bool quick = false) {
  ResultsFile f;
  f.path = "synthetic.json";
  f.context = {{"spawnlab.experiment", "x"}, {"kernel.release", "k"},
               {"spawnlab.quick", quick ? "true" : "false"}};
  for (auto& [name, samples] : rows) {
    Series s;
    s.name = name;
    s.parsed = *spawnlab::ParseBenchName(name);
    s.samples_ns = samples;
    f.series.push_back(s);
  }
  return f;
}

Claim RatioClaim(double claimed) {
  Claim c;
  c.id = "T-1";
  c.experiment = "x";
  c.rule = {{"kind", "ratio"}, {"numerator", "a/op:slow"}, {"denominator", "a/op:fast"},
            {"claimed", claimed}, {"tolerance", 0.25}};
  return c;
}

const std::vector<double> kFast = {100, 101, 99, 102, 98, 100, 103, 97, 100};
const std::vector<double> kSlow = {200, 202, 198, 204, 196, 200, 206, 194, 200};

TEST(Rules, RatioWithinToleranceIsReproduced) {
  std::vector<Verdict> v =
      Evaluate(RatioClaim(2.2), {Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}})});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].word, "reproduced") << v[0].reason;
  EXPECT_THAT(v[0].measured, HasSubstr("2x"));
}

TEST(Rules, RatioOutsideToleranceIsDirectionOnly) {
  EXPECT_EQ(Evaluate(RatioClaim(10),
                     {Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}})})[0].word,
            "direction-only");
}

TEST(Rules, OppositeDirectionIsContradicted) {
  Verdict v = Evaluate(RatioClaim(0.5),
                       {Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}})})[0];
  EXPECT_EQ(v.word, "contradicted");
  EXPECT_THAT(v.reason, HasSubstr("opposite"));
}

TEST(Rules, NoSignificantDifferenceIsContradicted) {
  std::vector<double> same = {101, 99, 100, 102, 98, 100, 97, 103, 100};
  Verdict v = Evaluate(RatioClaim(1.5),
                       {Synthetic({{"a/op:slow", same}, {"a/op:fast", kFast}})})[0];
  EXPECT_EQ(v.word, "contradicted");
  EXPECT_THAT(v.reason, HasSubstr("no significant difference"));
}

TEST(Rules, SkippedRowsGiveSkippedWithTheReason) {
  ResultsFile f = Synthetic({{"a/op:slow", {}}, {"a/op:fast", kFast}});
  f.series[0].skipped = "frob: the kernel lacks it";
  Verdict v = Evaluate(RatioClaim(2), {f})[0];
  EXPECT_EQ(v.word, "skipped");
  EXPECT_THAT(v.reason, HasSubstr("the kernel lacks it"));
}

TEST(Rules, MissingRowsOrExperimentArePending) {
  EXPECT_EQ(Evaluate(RatioClaim(2), {Synthetic({{"a/op:fast", kFast}})})[0].word, "pending");
  EXPECT_EQ(Evaluate(RatioClaim(2), {})[0].word, "pending");
}

TEST(Rules, QuickRunsAreNoEvidence) {
  std::vector<Verdict> v = Evaluate(
      RatioClaim(2), {Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}}, /*quick=*/true)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].word, "pending");
}

TEST(Rules, AbsoluteAgainstTheFloor) {
  Claim c;
  c.id = "T-2";
  c.experiment = "x";
  c.rule = {{"kind", "absolute"}, {"rows", "a/op:.*"}, {"claimed_low_ns", 1.0},
            {"claimed_high_ns", 2.0}, {"factor", 3}, {"implausible_factor", 10}};
  ResultsFile f = Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}});
  Verdict v = Evaluate(c, {f})[0];
  EXPECT_EQ(v.word, "implausible");  // 2 ns claimed, 97 ns floor
  EXPECT_THAT(v.reason, HasSubstr("48x below"));
  c.rule["claimed_low_ns"] = 90.0;
  c.rule["claimed_high_ns"] = 120.0;
  EXPECT_EQ(Evaluate(c, {f})[0].word, "reproduced");
  c.rule["claimed_low_ns"] = 1000.0;
  c.rule["claimed_high_ns"] = 2000.0;
  EXPECT_EQ(Evaluate(c, {f})[0].word, "contradicted");  // 97 ns is 10x below 1 us
}

TEST(Rules, DirectionNeedsASignificantDifference) {
  Claim c;
  c.id = "T-3";
  c.experiment = "x";
  c.rule = {{"kind", "direction"}, {"faster", "a/op:fast"}, {"slower", "a/op:slow"}};
  ResultsFile f = Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}});
  EXPECT_EQ(Evaluate(c, {f})[0].word, "reproduced");
  c.rule["faster"] = "a/op:slow";
  c.rule["slower"] = "a/op:fast";
  EXPECT_EQ(Evaluate(c, {f})[0].word, "contradicted");
  ResultsFile same = Synthetic({{"a/op:slow", kFast}, {"a/op:fast", kFast}});
  Verdict v = Evaluate(c, {same})[0];
  EXPECT_EQ(v.word, "contradicted");
  EXPECT_THAT(v.reason, HasSubstr("no significant difference"));
}

TEST(Rules, DifferenceAgainstAClaimedSaving) {
  Claim c;
  c.id = "T-4";
  c.experiment = "x";
  c.rule = {{"kind", "difference"}, {"minuend", "a/op:slow"}, {"subtrahend", "a/op:fast"},
            {"claimed_ns", 120.0}, {"factor", 3}};
  ResultsFile f = Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}});
  EXPECT_EQ(Evaluate(c, {f})[0].word, "reproduced");  // saves 100 ns
  c.rule["claimed_ns"] = 1000.0;
  EXPECT_EQ(Evaluate(c, {f})[0].word, "direction-only");
  c.rule["minuend"] = "a/op:fast";
  c.rule["subtrahend"] = "a/op:slow";
  EXPECT_EQ(Evaluate(c, {f})[0].word, "contradicted");
}

TEST(Rules, RatioOfACounter) {
  Claim c = RatioClaim(4.0);
  c.rule["metric"] = "counter:syscalls";
  ResultsFile f = Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}});
  f.series[0].counters["syscalls"] = {30, 30};
  f.series[1].counters["syscalls"] = {15, 15};
  Verdict v = Evaluate(c, {f})[0];
  EXPECT_EQ(v.word, "direction-only") << v.reason;  // 2x against 4x
  EXPECT_THAT(v.measured, HasSubstr("30 / 15"));
  c.rule["metric"] = "counter:missing";
  EXPECT_EQ(Evaluate(c, {f})[0].word, "pending");
}

TEST(ParseClaims, RejectsBadRules) {
  const char* bad[] = {
      R"({"claims": [{"id": "X", "source": "s", "claim": "c", "conditions": "d", "experiment": "e",
          "rule": {"kind": "ratio", "numerator": "(", "denominator": "a", "claimed": 2, "tolerance": 0.2}}]})",
      R"({"claims": [{"id": "X", "source": "s", "claim": "c", "conditions": "d", "experiment": "e",
          "rule": {"kind": "vibes"}}]})",
      R"({"claims": [{"id": "X", "source": "s", "claim": "c", "conditions": "d",
          "rule": {"kind": "reading", "verdict": "reproduced-ish", "reason": "r"}}]})",
      R"({"claims": [{"id": "X", "claim": "c", "conditions": "d", "rule": {"kind": "pending", "reason": "r"}}]})",
      R"({"claims": [{"id": "X", "source": "s", "claim": "c", "conditions": "d",
          "rule": {"kind": "ratio", "numerator": "a", "denominator": "b", "claimed": 2, "tolerance": 0.2}}]})",
      R"({"claims": {}})",
      "not json",
  };
  for (const char* text : bad) {
    absl::StatusOr<std::vector<Claim>> c = ParseClaims(text, "bad.json");
    EXPECT_FALSE(c.ok()) << text;
    EXPECT_THAT(c.status().message(), HasSubstr("bad.json")) << text;
  }
}

TEST(FormatNanos, PicksAUnit) {
  EXPECT_EQ(FormatNanos(12.5), "12.5 ns");
  EXPECT_EQ(FormatNanos(1500), "1.5 µs");
  EXPECT_EQ(FormatNanos(2.5e6), "2.5 ms");
  EXPECT_EQ(FormatNanos(3e9), "3 s");
}

}  // namespace
}  // namespace analysis
