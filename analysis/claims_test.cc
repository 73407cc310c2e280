// claims_test.cc: the ledger's data holds every claim the project tests with
// a valid rule, and each rule kind gives the verdict its definition says, on
// the fixtures and on made-up series.

#include "analysis/claims.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "results_model/stats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "re2/re2.h"
#include "results_model/context_keys.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
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
    absl::StatusOr<ResultsFile> r = LoadResultsFile(Runfile(std::string("analysis/testdata/") + f));
    EXPECT_THAT(r, IsOk()) << r.status();
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
    ASSERT_THAT(c, IsOk()) << c.status();
    claims_ = *c;
  }
  std::vector<Claim> claims_;
};

// Every claim id is well formed (S<source>-<n> for a source's claims, P-<n>
// for the project's own), each source's claims are numbered 1..N with none
// missing, and no (id, part) appears twice. The list itself comes from the
// claims document, which lives outside this repository; with
// SPAWNLAB_CLAIMS_MD set to it (bazel test --test_env=SPAWNLAB_CLAIMS_MD=...)
// the ids are checked against every id the document names.
TEST_F(ClaimsFileTest, IdsAreWellFormedNumberedWithoutGapsAndUnique) {
  static const LazyRE2 kId = {R"((S\d{3}|P)-(\d+))"};
  std::map<std::string, std::set<int>> numbers;
  std::set<std::pair<std::string, std::string>> seen;
  for (const Claim& c : claims_) {
    std::string source;
    int n = 0;
    ASSERT_TRUE(RE2::FullMatch(c.id, *kId, &source, &n)) << c.id;
    numbers[source].insert(n);
    EXPECT_TRUE(seen.insert({c.id, c.part}).second) << "twice: " << c.id << " " << c.part;
  }
  for (const auto& [source, ns] : numbers) {
    EXPECT_EQ(*ns.begin(), 1) << source;
    EXPECT_EQ(*ns.rbegin(), static_cast<int>(ns.size())) << source << ": a claim is missing";
  }
  const char* doc = std::getenv("SPAWNLAB_CLAIMS_MD");
  if (doc == nullptr) return;
  std::ifstream in(doc);
  ASSERT_TRUE(in) << doc;
  std::stringstream text;
  text << in.rdbuf();
  std::set<std::string> in_doc, in_ledger;
  static const LazyRE2 kAnyId = {R"(\b((?:S\d{3}|P)-\d+)\b)"};
  const std::string all = text.str();
  re2::StringPiece rest(all);
  std::string id;
  while (RE2::FindAndConsume(&rest, *kAnyId, &id)) in_doc.insert(id);
  for (const Claim& c : claims_) in_ledger.insert(c.id);
  EXPECT_EQ(in_ledger, in_doc);
}

