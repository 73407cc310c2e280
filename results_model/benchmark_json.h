// benchmark_json.h: read Google Benchmark's JSON output.
//
// Google Benchmark 1.7.1 writes a non-finite double as a bare NaN, -NaN,
// Infinity or -Infinity (the cv aggregate of a counter that is always 0 is
// 0/0), which strict JSON parsers such as nlohmann-json reject. This reads
// those tokens, outside strings only, as null, and parses the rest strictly.
//
// Example:
//
//   nlohmann::json doc = spawnlab::ParseBenchmarkJson(text);
//   if (doc.is_discarded()) ... not valid JSON ...

#ifndef SPAWNLAB_RESULTS_MODEL_BENCHMARK_JSON_H_
#define SPAWNLAB_RESULTS_MODEL_BENCHMARK_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace spawnlab {

// The parsed document, or a discarded value (is_discarded()) if `text` is
// not JSON even with the non-finite tokens read as null, or if it nests
// deeper than kMaxJsonDepth (a results file nests 3 levels; printing or
// copying a value 200,000 levels deep would overflow the stack).
nlohmann::json ParseBenchmarkJson(absl::string_view text);

inline constexpr int kMaxJsonDepth = 64;

// The text of the file at `path`: NotFound if it cannot be opened,
// InvalidArgument if it is a directory; each names the path.
absl::StatusOr<std::string> ReadFileText(const std::string& path);

// The JSON object in the file at `path`, parsed as ParseBenchmarkJson does:
// what every reader of a results file, or of Google Benchmark's own output,
// starts from. NotFound if the file cannot be opened, InvalidArgument if it
// is a directory, DataLoss if it is not a JSON object; each names the path.
//
//   absl::StatusOr<nlohmann::json> doc = spawnlab::ReadBenchmarkJsonFile(path);
//   if (doc.ok() && doc->contains("context")) ...
absl::StatusOr<nlohmann::json> ReadBenchmarkJsonFile(const std::string& path);

// The deepest nesting of arrays and objects in `text` (outside strings).
int JsonNestingDepth(absl::string_view text);

// `text` with bare NaN/Infinity tokens outside strings replaced by null.
std::string NullNonFinite(absl::string_view text);

}  // namespace spawnlab

#endif  // SPAWNLAB_RESULTS_MODEL_BENCHMARK_JSON_H_
