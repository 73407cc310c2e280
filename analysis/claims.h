// claims.h: the ledger that puts published claims to the test.
//
// The claims live in analysis/claims.json, one entry per claim (or per part of
// a claim that needs its own test), each with the rule that computes its
// verdict from benchmark rows chosen by regular expressions (re2, full match)
// over the canonical `family/dim:value` names:
//
//   ratio      numerator / denominator against the claimed ratio (a number, or
//              the published figures {"numerator": A, "denominator": B}). The
//              95% interval of the ratio (Hodges-Lehmann on logs, see stats.h)
//              is judged against a band around the claim: within `tolerance`
//              of the ratio and of the effect (its log), whichever is
//              narrower. Reproduced when the interval lies in the band;
//              direction-only when it excludes no difference but misses the
//              band; contradicted when it lies the opposite way, or holds no
//              difference and stops short of the band; inconclusive when it
//              straddles the band's edge or is wider than the claimed effect.
//              With "metric": "counter:NAME" a user counter instead of time;
//              a counter that is constant on both sides is exact. A
//              counter's difference is shown beside its ratio, and the
//              claim's too with "claimed_in_counter_unit": true.
//   absolute   a claimed time range against the median here (the least median
//              of the matching rows): reproduced within `factor`,
//              contradicted when slower here by more, inconclusive when
//              faster here by more (a slower machine would explain it), and
//              implausible when the claim is more than `implausible_factor`
//              below the least minimum of any matching row. With
//              "null_syscall_row" (this machine's null system call, a row of
//              the same file) a syscall-bound claim is also put in that
//              unit: how many null calls the operation costs here, and what
//              null call the claimed time would imply.
//   direction  `faster` should be faster than `slower` (no figure claimed):
//              reproduced if the interval of slower/faster lies above 1,
//              contradicted if below, or if it rules out any difference larger
//              than `negligible` (default 0.05), else inconclusive. With
//              "metric": "counter:NAME", `slower` is the row claimed to have
//              the larger value of that counter (a worker spread, say).
//   difference median(minuend) - median(subtrahend) against a claimed saving:
//              the interval of the difference (Hodges-Lehmann) against
//              claimed/`factor` to claimed*`factor`, judged as a ratio is.
//   shape      one ratio that should stay flat (at most `max_ratio`) and one that
//              should grow (at least `min_ratio`): reproduced if both hold.
//   value      a functional claim: `metric` ("counter:NAME") equals
//              `expected` in every repetition of every row matching `rows`
//              (skipped rows aside): reproduced, else contradicted, naming the
//              row and repetition that differs.
//   pending    no experiment tests it yet (or it is checked by a functional
//              test, not a results file), with why.
//   reading    a verdict by reading, not by measurement (not-testable-here,
//              not-applicable, inconsistent, or a documented fact), with why.
//
// A measured rule may say when a machine can test it at all:
// "testable_when": {"context": KEY, "matches": REGEX, "otherwise": REASON}.
// A results file whose context value for KEY does not match (re2, full match)
// gives `not-testable-here` with REASON, in which "{value}" is that value
// (e.g. a 2007 bare-metal null system call, on a kernel that isolates page
// tables: mitigation.meltdown "Mitigation: PTI").
//
// A claim's size_differs, and a testable_when's REASON, state the machine's
// own figures through placeholders filled from that machine's results (the
// same kernel and host, any experiment, no --quick or UML run):
// "{median:ROW}" the median time of the canonical row ROW, "{context:KEY}" a
// context value; "not measured on this machine" where there is none. A
// sentence about this machine is never written in as a number.
//
// A claim whose experiment has no results, or whose rows have fewer than 5
// repetitions a side, is `pending` with the reason; one whose rows were
// skipped is `skipped` with the reason. Nothing else is ever assigned.
//
// Example:
//
//   absl::StatusOr<std::vector<analysis::Claim>> claims =
//       analysis::LoadClaims("analysis/claims.json");
//   for (const analysis::Claim& c : *claims) {
//     for (const analysis::Verdict& v : analysis::Evaluate(c, results)) ...
//   }

#ifndef SPAWNLAB_ANALYSIS_CLAIMS_H_
#define SPAWNLAB_ANALYSIS_CLAIMS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/results.h"
#include "nlohmann/json.hpp"

namespace spawnlab {
namespace analysis {

struct Claim {
  std::string id;          // "P-3"
  std::string part;        // "" or what this entry tests of the claim
  std::string source;      // where it was published
  std::string claim;       // the figures claimed
  std::string conditions;  // the conditions stated
  std::string experiment;  // the experiment whose results test it ("" for reading)
  nlohmann::json rule;     // see the top of this file
  // Why a figure here may differ in size from the source's, where that is
  // known (a VM's fork, page-table isolation, the core count, another OS):
  // shown beside a verdict that is not `reproduced`.
  std::string size_differs;
};

struct Verdict {
  std::string word;      // reproduced, direction-only, contradicted, implausible, ...
  std::string rows;      // the rows compared, in the rule's order ("" if none)
  std::string measured;  // what was measured here, in a few words
  std::string reason;    // one line
  std::string kernel;    // the results it was computed from ("" if none)
  // The machine those results are of (kernel release and host), for the
  // placeholders of MachineFacts; "" for a verdict by reading or pending.
  std::string machine_kernel, machine_host;
};

// The verdict words the ledger gives.
const std::vector<std::string>& VerdictWords();

// Parses and checks the claims file: every field present, every rule of a
// known kind with the fields it needs, every regular expression valid.
absl::StatusOr<std::vector<Claim>> ParseClaims(absl::string_view text, absl::string_view path);
absl::StatusOr<std::vector<Claim>> LoadClaims(const std::string& path);

// One verdict per results file of the claim's experiment (one per kernel or
// host); a single `pending` verdict if there is none.
std::vector<Verdict> Evaluate(const Claim& claim, const std::vector<ResultsFile>& results);

// "1.23 ms", "456 µs", "78.9 ns".
std::string FormatNanos(double ns);

// `text` with its "{median:ROW}" and "{context:KEY}" placeholders filled from
// the results of one machine (kernel release and host; see the top).
std::string MachineFacts(const std::string& text, const std::string& kernel,
                         const std::string& host, const std::vector<ResultsFile>& results);

// A p-value as every report prints it: two significant figures ("0.012"),
// "< 0.001" below that, "n/a" for none.
std::string FormatPValue(double p);

// The rows each claim of `experiment` names, checked against the rows its
// bench registers (`bench_rows`, as --benchmark_list_tests or --list_rows
// print them): a pattern that must pick one row (a ratio's sides, a
// direction's, a difference's, a shape's) matching none or several, or one
// that must pick some (absolute, value) matching none, is a problem, named.
// Run by every experiment's report_spec_test, so that renaming a row a claim
// names fails `bazel test`, not the ledger.
std::vector<std::string> CheckClaimRows(const std::vector<Claim>& claims,
                                        const std::string& experiment,
                                        const std::vector<std::string>& bench_rows);

}  // namespace analysis
}  // namespace spawnlab

#endif  // SPAWNLAB_ANALYSIS_CLAIMS_H_
