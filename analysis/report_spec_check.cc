// report_spec_check.cc: the body of every experiment's report_spec_test.
//
// Checks an experiment's report.json (analysis/report_spec.h) against the rows
// its bench registers (`--benchmark_list_tests`) and, for a spec with a
// cross-check, the rows the cross-check writes (`--list_rows`); and the rows
// the ledger's claims of this experiment (and of its cross-check) name
// (analysis/claims.h: CheckClaimRows). Added by spawnlab_bench
// (bench/bench.bzl) to every folder that has a report.json:
//
//   report_spec_test --spec=experiments/foo/report.json --bench=experiments/foo/bench
//       [--crosscheck=experiments/foo/crosscheck] [--claims=analysis/claims.json
//        --experiment=foo]
//
// Exit 0 when every row the spec names exists; 1 listing what does not; 2 on
// bad input.

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "analysis/claims.h"
#include "analysis/report_spec.h"
#include "lib/command.h"

ABSL_FLAG(std::string, spec, "", "The experiment's report.json.");
ABSL_FLAG(std::string, bench, "", "The experiment's bench binary.");
ABSL_FLAG(std::string, crosscheck, "", "The cross-check binary, where the spec has one.");
ABSL_FLAG(std::string, claims, "", "The ledger's claims.json, whose rows are checked too.");
ABSL_FLAG(std::string, experiment, "", "With --claims: the experiment the bench's claims name.");

namespace {

// The rows a binary lists, one per line.
absl::StatusOr<std::vector<std::string>> ListRows(const std::string& binary,
                                                  std::vector<std::string> args) {
  absl::StatusOr<spawnlab::CommandResult> r = spawnlab::Command(binary)
                                                  .Args(std::move(args))
                                                  .Stdout(spawnlab::Stdio::Pipe())
                                                  .Stderr(spawnlab::Stdio::Pipe())
                                                  .Timeout(absl::Seconds(60))
                                                  .Run();
  if (!r.ok()) return r.status();
  if (!r->status.success()) {
    return absl::InternalError(binary + " failed listing its rows: " + r->err);
  }
  return std::vector<std::string>(absl::StrSplit(r->out, '\n', absl::SkipWhitespace()));
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string spec_path = absl::GetFlag(FLAGS_spec), bench = absl::GetFlag(FLAGS_bench);
  if (spec_path.empty() || bench.empty()) {
    std::cerr << "usage: report_spec_test --spec=report.json --bench=BENCH [--crosscheck=BIN]\n";
    return 2;
  }
  std::ifstream in(spec_path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << "error: cannot read " << spec_path << "\n";
    return 2;
  }
  absl::StatusOr<spawnlab::analysis::ReportSpec> spec = spawnlab::analysis::ParseReportSpec(text.str(), "", spec_path);
  if (!spec.ok()) {
    std::cerr << "error: " << spec.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::vector<std::string>> rows =
      ListRows(bench, {"--benchmark_list_tests", "--full", "--lock=none"});
  if (!rows.ok()) {
    std::cerr << "error: " << rows.status() << "\n";
    return 2;
  }
  std::vector<std::string> cross;
  const std::string crosscheck = absl::GetFlag(FLAGS_crosscheck);
  if (spec->has_cross_check || !crosscheck.empty()) {
    if (absl::GetFlag(FLAGS_crosscheck).empty()) {
      std::cerr << "error: " << spec_path << " has a cross_check: give --crosscheck=BIN\n";
      return 2;
    }
    absl::StatusOr<std::vector<std::string>> listed =
        ListRows(absl::GetFlag(FLAGS_crosscheck), {"--list_rows"});
    if (!listed.ok()) {
      std::cerr << "error: " << listed.status() << "\n";
      return 2;
    }
    cross = *listed;
  }
  std::vector<std::string> problems = spawnlab::analysis::CheckSpecRows(*spec, *rows, cross);
  if (!absl::GetFlag(FLAGS_claims).empty()) {
    absl::StatusOr<std::vector<spawnlab::analysis::Claim>> claims =
        spawnlab::analysis::LoadClaims(absl::GetFlag(FLAGS_claims));
    if (!claims.ok()) {
      std::cerr << "error: " << claims.status().message() << "\n";
      return 2;
    }
    for (const std::string& p :
         spawnlab::analysis::CheckClaimRows(*claims, absl::GetFlag(FLAGS_experiment), *rows)) {
      problems.push_back(p);
    }
    if (!crosscheck.empty()) {  // its results name the experiment after the binary
      const std::string name = crosscheck.substr(crosscheck.rfind('/') + 1);
      for (const std::string& p : spawnlab::analysis::CheckClaimRows(*claims, name, cross)) {
        problems.push_back(p);
      }
    }
  }
  for (const std::string& p : problems) std::cerr << spec_path << ": " << p << "\n";
  std::cerr << spec_path << ": "
            << (problems.empty() ? "every row it and the claims name exists" : "rows missing")
            << " (" << rows->size() << " bench rows";
  if (spec->has_cross_check) std::cerr << ", " << cross.size() << " cross-check rows";
  std::cerr << ")\n";
  return problems.empty() ? 0 : 1;
}
