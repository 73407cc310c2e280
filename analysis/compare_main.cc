// compare_main.cc: bazel run //analysis:compare -- [--ratios=DIM:VALUE] OLD.json NEW.json
//
// Prints what differs between the two runs' machines, then the comparison of
// compare.h. Relative paths are taken from where bazel run was started.
//   --ratios=method:vfork  the runs' key ratios instead (each row over its
//                          vfork row, paired within rounds): figures the
//                          machine's drift between the runs does not move
//   --canary               each row over its run's drift canary of the round
//   --self_check           two runs of the same code: the reproducibility
//                          table against its targets; exit 0 if met, 3 if not

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "analysis/compare.h"
#include "results_model/results_file.h"
#include "results_model/benchmark_json.h"
#include "results_model/context_keys.h"

int main(int argc, char** argv) {
  std::optional<spawnlab::RatioBaseline> ratios;
  std::vector<std::string> files;
  bool self_check = false;
  bool canary = false;
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (a == "--self_check") {
      self_check = true;
    } else if (a == "--canary") {
      canary = true;
    } else if (absl::ConsumePrefix(&a, "--ratios=")) {
      std::vector<std::string> dv = absl::StrSplit(a, absl::MaxSplits(':', 1));
      if (dv.size() != 2 || dv[0].empty() || dv[1].empty()) {
        std::cerr << "error: --ratios=DIM:VALUE, e.g. --ratios=method:vfork\n";
        return 2;
      }
      ratios = spawnlab::RatioBaseline{dv[0], dv[1]};
    } else if (absl::StartsWith(a, "-")) {
      files.clear();
      break;
    } else {
      files.emplace_back(a);
    }
  }
  if (canary && ratios) {
    std::cerr << "error: --canary and --ratios are two ways to normalise: give one\n";
    return 2;
  }
  if (files.size() != 2) {
    std::cerr
        << "usage: compare [--ratios=DIM:VALUE | --canary] [--self_check] OLD.json NEW.json\n";
    return 2;
  }
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  auto resolve = [&](std::string p) {
    return (p.empty() || p[0] == '/' || cwd == nullptr) ? p : absl::StrCat(cwd, "/", p);
  };
  absl::StatusOr<spawnlab::ResultsFile> old_file = spawnlab::LoadResultsFile(resolve(files[0]));
  absl::StatusOr<spawnlab::ResultsFile> new_file = spawnlab::LoadResultsFile(resolve(files[1]));
  for (const auto* f : {&old_file, &new_file}) {
    if (!f->ok()) {  // a file that is missing or no results file: bad input
      std::cerr << "error: " << f->status().message() << "\n";
      return 2;
    }
  }
  if (old_file->experiment() != new_file->experiment()) {
    std::cerr << "error: " << old_file->path << " is a run of " << old_file->experiment() << ", "
              << new_file->path << " of " << new_file->experiment()
              << ": compare takes two runs of one bench\n";
    return 2;
  }
  std::cout << spawnlab::analysis::ContextDifferences(*old_file, *new_file);
  if (self_check) {
    spawnlab::analysis::Reproducibility r = spawnlab::analysis::CheckReproducibility(
        *old_file, *new_file, ratios);
    std::cout << r.table;
    return r.meets_targets ? 0 : 3;
  }
  if (ratios) {
    spawnlab::analysis::RatioComparison c = spawnlab::analysis::CompareRatios(*old_file, *new_file, *ratios);
    if (c.rows.empty()) {
      std::cerr << "error: no row has a " << ratios->dimension << ":" << ratios->value
                << " partner in both files\n";
      return 1;
    }
    std::cout << spawnlab::analysis::FormatRatioComparison(c, *ratios);
    return 0;
  }
  if (canary) {
    absl::StatusOr<spawnlab::ResultsFile> o = spawnlab::analysis::NormaliseByCanary(*old_file);
    absl::StatusOr<spawnlab::ResultsFile> n = spawnlab::analysis::NormaliseByCanary(*new_file);
    for (const auto* f : {&o, &n}) {
      if (!f->ok()) {
        std::cerr << "error: " << f->status().message() << "\n";
        return 1;
      }
    }
    const std::string row = old_file->context.at(spawnlab::keys::kCanaryRow);
    if (new_file->context.at(spawnlab::keys::kCanaryRow) != row) {
      std::cerr << "error: the two runs have different canaries (" << row << ", "
                << new_file->context.at(spawnlab::keys::kCanaryRow) << ")\n";
      return 1;
    }
    std::cout << spawnlab::analysis::FormatComparison(spawnlab::analysis::CompareResults(*o, *n), row);
    return 0;
  }
  std::cout << spawnlab::analysis::FormatComparison(spawnlab::analysis::CompareResults(*old_file, *new_file));
  return 0;
}
