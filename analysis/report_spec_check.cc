// report_spec_check.cc: the body of every experiment's report_spec_test.
//
// Checks an experiment's report.json (analysis/report_spec.h) against the rows
// its bench registers (`--benchmark_list_tests`) and, for a spec with a
// cross-check, the rows the cross-check writes (`--list_rows`). Added by
// spawnlab_bench (lib/bench.bzl) to every folder that has a report.json:
//
//   report_spec_test --spec=experiments/foo/report.json --bench=experiments/foo/bench
//       [--crosscheck=experiments/foo/crosscheck]
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
#include "analysis/report_spec.h"
#include "lib/command.h"

ABSL_FLAG(std::string, spec, "", "The experiment's report.json.");
ABSL_FLAG(std::string, bench, "", "The experiment's bench binary.");
ABSL_FLAG(std::string, crosscheck, "", "The cross-check binary, where the spec has one.");

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
  absl::StatusOr<analysis::ReportSpec> spec = analysis::ParseReportSpec(text.str(), "", spec_path);
  if (!spec.ok()) {
    std::cerr << "error: " << spec.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::vector<std::string>> rows =
      ListRows(bench, {"--benchmark_list_tests", "--lock=none"});
  if (!rows.ok()) {
    std::cerr << "error: " << rows.status() << "\n";
    return 2;
  }
  std::vector<std::string> cross;
  if (spec->has_cross_check) {
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
  const std::vector<std::string> problems = analysis::CheckSpecRows(*spec, *rows, cross);
  for (const std::string& p : problems) std::cerr << spec_path << ": " << p << "\n";
  std::cerr << spec_path << ": "
            << (problems.empty() ? "every row it names exists" : "rows missing") << " ("
            << rows->size() << " bench rows";
  if (spec->has_cross_check) std::cerr << ", " << cross.size() << " cross-check rows";
  std::cerr << ")\n";
  return problems.empty() ? 0 : 1;
}
