// bench_results_test.cc: rows counted by outcome, ratios paired by round with
// the right baseline, the median's interval, and the canary's drift.

#include "lib/bench_results.h"

#include "gtest/gtest.h"

namespace spawnlab {
namespace {

nlohmann::json Rep(const std::string& name, int k, double t) {
  return {{"name", name + "/manual_time"}, {"run_name", name + "/manual_time"},
          {"run_type", "iteration"}, {"repetition_index", k}, {"real_time", t},
          {"time_unit", "us"}};
}

nlohmann::json Doc(std::vector<nlohmann::json> rows) {
  return {{"context", nlohmann::json::object()}, {"benchmarks", rows}};
}

TEST(BenchResults, CountsRowsByOutcome) {
  nlohmann::json skipped = {{"name", "x/op:s"}, {"run_name", "x/op:s"}, {"error_occurred", true},
                            {"error_message", "skipped: no"}};
  nlohmann::json failed = {{"name", "x/op:f"}, {"run_name", "x/op:f"}, {"error_occurred", true},
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
  const double t[] = {100, 100, 100, 100, 999, 110, 110, 110, 110};
  for (int k = 0; k < 9; ++k) rows.push_back(Rep("c/op:canary", k, t[k]));
  EXPECT_NEAR(CanaryDriftPct(Doc(rows), "c/op:canary"), 10.0, 1e-9);
  EXPECT_LT(CanaryDriftPct(Doc(rows), "c/op:other"), 0);
  EXPECT_LT(CanaryDriftPct(Doc({Rep("c/op:canary", 0, 1)}), "c/op:canary"), 0);
}

}  // namespace
}  // namespace spawnlab
