// bench_output.h: run a bench binary as a test would, and check what it wrote.
//
// Example:
//
//   absl::StatusOr<nlohmann::json> json =
//       spawnlab::testing::RunBench(bench_path, {"--quick"}, absl::Seconds(120));
//   ASSERT_TRUE(json.ok()) << json.status();
//   EXPECT_TRUE(spawnlab::testing::ValidateBenchJson(*json).ok());

#ifndef SPAWNLAB_BENCH_TESTING_BENCH_OUTPUT_H_
#define SPAWNLAB_BENCH_TESTING_BENCH_OUTPUT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace spawnlab {
namespace testing {

// Runs `bench` with `args` plus --out=<a file under TEST_TMPDIR>, kills it
// after `timeout`, and returns the JSON it wrote. An error if it exits
// non-zero, times out, or writes no valid JSON.
absl::StatusOr<nlohmann::json> RunBench(const std::string& bench, std::vector<std::string> args,
                                        absl::Duration timeout);

// The checks every bench's output must pass: a `context` with the
// environment record's keys; `benchmarks` rows whose names parse as
// `family/dim:value/...`; each row either measured (a positive time) or
// skipped with a reason ("skipped: ..."), never failed.
absl::Status ValidateBenchJson(const nlohmann::json& json);

}  // namespace testing
}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_TESTING_BENCH_OUTPUT_H_
