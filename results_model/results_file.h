// results_file.h: spawnlab's results files (Google Benchmark JSON), read and
// checked: the one model of a results file, which the harness, the analysis
// and compare all read through.
//
// A file is a `context` block (the environment record) and `benchmarks` rows;
// the rows of one benchmark are gathered into a Series: its repetitions, the
// aggregates, or the reason it was skipped or the error it failed with. Times
// are in nanoseconds. Anything malformed is an InvalidArgument naming the file
// and what is wrong.
//
//   absl::StatusOr<spawnlab::ResultsFile> f = spawnlab::LoadResultsFile(path);
//   if (!f.ok()) { std::cerr << f.status() << "\n"; ... }
//   for (const spawnlab::Series& s : f->series) { ... s.Median() ... }

#ifndef SPAWNLAB_RESULTS_MODEL_RESULTS_FILE_H_
#define SPAWNLAB_RESULTS_MODEL_RESULTS_FILE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "results_model/bench_name.h"

namespace spawnlab {

// How a skipped row's error_message starts (bench/bench.h: SkipRow).
inline constexpr absl::string_view kSkippedPrefix = "skipped: ";

// The field of an iteration row that names the process (1, 2, ...) which
// measured it, in a run made of several processes (bench/bench.h: --processes).
inline constexpr absl::string_view kProcessField = "spawnlab_process";


struct Series {
  std::string name;  // canonical: family/dim:value/...
  spawnlab::BenchName parsed;
  std::vector<double> samples_ns;              // one per repetition, in file order
  // Each sample's repetition_index (its round, in a run made in rounds): the
  // key that pairs one row's repetition with another's.
  std::vector<int> repetitions;
  // The process (1, 2, ...) that measured each repetition, in a run made of
  // several (bench/bench.h: --processes); 0 for a run made of one.
  std::vector<int> processes;
  std::map<std::string, double> aggregate_ns;  // "median", "min", "mean", "stddev"
  // Google Benchmark's user counters (state.counters), one value per repetition.
  std::map<std::string, std::vector<double>> counters;
  std::string skipped;  // the reason, if skipped
  double order = 0;     // family_index, then instance
  std::string error;    // the message, if it failed

  bool measured() const { return skipped.empty() && error.empty(); }
  // From the repetitions where there are any, else from the aggregates; NaN
  // when neither has it.
  double Median() const;
  double Min() const;
  double Mean() const;
  double Stddev() const;
  int Repetitions() const;
  // Each process's median of its repetitions, in process order: the sample
  // unit when two runs made of several processes are compared (compare.h).
  // Empty when the repetitions come from one process.
  std::vector<double> ProcessMedians() const;
  // "time" (the median time, ns) or "counter:NAME" (the median of that
  // counter); NaN if the series has no such value.
  double Metric(absl::string_view metric) const;
  // The same metric's value per repetition (empty if it has none).
  std::vector<double> Samples(absl::string_view metric) const;
  // Each process's median of Samples(metric), in process order, as
  // ProcessMedians is of the time: empty when the repetitions come from one
  // process, or the metric's values do not line up with them.
  std::vector<double> ProcessSamples(absl::string_view metric) const;
};

// Per process, the median over its rounds of `num`'s time over `den`'s in
// the same round (paired in order within the process), in process order: a
// key ratio's sample unit when runs made of several processes are compared.
// Empty unless both rows ran in at least two of the same processes.
std::vector<double> ProcessRatioMedians(const Series& num, const Series& den);

struct ResultsFile {
  std::string path;
  std::map<std::string, std::string> context;  // non-string values as JSON text
  // In the order the bench registered them (Google Benchmark's family_index,
  // where the file has it: an interleaved run writes rows in the order they ran).
  std::vector<Series> series;

  std::string experiment() const;  // context spawnlab.experiment, else the file's stem
  std::string kernel() const;      // context kernel.release, else the folder name
  std::string host() const;        // context host.name / host_name
  // A --quick smoke run (context spawnlab.quick): too few repetitions to
  // conclude anything.
  bool quick() const;
  // Run under User-Mode Linux (context virtualization "uml"), which traps
  // every system call: its times are no machine's.
  bool uml() const;
  const Series* Find(absl::string_view name) const;
};

// Parses `text`; `path` names it in errors.
absl::StatusOr<ResultsFile> ParseResults(absl::string_view text, absl::string_view path);
// The same from a document already parsed (the harness's own run).
absl::StatusOr<ResultsFile> ReadResults(const nlohmann::json& doc, absl::string_view path);
absl::StatusOr<ResultsFile> LoadResultsFile(const std::string& path);

// Orders strings as version numbers sort (`sort -V`): runs of digits by their
// value, everything else byte by byte, so kernel releases and the paths named
// after them come in release order:
//   6.1.176 < 6.18.44-fc-v669 < 6.18.44-fc-v782 < 6.18.44-fc-v1098
bool NaturalLess(absl::string_view a, absl::string_view b);

// Every *.json under `dir` (recursively), sorted by path (NaturalLess): the files that
// parsed, and one error for each that did not. Each file's path (and its
// errors) name it from the last component of `dir` down ("results/k/x.json").
//
// A `<experiment>.rerun.json` is the same bench run again right after the
// run beside it (`bazel run //:suite -- --self_check --keep_self_check`):
// evidence of how far two runs agree, not a run of its own, so it is kept
// apart, in `reruns`.
struct ResultsSet {
  std::vector<ResultsFile> files;
  std::vector<ResultsFile> reruns;
  std::vector<absl::Status> errors;
};
ResultsSet LoadResultsDir(const std::string& dir);


}  // namespace spawnlab

#endif  // SPAWNLAB_RESULTS_MODEL_RESULTS_FILE_H_
