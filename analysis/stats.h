// stats.h: the few statistics the analysis needs, on plain vectors.
//
// MannWhitneyU is the test Google Benchmark's compare.py runs on two sets of
// repetitions, two-sided, computed as scipy's mannwhitneyu does by default:
// the exact distribution of U when a sample has fewer than 8 values and none
// are tied, else the normal approximation with tie and continuity corrections.
//
// RatioInterval and ShiftInterval give the size of a difference with its
// uncertainty: the Hodges-Lehmann estimate (the median of all pairwise
// differences, on logs for a ratio) and the distribution-free confidence
// interval that inverts the same U test (Moses; Hollander and Wolfe, 3.2).
//
// Example:
//
//   double p = analysis::MannWhitneyU(old_samples, new_samples);
//   bool real = p < 0.05 && old_samples.size() >= 9 && new_samples.size() >= 9;
//   analysis::Interval r = analysis::RatioInterval(new_samples, old_samples);
//   // r.estimate 1.04, r.low 1.01, r.high 1.07: 4% slower, 1% to 7% at 95%

#ifndef SPAWNLAB_ANALYSIS_STATS_H_
#define SPAWNLAB_ANALYSIS_STATS_H_

#include <vector>

namespace analysis {

// Each is NaN for an empty input (Stddev: fewer than two values).
double Median(std::vector<double> v);
double Min(const std::vector<double>& v);
double Mean(const std::vector<double>& v);
double Stddev(const std::vector<double>& v);         // sample standard deviation
double GeometricMean(const std::vector<double>& v);  // of positive values

// Two-sided p-value that `a` and `b` come from the same distribution; NaN if
// either is empty. 1 when every value is tied.
double MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

// An estimate and its confidence interval. A sample too small for the
// confidence asked has low = -inf (0 for a ratio) and high = +inf; every field
// is NaN for an empty input.
struct Interval {
  double estimate;
  double low;
  double high;
};

// The shift a - b (Hodges-Lehmann) and its interval.
Interval ShiftInterval(const std::vector<double>& a, const std::vector<double>& b,
                       double confidence = 0.95);
// The ratio a / b of positive samples: ShiftInterval on logs, exponentiated.
Interval RatioInterval(const std::vector<double>& a, const std::vector<double>& b,
                       double confidence = 0.95);

// The repetitions compare.py asks for before it trusts the U test.
inline constexpr int kMinRepetitionsForUTest = 9;

}  // namespace analysis

#endif  // SPAWNLAB_ANALYSIS_STATS_H_