// The ledger stands on its own: every claim cites its source so that a
// reader with only this repository can find it (a title, an author or a site),
// never a file name from outside it; every claim says what was claimed and
// under which conditions; every rule that gives no measured verdict says why.
TEST_F(ClaimsFileTest, EveryClaimCitesItsSourceAndEveryRuleItsReason) {
  static const LazyRE2 kFileName = {R"(.*\b\d{3}_[0-9a-f]{16}\.txt\b.*)"};
  for (const Claim& c : claims_) {
    EXPECT_FALSE(RE2::FullMatch(c.source, *kFileName)) << c.id << ": " << c.source;
    EXPECT_GE(c.source.size(), 12u) << c.id << ": too short to find: " << c.source;
    EXPECT_FALSE(c.claim.empty()) << c.id;
    EXPECT_FALSE(c.conditions.empty()) << c.id;
    const std::string kind = c.rule["kind"];
    if (kind == "reading" || kind == "pending") {
      EXPECT_GE(c.rule["reason"].get<std::string>().size(), 20u) << c.id;
    } else {
      EXPECT_FALSE(c.experiment.empty()) << c.id;
    }
  }
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
  // fork-exit / vfork-exit from this crosscheck fixture, which has only
  // aggregates: a median alone decides nothing.
  EXPECT_EQ(word("P-3", "fork / vfork, no exec"), "pending");
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
  f.context = {{spawnlab::keys::kExperiment, "x"},
               {"kernel.release", "k"},
               {spawnlab::keys::kQuick, quick ? "true" : "false"}};
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
  c.rule = {{"kind", "ratio"},
            {"numerator", "a/op:slow"},
            {"denominator", "a/op:fast"},
            {"claimed", claimed},
            {"tolerance", 0.25}};
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

// "More than Nx": a lower bound, judged by where the interval lies against
// it, not by a band around an exact figure.
TEST(Rules, ALowerBoundIsReproducedByAnythingAboveIt) {
  auto at_least = [](double bound) {
    Claim c = RatioClaim(bound);
    c.rule["at_least"] = true;
    return c;
  };
  const ResultsFile f = Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}});  // 2x
  Verdict above = Evaluate(at_least(1.5), {f})[0];
  EXPECT_EQ(above.word, "reproduced") << above.reason;
  EXPECT_THAT(above.reason, HasSubstr("claimed at least 1.5x"));
  EXPECT_EQ(Evaluate(at_least(3), {f})[0].word, "direction-only");
  EXPECT_EQ(Evaluate(at_least(2), {f})[0].word, "inconclusive");  // straddles it
  const ResultsFile same = Synthetic({{"a/op:slow", kFast}, {"a/op:fast", kFast}});
  EXPECT_EQ(Evaluate(at_least(3), {same})[0].word, "contradicted");
  auto file = [](const nlohmann::json& rule) {
    return nlohmann::json{{"claims", {{{"id", "T-1"}, {"source", "s"}, {"claim", "c"},
                                       {"conditions", "d"}, {"experiment", "x"}, {"rule", rule}}}}}
        .dump();
  };
  EXPECT_TRUE(ParseClaims(file(at_least(3).rule), "t.json").ok());
  nlohmann::json bad = at_least(3).rule;
  bad["at_least"] = "yes";
  absl::StatusOr<std::vector<Claim>> refused = ParseClaims(file(bad), "t.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("'at_least' is true or false"));
}

TEST(Rules, RatioOutsideToleranceIsDirectionOnly) {
  EXPECT_EQ(
      Evaluate(RatioClaim(10), {Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}})})[0].word,
      "direction-only");
}

TEST(Rules, OppositeDirectionIsContradicted) {
  Verdict v =
      Evaluate(RatioClaim(0.5), {Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}})})[0];
  EXPECT_EQ(v.word, "contradicted");
  EXPECT_THAT(v.reason, HasSubstr("opposite"));
}

// No difference, measured tightly enough to rule out the claimed 1.5x: the
// interval holds 1 and stops short of the band (1.36x to 1.66x).
TEST(Rules, NoDifferenceWhereALargeOneWasClaimedIsContradicted) {
  std::vector<double> same = {101, 99, 100, 102, 98, 100, 97, 103, 100};
  Verdict v =
      Evaluate(RatioClaim(1.5), {Synthetic({{"a/op:slow", same}, {"a/op:fast", kFast}})})[0];
  EXPECT_EQ(v.word, "contradicted") << v.reason;
  EXPECT_THAT(v.reason, HasSubstr("holds no difference"));
  EXPECT_THAT(v.measured, HasSubstr("95% interval"));
}

// A claimed effect far below the noise: the same "no difference" cannot
// contradict a +1.65% claim; the interval (a few % wide) is wider than it.
TEST(Rules, AnEffectBelowTheNoiseIsInconclusive) {
  std::vector<double> noisy = {100, 104, 97, 101, 99, 103, 96, 102, 100};
  Verdict v =
      Evaluate(RatioClaim(1.0165), {Synthetic({{"a/op:slow", noisy}, {"a/op:fast", kFast}})})[0];
  EXPECT_EQ(v.word, "inconclusive") << v.reason;
  EXPECT_THAT(v.reason, HasSubstr("wider than the claimed effect"));
}

// Fewer than 5 repetitions a side decide nothing: with 3 against 3 even a
// perfect separation has p = 0.1.
TEST(Rules, TooFewRepetitionsArePending) {
  Verdict v =
      Evaluate(RatioClaim(2),
               {Synthetic({{"a/op:slow", {200, 201, 202}}, {"a/op:fast", {100, 101, 102}}})})[0];
  EXPECT_EQ(v.word, "pending");
  EXPECT_THAT(v.reason, HasSubstr("needs 5"));
  // Five a side are enough.
  v = Evaluate(RatioClaim(2), {Synthetic({{"a/op:slow", {200, 201, 202, 199, 200}},
                                          {"a/op:fast", {100, 101, 102, 99, 100}}})})[0];
  EXPECT_EQ(v.word, "reproduced") << v.reason;
}

