// results_file_test.cc: good files parse into series; every kind of bad file is
// rejected with its name and what is wrong; a folder with both reports the
// good files and one error per bad one.

#include "results_model/results_file.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {

namespace {

using ::testing::HasSubstr;

std::string Testdata(const std::string& rel) {
  absl::StatusOr<std::string> p = spawnlab::Runfile("analysis/testdata/" + rel);
  return p.ok() ? *p : rel;
}

TEST(Results, NaturalLessOrdersReleasesAsVersions) {
  EXPECT_TRUE(NaturalLess("6.1.176", "6.18.44-fc-v669"));
  EXPECT_TRUE(NaturalLess("6.18.44-fc-v669", "6.18.44-fc-v782"));
  EXPECT_TRUE(NaturalLess("6.18.44-fc-v782", "6.18.44-fc-v1098"));
  EXPECT_TRUE(NaturalLess("6.18.44-fc-v1098", "6.18.44-fc-v1147"));
  EXPECT_FALSE(NaturalLess("6.18.44-fc-v1147", "6.18.44-fc-v669"));
  EXPECT_TRUE(NaturalLess("results/6.9/a.json", "results/6.10/a.json"));
  EXPECT_TRUE(NaturalLess("x", "x.rerun"));   // a prefix first
  EXPECT_TRUE(NaturalLess("v7", "v07"));      // equal values: the shorter run first
  EXPECT_FALSE(NaturalLess("same", "same"));  // irreflexive
  EXPECT_FALSE(NaturalLess("", ""));
  EXPECT_TRUE(NaturalLess("", "a"));
}

TEST(Results, ParsesSeriesSamplesAggregatesAndSkips) {
  absl::StatusOr<ResultsFile> f = LoadResultsFile(Testdata("good/6.1.0-test/clone3.json"));
  ASSERT_THAT(f, IsOk()) << f.status();
  EXPECT_EQ(f->experiment(), "clone3");
  EXPECT_EQ(f->kernel(), "6.1.0-test");
  EXPECT_EQ(f->host(), "testhost");
  const Series* fork = f->Find("spawn/method:fork/child:minimal/parent:minimal/until:exit");
  ASSERT_NE(fork, nullptr);
  EXPECT_EQ(fork->Repetitions(), 9);
  EXPECT_DOUBLE_EQ(fork->Median(), 1400 * 1.01 * 1e3);  // us -> ns
  EXPECT_DOUBLE_EQ(fork->Min(), 1400 * 0.97 * 1e3);
  EXPECT_EQ(fork->parsed.dims.at("method"), "fork");
  const Series* empty = f->Find("harness/op:empty");
  ASSERT_NE(empty, nullptr);
  EXPECT_NEAR(empty->Median(), 30 * 1.01, 1e-9);  // already ns
  const Series* clone3 = f->Find("spawn/method:clone3/child:minimal/parent:minimal/until:exit");
  ASSERT_NE(clone3, nullptr);
  EXPECT_FALSE(clone3->measured());
  EXPECT_THAT(clone3->skipped, HasSubstr("ENOSYS"));
  EXPECT_TRUE(clone3->error.empty());
}

// A key ratio over processes: each process's median of its rounds' ratios,
// paired within the process; a row with fewer processes (one in no key ratio
// of its run, measured in the first ones only) pairs with those it shares.
TEST(Results, ProcessRatioMediansPairWithinEachProcess) {
  Series num, den;
  den.samples_ns = {10, 20, 10, 20, 10, 20};
  den.processes = {1, 1, 2, 2, 3, 3};
  num.samples_ns = {20, 40, 30, 60};  // 2x in process 1, 3x in process 2
  num.processes = {1, 1, 2, 2};
  EXPECT_EQ(ProcessRatioMedians(num, den), (std::vector<double>{2, 3}));
  // One process in common, or a run of one process: no sample to compare.
  num.samples_ns = {20, 40};
  num.processes = {1, 1};
  EXPECT_TRUE(ProcessRatioMedians(num, den).empty());
  num.processes = {0, 0};
  EXPECT_TRUE(ProcessRatioMedians(num, den).empty());
}

TEST(Results, AggregatesAloneAreEnough) {
  absl::StatusOr<ResultsFile> f = LoadResultsFile(Testdata("good/6.1.0-test/crosscheck.json"));
  ASSERT_THAT(f, IsOk()) << f.status();
  const Series* s = f->Find("crosscheck/way:lat_proc/op:fork-exit/parent:minimal");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->Repetitions(), 0);
  EXPECT_DOUBLE_EQ(s->Median(), 700e3);
  EXPECT_DOUBLE_EQ(s->Min(), 650e3);
  EXPECT_TRUE(std::isnan(s->Stddev()));
}

