// report_spec.h: what an experiment's report shows, declared in its own folder.
//
// Each experiment keeps a `report.json` beside its `bench.cc` (every section
// optional; the format: analysis/README.md). The report tool knows no
// experiment by name; the test `spawnlab_bench` adds checks that every row a
// spec names is a row the bench registers.
//
//   {"charts": [{"family": "spawn", "x": "method", "split": "parent",
//                "fixed": {"until": "exit"}, "title": "spawn to reaped"}],
//    "key_ratios": [{"what": "vfork against fork", "numerator": "spawn/method:vfork/until:exit",
//                    "denominators": ["spawn/method:fork/until:exit"], "bound": 1.0}]}
//
//   absl::StatusOr<std::map<std::string, ReportSpec>> specs =
//       analysis::LoadReportSpecs("experiments");
//   std::vector<std::string> problems = analysis::CheckSpecRows(specs->at("foo"), rows, {});

#ifndef SPAWNLAB_ANALYSIS_REPORT_SPEC_H_
#define SPAWNLAB_ANALYSIS_REPORT_SPEC_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "results_model/bench_name.h"
#include "results_model/headline.h"

namespace spawnlab {
namespace analysis {

// Rows of `family` that have every dimension in `dims` with the given value.
struct RowSelector {
  std::string family;
  std::map<std::string, std::string> fixed;
};

// A bar chart of medians: one bar per value of `x`, one chart per value of
// `split` (one chart if empty). The report titles it "<split>: <value> —
// <title> (median, µs)" and starts its axis at zero.
struct ChartSpec {
  RowSelector rows;
  std::string x;
  std::string split;
  std::string title;
};

// median(numerator) / the least median among `denominators`, which must be at
// most `bound`.
struct KeyRatioSpec {
  std::string what;
  std::string numerator;
  std::vector<std::string> denominators;
  double bound = 0;
};

// A table of counters (Google Benchmark user counters) for the selected rows:
// each cell the median over repetitions and the range. Its columns: `names`,
// then every other counter the rows have whose name starts with `prefix`
// (when set), in name order, headed without the prefix.
struct CounterTableSpec {
  std::string title;
  RowSelector rows;
  std::vector<std::string> names;
  std::string prefix;
};

// A ratio of two bench rows beside the same ratio of two rows that an
// independent tool's method measured (another results file of the same kernel
// and host, experiment `CrossCheckSpec::experiment`).
struct CrossCheckPair {
  std::string what;
  std::string bench_numerator, bench_denominator;
  std::string cross_numerator, cross_denominator;
  std::string own_statistic;  // "mean" or "min": the tool's own figure
  // What the minima are of: "time", each repetition's time (the default: a
  // lat_proc repetition is one bulk-timed loop), or "counter:NAME", a
  // per-repetition counter both sides write (spawnbench's minimum is its
  // fastest single spawn: "counter:fastest_us").
  std::string minimum = "time";
};

struct CrossCheckSpec {
  std::string experiment;   // the results' experiment name, e.g. "crosscheck"
  std::string command;      // how to produce them, for the report's hint
  std::string description;  // what the cross-check runs, one paragraph
  double tolerance = 0.10;
  std::vector<CrossCheckPair> pairs;
};

struct ReportSpec {
  std::string experiment;  // the folder's name
  std::vector<ChartSpec> charts;
  std::vector<KeyRatioSpec> key_ratios;
  // Ratios shown from a run under User-Mode Linux (no bound: never judged),
  // for rows this host skips: UML traps every system call, so a ratio between
  // rows that differ by how many calls they make keeps its direction and its
  // growth, though not a machine's size.
  std::vector<KeyRatioSpec> uml_ratios;
  std::vector<CounterTableSpec> counters;
  std::string harness_overhead;  // a row timing the harness alone, or empty
  // Rows charted across kernels and hosts, one chart each, when results/
  // holds more than one (besides the key ratios' rows and the canary).
  std::vector<std::string> key_rows;
  bool has_cross_check = false;
  CrossCheckSpec cross_check;
  // The question the experiment asks: its README's title after "<name>: "
  // (LoadReportSpecs); empty where there is none.
  std::string question;
  // The bench's answer (results_model/headline.h, in HeadlineToJson's form):
  // its last screen and the findings of every run whose rows hold it.
  Headline headline;
};

// Parses one spec; `experiment` names it, `path` names it in errors. An
// unknown key, a missing field or a row that is not `family/dim:value/...` is
// InvalidArgument, saying where.
absl::StatusOr<ReportSpec> ParseReportSpec(absl::string_view text, absl::string_view experiment,
                                           absl::string_view path);

// Every `<dir>/<experiment>/report.json`, by experiment. A folder without a
// spec has none (its report shows the rows alone); a spec that does not parse
// is an error naming it.
absl::StatusOr<std::map<std::string, ReportSpec>> LoadReportSpecs(const std::string& dir);

// Whether a row is selected: by its parsed name, or by the name itself
// (false for one that does not parse).
bool Selects(const RowSelector& selector, const spawnlab::BenchName& row);
bool Selects(const RowSelector& selector, absl::string_view row);

// What in `spec` does not match the rows the bench registers (`bench_rows`)
// or, for cross-check pairs, the rows the cross-check writes (`cross_rows`):
// one line per problem, empty when all match. Names may carry Google
// Benchmark's own segments (`/manual_time`, `/iterations:N`).
std::vector<std::string> CheckSpecRows(const ReportSpec& spec,
                                       const std::vector<std::string>& bench_rows,
                                       const std::vector<std::string>& cross_rows);

}  // namespace analysis
}  // namespace spawnlab

#endif  // SPAWNLAB_ANALYSIS_REPORT_SPEC_H_
