// bench_name.h: benchmark names as spawnlab writes them, `family/dim:value/...`.
//
// Google Benchmark adds its own segments to a name (`min_time:0.050`,
// `repeats:9`, `manual_time`, ...); ParseBenchName drops those, so that the
// dimensions are what the bench registered.
//
// Example:
//
//   absl::StatusOr<spawnlab::BenchName> n = spawnlab::ParseBenchName(
//       "spawn/method:vfork/child:static/min_time:0.050/repeats:9/manual_time");
//   // n->family == "spawn"; n->dims == {{"method", "vfork"}, {"child", "static"}}

#ifndef SPAWNLAB_RESULTS_MODEL_BENCH_NAME_H_
#define SPAWNLAB_RESULTS_MODEL_BENCH_NAME_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace spawnlab {

struct BenchName {
  std::string family;
  std::map<std::string, std::string> dims;
  // `family/dim:value/...` again, without Google Benchmark's segments, the
  // dimensions in the order they were written.
  std::string canonical;
};

// InvalidArgument, saying why, for a name that is not `family/dim:value/...`.
absl::StatusOr<BenchName> ParseBenchName(absl::string_view name);

}  // namespace spawnlab

#endif  // SPAWNLAB_RESULTS_MODEL_BENCH_NAME_H_
