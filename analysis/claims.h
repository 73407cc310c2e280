// claims.h: the ledger that puts published claims to the test.
//
// LoadClaims reads analysis/claims.json (one entry per claim, or per part of a
// claim tested apart); Evaluate computes each claim's verdicts from results
// files, by its rule over rows chosen by re2 full matches of their names. A
// verdict is only ever computed from data, or `pending`/`skipped` with why.
// The rules and their bands: analysis/README.md, "The claims ledger".
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
#include "results_model/results_file.h"
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
  // From a run the record calls quiet and that was made of several processes:
  // the runs a conclusion is drawn from where there is one.
  bool clean = false;
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

// Three significant figures and no exponent: "1120", "1.23", "0.00212".
std::string ThreeFigures(double v);

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
