// bench_smoke_test.cc: the smoke test every bench gets from spawnlab_bench().
//
//   bench_smoke_test BENCH [--expect=REGEX ...]
//
// Runs BENCH --quick (killed after --timeout_s), validates its JSON with
// ValidateBenchJson, and checks that for each REGEX some row's name (without
// Google Benchmark's own segments) matches it in full.

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/numbers.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/bench_name.h"
#include "lib/runfiles.h"
#include "lib/testing/bench_json.h"
#include "re2/re2.h"

namespace {

std::string bench;
std::vector<std::string> expected;
int timeout_s = 120;

TEST(BenchSmoke, QuickRunWritesValidJson) {
  absl::StatusOr<std::string> path = spawnlab::Runfile(bench);
  ASSERT_TRUE(path.ok()) << path.status();
  absl::StatusOr<nlohmann::json> json =
      spawnlab::testing::RunBench(*path, {"--quick"}, absl::Seconds(timeout_s));
  ASSERT_TRUE(json.ok()) << json.status();
  absl::Status valid = spawnlab::testing::ValidateBenchJson(*json);
  EXPECT_TRUE(valid.ok()) << valid;
  for (const std::string& pattern : expected) {
    RE2 re(pattern);
    ASSERT_TRUE(re.ok()) << pattern << ": " << re.error();
    bool found = false;
    for (const nlohmann::json& row : (*json)["benchmarks"]) {
      absl::StatusOr<spawnlab::BenchName> name =
          spawnlab::ParseBenchName(row.value("run_name", ""));
      if (name.ok() && RE2::FullMatch(name->canonical, re)) found = true;
    }
    EXPECT_TRUE(found) << "no row matches " << pattern;
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (absl::ConsumePrefix(&arg, "--expect=")) {
      expected.emplace_back(arg);
    } else if (absl::ConsumePrefix(&arg, "--timeout_s=")) {
      if (!absl::SimpleAtoi(arg, &timeout_s)) return 2;
    } else {
      bench = std::string(arg);
    }
  }
  if (bench.empty()) {
    fprintf(stderr, "usage: %s BENCH [--expect=REGEX ...] [--timeout_s=N]\n", argv[0]);
    return 2;
  }
  return RUN_ALL_TESTS();
}
