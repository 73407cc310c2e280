// bench_processes_test.cc: the flags a run's processes get instead of the
// caller's, and the results file written whole or not at all. RunProcesses
// itself is run through a bench in bench_test (several processes, merged;
// interrupted; killed).

#include "bench/bench_processes.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

TEST(WithoutFlags, DropsBothFormsOfTheGivenFlagsAndKeepsArgvZero) {
  const std::vector<std::string> args = {"--out",          "--out=a.json", "--quick",
                                         "--out",          "b.json",       "--processes=3",
                                         "--outer=kept",   "--lock",       "none",
                                         "--benchmark_filter=x"};
  EXPECT_EQ(WithoutFlags(args, {"--out", "--processes", "--lock"}),
            (std::vector<std::string>{"--out", "--quick", "--outer=kept", "--benchmark_filter=x"}));
  // A flag with no value after it is not taken to swallow anything.
  EXPECT_EQ(WithoutFlags({"bench", "--out"}, {"--out"}),
            (std::vector<std::string>{"bench", "--out"}));
}

TEST(WriteResultsFile, WritesTheDocumentWholeOrLeavesThePreviousFile) {
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/write");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/r.json";
  ASSERT_THAT(WriteResultsFile(path, {{"context", {{"a", "b"}}}}), IsOk());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(nlohmann::json::parse(text.str())["context"]["a"], "b");
  // A folder it cannot write to (as root, a path under a file): an error
  // naming it, and nothing left behind.
  const absl::Status s = WriteResultsFile(path + "/under-a-file.json", {{"x", 1}});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("under-a-file"), std::string::npos) << s;
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().filename(), "r.json");
  }
  EXPECT_EQ(files, 1);
}

}  // namespace
}  // namespace spawnlab