// The band is on the effect, not just the ratio: 25% of a +1.65% effect is a
// band of 1.012x to 1.021x, so an exact 1.25x is direction-only (the old
// ratio rule, |1.25 / 1.0165 - 1| <= 25%, called it reproduced). An exact 1x
// is no difference, not "the opposite direction".
TEST(Rules, TheToleranceIsOnTheEffectAndNoDifferenceIsNotOpposite) {
  Claim c = RatioClaim(1.0165);
  c.rule["metric"] = "counter:n";
  ResultsFile f = Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}});
  f.series[0].counters["n"] = {125, 125, 125};
  f.series[1].counters["n"] = {100, 100, 100};
  Verdict v = Evaluate(c, {f})[0];
  EXPECT_EQ(v.word, "direction-only") << v.reason;
  EXPECT_THAT(v.measured, HasSubstr("exact"));
  f.series[0].counters["n"] = {100, 100, 100};
  c.rule["claimed"] = 2.0;
  v = Evaluate(c, {f})[0];
  EXPECT_EQ(v.word, "contradicted") << v.reason;
  EXPECT_THAT(v.reason, HasSubstr("holds no difference"));
  EXPECT_THAT(v.reason, ::testing::Not(HasSubstr("opposite")));
}

// A counter that varies is tested like a time: its interval, its U test.
TEST(Rules, CountersThatVaryAreTested) {
  Claim c = RatioClaim(2.0);
  c.rule["metric"] = "counter:p99_us";
  ResultsFile f = Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}});
  f.series[0].counters["p99_us"] = {200, 260, 150, 220, 180, 240, 160, 210, 190};
  f.series[1].counters["p99_us"] = {100, 140, 80, 120, 90, 130, 85, 110, 95};
  Verdict v = Evaluate(c, {f})[0];
  EXPECT_THAT(v.measured, HasSubstr("95% interval"));
  EXPECT_THAT(v.measured, HasSubstr("U test"));
  // Too few values of a varying counter: pending.
  f.series[0].counters["p99_us"] = {200, 260};
  f.series[1].counters["p99_us"] = {100, 140};
  EXPECT_EQ(Evaluate(c, {f})[0].word, "pending");
}

// The published figures, not a hand-typed quotient: the ledger computes it.
TEST(Rules, TheClaimedRatioIsComputedFromThePublishedFigures) {
  Claim c = RatioClaim(1);
  c.rule["claimed"] = {{"numerator", 400.0}, {"denominator", 200.0}};
  Verdict v = Evaluate(c, {Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}})})[0];
  EXPECT_EQ(v.word, "reproduced") << v.reason;
  EXPECT_THAT(v.reason, HasSubstr("2x (400 / 200)"));
  EXPECT_THAT(v.rows, HasSubstr("`a/op:slow` / `a/op:fast`"));
}

// The interval is at 95%, the U test's 5% level turned round: a shift with p
// between 0.07 and 0.5 shows no direction, and one with p between 0.01 and
// 0.04 does. (A level moved to 50% would pass every other test here.)
TEST(Rules, TheIntervalIsAtNinetyFivePercent) {
  const std::vector<double> base = {100, 101, 102, 103, 104, 105, 106, 107, 108};
  auto shifted = [&](double by) {
    std::vector<double> out = base;
    for (double& x : out) x += by;
    return out;
  };
  double weak = -1, strong = -1;  // shifts with p in (0.05, 0.5) and (0.01, 0.05)
  for (double by = 0.5; by < 9; by += 0.5) {
    const double p = MannWhitneyU(base, shifted(by));
    if (weak < 0 && p > 0.07 && p < 0.5) weak = by;
    if (strong < 0 && p > 0.01 && p < 0.04) strong = by;
  }
  ASSERT_GT(weak, 0);
  ASSERT_GT(strong, 0);
  Claim c;
  c.id = "T-5";
  c.experiment = "x";
  c.rule = {{"kind", "direction"},
            {"faster", "a/op:fast"},
            {"slower", "a/op:slow"},
            {"negligible", 0.001}};
  Verdict no = Evaluate(c, {Synthetic({{"a/op:slow", shifted(weak)}, {"a/op:fast", base}})})[0];
  EXPECT_EQ(no.word, "inconclusive") << no.measured;
  Verdict yes = Evaluate(c, {Synthetic({{"a/op:slow", shifted(strong)}, {"a/op:fast", base}})})[0];
  EXPECT_EQ(yes.word, "reproduced") << yes.measured;
}

