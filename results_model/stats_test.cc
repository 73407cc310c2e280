// stats_test.cc: the statistics against values worked out by hand. The U test
// values follow the textbook normal approximation that scipy's
// mannwhitneyu(method="asymptotic") uses: U, its mean n1*n2/2, the
// tie-corrected variance, a continuity correction of 0.5, two-sided.

#include "results_model/stats.h"

#include <cmath>

#include "gtest/gtest.h"

namespace spawnlab {
namespace {

TEST(Stats, MedianMinMeanStddev) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Min({3, 1, 2}), 1);
  EXPECT_DOUBLE_EQ(Mean({1, 2, 3, 4}), 2.5);
  EXPECT_NEAR(Stddev({2, 4, 4, 4, 5, 5, 7, 9}), 2.138, 1e-3);
  EXPECT_TRUE(std::isnan(Median({})));
  EXPECT_TRUE(std::isnan(Stddev({1})));
}

TEST(Stats, GeometricMean) {
  EXPECT_NEAR(GeometricMean({1, 4}), 2, 1e-12);
  EXPECT_NEAR(GeometricMean({2, 8, 4}), 4, 1e-12);
  EXPECT_TRUE(std::isnan(GeometricMean({1, 0})));
}

TEST(Stats, MannWhitneySeparatedSamplesAreSignificant) {
  // U = 0, mean 40.5, variance 128.25: z = 3.532, p = 0.000412
  std::vector<double> a = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<double> b = {11, 12, 13, 14, 15, 16, 17, 18, 19};
  EXPECT_NEAR(MannWhitneyU(a, b), 0.000412, 1e-6);
  EXPECT_NEAR(MannWhitneyU(b, a), 0.000412, 1e-6);
}

TEST(Stats, MannWhitneyInterleavedSamplesAreNot) {
  // Exact (5 and 5, no ties): 87 of the 252 orderings have U <= 10.
  EXPECT_NEAR(MannWhitneyU({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}), 174.0 / 252, 1e-9);
  // Approximate (9 and 9): U = 36, mean 40.5, variance 128.25: p = 0.7239
  EXPECT_NEAR(MannWhitneyU({1, 3, 5, 7, 9, 11, 13, 15, 17}, {2, 4, 6, 8, 10, 12, 14, 16, 36}),
              0.7239, 1e-3);
}

// Small samples use U's exact distribution: 5 against 5, fully separated, is
// 2 orderings of 252 (p = 0.0079; the normal approximation says 0.012), and
// 3 against 3 can never reach p < 0.05 (2 of 20 orderings: 0.1).
TEST(Stats, MannWhitneySmallSamplesAreExact) {
  EXPECT_NEAR(MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252, 1e-9);
  EXPECT_NEAR(MannWhitneyU({1, 2, 3}, {4, 5, 6}), 0.1, 1e-9);
  // Ties fall back to the approximation.
  EXPECT_NEAR(MannWhitneyU({1, 2, 2, 3}, {2, 3, 3, 4}), 0.1720, 1e-3);
}

// Hodges-Lehmann and the Moses interval, worked out by enumerating the 49
// differences: for 7 against 7 at 95% the interval runs from the 9th smallest
// to the 9th largest (P(U <= 8) = 0.0265 > 0.025 >= P(U <= 7)).
TEST(Stats, BenjaminiHochbergAdjustsForTheNumberOfTests) {
  // m = 4 (the NaN is no test). Sorted: 0.005 0.01 0.03 0.04, times m / rank:
  // 0.02 0.02 0.04 0.04, already non-decreasing.
  std::vector<double> q = BenjaminiHochberg({0.01, 0.04, 0.03, 0.005, std::nan("")});
  ASSERT_EQ(q.size(), 5u);
  EXPECT_NEAR(q[0], 0.02, 1e-12);
  EXPECT_NEAR(q[1], 0.04, 1e-12);
  EXPECT_NEAR(q[2], 0.04, 1e-12);
  EXPECT_NEAR(q[3], 0.02, 1e-12);
  EXPECT_TRUE(std::isnan(q[4]));
}

TEST(Stats, SmallestPValueIsThatOfTwoSeparatedSamples) {
  // Exact below 8 a side: 3 against 3 wholly apart is 1 ordering of C(6, 3)
  // = 20 on each side, p = 2 / 20.
  EXPECT_NEAR(SmallestPValue(3, 3), 0.1, 1e-12);
  // 9 a side goes by the normal approximation: z = (40.5 - 0.5) / sqrt(128.25).
  const double p9 = SmallestPValue(9, 9);
  EXPECT_NEAR(p9, std::erfc(40 / std::sqrt(128.25) / std::sqrt(2.0)), 1e-12);
  // The README's figure: a lone row can be called different among 121 rows
  // tested with 9 repetitions a side, not among 122.
  EXPECT_LT(p9 * 121, 0.05);
  EXPECT_GE(p9 * 122, 0.05);
  EXPECT_LT(SmallestPValue(10, 10), p9);
  EXPECT_TRUE(std::isnan(SmallestPValue(0, 9)));
}

TEST(Stats, BenjaminiHochbergTakesTheLeastFromAbove) {
  // 0.04 * 3 / 1 = 0.12 and 0.045 * 3 / 2 = 0.0675 give way to 0.046 * 3 / 3.
  std::vector<double> q = BenjaminiHochberg({0.045, 0.04, 0.046});
  for (double x : q) EXPECT_NEAR(x, 0.046, 1e-12);
  // Never above 1: 0.8 * 2 / 1 = 1.6 gives way to 0.9.
  q = BenjaminiHochberg({0.9, 0.8});
  EXPECT_NEAR(q[0], 0.9, 1e-12);
  EXPECT_NEAR(q[1], 0.9, 1e-12);
  EXPECT_TRUE(BenjaminiHochberg({}).empty());
}

