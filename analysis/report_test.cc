// report_test.cc: the report tool writes the index, one report per
// experiment, and the ledger; running it twice changes nothing; a bad file is
// named and makes the exit code 1 while the others are still reported; stale
// generated files go and hand-written ones stay.

#include "analysis/report.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"

namespace analysis {
namespace {

using ::testing::HasSubstr;

std::string Runfile(const std::string& rel) {
  absl::StatusOr<std::string> p = spawnlab::Runfile(rel);
  return p.ok() ? *p : rel;
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs the report binary; returns its exit code.
int RunReport(const std::string& results, const std::string& reports,
              std::vector<std::string> env = {}) {
  const std::string bin = Runfile("analysis/report");
  env.push_back("PATH=/usr/bin:/bin");
  spawnlab::ExecSpec spec(bin, {bin, "--results=" + results, "--reports=" + reports,
                                "--claims=" + Runfile("analysis/claims.json")}, env);
  absl::StatusOr<spawnlab::Child> child = spawnlab::Spawn(spawnlab::SpawnMethod::kPosixSpawn, spec);
  if (!child.ok()) return -1;
  absl::StatusOr<spawnlab::ExitStatus> s = child->WaitFor(absl::Seconds(60));
  return s.ok() && s->exited() ? s->exit_code() : -1;
}

std::string Tmp(const std::string& name) {
  return absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
}

const std::string& Good() {
  static const std::string* const dir = [] {
    std::string f = Runfile("analysis/testdata/good/6.1.0-test/clone3.json");
    return new std::string(f.substr(0, f.rfind("/6.1.0-test/")));
  }();
  return *dir;
}

TEST(Report, WritesIndexExperimentsAndLedgerDeterministically) {
  const std::string out = Tmp("reports1");
  ASSERT_EQ(RunReport(Good(), out), 0);
  const std::string index = Read(out + "/README.md");
  const std::string clone3 = Read(out + "/clone3.md");
  const std::string ledger = Read(out + "/claims.md");
  EXPECT_THAT(index, HasSubstr("Test CPU"));
  EXPECT_THAT(index, HasSubstr("| clone3 | 6.1.0-test |"));
  EXPECT_THAT(index, HasSubstr("the kernel lacks it (ENOSYS)"));  // skipped rows and why
  EXPECT_THAT(clone3, HasSubstr("```mermaid\nxychart-beta"));
  // Time axes start at zero (fixture: vfork 404-424 µs; the top 10% above
  // the largest, to two figures: 470).
  EXPECT_THAT(clone3, HasSubstr("    y-axis \"us\" 0 --> 470\n    bar [404.0, 404.0, 424.2]"));
  EXPECT_THAT(clone3, ::testing::Not(HasSubstr("    y-axis \"us\"\n")));
  EXPECT_THAT(clone3, HasSubstr("| `spawn/method:fork/child:minimal/parent:minimal/until:exit` |"));
  EXPECT_THAT(clone3, HasSubstr("## Across kernels and hosts"));
  EXPECT_THAT(clone3, HasSubstr("Cross-check against spawnbench's and lat_proc's method"));
  // Fixture minima: bench fork 1358 / vfork 388 = 3.50; crosscheck 1300 / 400
  // = 3.25, 7.7% apart: within the ±10% tolerance.
  EXPECT_THAT(clone3, HasSubstr("| fork / vfork, to reaped (lat_proc) | 3.5 | 3.25 | yes | 3.5 | "
                                "3.33 | yes | 3.25 (minimum) |"));
  EXPECT_THAT(clone3, HasSubstr("Harness overhead"));
  EXPECT_THAT(ledger, HasSubstr("| P-1 (the shape: flat vs growing) |"));
  EXPECT_THAT(ledger, HasSubstr("**implausible**"));
  EXPECT_THAT(ledger, HasSubstr("**pending**"));
  // Verdicts by reading apart from the measured ones; claims counted as well
  // as their parts; the rows of each comparison named.
  EXPECT_THAT(ledger, HasSubstr("## By reading, not measured"));
  EXPECT_THAT(ledger, ::testing::ContainsRegex("[0-9]+ claims, tested in [0-9]+ parts"));
  EXPECT_THAT(ledger, HasSubstr("| rows compared |"));
  const std::string command = Read(out + "/command.md");
  EXPECT_THAT(command, HasSubstr("### Key ratios"));
  // Command 360 against vfork's 350: +2.9%, within 5%. The spawn path 345
  // against posix_spawn's 540: 0.64, within 0.92.
  EXPECT_THAT(command, HasSubstr("| 1.029 (+2.9%) |"));
  EXPECT_THAT(command, HasSubstr("| 0.639 (-36.1%) |"));
  EXPECT_THAT(command, ::testing::Not(HasSubstr("missed")));
  // Twice: the same bytes.
  ASSERT_EQ(RunReport(Good(), out), 0);
  EXPECT_EQ(Read(out + "/README.md"), index);
  EXPECT_EQ(Read(out + "/clone3.md"), clone3);
  EXPECT_EQ(Read(out + "/claims.md"), ledger);
}

// The tolerance the report states (±10%), written out: a changed constant
// fails here rather than moving with the test.
TEST(Report, CrossCheckAgreesWithinTenPercent) {
  EXPECT_TRUE(CrossCheckAgrees(1.0, 1.0));
  EXPECT_TRUE(CrossCheckAgrees(1.09, 1.0));
  EXPECT_TRUE(CrossCheckAgrees(0.91, 1.0));
  EXPECT_FALSE(CrossCheckAgrees(1.11, 1.0));
  EXPECT_FALSE(CrossCheckAgrees(0.89, 1.0));
}

TEST(Report, BadFilesAreNamedAndTheRestStillReported) {
  const std::string results = Tmp("mixed");
  ASSERT_EQ(system(absl::StrCat("mkdir -p ", results, "/k && cp ", Good(),
                                "/6.1.0-test/clone3.json ", results, "/k/ && echo '{\"bench' > ",
                                results, "/k/broken.json")
                       .c_str()),
            0);
  const std::string out = Tmp("reports2");
  EXPECT_EQ(RunReport(results, out), 1);
  EXPECT_THAT(Read(out + "/README.md"), HasSubstr("broken.json"));
  EXPECT_THAT(Read(out + "/clone3.md"), HasSubstr("fork"));
}

// What a results folder may hold besides good files: a file that would once
// have crashed the report (type confusion, nesting 200,000 deep), a FIFO
// (never opened: no hang), a link loop, and context strings with '|' and
// newlines (escaped: the tables stay tables). The good file is still
// reported, each bad one named, and the exit code is 1.
TEST(Report, HostileResultsFoldersAreSurvived) {
  const std::string results = Tmp("hostile");
  const std::string k = results + "/k/h";
  std::filesystem::create_directories(k);
  std::string good = Read(Good() + "/6.1.0-test/clone3.json");
  const std::string model = "\"cpu.model\": \"Test CPU\"";
  ASSERT_NE(good.find(model), std::string::npos);
  good.replace(good.find(model), model.size(), "\"cpu.model\": \"Evil | CPU\\nsecond line\"");
  std::ofstream(k + "/clone3.json") << good;
  std::ofstream(k + "/confused.json")
      << R"({"benchmarks":[{"name":"a/b:c","family_index":0,"per_family_instance_index":"x",)"
      << R"("aggregate_unit":7,"run_type":"iteration","real_time":1,"time_unit":"ns"}]})";
  std::ofstream(k + "/deep.json") << "{\"context\":{\"x\":" << std::string(200000, '[')
                                  << std::string(200000, ']') << "},\"benchmarks\":[]}";
  ASSERT_EQ(mkfifo((k + "/fifo.json").c_str(), 0644), 0);
  std::filesystem::create_directory_symlink("..", k + "/loop");
  const std::string out = Tmp("reports-hostile");
  EXPECT_EQ(RunReport(results, out), 1);
  const std::string index = Read(out + "/README.md");
  EXPECT_THAT(index, HasSubstr("deep.json"));
  EXPECT_THAT(index, HasSubstr("nested"));
  EXPECT_THAT(index, HasSubstr("Evil \\| CPU second line"));
  EXPECT_THAT(index, ::testing::Not(HasSubstr("Evil | CPU")));
  EXPECT_THAT(Read(out + "/clone3.md"), HasSubstr("fork"));
}

TEST(Report, RemovesStaleGeneratedFilesOnly) {
  const std::string out = Tmp("reports3");
  ASSERT_EQ(mkdir(out.c_str(), 0755), 0);
  std::ofstream(out + "/gone.md") << kGeneratedMarker << "\nold\n";
  std::ofstream(out + "/notes.md") << "hand-written\n";
  ASSERT_EQ(RunReport(Good(), out), 0);
  struct stat st;
  EXPECT_NE(stat((out + "/gone.md").c_str(), &st), 0);
  EXPECT_EQ(stat((out + "/notes.md").c_str(), &st), 0);
}

TEST(Report, BadArgumentsAreErrors) {
  EXPECT_EQ(RunReport("/nonexistent", Tmp("reports4")), 2);
}

TEST(Report, RelativeFoldersAreTakenFromWhereBazelRunStarted) {
  // --results and --reports as a user types them in a subfolder: relative to
  // BUILD_WORKING_DIRECTORY, not to the binary's runfiles.
  const std::string cwd = Tmp("cwd");
  std::filesystem::create_directories(cwd);
  std::filesystem::create_directory_symlink(Good(), cwd + "/res");
  ASSERT_EQ(RunReport("res", "rep", {"BUILD_WORKING_DIRECTORY=" + cwd}), 0);
  EXPECT_TRUE(std::filesystem::exists(cwd + "/rep/README.md"));
}

}  // namespace
}  // namespace analysis
