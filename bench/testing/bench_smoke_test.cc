// bench_smoke_test.cc: the smoke test every bench gets from spawnlab_bench().
//
//   bench_smoke_test BENCH [--expect=REGEX ...] [--expect="REGEX if probe.KEY" ...]
//
// Runs BENCH --quick (killed after --timeout_s), validates its JSON with
// ValidateBenchJson, and checks that for each REGEX some row's name (without
// Google Benchmark's own segments) matches it in full, and that one such row
// was measured, not skipped; with "if probe.KEY", measured where the run's
// context says that probe passed, and skipped where it failed. Then runs it
// again measuring one row only (--spawnlab_rows, as a later process of a run
// that stops by itself does), which must measure that row and no other.

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "results_model/bench_name.h"
#include "results_model/bench_results.h"
#include "results_model/context_keys.h"
#include "lib/runfiles.h"
#include "bench/testing/bench_output.h"
#include "re2/re2.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace {

// A bench's declaration names only rows it registers: its canary (every row
// of every run, so it must be one), and for each key-ratio baseline
// "dim:value" a row with that value and one without it to divide.
void ExpectDeclaredRowsExist(const nlohmann::json& json) {
  std::vector<spawnlab::BenchName> rows;
  for (const nlohmann::json& row : json["benchmarks"]) {
    absl::StatusOr<spawnlab::BenchName> name = spawnlab::ParseBenchName(row.value("run_name", ""));
    if (name.ok()) rows.push_back(*name);
  }
  const nlohmann::json& context = json["context"];
  if (const std::string canary = context.value(spawnlab::keys::kCanaryRow, ""); !canary.empty()) {
    bool registered = false;
    for (const spawnlab::BenchName& r : rows) registered |= r.canonical == canary;
    EXPECT_TRUE(registered) << "the canary row " << canary << " is not a row of this bench";
  }
  for (absl::string_view by : absl::StrSplit(context.value(spawnlab::keys::kRatioBaseline, ""), ',',
                                             absl::SkipEmpty())) {
    const std::pair<std::string, std::string> dv = absl::StrSplit(by, absl::MaxSplits(':', 1));
    int with = 0, without = 0;
    for (const spawnlab::BenchName& r : rows) {
      auto it = r.dims.find(dv.first);
      if (it == r.dims.end()) continue;
      (it->second == dv.second ? with : without)++;
    }
    EXPECT_GT(with, 0) << "no row has the key ratios' baseline " << by;
    EXPECT_GT(without, 0) << "no row to divide by the baseline " << by;
  }
}

std::string bench;
std::vector<std::string> expected;
int timeout_s = 120;

// The bench's --quick run, made once for every test here.
const absl::StatusOr<nlohmann::json>& QuickRun() {
  static const absl::StatusOr<nlohmann::json>* run = [] {
    absl::StatusOr<std::string> path = spawnlab::Runfile(bench);
    if (!path.ok()) return new absl::StatusOr<nlohmann::json>(path.status());
    return new absl::StatusOr<nlohmann::json>(
        spawnlab::testing::RunBench(*path, {"--quick"}, absl::Seconds(timeout_s)));
  }();
  return *run;
}

TEST(BenchSmoke, QuickRunWritesValidJson) {
  const absl::StatusOr<nlohmann::json>& json = QuickRun();
  ASSERT_THAT(json, IsOk()) << json.status();
  absl::Status valid = spawnlab::testing::ValidateBenchJson(*json);
  EXPECT_THAT(valid, IsOk()) << valid;
  ExpectDeclaredRowsExist(*json);
  // The rows that were measured (skipped and failed rows have no times).
  const std::map<std::string, std::vector<double>> measured_rows = spawnlab::RepetitionTimes(spawnlab::ResultsOf(*json));
  for (const std::string& expectation : expected) {
    // "REGEX if probe.KEY": the rows depend on a kernel or machine feature.
    // Where the run's context says the probe passed ("ok"), one must be
    // measured; where it failed, every one must be skipped (with the reason).
    std::string pattern = expectation, probe;
    if (const size_t at = expectation.find(" if "); at != std::string::npos) {
      pattern = expectation.substr(0, at);
      probe = expectation.substr(at + 4);
    }
    bool feature_present = true;
    if (!probe.empty()) {
      const nlohmann::json& context = (*json)["context"];
      ASSERT_TRUE(context.contains(probe) && context[probe].is_string())
          << "the context records no " << probe;
      feature_present = context[probe].get<std::string>() == "ok";
    }
    RE2 re(pattern);
    ASSERT_TRUE(re.ok()) << pattern << ": " << re.error();
    // A skipped row proves nothing ran: each pattern needs a row that was
    // measured. (Patterns list alternatives, so one that every kernel has,
    // such as waitpid beside uring-waitid, satisfies it on an old kernel.)
    bool found = false, measured = false;
    for (const nlohmann::json& row : (*json)["benchmarks"]) {
      absl::StatusOr<spawnlab::BenchName> name =
          spawnlab::ParseBenchName(row.value("run_name", ""));
      if (name.ok() && RE2::FullMatch(name->canonical, re)) found = true;
    }
    for (const auto& [name, times] : measured_rows) {
      if (RE2::FullMatch(name, re) && !times.empty()) measured = true;
    }
    EXPECT_TRUE(found) << "no row matches " << pattern;
    if (feature_present) {
      EXPECT_TRUE(!found || measured) << "every row matching " << pattern << " was skipped";
    } else {
      EXPECT_FALSE(measured) << pattern << " measured although " << probe << " failed";
    }
  }
}

// A later process of a run that stops by itself measures only the key
// ratios' rows (--spawnlab_rows): a bench must register and run a subset of
// its rows, whatever it does to the ones it registered.
TEST(BenchSmoke, ARunOfOneRowMeasuresThatRowOnly) {
  const absl::StatusOr<nlohmann::json>& all = QuickRun();
  ASSERT_THAT(all, IsOk()) << all.status();
  // The canary where it was measured (a run of any rows measures it), else
  // the first row measured.
  std::string row = (*all)["context"].value(spawnlab::keys::kCanaryRow, "");
  const std::map<std::string, std::vector<double>> measured =
      spawnlab::RepetitionTimes(spawnlab::ResultsOf(*all));
  auto it = measured.find(row);
  if (it == measured.end() || it->second.empty()) {
    row.clear();
    for (const auto& [name, times] : measured) {
      if (!times.empty()) {
        row = name;
        break;
      }
    }
  }
  ASSERT_FALSE(row.empty()) << "the quick run measured no row";
  absl::StatusOr<std::string> path = spawnlab::Runfile(bench);
  ASSERT_THAT(path, IsOk()) << path.status();
  absl::StatusOr<nlohmann::json> one = spawnlab::testing::RunBench(
      *path, {"--quick", "--spawnlab_rows=^" + RE2::QuoteMeta(row) + "$"},
      absl::Seconds(timeout_s));
  ASSERT_THAT(one, IsOk()) << one.status();
  const std::map<std::string, std::vector<double>> got =
      spawnlab::RepetitionTimes(spawnlab::ResultsOf(*one));
  ASSERT_EQ(got.size(), 1u) << "rows measured with --spawnlab_rows=" << row;
  EXPECT_EQ(got.begin()->first, row);
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