TEST(Stats, BenjaminiHochbergDoesNotCallOneChanceRowOfTwenty) {
  // One row of 20 at p = 0.03, the others spread above 0.05: a row chance
  // alone gives. Alone it passes p < 0.05; over the 20 it is 0.6.
  std::vector<double> p = {0.03};
  for (int i = 1; i < 20; ++i) p.push_back(0.05 + 0.05 * i);
  std::vector<double> q = BenjaminiHochberg(p);
  EXPECT_NEAR(q[0], 0.6, 1e-12);
  for (double x : q) EXPECT_GE(x, 0.05);
  // A real difference (p = 0.0001) among them is still called.
  p[1] = 0.0001;
  EXPECT_LT(BenjaminiHochberg(p)[1], 0.05);
}

TEST(Stats, ShiftIntervalIsHodgesLehmannWithMosesBounds) {
  const std::vector<double> a = {10.0, 10.5, 11.2, 11.9, 12.4, 13.1, 13.3};
  const std::vector<double> b = {9.0, 9.8, 10.1, 10.7, 11.0, 11.6, 12.2};
  const Interval i = ShiftInterval(a, b);
  EXPECT_NEAR(i.estimate, 1.1, 1e-9);
  EXPECT_NEAR(i.low, -0.4, 1e-9);
  EXPECT_NEAR(i.high, 2.6, 1e-9);
  // Wider at 99%, narrower at 80%.
  EXPECT_LT(ShiftInterval(a, b, 0.99).low, i.low);
  EXPECT_GT(ShiftInterval(a, b, 0.80).low, i.low);
}

TEST(Stats, IntervalsOfSamplesTooSmallAreUnbounded) {
  const Interval i = ShiftInterval({10, 11, 12}, {1, 2, 3});
  EXPECT_NEAR(i.estimate, 9, 1e-9);
  EXPECT_TRUE(std::isinf(i.low) && i.low < 0);
  EXPECT_TRUE(std::isinf(i.high) && i.high > 0);
  EXPECT_TRUE(std::isnan(ShiftInterval({}, {1}).estimate));
}

TEST(Stats, RatioIntervalIsTheShiftOfLogs) {
  // b twice a, every value: the ratio is exactly 2 and so is its interval.
  const std::vector<double> a = {2, 4, 6, 8, 10, 12, 14, 16, 18, 20};
  const std::vector<double> b = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const Interval same = RatioInterval({3, 3, 3, 3, 3}, {1.5, 1.5, 1.5, 1.5, 1.5});
  EXPECT_NEAR(same.estimate, 2, 1e-9);
  EXPECT_NEAR(same.low, 2, 1e-9);
  EXPECT_NEAR(same.high, 2, 1e-9);
  const Interval r = RatioInterval(a, b);
  EXPECT_NEAR(r.estimate, 2, 1e-9);
  EXPECT_LT(r.low, 2);
  EXPECT_GT(r.high, 2);
  // A large sample takes the normal approximation's bounds and still holds
  // the estimate.
  std::vector<double> big_a, big_b;
  for (int i = 0; i < 30; ++i) {
    big_a.push_back(100 + i);
    big_b.push_back(50 + i / 2.0);
  }
  const Interval big = RatioInterval(big_a, big_b);
  EXPECT_LT(big.low, big.estimate);
  EXPECT_GT(big.high, big.estimate);
  EXPECT_GT(big.low, 1.5);
  EXPECT_TRUE(std::isnan(RatioInterval({1, -1}, {1, 2}).estimate));
}

// A count of 0 (a perfectly even spread, an idle worker) is no reason to give
// up the interval: only the order of the pairwise ratios counts, and 0 sorts
// below every positive ratio, as a value just above 0 would.
TEST(Stats, RatioIntervalTakesZeros) {
  const std::vector<double> b = {5, 6, 7, 8, 9, 10, 11, 12, 13};
  const Interval r = RatioInterval({0, 12, 14, 16, 18, 20, 22, 24, 26}, b);
  const Interval near = RatioInterval({1e-9, 12, 14, 16, 18, 20, 22, 24, 26}, b);
  ASSERT_FALSE(std::isnan(r.estimate));
  EXPECT_DOUBLE_EQ(r.estimate, near.estimate);  // the 41st of 81 ratios; 0's 9 are the least
  EXPECT_DOUBLE_EQ(r.low, near.low);
  EXPECT_DOUBLE_EQ(r.high, near.high);
  // Zero against zero is a tie, a ratio of 1; zero against positive values, 0.
  const Interval ties = RatioInterval({0, 0, 0, 0, 0}, {0, 0, 0, 0, 0});
  EXPECT_DOUBLE_EQ(ties.estimate, 1);
  EXPECT_DOUBLE_EQ(ties.low, 1);
  EXPECT_DOUBLE_EQ(ties.high, 1);
  const Interval none = RatioInterval({0, 0, 0, 0, 0}, {1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(none.estimate, 0);
  EXPECT_DOUBLE_EQ(none.high, 0);
}

TEST(Stats, MannWhitneyTiesAndEdges) {
  EXPECT_DOUBLE_EQ(MannWhitneyU({5, 5, 5}, {5, 5, 5}), 1.0);
  EXPECT_TRUE(std::isnan(MannWhitneyU({}, {1})));
  // Ranks 1, 3, 3, 6 for the first: U = 3, mean 8; two triples of ties give
  // variance 16/12 * (9 - 48/56) = 10.857: z = 1.366, p = 0.1720
  EXPECT_NEAR(MannWhitneyU({1, 2, 2, 3}, {2, 3, 3, 4}), 0.1720, 1e-3);
}

}  // namespace
}  // namespace spawnlab
