// readme_figures_check.cc: fails when a README of the repository shows a
// measured figure that no generated report holds (readme_figures.h).
//
//   readme_figures_check README.md experiments/clone3/README.md ... reports/clone3.md ...
//
// Every argument named README.md outside reports/ is checked; the others are
// the generated reports. Exit 1 with one line per figure, 2 for usage.

#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "analysis/readme_figures.h"
#include "lib/safe_file.h"

int main(int argc, char** argv) {
  std::vector<std::pair<std::string, std::string>> readmes;  // path, text
  std::string reports;
  int report_files = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    absl::StatusOr<std::string> read = spawnlab::ReadFileToString(path);
    if (!read.ok()) {
      std::cerr << "error: " << read.status().message() << "\n";
      return 2;
    }
    std::string& text = *read;
    const bool is_readme = (path == "README.md" || absl::EndsWith(path, "/README.md")) &&
                           !absl::StartsWith(path, "reports/");
    if (is_readme) {
      readmes.push_back({path, std::move(text)});
    } else {
      reports += text;
      reports += "\n";
      ++report_files;
    }
  }
  if (readmes.empty() || report_files == 0) {
    std::cerr << "usage: readme_figures_check README.md... REPORT.md...\n";
    return 2;
  }
  std::vector<std::string> problems;
  for (const auto& [path, text] : readmes) {
    for (std::string& p : spawnlab::analysis::UnbackedFigures(path, text, reports)) {
      problems.push_back(std::move(p));
    }
  }
  for (const std::string& p : problems) std::cout << p << "\n";
  if (!problems.empty()) {
    std::cout << "\n"
              << problems.size() << " figure(s) in " << readmes.size()
              << " README(s) that no generated report holds (of " << report_files
              << " report files). A README states the method and conclusions in words "
              << "and links the report for figures; a setting, a bound or a figure quoted "
              << "from a source goes in a code span (analysis/readme_figures.h).\n";
    return 1;
  }
  std::cout << readmes.size() << " READMEs: every figure is one the " << report_files
            << " generated reports hold\n";
  return 0;
}
