// stats.h: the few statistics the analysis needs, on plain vectors.
//
// MannWhitneyU is the test Google Benchmark's compare.py runs on two sets of
// repetitions: two-sided, normal approximation with tie and continuity
// corrections (as scipy's mannwhitneyu for samples of 8 or more).
//
// Example:
//
//   double p = analysis::MannWhitneyU(old_samples, new_samples);
//   bool real = p < 0.05 && old_samples.size() >= 9 && new_samples.size() >= 9;

#ifndef SPAWNLAB_ANALYSIS_STATS_H_
#define SPAWNLAB_ANALYSIS_STATS_H_

#include <vector>

namespace analysis {

// Each is NaN for an empty input (Stddev: fewer than two values).
double Median(std::vector<double> v);
double Min(const std::vector<double>& v);
double Mean(const std::vector<double>& v);
double Stddev(const std::vector<double>& v);  // sample standard deviation
double GeometricMean(const std::vector<double>& v);  // of positive values

// Two-sided p-value that `a` and `b` come from the same distribution; NaN if
// either is empty. 1 when every value is tied.
double MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

// The repetitions compare.py asks for before it trusts the U test.
inline constexpr int kMinRepetitionsForUTest = 9;

}  // namespace analysis

#endif  // SPAWNLAB_ANALYSIS_STATS_H_
