// stats_test.cc: the statistics against values worked out by hand. The U test
// values follow the textbook normal approximation that scipy's
// mannwhitneyu(method="asymptotic") uses: U, its mean n1*n2/2, the
// tie-corrected variance, a continuity correction of 0.5, two-sided.

#include "analysis/stats.h"

#include <cmath>

#include "gtest/gtest.h"

namespace analysis {
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
  // U = 10, mean 12.5, variance 22.92: z = 0.418, p = 0.6761
  EXPECT_NEAR(MannWhitneyU({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}), 0.6761, 1e-3);
}

TEST(Stats, MannWhitneyTiesAndEdges) {
  EXPECT_DOUBLE_EQ(MannWhitneyU({5, 5, 5}, {5, 5, 5}), 1.0);
  EXPECT_TRUE(std::isnan(MannWhitneyU({}, {1})));
  // Ranks 1, 3, 3, 6 for the first: U = 3, mean 8; two triples of ties give
  // variance 16/12 * (9 - 48/56) = 10.857: z = 1.366, p = 0.1720
  EXPECT_NEAR(MannWhitneyU({1, 2, 2, 3}, {2, 3, 3, 4}), 0.1720, 1e-3);
}

}  // namespace
}  // namespace analysis
