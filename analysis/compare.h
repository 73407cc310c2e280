// compare.h: two results files side by side, as Google Benchmark's compare.py
// does: the change of each benchmark's median, the Mann-Whitney U test on its
// samples, and the geometric mean of the new/old ratios over all benchmarks in
// both. Unlike compare.py, a run made of processes is tested on the
// processes' medians, and a row is called different at a false discovery rate
// over the table (see CompareResults).
//
//   std::string table = analysis::FormatComparison(analysis::CompareResults(old_file, new_file));

#ifndef SPAWNLAB_ANALYSIS_COMPARE_H_
#define SPAWNLAB_ANALYSIS_COMPARE_H_

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "results_model/results_file.h"
#include "results_model/bench_results.h"

namespace spawnlab {
namespace analysis {

// The false discovery rate at which a comparison calls rows different.
inline constexpr double kFalseDiscoveryRate = 0.05;

struct CompareRow {
  std::string name;
  double old_median_ns, new_median_ns;
  double change;   // (new - old) / |old|
  double p_value;  // NaN without repetitions
  // The samples the U test compared on each side: repetitions, or, where both
  // runs were made of several processes (bench/bench.h: --processes), each
  // process's median, the unit two runs of the same code vary by.
  int old_n, new_n;
  bool by_process = false;
  // p_value adjusted for the rows of the comparison tested (those with
  // kMinRepetitionsForUTest repetitions on both sides; NaN for the others).
  double q_value = std::nan("");
  bool Tested() const { return !std::isnan(q_value); }
  bool Different() const { return q_value < kFalseDiscoveryRate; }
};

struct Comparison {
  std::vector<CompareRow> rows;  // measured in both, in the old file's order
  double geomean_ratio;          // of new/old medians
  std::vector<std::string> only_old, only_new, not_measured;
};

// The samples of the U test are the repetitions, or, where both runs were made
// of several processes (bench.h: --processes), the processes' medians:
// repetitions within one process share its luck (memory layout, page cache,
// placement), so a test on them calls two processes of identical code
// different. A row is called different when its p-value adjusted for the
// rows tested (Benjamini-Hochberg, stats.h) is below kFalseDiscoveryRate.
Comparison CompareResults(const ResultsFile& old_file, const ResultsFile& new_file);

// The comparison as a markdown table with a summary and warnings. With
// `normalised_by` (a canary row, NormaliseByCanary), the figures are ratios to
// it, and the summary says so.
std::string FormatComparison(const Comparison& c, const std::string& normalised_by = "");

// The file with every row's repetitions divided by its run's canary
// (`spawnlab.canary.row`) of the same round: repetition k of a row over
// repetition k of the canary, which ran in the same round of an interleaved
// run, so the drift that moves a whole round cancels. Times become unitless
// ratios. The canary's own row, 1 in every round, is left out. FailedPrecondition
// if the run names no canary or it was not measured.
absl::StatusOr<ResultsFile> NormaliseByCanary(const ResultsFile& f);

// What differs between the two runs' machines (kernel, glibc, CPU, THP,
// mitigations, ...): "" when nothing does.
std::string ContextDifferences(const ResultsFile& old_file, const ResultsFile& new_file);

// Two runs' key ratios side by side: each row over the row that differs only
// in `by` (e.g. method / vfork), paired within a round in each run
// (results_model/bench_results.h). A ratio is free of the machine's drift between the
// runs, which moves both of its rows, so this is how far two runs of the same
// code agree.
struct RatioChange {
  std::string row, baseline;
  double old_ratio, new_ratio, change;  // change: new / old - 1
  // Each run's ~95% interval for its median ratio (PairedRatio::low, high):
  // where they overlap, the ratio's spread within a run covers the change.
  double old_low = 0, old_high = 0, new_low = 0, new_high = 0;
};
struct RatioComparison {
  std::vector<RatioChange> rows;  // in both runs
  double median_abs_change = 0;
  int over_5pct = 0, over_10pct = 0;
};
RatioComparison CompareRatios(const ResultsFile& old_file, const ResultsFile& new_file,
                              const spawnlab::RatioBaseline& by);
std::string FormatRatioComparison(const RatioComparison& c, const spawnlab::RatioBaseline& by);

// How far two runs of the same code agree: the reproducibility table of the
// README, against its targets (median key-ratio change at most 2%, no key
// ratio moving more than 10% unless a run is marked noisy, at most 5% of rows
// called different by the U test at a 5% false discovery rate). The key
// ratios are those of the files' `spawnlab.ratio_baseline` context (or `by`,
// if given); a bench without one is judged on its rows alone. Returns the
// markdown table and a verdict line.
struct Reproducibility {
  int ratios = 0, ratios_over_10pct = 0;
  double median_ratio_change = std::nan("");  // NaN: no key ratios
  // rows_different: called different at a 5% false discovery rate;
  // rows_below_p05: with p < 0.05 each, as compare.py marks them (for scale).
  int rows_tested = 0, rows_different = 0, rows_below_p05 = 0;
  double median_row_change = std::nan("");
  // The same U test on each row over its run's canary (repetition k over the
  // canary's k: the same round, where the bench runs in rounds); -1 where a
  // run has no measured canary. Judged instead of the raw times when present.
  int canary_rows_tested = -1, canary_rows_different = -1, canary_rows_below_p05 = -1;
  double canary_median_row_change = std::nan("");
  std::string canary_row;
  // The judged test's samples were each process's median (both runs made of
  // several processes); then, for scale, the same test on the repetitions.
  bool by_process = false;
  int repetition_rows_tested = -1, repetition_rows_different = -1;
  bool noisy = false;  // either run marked noisy
  // No row had kMinRepetitionsForUTest samples a side (processes, in runs
  // of several): the U test was not applied and the key ratios decide alone.
  bool rows_untested = false;
  bool meets_targets = false;
  // What the targets are judged on and missed: the key ratios that moved more
  // than 10%, and the rows the judged U test called different. The table
  // names them under its verdict, so a miss says where to look.
  std::vector<RatioChange> ratios_moved;
  std::vector<CompareRow> rows_called_different;
  std::string table;
};
Reproducibility CheckReproducibility(const ResultsFile& old_file, const ResultsFile& new_file,
                                     std::optional<spawnlab::RatioBaseline> by = std::nullopt);

// The key-ratio baselines a results file declares: its context's
// `spawnlab.ratio_baseline`, "DIM:VALUE" or several joined by commas.
std::vector<spawnlab::RatioBaseline> DeclaredRatioBaselines(const ResultsFile& file);

}  // namespace analysis
}  // namespace spawnlab

#endif  // SPAWNLAB_ANALYSIS_COMPARE_H_
