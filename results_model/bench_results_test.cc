// bench_results_test.cc: rows counted by outcome, ratios paired by round with
// the right baseline, the median's interval, the canary's drift and spread,
// and the noise a run records of itself.

#include "results_model/bench_results.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "results_model/context_keys.h"

namespace spawnlab {
namespace {

using ::testing::HasSubstr;

nlohmann::json Rep(const std::string& name, int k, double t) {
  return {{"name", name + "/manual_time"},
          {"run_name", name + "/manual_time"},
          {"run_type", "iteration"},
          {"repetition_index", k},
          {"real_time", t},
          {"time_unit", "us"}};
}

nlohmann::json Doc(std::vector<nlohmann::json> rows) {
  return {{"context", nlohmann::json::object()}, {"benchmarks", rows}};
}

TEST(BenchResults, CountsRowsByOutcome) {
  nlohmann::json skipped = {{"name", "x/op:s"},
                            {"run_name", "x/op:s"},
                            {"error_occurred", true},
                            {"error_message", "skipped: no"}};
  nlohmann::json failed = {{"name", "x/op:f"},
                           {"run_name", "x/op:f"},
                           {"error_occurred", true},
                           {"error_message", "INTERNAL: broke"}};
  RowCounts c = CountRows(Doc({Rep("x/op:a", 0, 1), Rep("x/op:a", 1, 1), skipped, failed}));
  EXPECT_EQ(c.measured, 1);
  EXPECT_EQ(c.skipped, 1);
  EXPECT_EQ(c.failed, 1);
  EXPECT_EQ(CountRows(nlohmann::json::array()).measured, 0);
}

TEST(BenchResults, RatiosArePairedWithinARoundAgainstTheRightBaseline) {
  // Round 1 is twice as slow for every row: the paired ratio does not move.
  nlohmann::json doc = Doc({
      Rep("s/method:vfork/p:a", 0, 10), Rep("s/method:vfork/p:a", 1, 20),
      Rep("s/method:fork/p:a", 0, 30), Rep("s/method:fork/p:a", 1, 60),
      Rep("s/method:clone3/p:a", 0, 11), Rep("s/method:clone3/p:a", 1, 22),
      Rep("s/method:clone/p:a", 0, 12), Rep("s/method:clone/p:a", 1, 24),
      Rep("s/method:fork/p:b", 0, 5),  // no vfork row at p:b: no ratio
  });
  std::vector<PairedRatio> r = PairedRatios(doc, {"method", "vfork"});
  ASSERT_EQ(r.size(), 3u);
  std::map<std::string, PairedRatio> by;
  for (const PairedRatio& p : r) by[p.row] = p;
  EXPECT_DOUBLE_EQ(by["s/method:fork/p:a"].median, 3.0);
  EXPECT_EQ(by["s/method:fork/p:a"].baseline, "s/method:vfork/p:a");
  EXPECT_EQ(by["s/method:fork/p:a"].rounds, 2);
  // "method:clone" is not a prefix match of "method:clone3".
  EXPECT_NEAR(by["s/method:clone/p:a"].median, 1.2, 1e-12);
  EXPECT_NEAR(by["s/method:clone3/p:a"].median, 1.1, 1e-12);
}

// A bench's answer's rows (RatioBaseline::rows) limit its key ratios: a row
// outside them has none, even where its baseline row is in them; a pattern
// that does not compile limits nothing.
TEST(BenchResults, KeyRatiosAreTheAnswersRowsWhereTheyAreNamed) {
  nlohmann::json doc = Doc({
      Rep("s/method:vfork/p:a", 0, 10),
      Rep("s/method:fork/p:a", 0, 30),
      Rep("s/method:vfork/p:b", 0, 10),
      Rep("s/method:fork/p:b", 0, 20),
      Rep("s/method:clone/p:a", 0, 11),
  });
  std::vector<PairedRatio> r = PairedRatios(doc, {"method", "vfork", "^s/method:[a-z]+/p:a"});
  std::set<std::string> rows;
  for (const PairedRatio& p : r) rows.insert(p.row);
  EXPECT_EQ(rows, (std::set<std::string>{"s/method:fork/p:a", "s/method:clone/p:a"}));
  // The row matches, its baseline does not: no ratio.
  EXPECT_TRUE(PairedRatios(doc, {"method", "vfork", "method:fork"}).empty());
  EXPECT_EQ(PairedRatios(doc, {"method", "vfork", "(unclosed"}).size(), 3u);
}

TEST(BenchResults, MedianIntervalUsesOrderStatistics) {
  // n = 9: the 2nd and 8th values (coverage 96.1%).
  auto [lo, hi] = MedianInterval({9, 1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(lo, 2);
  EXPECT_EQ(hi, 8);
  // n = 5: too few for anything narrower than the range.
  std::tie(lo, hi) = MedianInterval({5, 1, 3, 2, 4});
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 5);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
}

TEST(BenchResults, CanaryDriftComparesTheLastHalfWithTheFirst) {
  std::vector<nlohmann::json> rows;
  // Medians of each half, not the ends: the first half's median is 100, the
  // last half's 111 (an outlier of 300 in the last round moves neither).
  const double t[] = {100, 104, 96, 100, 999, 108, 112, 110, 300};
  for (int k = 0; k < 9; ++k) rows.push_back(Rep("c/op:canary", k, t[k]));
  EXPECT_NEAR(CanaryDriftPct(ResultsOf(Doc(rows)), "c/op:canary"), 11.0, 1e-9);
  EXPECT_LT(CanaryDriftPct(ResultsOf(Doc(rows)), "c/op:other"), 0);
  // Four rounds are the fewest with two a side; three are too few.
  std::vector<nlohmann::json> four, three;
  for (int k = 0; k < 4; ++k) four.push_back(Rep("c/op:canary", k, k < 2 ? 100 : 110));
  EXPECT_NEAR(CanaryDriftPct(ResultsOf(Doc(four)), "c/op:canary"), 10.0, 1e-9);
  for (int k = 0; k < 3; ++k) three.push_back(Rep("c/op:canary", k, k < 1 ? 100 : 110));
  EXPECT_LT(CanaryDriftPct(ResultsOf(Doc(three)), "c/op:canary"), 0);
}

TEST(BenchResults, CanarySpreadSetsTheSlowestQuarterAgainstTheFastest) {
  // Nine rounds, sorted 100 101 102 103 104 105 [120] 150 160: the 7th of 9
  // is 20% above the fastest, though both halves' medians are alike.
  std::vector<nlohmann::json> rows;
  const double t[] = {150, 101, 102, 120, 103, 160, 104, 105, 100};
  for (int k = 0; k < 9; ++k) rows.push_back(Rep("c/op:canary", k, t[k]));
  EXPECT_NEAR(CanarySpreadPct(ResultsOf(Doc(rows)), "c/op:canary"), 20.0, 1e-9);
  EXPECT_LT(CanarySpreadPct(ResultsOf(Doc(rows)), "c/op:other"), 0);
  // Two slow rounds of nine are under a quarter: the spread stays small.
  std::vector<nlohmann::json> two;
  const double u[] = {100, 101, 102, 103, 104, 105, 106, 150, 160};
  for (int k = 0; k < 9; ++k) two.push_back(Rep("c/op:canary", k, u[k]));
  EXPECT_NEAR(CanarySpreadPct(ResultsOf(Doc(two)), "c/op:canary"), 6.0, 1e-9);
  std::vector<nlohmann::json> three;
  for (int k = 0; k < 3; ++k) three.push_back(Rep("c/op:canary", k, 100 + k));
  EXPECT_LT(CanarySpreadPct(ResultsOf(Doc(three)), "c/op:canary"), 0);
}

TEST(BenchResults, RecordNoiseWritesTheCanaryAndTheVerdict) {
  std::vector<nlohmann::json> rows;
  const double t[] = {150, 101, 102, 120, 103, 160, 104, 105, 100};
  for (int k = 0; k < 9; ++k) rows.push_back(Rep("c/op:canary", k, t[k]));
  nlohmann::json doc = Doc(rows);
  doc["context"]["run.other_cpu_cores"] = "0.01";
  doc["context"]["run.steal_pct"] = "0.0";
  RecordNoise(doc, "c/op:canary");
  const nlohmann::json& c = doc["context"];
  EXPECT_EQ(c[keys::kCanaryRow], "c/op:canary");
  EXPECT_EQ(c[keys::kCanarySpreadPct], "20.00");
  EXPECT_EQ(c[keys::kCanarySeries], "150 101 102 120 103 160 104 105 100");
  EXPECT_THAT(c["run.noisy"].get<std::string>(),
              HasSubstr("slowest quarter of rounds ran 20.0% above its fastest"));

  // A canary the filter left out: said so, and the verdict from the machine.
  nlohmann::json missing = Doc(rows);
  missing["context"]["run.other_cpu_cores"] = "0.5";
  RecordNoise(missing, "c/op:other");
  EXPECT_THAT(missing["context"][keys::kCanaryDriftPct].get<std::string>(),
              HasSubstr("did not run"));
  EXPECT_FALSE(missing["context"].contains(keys::kCanarySeries));
  EXPECT_THAT(missing["context"]["run.noisy"].get<std::string>(),
              HasSubstr("other processes used 0.50 cores"));

  // No canary at all: only the verdict.
  nlohmann::json none = Doc(rows);
  RecordNoise(none, "");
  EXPECT_FALSE(none["context"].contains(keys::kCanaryRow));
  EXPECT_EQ(none["context"]["run.noisy"], "no");
}

TEST(BenchResults, MergeRoundsMakesRepetitionsAndAggregatesInTheNaturalOrder) {
  // Two rounds, rows in a different order in each; one row skipped.
  nlohmann::json b1 = Rep("s/op:b", 0, 30);
  b1["mappings"] = 10;
  nlohmann::json b2 = Rep("s/op:b", 0, 10);
  b2["mappings"] = 10;
  nlohmann::json skipped = {{"name", "s/op:c"},
                            {"run_name", "s/op:c"},
                            {"run_type", "iteration"},
                            {"error_occurred", true},
                            {"error_message", "skipped: no"}};
  nlohmann::json doc = Doc({b1, Rep("s/op:a", 0, 1), skipped, Rep("s/op:a", 0, 3), b2, skipped});
  MergeRounds(doc, {"s/op:a", "s/op:b", "s/op:c"});
  const nlohmann::json& rows = doc["benchmarks"];
  // a: 2 repetitions + 5 aggregates; b: the same; c: one skipped row.
  ASSERT_EQ(rows.size(), 15u);
  EXPECT_EQ(rows[0]["run_name"], "s/op:a/manual_time");
  EXPECT_EQ(rows[0]["repetition_index"], 0);
  EXPECT_EQ(rows[1]["repetition_index"], 1);
  EXPECT_EQ(rows[1]["real_time"], 3);
  EXPECT_EQ(rows[0]["family_index"], 0);
  EXPECT_EQ(rows[7]["run_name"], "s/op:b/manual_time");
  EXPECT_EQ(rows[7]["family_index"], 1);
  std::map<std::string, nlohmann::json> agg;
  for (const nlohmann::json& r : rows) {
    if (r.value("run_type", "") == "aggregate" && r["run_name"] == "s/op:b/manual_time") {
      agg[r["aggregate_name"]] = r;
    }
  }
  EXPECT_DOUBLE_EQ(agg["median"]["real_time"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(agg["min"]["real_time"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(agg["mean"]["real_time"].get<double>(), 20);
  EXPECT_NEAR(agg["cv"]["real_time"].get<double>(), std::sqrt(200.0) / 20, 1e-12);
  EXPECT_EQ(agg["cv"]["aggregate_unit"], "percentage");
  EXPECT_DOUBLE_EQ(agg["median"]["mappings"].get<double>(), 10);
  EXPECT_EQ(rows[14]["error_message"], "skipped: no");
  RowCounts c = CountRows(doc);
  EXPECT_EQ(c.measured, 2);
  EXPECT_EQ(c.skipped, 1);
  // Paired by round after the merge: b/a = 30/1 and 10/3.
  std::vector<PairedRatio> r = PairedRatios(doc, {"op", "a"});
  ASSERT_EQ(r.size(), 1u);  // c has no times
  EXPECT_DOUBLE_EQ(r[0].median, (30.0 + 10.0 / 3) / 2);
}

TEST(BenchResults, MergeProcessesKeepsEachProcesssRoundsInOrderAndNamesItsProcess) {
  // Two processes of two rounds each, rows in the order each registered them.
  nlohmann::json p1 = Doc({Rep("s/op:a", 0, 1), Rep("s/op:b", 0, 10), Rep("s/op:a", 1, 2),
                           Rep("s/op:b", 1, 20)});
  p1["context"]["run.seconds"] = "1.0";
  for (nlohmann::json& r : p1["benchmarks"]) r["family_index"] = r["run_name"] == "s/op:a/manual_time" ? 0 : 1;
  nlohmann::json p2 = Doc({Rep("s/op:b", 1, 40), Rep("s/op:a", 0, 3), Rep("s/op:b", 0, 30),
                           Rep("s/op:a", 1, 4)});
  for (nlohmann::json& r : p2["benchmarks"]) r["family_index"] = r["run_name"] == "s/op:a/manual_time" ? 0 : 1;
  nlohmann::json doc = MergeProcesses({p1, p2});
  EXPECT_EQ(doc["context"]["run.seconds"], "1.0");  // the first's, for the caller to rewrite
  std::vector<double> a, b;
  std::vector<int> a_process;
  for (const nlohmann::json& r : doc["benchmarks"]) {
    if (r.value("run_type", "") != "iteration") continue;
    if (r["run_name"] == "s/op:a/manual_time") {
      EXPECT_EQ(r["repetition_index"], static_cast<int>(a.size()));
      a.push_back(r["real_time"]);
      a_process.push_back(r[std::string(kProcessField)]);
    } else {
      b.push_back(r["real_time"]);
    }
  }
  EXPECT_EQ(a, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(b, (std::vector<double>{10, 20, 30, 40}));
  EXPECT_EQ(a_process, (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(doc["benchmarks"][0]["run_name"], "s/op:a/manual_time");  // the registered order
  // The process is no counter: the aggregates carry none.
  for (const nlohmann::json& r : doc["benchmarks"]) {
    if (r.value("run_type", "") == "aggregate") {
      EXPECT_FALSE(r.contains(std::string(kProcessField))) << r;
    }
  }
  // Paired by round across the whole run: b/a is 10 in every round.
  std::vector<PairedRatio> r = PairedRatios(doc, {"op", "a"});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].rounds, 4);
  EXPECT_DOUBLE_EQ(r[0].median, 10);
}

}  // namespace
}  // namespace spawnlab
