// compare_main.cc: bazel run //analysis:compare -- OLD.json NEW.json
//
// Prints, per benchmark in both files, the change of the median, the
// Mann-Whitney U test on the repetitions (with a warning below 9), and the
// geometric mean of the changes (see compare.h). Relative paths are taken from
// the directory bazel run was started in.

#include <cstdlib>
#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "analysis/compare.h"
#include "analysis/results.h"

int main(int argc, char** argv) {
  if (argc != 3 || absl::StartsWith(argv[1], "-")) {
    std::cerr << "usage: compare OLD.json NEW.json\n";
    return 2;
  }
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  auto resolve = [&](std::string p) {
    return (p.empty() || p[0] == '/' || cwd == nullptr) ? p : absl::StrCat(cwd, "/", p);
  };
  absl::StatusOr<analysis::ResultsFile> old_file = analysis::LoadResultsFile(resolve(argv[1]));
  absl::StatusOr<analysis::ResultsFile> new_file = analysis::LoadResultsFile(resolve(argv[2]));
  for (const auto* f : {&old_file, &new_file}) {
    if (!f->ok()) {
      std::cerr << "error: " << f->status().message() << "\n";
      return 1;
    }
  }
  std::cout << analysis::FormatComparison(analysis::CompareResults(*old_file, *new_file));
  return 0;
}
