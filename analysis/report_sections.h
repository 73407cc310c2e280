// report_sections.h: the sections of a report page, one file each
// (report_charts.cc, report_key_ratios.cc, ...), and the helpers they share.
// Internal to //analysis:report_lib; report.h is the interface.

#ifndef SPAWNLAB_ANALYSIS_REPORT_SECTIONS_H_
#define SPAWNLAB_ANALYSIS_REPORT_SECTIONS_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "analysis/claims.h"
#include "analysis/compare.h"
#include "analysis/report.h"
#include "analysis/report_spec.h"
#include "results_model/results_file.h"

namespace spawnlab {
namespace analysis {

// Markdown table cells: no pipes or newlines.
std::string Cell(absl::string_view s);

// The revision, marked when the run's checkout differed from it.
std::string ShortRevision(const ResultsFile& f);

// A context value, made safe for a table cell (a '|' or a newline in a CPU
// model or a process name would break the table).
std::string Ctx(const ResultsFile& f, const char* key);

// "noisy", "quiet" or "not recorded" (results from before the run record).
std::string NoisyMark(const ResultsFile& f);

// The conditions the run was measured under (bench/run_record.h).
std::string RunConditions(const ResultsFile& f);

// "12.3%" for 0.123; "n/a" for NaN.
std::string Percent(double x);

// (kernel, host) pairs in release order (NaturalLess), then by host.
struct KernelHostLess {
  bool operator()(const std::pair<std::string, std::string>& a,
                  const std::pair<std::string, std::string>& b) const {
    if (a.first != b.first) return NaturalLess(a.first, b.first);
    return NaturalLess(a.second, b.second);
  }
};

// Files ordered by experiment, kernel (in release order), host, path: the
// order of every listing.
std::vector<const ResultsFile*> Sorted(const ResultsSet& set);

// The top of a time axis: 10% above the largest bar, rounded up to two
// significant figures. Every axis starts at zero: Mermaid's xychart would
// otherwise scale from the smallest bar to the largest, and draw two bars a
// few percent apart as a steep step.
double AxisTop(double max);

// One Mermaid bar chart of medians per split value (ReportSpec::charts), each
// with an SVG beside it that shows every repetition. The SVGs go into `files`
// as `<stem>-<n>.svg`, n counting from `*next`.
// `link_prefix` goes before each SVG's name in the links ("../" from a page in
// a folder).
std::string Charts(const ResultsFile& f, const ReportSpec& report, const std::string& stem,
                   const std::string& link_prefix, int* next,
                   std::map<std::string, std::string>* files);

// The cross-check section: the bench's ratios beside the cross-check run's
// (the original tools' method), from the same kernel and host.
std::string CrossCheck(const ResultsFile& bench, const CrossCheckSpec& spec,
                       const std::vector<const ResultsFile*>& all,
                       const std::vector<ResultsFile>& reruns);

// What the harness's own row (ReportSpec::harness_overhead) costs.
std::string HarnessOverhead(const ResultsFile& f, const std::string& row);

// The bench's answer: its headline table and ratios (HeadlineOf); empty where
// no headline is declared or none of its rows was measured.
std::string HeadlineSection(const ResultsFile& f, const Headline& declared);

// The headline a run is read by: the spec's declaration where there is one,
// else the one its results record; NotFound where neither is.
absl::StatusOr<Headline> HeadlineOf(const ResultsFile& f, const Headline& declared);

// One key ratio of a run: median(numerator) over the least median among the
// denominators, paired within rounds where both have two or more (judged on
// that median, with its 95% interval [low, high]), else of medians.
struct KeyRatioValue {
  const Series* numerator = nullptr;    // null where a row is missing
  const Series* denominator = nullptr;  // the fastest denominator measured
  double of_medians = 0, judged = 0, low = 0, high = 0;
  bool paired = false;
  bool measured() const { return numerator != nullptr; }
};
KeyRatioValue ComputeKeyRatio(const ResultsFile& f, const KeyRatioSpec& k);

// What a run under User-Mode Linux can and cannot show, one paragraph.
std::string UmlCaveat(const ResultsFile& f);

// The spec's uml_ratios (ReportSpec::uml_ratios) in run `f`, unjudged.
std::string UmlRatioTable(const ResultsFile& f, const ReportSpec& spec);

// For the findings: the uml_ratios from the newest full run under UML among
// `files` (else its newest smoke), with the caveat and a link to its page
// (`pages`); the command that makes one where there is none; "" for a spec
// without uml_ratios.
std::string UmlFindings(const std::vector<const ResultsFile*>& files, const ReportSpec& spec,
                        const std::map<const ResultsFile*, std::string>& pages);

// The key ratios (ReportSpec::key_ratios), paired within rounds, each with
// its interval and whether it is within its bound.
std::string KeyRatioTable(const ResultsFile& f, const ReportSpec& spec);

// The counters a spec names, one table each: the median over repetitions,
// and the range when the repetitions differ. A counter that is a time gets
// one unit for its column, the one that suits its values.
std::string CounterTables(const ResultsFile& f, const ReportSpec& spec);

// The run an experiment's findings come from: one with every row of the
// newest run of the widest kind (a run without one measured an older shape of
// the bench), then the best standing (a full run over a headline or filtered
// one over a quick one, a quiet one over a noisy one), then the newest; null
// where there is none but UML's.
const ResultsFile* FindingsRun(const std::vector<const ResultsFile*>& files);
// The bench as it is now: its newest run of the widest kind (a full run over
// a headline or filtered one over a quick one), not under UML; null where
// there is none. Its time is what a run of the bench takes now, where the
// findings run may be of an older plan.
const ResultsFile* NewestWidestRun(const std::vector<const ResultsFile*>& files);
// That choice in words, for the pages that say where their findings come from.
inline constexpr char kFindingsRule[] =
    "a full run with every row the bench has now, quiet if there is one, then the newest";

// "**6.18.44 on amd-epyc-2cpu-4c9150**, git abc123, started ..., quiet"
std::string RunLine(const ResultsFile& f);

// One experiment's pages: <experiment>.md (the findings of its best run, and
// every run listed), a page per run (<experiment>/<kernel>-<host>.md) and one
// across kernels and hosts; the SVGs they draw go into *out too.
void ExperimentPages(const std::string& experiment, const ReportSpec& spec,
                     const std::vector<const ResultsFile*>& files,
                     const std::vector<const ResultsFile*>& all,
                     const std::vector<ResultsFile>& reruns,
                     std::map<std::string, std::string>* out);

// The rerun of `f` (`<stem>.rerun.json` beside it) if it is the same bench run
// again right after f, at the same clean revision; else null, with the reason
// in *why (empty when there is no rerun at all).
const ResultsFile* RerunOf(const ResultsFile& f, const std::vector<ResultsFile>& reruns,
                           std::string* why);

// How far a quantity moved between `older` and its rerun (RerunOf): |log| of
// the rerun's over the older run's, as `quantity` reads each (nullopt where
// a run lacks it); nullopt where there is no rerun to compare, or either
// lacks it.
std::optional<double> RerunMove(
    const ResultsFile& older, const std::vector<ResultsFile>& reruns,
    const std::function<std::optional<double>(const ResultsFile&)>& quantity);

// Neither run is marked noisy: a change between them may be called.
bool BothQuiet(const ResultsFile& a, const ResultsFile& b);

// `f` against its rerun (compare.h: CheckReproducibility).
std::optional<Reproducibility> ReproducibilityOf(const ResultsFile& f, const ResultsFile& rerun);

// The reproducibility section of `f`'s page.
std::string ReproducibilitySection(const ResultsFile& f, const std::vector<ResultsFile>& reruns);

// Every experiment with a report spec on one line: its page, its question (linked to its
// README), the answer's first ratios, the run they come from and how to run
// it. Links are relative to where the table stands: `reports_prefix` to
// reports/, `repo_prefix` to the repository's root ("", "../" from reports/).
std::string GlanceTable(const std::vector<const ResultsFile*>& files,
                        const std::map<std::string, ReportSpec>& specs,
                        const std::string& reports_prefix, const std::string& repo_prefix);

// The index page (reports/README.md).
std::string Index(const std::vector<const ResultsFile*>& files, const ResultsSet& set,
                  const std::map<std::string, ReportSpec>& specs,
                  const std::map<std::string, int>& verdict_counts);

// The ledger (reports/claims.md: a conclusion per claim and per part); every
// run's verdict goes to claims/runs.md in *out. *counts gets the number of
// parts of each conclusion.
std::string Ledger(const std::vector<Claim>& claims, const std::vector<ResultsFile>& files,
                   std::map<std::string, int>* counts, std::map<std::string, std::string>* out);

}  // namespace analysis
}  // namespace spawnlab

#endif  // SPAWNLAB_ANALYSIS_REPORT_SECTIONS_H_
