// compare_test.cc: compare pairs benchmarks by name, computes the change and
// the U test, warns below 9 repetitions, and summarises with a geometric mean.

#include "analysis/compare.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"

namespace analysis {
namespace {

using ::testing::HasSubstr;

ResultsFile Load(const std::string& rel) {
  absl::StatusOr<std::string> p = spawnlab::Runfile("analysis/testdata/" + rel);
  absl::StatusOr<ResultsFile> f = LoadResultsFile(p.ok() ? *p : rel);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : ResultsFile();
}

TEST(Compare, PairsByNameWithChangeAndUTest) {
  ResultsFile older = Load("good/6.2.0-test-clone3.json");  // fork 1300, vfork 380
  ResultsFile newer = Load("good/6.1.0-test/clone3.json");  // fork 1400, vfork 400
  Comparison c = CompareResults(older, newer);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].name, "spawn/method:fork/child:minimal/parent:minimal/until:exit");
  EXPECT_NEAR(c.rows[0].change, 100.0 / 1300, 1e-9);
  EXPECT_LT(c.rows[0].p_value, 0.05);  // every new sample is above every old one
  EXPECT_NEAR(c.geomean_ratio, std::sqrt(1400.0 / 1300 * 400.0 / 380), 1e-9);
  EXPECT_EQ(c.only_old.size(), 0u);
  EXPECT_GT(c.only_new.size(), 10u);
  std::string text = FormatComparison(c);
  EXPECT_THAT(text, HasSubstr("+7.69%"));
  EXPECT_THAT(text, HasSubstr("(significant)"));
  EXPECT_THAT(text, HasSubstr("Geometric mean"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("fewer than 9")));
}

TEST(Compare, WarnsBelowNineRepetitions) {
  ResultsFile a = Load("good/6.1.0-test/crosscheck.json");  // aggregates only
  Comparison c = CompareResults(a, a);
  EXPECT_FALSE(c.rows.empty());
  EXPECT_TRUE(std::isnan(c.rows[0].p_value));
  EXPECT_DOUBLE_EQ(c.geomean_ratio, 1.0);
  EXPECT_THAT(FormatComparison(c), HasSubstr("fewer than 9 repetitions"));
}

}  // namespace
}  // namespace analysis
