// compare.h: two results files side by side, as Google Benchmark's compare.py
// does: the change of each benchmark's median as (new - old) / |old|, the
// Mann-Whitney U test on the repetitions, and the geometric mean of the
// new/old ratios over all benchmarks in both.
//
// Example:
//
//   std::string table = analysis::Compare(old_file, new_file);

#ifndef SPAWNLAB_ANALYSIS_COMPARE_H_
#define SPAWNLAB_ANALYSIS_COMPARE_H_

#include <string>

#include "analysis/results.h"

namespace analysis {

struct CompareRow {
  std::string name;
  double old_median_ns, new_median_ns;
  double change;   // (new - old) / |old|
  double p_value;  // NaN without repetitions
  int old_n, new_n;
};

struct Comparison {
  std::vector<CompareRow> rows;  // measured in both, in the old file's order
  double geomean_ratio;          // of new/old medians
  std::vector<std::string> only_old, only_new, not_measured;
};

Comparison CompareResults(const ResultsFile& old_file, const ResultsFile& new_file);

// The comparison as a markdown table with a summary and warnings.
std::string FormatComparison(const Comparison& c);

}  // namespace analysis

#endif  // SPAWNLAB_ANALYSIS_COMPARE_H_