TEST(Results, FailedRowsKeepTheirMessage) {
  absl::StatusOr<ResultsFile> f = ParseResults(
      R"({"benchmarks": [{"name": "x/op:y", "run_name": "x/op:y", "run_type": "iteration",
          "error_occurred": true, "error_message": "INTERNAL: it broke"}]})",
      "inline.json");
  ASSERT_THAT(f, IsOk()) << f.status();
  EXPECT_EQ(f->series[0].error, "INTERNAL: it broke");
  EXPECT_TRUE(f->series[0].skipped.empty());
}

struct BadCase {
  const char* file;
  const char* says;
};

class BadFileTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadFileTest, IsRejectedNamingTheFileAndTheProblem) {
  const std::string path = Testdata(std::string("bad/") + GetParam().file);
  absl::StatusOr<ResultsFile> f = LoadResultsFile(path);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument) << f.status();
  EXPECT_THAT(f.status().message(), HasSubstr(GetParam().file));
  EXPECT_THAT(f.status().message(), HasSubstr(GetParam().says));
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, BadFileTest,
    ::testing::Values(BadCase{"truncated.json", "not valid JSON"},
                      BadCase{"garbage.json", "not valid JSON"},
                      BadCase{"empty.json", "empty file"},
                      BadCase{"foreign.json", "not a Google Benchmark results file"},
                      BadCase{"wrong_types.json", "not a string"},
                      BadCase{"foreign_names.json", "is not [a-z]"},
                      BadCase{"bad_unit.json", "unknown time_unit"},
                      BadCase{"context_not_object.json", "'context' is not an object"},
                      BadCase{"time_not_number.json", "no numeric real_time"},
                      BadCase{"array.json", "not a JSON object"}));

TEST(Results, MissingFileIsNotFound) {
  EXPECT_EQ(LoadResultsFile("/nonexistent/results.json").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(Results, AFolderReportsTheGoodFilesAndOneErrorPerBadOne) {
  std::string good = Testdata("good/6.1.0-test/clone3.json");
  std::string root = good.substr(0, good.rfind("/good/"));
  ResultsSet set = LoadResultsDir(root);
  EXPECT_EQ(set.files.size(), 4u);    // two clone3 kernels, crosscheck, command
  EXPECT_EQ(set.errors.size(), 10u);  // every file under bad/
  for (size_t i = 1; i < set.files.size(); ++i) {
    EXPECT_LT(set.files[i - 1].path, set.files[i].path);  // sorted
  }
}

TEST(Results, AFolderWalkReadsFullRunsOnlyAndNeverBlocks) {
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/walk");
  const std::string host = dir + "/6.1.0-test/somehost";
  std::filesystem::create_directories(host);
  std::filesystem::copy_file(Testdata("good/6.1.0-test/clone3.json"), host + "/clone3.json");
  for (const char* other :
       {"clone3.quick.json", "clone3.filtered.json", "clone3.json.tmp-123", "clone3.rerun.json"}) {
    std::filesystem::copy_file(Testdata("good/6.1.0-test/clone3.json"), host + "/" + other);
  }
  ASSERT_EQ(mkfifo((host + "/fifo.json").c_str(), 0600), 0);       // reading it would block
  std::filesystem::create_directory_symlink(dir, host + "/loop");  // a walk that follows loops
  ResultsSet set = LoadResultsDir(dir);
  ASSERT_EQ(set.files.size(), 1u);
  EXPECT_EQ(set.files[0].path, "walk/6.1.0-test/somehost/clone3.json");
  // A rerun is read, and kept apart from the runs.
  ASSERT_EQ(set.reruns.size(), 1u);
  EXPECT_EQ(set.reruns[0].path, "walk/6.1.0-test/somehost/clone3.rerun.json");
  EXPECT_TRUE(set.errors.empty());
}

}  // namespace

}  // namespace spawnlab
