// results_file_fuzz_test.cc: the fuzz entry point over every fixture, every
// truncation of a good one, and byte flips: the corpus a fuzz run starts from,
// run in every `bazel test //...`.

#include <dirent.h>

#include <fstream>
#include <sstream>
#include <string>

#include "results_model/results_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "results_model/benchmark_json.h"
#include "lib/runfiles.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int Feed(const std::string& s) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

absl::Status Parse(const std::string& s) { return spawnlab::ParseResults(s, "fuzz.json").status(); }

TEST(ResultsFuzz, FixturesTruncationsAndFlipsDoNotCrash) {
  absl::StatusOr<std::string> crosscheck =
      spawnlab::Runfile("analysis/testdata/good/6.1.0-test/crosscheck.json");
  ASSERT_THAT(crosscheck, IsOk()) << crosscheck.status();
  const std::string text = Read(*crosscheck);
  ASSERT_FALSE(text.empty());
  // The whole file parses; every truncation short of its last brace is an
  // error naming the file (the entry point must also survive each).
  EXPECT_THAT(Parse(text), IsOk()) << Parse(text);
  const size_t last_brace = text.rfind('}');
  for (size_t n = 0; n < last_brace; n += 7) {
    Feed(text.substr(0, n));
    absl::Status s = Parse(text.substr(0, n));
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << "truncated at " << n;
    EXPECT_THAT(s.message(), ::testing::HasSubstr("fuzz.json"));
  }
  // A flipped byte may still be a valid file; it must never crash.
  for (size_t i = 0; i < text.size(); i += 13) {
    std::string flipped = text;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    Feed(flipped);
  }
}

// Each of these once threw out of the parser (nlohmann's accessors on a type
// they did not expect: SIGABRT) or overflowed the stack (deep nesting). Each
// is now an InvalidArgument, or a file read with the odd field ignored.
TEST(ResultsFuzz, TypeConfusionAndDeepNestingAreErrorsNotCrashes) {
  const std::string row = R"("name":"a/b:c","run_type":"iteration","real_time":1,"time_unit":"ns")";
  for (const std::string& odd : {
           std::string(""),
           std::string("null"),
           std::string("[]"),
           std::string("{}"),
           std::string(R"({"benchmarks":null})"),
           std::string(R"({"benchmarks":[[]]})"),
           std::string(R"({"benchmarks":[{"name":"a","error_occurred":"yes"}]})"),
           std::string(R"({"benchmarks":[{"name":7}]})"),
           std::string(R"({"context":[],"benchmarks":[]})"),
           std::string(R"({"benchmarks":[{)") + row + R"(,"time_unit":"fortnights"}]})",
       }) {
    Feed(odd);
    EXPECT_EQ(Parse(odd).code(), absl::StatusCode::kInvalidArgument) << odd;
  }
  for (const std::string& read_anyway : {
           std::string(R"({"benchmarks":[{"family_index":0,"per_family_instance_index":"x",)") +
               row + "}]}",
           std::string(R"({"benchmarks":[{"aggregate_unit":7,)") + row + "}]}",
           std::string(R"({"benchmarks":[{"aggregate_unit":[1,2],)") + row + "}]}",
       }) {
    Feed(read_anyway);
    absl::StatusOr<spawnlab::ResultsFile> f = spawnlab::ParseResults(read_anyway, "fuzz.json");
    ASSERT_THAT(f, IsOk()) << read_anyway << ": " << f.status();
    EXPECT_EQ(f->series.size(), 1u);
  }
  // A context value nested 200,000 levels deep.
  const std::string deep = R"({"context":{"x":)" + std::string(200000, '[') +
                           std::string(200000, ']') + R"(},"benchmarks":[])" + "}";
  Feed(deep);
  absl::Status s = Parse(deep);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("nested"));
  // Nesting as deep as the limit still parses.
  const int ok_depth = spawnlab::kMaxJsonDepth - 2;
  const std::string fine = R"({"context":{"x":)" + std::string(ok_depth, '[') +
                           std::string(ok_depth, ']') + R"(},"benchmarks":[{)" + row + "}]}";
  EXPECT_THAT(Parse(fine), IsOk()) << Parse(fine);
}

}  // namespace