// Rows measured in `processes` processes of `per` repetitions each: process
// k's repetitions sit at base * (1 + 0.02 k), a hair apart within it.
ResultsFile InProcesses(int processes, int per) {
  ResultsFile f = Synthetic({{"a/op:slow", {}}, {"a/op:fast", {}}});
  for (int k = 0; k < processes; ++k) {
    for (int r = 0; r < per; ++r) {
      const double luck = 1 + 0.02 * ((k * 7) % processes);  // a process's own level
      f.series[0].samples_ns.push_back(200 * luck + 0.01 * r);
      f.series[0].processes.push_back(k + 1);
      f.series[1].samples_ns.push_back(100 + 0.01 * r);
      f.series[1].processes.push_back(k + 1);
    }
  }
  return f;
}

// A run made of several processes is judged on each process's median, whose
// spread is the processes' luck; repetitions within a process share it, and
// an interval from them claims more than two runs would bear out.
TEST(Rules, SeveralProcessesAreJudgedOnTheirMedians) {
  ResultsFile by_process = InProcesses(10, 3);
  ResultsFile by_repetition = by_process;
  for (Series& s : by_repetition.series) s.processes.clear();
  const Verdict p = Evaluate(RatioClaim(2.2), {by_process})[0];
  const Verdict r = Evaluate(RatioClaim(2.2), {by_repetition})[0];
  EXPECT_THAT(p.measured, HasSubstr("n = 30 / 30 repetitions in 10 / 10 processes (each "
                                    "process's median a sample)"));
  EXPECT_THAT(r.measured, HasSubstr("n = 30 / 30)"));
  // The interval's width, as printed: "95% interval LOWx–HIGHx".
  auto width = [](const std::string& measured) {
    const size_t at = measured.find("95% interval ");
    double low = 0, high = 0;
    EXPECT_EQ(std::sscanf(measured.c_str() + at, "95%% interval %lfx–%lfx", &low, &high), 2)
        << measured;
    return high - low;
  };
  EXPECT_GT(width(p.measured), width(r.measured)) << p.measured << "\n" << r.measured;
  // Three processes are too few to be the samples: the repetitions are, and
  // the verdict says what that costs.
  const Verdict few = Evaluate(RatioClaim(2.2), {InProcesses(3, 9)})[0];
  EXPECT_THAT(few.measured, HasSubstr("repetitions from 3 processes, too few to be the samples"));
  EXPECT_NE(few.word, "pending") << few.reason;
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

// An absolute claim of experiment x on `rows`: `low_ns` to `high_ns`, within
// 3x, implausible beyond 10x.
Claim AbsoluteClaim(const std::string& id, const std::string& rows, double low_ns,
                    double high_ns) {
  Claim c;
  c.id = id;
  c.experiment = "x";
  c.rule = {{"kind", "absolute"},         {"rows", rows}, {"claimed_low_ns", low_ns},
            {"claimed_high_ns", high_ns}, {"factor", 3},  {"implausible_factor", 10}};
  return c;
}

TEST(Rules, AbsoluteAgainstTheFloor) {
  Claim c = AbsoluteClaim("T-2", "a/op:.*", 1, 2);
  ResultsFile f = Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}});
  Verdict v = Evaluate(c, {f})[0];
  EXPECT_EQ(v.word, "implausible");  // 2 ns claimed, 97 ns floor
  EXPECT_THAT(v.reason, HasSubstr("48x below"));
  c.rule["claimed_low_ns"] = 90.0;
  c.rule["claimed_high_ns"] = 120.0;
  EXPECT_EQ(Evaluate(c, {f})[0].word, "reproduced");
  // Faster here than claimed by more than 3x: not a contradiction.
  c.rule["claimed_low_ns"] = 1000.0;
  c.rule["claimed_high_ns"] = 2000.0;
  v = Evaluate(c, {f})[0];
  EXPECT_EQ(v.word, "inconclusive");  // a median of 100 ns is 10x below 1 us
  EXPECT_THAT(v.reason, HasSubstr("faster here"));
  // Slower here by more than 3x, but the claim is not below the floor.
  c.rule["claimed_low_ns"] = 20.0;
  c.rule["claimed_high_ns"] = 25.0;
  v = Evaluate(c, {f})[0];
  EXPECT_EQ(v.word, "contradicted");
  EXPECT_THAT(v.reason, HasSubstr("slower here"));
  // Agreement is judged on the median, not the minimum: a claim of 33 ns is
  // within 3x of the 97 ns minimum but not of the 100 ns median.
  c.rule["claimed_low_ns"] = 33.0;
  c.rule["claimed_high_ns"] = 33.0;
  EXPECT_EQ(Evaluate(c, {f})[0].word, "contradicted");
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
  EXPECT_THAT(v.reason, HasSubstr("no difference here"));
}

