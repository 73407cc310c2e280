// bench_name.cc: see bench_name.h.

#include "results_model/bench_name.h"

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "re2/re2.h"

namespace spawnlab {
namespace {

// Debian's re2 (2022-06) takes its own StringPiece, not absl::string_view.
re2::StringPiece Piece(absl::string_view s) { return re2::StringPiece(s.data(), s.size()); }

}  // namespace

absl::StatusOr<BenchName> ParseBenchName(absl::string_view name) {
  static const RE2* const kFamily = new RE2("[a-z][a-z0-9_.-]*");
  static const RE2* const kDim = new RE2("([a-z][a-z0-9_-]*):([A-Za-z0-9_.+-]+)");
  // Segments Google Benchmark appends to a name.
  static const std::set<std::string>* const kLibrarySegments =
      new std::set<std::string>{"min_time", "min_warmup_time", "repeats",     "iterations",
                                "threads",  "real_time",       "manual_time", "process_time"};
  std::vector<absl::string_view> parts = absl::StrSplit(name, '/');
  BenchName out;
  if (!RE2::FullMatch(Piece(parts[0]), *kFamily)) {
    return absl::InvalidArgumentError(absl::StrCat("benchmark name '", name, "': family '",
                                                   parts[0], "' is not [a-z][a-z0-9_.-]*"));
  }
  out.family = std::string(parts[0]);
  out.canonical = out.family;
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string dim, value;
    if (kLibrarySegments->count(std::string(parts[i])) > 0) continue;
    if (!RE2::FullMatch(Piece(parts[i]), *kDim, &dim, &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("benchmark name '", name, "': segment '", parts[i], "' is not dim:value"));
    }
    if (kLibrarySegments->count(dim) > 0) continue;
    if (!out.dims.emplace(dim, value).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("benchmark name '", name, "': dimension '", dim, "' twice"));
    }
    absl::StrAppend(&out.canonical, "/", dim, ":", value);
  }
  return out;
}

}  // namespace spawnlab
