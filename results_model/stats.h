// stats.h: the few statistics the analysis needs, on plain vectors: order
// statistics, compare.py's U test, the Benjamini-Hochberg adjustment for many
// rows, and Hodges-Lehmann estimates with their distribution-free intervals.
//
//   double p = spawnlab::MannWhitneyU(old_samples, new_samples);
//   std::vector<double> q = spawnlab::BenjaminiHochberg({p, p_row2, p_row3});
//   spawnlab::Interval r = spawnlab::RatioInterval(new_samples, old_samples);
//   // r.estimate, r.low, r.high: the ratio and its 95% interval

#ifndef SPAWNLAB_RESULTS_MODEL_STATS_H_
#define SPAWNLAB_RESULTS_MODEL_STATS_H_

#include <cstddef>
#include <vector>

namespace spawnlab {

// Each is NaN for an empty input (Stddev: fewer than two values).
double Median(std::vector<double> v);
double Min(const std::vector<double>& v);
double Mean(const std::vector<double>& v);
double Stddev(const std::vector<double>& v);         // sample standard deviation
double GeometricMean(const std::vector<double>& v);  // of positive values

// The ratio of each round's `num` to the same round's `den` (repetition k of
// every row of a bench ran in round k, so the ratio cancels the machine's drift
// between rounds), for the rounds both have, finite and with den > 0; sorted.
std::vector<double> RoundRatios(const std::vector<double>& num, const std::vector<double>& den);

// Two-sided p-value that `a` and `b` come from the same distribution; NaN if
// either is empty. 1 when every value is tied. Computed as compare.py does,
// with scipy's mannwhitneyu defaults: the exact distribution of U when a
// sample has fewer than 8 values and none are tied, else the normal
// approximation with tie and continuity corrections.
double MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

// The smallest p-value MannWhitneyU gives for samples of n1 and n2 values
// (no tie, one wholly below the other); NaN if either is 0. With 9 a side it
// is about 0.0004, so in a table of more than 121 rows tested a lone changed
// row cannot reach q < 0.05 (BenjaminiHochberg multiplies its p by the rows).
double SmallestPValue(size_t n1, size_t n2);

// The Benjamini-Hochberg adjusted p-values, in the order given: for the k-th
// smallest of m p-values, the least over j >= k of p_(j) * m / j, at most 1.
// A NaN is no test: it stays NaN and does not count in m. A row whose q is
// below 0.05 is different at a 5% false discovery rate, where p < 0.05 a row
// would call one row in twenty different between two runs of identical code
// (Benjamini and Hochberg, 1995).
std::vector<double> BenjaminiHochberg(const std::vector<double>& p);

// An estimate and its confidence interval. A sample too small for the
// confidence asked has low = -inf (0 for a ratio) and high = +inf; every field
// is NaN for an empty input.
struct Interval {
  double estimate;
  double low;
  double high;
};

// The shift a - b and its interval: the Hodges-Lehmann estimate (the median
// of all pairwise differences) and the confidence interval that inverts the
// same U test (Moses; Hollander and Wolfe, 3.2).
Interval ShiftInterval(const std::vector<double>& a, const std::vector<double>& b,
                       double confidence = 0.95);
// The ratio a / b of non-negative samples: ShiftInterval on logs,
// exponentiated. A zero against a positive value is a ratio of 0 (or
// +inf), against a zero a tie (1); a negative sample makes every field NaN.
Interval RatioInterval(const std::vector<double>& a, const std::vector<double>& b,
                       double confidence = 0.95);

// The repetitions compare.py asks for before it trusts the U test.
inline constexpr int kMinRepetitionsForUTest = 9;

}  // namespace spawnlab

#endif  // SPAWNLAB_RESULTS_MODEL_STATS_H_