TEST(Rules, DifferenceAgainstAClaimedSaving) {
  Claim c;
  c.id = "T-4";
  c.experiment = "x";
  c.rule = {{"kind", "difference"},
            {"minuend", "a/op:slow"},
            {"subtrahend", "a/op:fast"},
            {"claimed_ns", 120.0},
            {"factor", 3}};
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
  // The difference stands beside the ratio, and the claim's with it when the
  // claim gives both figures (21 against 5 is 16 more; 30 against 15, 15).
  EXPECT_THAT(v.measured, HasSubstr("+15 syscalls"));
  EXPECT_THAT(v.measured, ::testing::Not(HasSubstr("claimed")));
  c.rule["claimed"] = {{"numerator", 21}, {"denominator", 5}};
  EXPECT_THAT(Evaluate(c, {f})[0].measured, ::testing::Not(HasSubstr("claimed")));
  c.rule["claimed_in_counter_unit"] = true;
  EXPECT_THAT(Evaluate(c, {f})[0].measured, HasSubstr("+15 syscalls (claimed +16)"));
  c.rule["metric"] = "counter:missing";
  EXPECT_EQ(Evaluate(c, {f})[0].word, "pending");
}

// A functional claim is judged on a counter's value in every repetition of
// every matching row; one repetition that differs contradicts it, by name.
TEST(Rules, ValueHoldsInEveryRepetitionOfEveryRow) {
  Claim c;
  c.id = "T-2";
  c.experiment = "x";
  c.rule = {{"kind", "value"},
            {"rows", "inherit/method:[a-z]+/cloexec:no"},
            {"metric", "counter:inherited"},
            {"expected", 1}};
  ResultsFile f = Synthetic({{"inherit/method:fork/cloexec:no", kFast},
                             {"inherit/method:vfork/cloexec:no", kFast},
                             {"inherit/method:fork/cloexec:yes", kFast}});
  f.series[0].counters["inherited"] = {1, 1, 1};
  f.series[1].counters["inherited"] = {1, 1, 1};
  f.series[2].counters["inherited"] = {0, 0, 0};
  Verdict v = Evaluate(c, {f})[0];
  EXPECT_EQ(v.word, "reproduced") << v.reason;
  EXPECT_THAT(v.measured, HasSubstr("inherited = 1 in every repetition (6, over 2 rows)"));
  f.series[1].counters["inherited"] = {1, 0, 1};
  v = Evaluate(c, {f})[0];
  EXPECT_EQ(v.word, "contradicted");
  EXPECT_THAT(v.measured, HasSubstr("inherited = 0 in repetition 1 of inherit/method:vfork"));
  c.rule["rows"] = "inherit/method:none/cloexec:no";
  EXPECT_EQ(Evaluate(c, {f})[0].word, "pending");
  c.rule["rows"] = "inherit/method:fork/cloexec:no";
  c.rule["metric"] = "counter:missing";
  EXPECT_EQ(Evaluate(c, {f})[0].word, "pending");
  // Skipped rows are left aside; all skipped is skipped.
  c.rule["metric"] = "counter:inherited";
  f.series[0].skipped = "the kernel lacks it";
  EXPECT_EQ(Evaluate(c, {f})[0].word, "skipped");
}

