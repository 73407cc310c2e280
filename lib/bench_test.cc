// bench_test.cc: the bench harness writes JSON where it should, with the
// environment in its context, the repetitions and aggregates in its rows, and
// skipped rows told apart from failed ones; bad flags are clear errors.

#include "lib/bench.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "lib/testing/bench_json.h"
#include "nlohmann/json.hpp"

namespace spawnlab {
namespace {

std::string Fixture() {
  absl::StatusOr<std::string> path = Runfile("lib/bench_fixture");
  return path.ok() ? *path : "";
}

// Runs the fixture with `args` and the environment `env`; returns the exit code.
int RunFixture(std::vector<std::string> args, std::vector<std::string> env) {
  std::vector<std::string> argv = {Fixture(), "--quick"};
  argv.insert(argv.end(), args.begin(), args.end());
  env.push_back("PATH=/usr/bin:/bin");
  absl::StatusOr<Child> child = Spawn(SpawnMethod::kPosixSpawn, ExecSpec(Fixture(), argv, env));
  if (!child.ok()) return -1;
  absl::StatusOr<ExitStatus> status = child->WaitFor(absl::Seconds(60));
  return status.ok() && status->exited() ? status->exit_code() : -1;
}

TEST(Bench, WritesValidJsonWithMeasuredAndSkippedRows) {
  absl::StatusOr<nlohmann::json> json =
      testing::RunBench(Fixture(), {"--quick"}, absl::Seconds(60));
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_TRUE(testing::ValidateBenchJson(*json).ok()) << testing::ValidateBenchJson(*json);
  EXPECT_EQ((*json)["context"]["spawnlab.experiment"], "fixture");
  EXPECT_EQ((*json)["context"]["spawnlab.quick"], "true");
  int iterations = 0, skipped = 0;
  std::set<std::string> aggregates;
  for (const nlohmann::json& row : (*json)["benchmarks"]) {
    if (row.value("error_occurred", false)) {
      EXPECT_TRUE(absl::StartsWith(row.value("error_message", ""), "skipped: frobnicate"));
      ++skipped;
    } else if (row["run_type"] == "iteration") {
      ++iterations;
    } else {
      aggregates.insert(row["aggregate_name"].get<std::string>());
    }
  }
  EXPECT_EQ(iterations, 2);  // --quick: two repetitions
  EXPECT_GE(skipped, 1);
  for (const char* agg : {"mean", "median", "stddev", "min"}) {
    EXPECT_TRUE(aggregates.count(agg)) << agg;
  }
}

TEST(Bench, DefaultPathIsUnderTheWorkspaceResults) {
  const std::string workspace = absl::StrCat(std::getenv("TEST_TMPDIR"), "/ws");
  ASSERT_EQ(RunFixture({}, {absl::StrCat("BUILD_WORKSPACE_DIRECTORY=", workspace)}), 0);
  std::ifstream in(DefaultResultsPath(workspace, "fixture"));
  ASSERT_TRUE(in) << DefaultResultsPath(workspace, "fixture");
  EXPECT_FALSE(nlohmann::json::parse(in, nullptr, false).is_discarded());
}

TEST(Bench, AFailedRowMakesTheExitCodeNonZero) {
  const std::string out = absl::StrCat(std::getenv("TEST_TMPDIR"), "/fail.json");
  EXPECT_EQ(RunFixture({"--fail", absl::StrCat("--out=", out)}, {}), 1);
}

TEST(Bench, BadFlagsAreErrors) {
  const std::string out = absl::StrCat("--out=", std::getenv("TEST_TMPDIR"), "/bad.json");
  EXPECT_NE(RunFixture({"--no_such_flag", out}, {}), 0);
  EXPECT_NE(RunFixture({"--cpu=lots", out}, {}), 0);
  EXPECT_NE(RunFixture({"--cpu=100000", out}, {}), 0);
  EXPECT_NE(RunFixture({"stray-argument", out}, {}), 0);
}

TEST(Bench, DefaultResultsPathNamesKernelAndExperiment) {
  std::string p = DefaultResultsPath("/ws", "clone3");
  EXPECT_TRUE(absl::StartsWith(p, "/ws/results/")) << p;
  EXPECT_TRUE(absl::EndsWith(p, "/clone3.json")) << p;
  EXPECT_TRUE(absl::StartsWith(DefaultResultsPath("", "x"), "results/"));
}

}  // namespace
}  // namespace spawnlab
