// bench_results.h: what a bench works out from a results file (results_file.h)
// once the run is over: which rows measured, were skipped or failed, each
// row's repetitions, the key ratios paired by round, and the drift canary;
// and how the harness rewrites its own JSON (rounds and processes merged).
//
//   absl::StatusOr<spawnlab::ResultsFile> f = spawnlab::LoadResultsFile(path);
//   spawnlab::RowCounts n = spawnlab::CountRows(*f);
//   for (const spawnlab::PairedRatio& r : spawnlab::PairedRatios(*f, {"method", "vfork"}))
//     std::cout << r.row << " / " << r.baseline << " = " << r.median << "\n";

#ifndef SPAWNLAB_RESULTS_MODEL_BENCH_RESULTS_H_
#define SPAWNLAB_RESULTS_MODEL_BENCH_RESULTS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "results_model/results_file.h"
#include "results_model/stats.h"  // Median, RoundRatios

namespace spawnlab {

// The harness's own document as a results file; empty if it is not one.
ResultsFile ResultsOf(const nlohmann::json& doc);

struct RowCounts {
  int measured = 0, skipped = 0, failed = 0;
};
RowCounts CountRows(const ResultsFile& f);
RowCounts CountRows(const nlohmann::json& doc);

// Each row's per-repetition times (ns), by repetition index (NaN where a
// repetition is missing), keyed by the row's canonical name (bench_name.h).
std::map<std::string, std::vector<double>> RepetitionTimes(const ResultsFile& f);

// A baseline for key ratios: each row over the row that differs from it only
// in `dimension`, which the baseline has at `value` (e.g. method / vfork);
// only the ratios whose row and baseline `rows` matches, where it is set (an
// RE2 pattern, matched partially as Google Benchmark's --benchmark_filter is:
// a bench's answer's rows, BenchDefaults::default_rows).
struct RatioBaseline {
  std::string dimension;
  std::string value;
  std::string rows = "";
};

// A key ratio paired by round. A bench that runs in rounds ran repetition k
// of every row in round k, seconds or minutes apart from round k+1; a ratio
// taken within a round cancels the machine's drift between rounds, where a
// ratio of two medians does not. (Google Benchmark's random interleaving
// shuffles all repetitions of all rows together, and pairs nothing.)
struct PairedRatio {
  std::string row, baseline;
  int rounds = 0;            // repetitions present in both
  double median = 0;         // median over rounds of row[k] / baseline[k]
  double low = 0, high = 0;  // a ~95% interval for that median (order statistics)
};
std::vector<PairedRatio> PairedRatios(const ResultsFile& f, const RatioBaseline& by);
std::vector<PairedRatio> PairedRatios(const nlohmann::json& doc, const RatioBaseline& by);

// The distribution-free interval for a median from sorted values: the order
// statistics whose binomial coverage is at least 95% (the whole range below 6).
std::pair<double, double> MedianInterval(std::vector<double> values);

// How far the canary row moved over the run, in percent: the median of its
// last half of repetitions against the median of its first half (the middle
// one left out). Negative if the row is missing or has fewer than 4.
double CanaryDriftPct(const ResultsFile& f, const std::string& canary_row);

// How unevenly the machine ran, in percent: the canary's slowest quarter of
// repetitions against its fastest, (75th percentile / minimum - 1). A quiet
// run's canary stays within a few percent; bursts of slowness on a shared
// machine spread it, where they may leave the two halves' medians (the
// drift) alike. Negative if the row is missing or has fewer than 4.
double CanarySpreadPct(const ResultsFile& f, const std::string& canary_row);

// Writes into doc["context"] what a run says of its own noise: the drift
// canary (spawnlab.canary.row, .drift_pct, .spread_pct and .series, "unknown:
// ..." with the reason where a figure cannot be had) and run.noisy, the
// verdict (NoisyVerdict) from those and the context's
// run.other_cpu_cores and run.steal_pct. With no canary row (empty), only
// run.noisy. Every bench (bench.h) and the clone3 cross-check record it so.
void RecordNoise(nlohmann::json& doc, const std::string& canary_row);


// A run made in rounds (bench.h: BenchDefaults::rounds; each row registered
// once per round, one repetition each, so repetition k of every row ran in
// round k) written as Google Benchmark writes repetitions: each row's runs, in
// the order they ran, become its repetitions (repetition_index = round),
// followed by the aggregates mean, median, stddev, cv and min of its time and
// of each counter. A row skipped or failed in any round keeps one such row.
// `canonical_order` (canonical names) sets family_index, the order the
// analysis lists rows in; rows not in it come after.
void MergeRounds(nlohmann::json& doc, const std::vector<std::string>& canonical_order);

// One results document from the documents that processes 1..n of one run
// wrote (each a bench's finished JSON): the first's context, and every row's
// repetitions from all of them, process 1's first, each tagged with its
// process (kProcessField), then merged as MergeRounds does (repetition k of
// every row still ran in the same round, where each process ran the same
// number of rounds). Rows are listed in the first document's order. The
// caller rewrites the context's run record (start, end, noise) for the whole.
nlohmann::json MergeProcesses(const std::vector<nlohmann::json>& docs);

// A run is marked noisy when, over its whole duration:
inline constexpr double kNoisyOtherCpuCores = 0.10;   // others used >10% of a core
inline constexpr double kNoisyStealPct = 1.0;         // >1% of CPU time stolen
inline constexpr double kNoisyCanaryDriftPct = 10.0;  // the canary moved >10% (bench.h)
// the canary's slowest quarter of rounds ran >15% above its fastest round
// (bench_results.h: CanarySpreadPct): bursts of slowness that drift misses
inline constexpr double kNoisyCanarySpreadPct = 15.0;

// "yes: ..." or "no" from the figures DescribeRun computes; `canary_drift_pct`
// and `canary_spread_pct` are negative where the bench has no canary.
std::string NoisyVerdict(double other_cpu_cores, double steal_pct, double canary_drift_pct,
                         double canary_spread_pct = -1);

}  // namespace spawnlab

#endif  // SPAWNLAB_RESULTS_MODEL_BENCH_RESULTS_H_