// A direction on a counter: the row claimed larger must be larger here.
TEST(Rules, DirectionOfACounter) {
  Claim c;
  c.id = "T-3";
  c.experiment = "x";
  c.rule = {{"kind", "direction"},
            {"slower", "a/op:slow"},
            {"faster", "a/op:fast"},
            {"metric", "counter:spread"}};
  ResultsFile f = Synthetic({{"a/op:slow", kFast}, {"a/op:fast", kSlow}});  // times the other way
  f.series[0].counters["spread"] = {18, 15, 20, 17, 19};
  f.series[1].counters["spread"] = {1.1, 1.3, 1.2, 1.0, 1.4};
  Verdict v = Evaluate(c, {f})[0];
  EXPECT_EQ(v.word, "reproduced") << v.reason;
  EXPECT_THAT(v.rows, HasSubstr("claimed larger / smaller spread"));
  std::swap(f.series[0].counters, f.series[1].counters);
  EXPECT_EQ(Evaluate(c, {f})[0].word, "contradicted");
  c.rule["metric"] = "counter:missing";
  EXPECT_EQ(Evaluate(c, {f})[0].word, "pending");
}

TEST(ParseClaims, ASizeNoteIsASentence) {
  const char* text =
      R"({"claims": [{"id": "X-1", "source": "a source", "claim": "c", "conditions": "d",
          "size_differs": 3, "rule": {"kind": "pending", "reason": "not yet, for a reason"}}]})";
  EXPECT_FALSE(ParseClaims(text, "x.json").ok());
}

// A renamed row fails the experiment's report_spec_test: each claim's
// patterns are checked against the rows its bench registers.
TEST(CheckClaimRows, NamesEveryPatternThatPicksTheWrongNumberOfRows) {
  Claim ratio = RatioClaim(2);
  Claim value;
  value.id = "T-4";
  value.experiment = "x";
  value.rule = {
      {"kind", "value"}, {"rows", "a/op:[a-z]+"}, {"metric", "counter:n"}, {"expected", 1}};
  Claim elsewhere = RatioClaim(2);
  elsewhere.experiment = "y";
  const std::vector<Claim> claims = {ratio, value, elsewhere};
  EXPECT_THAT(CheckClaimRows(claims, "x", {"a/op:slow/manual_time", "a/op:fast/iterations:4"}),
              ::testing::IsEmpty());
  const std::vector<std::string> problems = CheckClaimRows(claims, "x", {"a/op:slower"});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_THAT(problems[0], HasSubstr("numerator 'a/op:slow' matches 0 rows of x"));
  EXPECT_THAT(problems[1], HasSubstr("denominator 'a/op:fast' matches 0 rows of x"));
  EXPECT_THAT(CheckClaimRows(claims, "x", {}), ::testing::SizeIs(3));  // and the value's rows
}

// A syscall-bound claim in this machine's unit: 5 µs is 5 null system calls
// of 1 µs, so a claimed 100 ns implies a null system call of 20 ns.
TEST(Rules, AbsoluteInNullSystemCalls) {
  Claim c = AbsoluteClaim("T-5", "a/op:pipe", 100, 100);
  c.rule["null_syscall_row"] = "a/op:null";
  ResultsFile f = Synthetic({{"a/op:pipe", {5000, 5000, 5000}}, {"a/op:null", {1000, 1000, 1000}}});
  const Verdict v = Evaluate(c, {f})[0];
  EXPECT_EQ(v.word, "implausible");
  EXPECT_THAT(v.measured, HasSubstr("5.0 null system calls of this machine (`a/op:null`, 1 µs)"));
  EXPECT_THAT(v.reason, HasSubstr("a null system call would take 20 ns"));
}

// A 2007 bare-metal figure on a kernel that isolates page tables is
// not-testable-here, computed from that run's context, and testable on one
// that does not.
TEST(Rules, TestableWhenTheRunsContextAllows) {
  Claim c = AbsoluteClaim("T-6", "a/op:fast", 90, 120);
  c.rule["testable_when"] = {
      {"context", "mitigation.meltdown"},
      {"matches", "Not affected|Vulnerable.*"},
      {"otherwise", "isolated ({value}); a slow op costs {median:a/op:slow}"}};
  ResultsFile pti = Synthetic({{"a/op:slow", kSlow}, {"a/op:fast", kFast}});
  pti.context["mitigation.meltdown"] = "Mitigation: PTI";
  ResultsFile open_tables = pti;
  open_tables.context["mitigation.meltdown"] = "Not affected";
  open_tables.context["kernel.release"] = "k2";
  ResultsFile unrecorded = pti;
  unrecorded.context.erase("mitigation.meltdown");
  unrecorded.context["kernel.release"] = "k3";
  const std::vector<Verdict> v = Evaluate(c, {pti, open_tables, unrecorded});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].word, "not-testable-here");
  EXPECT_EQ(v[0].reason, "isolated (Mitigation: PTI); a slow op costs 200 ns");
  EXPECT_EQ(v[0].kernel, absl::StrCat("k on ", pti.host()));
  EXPECT_EQ(v[1].word, "reproduced");
  EXPECT_EQ(v[2].word, "not-testable-here");
  EXPECT_THAT(v[2].reason, HasSubstr("isolated (not recorded)"));
}

// This machine's figures come from this machine's results only: the same
// kernel and host, any experiment, no smoke run.
TEST(MachineFacts, FillsEachPlaceholderFromTheSameMachine) {
  ResultsFile here = Synthetic({{"a/op:fast", kFast}});
  here.context["mitigation.meltdown"] = "Not affected";
  ResultsFile here_other_bench = Synthetic({{"b/op:slow", kSlow}});
  ResultsFile elsewhere = Synthetic({{"a/op:fast", kSlow}, {"c/op:x", kSlow}});
  elsewhere.context["kernel.release"] = "other";
  ResultsFile smoke = Synthetic({{"d/op:y", kSlow}}, /*quick=*/true);
  const std::vector<ResultsFile> files = {elsewhere, smoke, here, here_other_bench};
  EXPECT_EQ(MachineFacts("a {median:a/op:fast}, b {median:b/op:slow}, tables "
                         "{context:mitigation.meltdown}; c {median:c/op:x}, d {median:d/op:y}",
                         "k", here.host(), files),
            "a 100 ns, b 200 ns, tables Not affected; c not measured on this machine, d not "
            "measured on this machine");
  EXPECT_EQ(MachineFacts("no placeholder {at all", "k", here.host(), files),
            "no placeholder {at all");
}

TEST(ParseClaims, RejectsAnUnknownPlaceholderOrAnIncompleteTestableWhen) {
  const char* bad[] = {
      R"({"claims": [{"id": "X", "source": "s", "claim": "c", "conditions": "d", "experiment": "e",
          "size_differs": "a {mediam:a/op:x} typo",
          "rule": {"kind": "absolute", "rows": "a", "claimed_low_ns": 1, "claimed_high_ns": 1,
                   "factor": 3, "implausible_factor": 10}}]})",
      R"({"claims": [{"id": "X", "source": "s", "claim": "c", "conditions": "d", "experiment": "e",
          "rule": {"kind": "absolute", "rows": "a", "claimed_low_ns": 1, "claimed_high_ns": 1,
                   "factor": 3, "implausible_factor": 10,
                   "testable_when": {"context": "k", "matches": "("}}}]})",
      R"({"claims": [{"id": "X", "source": "s", "claim": "c", "conditions": "d", "experiment": "e",
          "rule": {"kind": "absolute", "rows": "a", "claimed_low_ns": 1, "claimed_high_ns": 1,
                   "factor": 3, "implausible_factor": 10,
                   "testable_when": {"context": "k", "matches": "x", "otherwise": "{what:x}"}}}]})",
  };
  for (const char* text : bad) {
    absl::StatusOr<std::vector<Claim>> c = ParseClaims(text, "bad.json");
    EXPECT_FALSE(c.ok()) << text;
    EXPECT_THAT(c.status().message(), HasSubstr("bad.json")) << text;
  }
}

TEST(ParseClaims, RejectsBadRules) {
  const char* bad[] = {
      R"({"claims": [{"id": "X", "source": "s", "claim": "c", "conditions": "d", "experiment": "e",
          "rule": {"kind": "ratio", "numerator": "(", "denominator": "a", "claimed": 2, "tolerance": 0.2}}]})",
      R"({"claims": [{"id": "X", "source": "s", "claim": "c", "conditions": "d", "experiment": "e",
          "rule": {"kind": "vibes"}}]})",
      R"({"claims": [{"id": "X", "source": "s", "claim": "c", "conditions": "d", "experiment": "e",
          "rule": {"kind": "value", "rows": "a", "metric": "time", "expected": 1}}]})",
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
}  // namespace spawnlab
