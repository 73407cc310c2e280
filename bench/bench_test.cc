// bench_test.cc: the bench harness writes JSON where it should, with the
// environment and the run's conditions in its context, the repetitions and
// aggregates in its rows, and skipped rows told apart from failed ones; it
// never loses a previous results file; one bench measures at a time; bad flags
// are clear errors.

#include "bench/bench.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "bench/bench_lock.h"
#include "results_model/bench_results.h"
#include "lib/command.h"
#include "bench/environment.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "bench/testing/bench_output.h"
#include "nlohmann/json.hpp"
#include "results_model/context_keys.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

// The fixture bench. Without it every test here fails (a test that expects
// "the previous file is left alone" would otherwise pass on a bench that never ran).
std::string Fixture() {
  absl::StatusOr<std::string> path = Runfile("bench/bench_fixture");
  if (!path.ok() || access(path->c_str(), X_OK) != 0) {
    ADD_FAILURE() << "the fixture bench is missing: " << path.status();
    return "/nonexistent/bench_fixture";
  }
  return *path;
}

std::string TmpDir() { return std::getenv("TEST_TMPDIR"); }

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> FixtureEnv(std::vector<std::string> env) {
  env.push_back("PATH=/usr/bin:/bin");
  env.push_back(absl::StrCat("SPAWNLAB_LOCK_FILE=", TmpDir(), "/bench.lock"));
  return env;
}

// Starts the fixture with `args` (no --quick added).
absl::StatusOr<Child> StartFixture(std::vector<std::string> args, std::vector<std::string> env) {
  std::vector<std::string> argv = {Fixture()};
  argv.insert(argv.end(), args.begin(), args.end());
  return Spawn(SpawnMethod::kPosixSpawn, ExecSpec(Fixture(), argv, FixtureEnv(env)));
}

// Runs the fixture --quick with `args` and the environment `env`; returns the exit code.
int RunFixture(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), "--quick");
  absl::StatusOr<Child> child = StartFixture(args, env);
  if (!child.ok()) return -1;
  absl::StatusOr<ExitStatus> status = child->WaitFor(absl::Seconds(60));
  return status.ok() && status->exited() ? status->exit_code() : -1;
}

// A previous results file at `path`, with a content no run would write.
void WritePrevious(const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << "{\"previous\": true}\n";
}

TEST(Bench, WritesValidJsonWithMeasuredAndSkippedRows) {
  absl::StatusOr<nlohmann::json> json =
      testing::RunBench(Fixture(), {"--quick"}, absl::Seconds(60));
  ASSERT_THAT(json, IsOk()) << json.status();
  EXPECT_THAT(testing::ValidateBenchJson(*json), IsOk()) << testing::ValidateBenchJson(*json);
  EXPECT_EQ((*json)["context"][keys::kExperiment], "fixture");
  EXPECT_EQ((*json)["context"][keys::kQuick], "true");
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

TEST(Bench, RecordsTheRunsConditionsAsStrictJson) {
  const std::string out = absl::StrCat(TmpDir(), "/strict.json");
  ASSERT_EQ(RunFixture({absl::StrCat("--out=", out)}), 0);
  const std::string text = ReadAll(out);
  // Strict: nlohmann's own parser, no NaN allowance.
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << text;
  const nlohmann::json& c = doc["context"];
  for (const char* key :
       {"run.start", "run.end", "run.seconds", "run.loadavg_before", "run.loadavg_after",
        "run.steal_pct", "run.iowait_pct", "run.other_cpu_cores", "run.busiest_others",
        "run.involuntary_switches", "run.noisy", "run.lock", "host.id", keys::kRunKind}) {
    EXPECT_TRUE(c.contains(key)) << key;
  }
  EXPECT_FALSE(c.contains("host_name"));  // the machine's name stays private
  EXPECT_LE(c["run.start"].get<std::string>(), c["run.end"].get<std::string>());
  EXPECT_EQ(c["run.lock"], "acquired at once");
  EXPECT_EQ(c[keys::kRunKind], "quick");
  // Its plan: one process, which a merged run of several would say it is not.
  EXPECT_EQ(c[keys::kProcesses], "1");
  EXPECT_EQ(c[keys::kStoppingRule], "fixed: one process (--quick)");
  // The canary's drift needs 4 rounds or more; a quick run has 2, and says so.
  EXPECT_EQ(c[keys::kCanaryRow], "fixture/op:clock");
  EXPECT_EQ(c[keys::kCanaryDriftPct], "unknown: fewer than 4 rounds");
  EXPECT_EQ(c[keys::kCanarySpreadPct], "unknown: fewer than 4 rounds");
}

// The drift canary: a number over enough rounds (4 here).
TEST(Bench, TheCanarySaysHowFarItDriftedOrWhyItCannot) {
  const std::string out = absl::StrCat(TmpDir(), "/canary.json");
  ASSERT_EQ(RunFixture({absl::StrCat("--out=", out), "--benchmark_repetitions=4",
                        "--benchmark_min_time=0.001"}),
            0);
  nlohmann::json doc = nlohmann::json::parse(ReadAll(out), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  double drift = -1;
  EXPECT_TRUE(
      absl::SimpleAtod(doc["context"][keys::kCanaryDriftPct].get<std::string>(), &drift))
      << doc["context"][keys::kCanaryDriftPct];
  EXPECT_GE(drift, 0);
  double spread = -1;
  EXPECT_TRUE(
      absl::SimpleAtod(doc["context"][keys::kCanarySpreadPct].get<std::string>(), &spread))
      << doc["context"][keys::kCanarySpreadPct];
  EXPECT_GE(spread, 0);
}

TEST(Bench, DefaultPathIsUnderTheWorkspaceResultsByKernelAndHost) {
  const std::string workspace = absl::StrCat(TmpDir(), "/ws");
  ASSERT_EQ(RunFixture({}, {absl::StrCat("BUILD_WORKSPACE_DIRECTORY=", workspace)}), 0);
  const std::string quick = DefaultResultsPath(workspace, "fixture", ".quick");
  EXPECT_TRUE(absl::StrContains(quick, absl::StrCat("/", HostId(), "/"))) << quick;
  std::ifstream in(quick);
  ASSERT_TRUE(in) << quick;
  EXPECT_FALSE(nlohmann::json::parse(in, nullptr, false).is_discarded());
  // A quick run never writes the full run's file.
  EXPECT_FALSE(std::filesystem::exists(DefaultResultsPath(workspace, "fixture")));
}

TEST(Bench, QuickAndFilteredRunsLeaveAFullRunUntouched) {
  const std::string workspace = absl::StrCat(TmpDir(), "/ws-full");
  const std::string full = DefaultResultsPath(workspace, "fixture");
  WritePrevious(full);
  const std::string ws = absl::StrCat("BUILD_WORKSPACE_DIRECTORY=", workspace);
  ASSERT_EQ(RunFixture({}, {ws}), 0);
  ASSERT_EQ(RunFixture({"--benchmark_filter=op:clock"}, {ws}), 0);
  EXPECT_EQ(ReadAll(full), "{\"previous\": true}\n");
  EXPECT_TRUE(std::filesystem::exists(DefaultResultsPath(workspace, "fixture", ".quick")));
  // --quick and a filter: the quick file.
  absl::StatusOr<Child> c = StartFixture({"--benchmark_filter=op:clock"}, {ws});
  ASSERT_THAT(c, IsOk());
  absl::StatusOr<ExitStatus> s = c->WaitFor(absl::Seconds(120));
  ASSERT_TRUE(s.ok() && s->success());
  EXPECT_EQ(ReadAll(full), "{\"previous\": true}\n");
  EXPECT_TRUE(std::filesystem::exists(DefaultResultsPath(workspace, "fixture", ".filtered")));
}

TEST(Bench, NothingMatchedInvalidFilterOrListingLeaveThePreviousFile) {
  const std::string out = absl::StrCat(TmpDir(), "/kept.json");
  WritePrevious(out);
  const std::string o = absl::StrCat("--out=", out);
  EXPECT_EQ(RunFixture({o, "--benchmark_filter=nomatch"}), 2);
  EXPECT_EQ(ReadAll(out), "{\"previous\": true}\n");
  EXPECT_EQ(RunFixture({o, "--benchmark_filter=(unclosed"}), 2);
  EXPECT_EQ(ReadAll(out), "{\"previous\": true}\n");
  EXPECT_EQ(RunFixture({o, "--benchmark_list_tests"}), 0);
  EXPECT_EQ(ReadAll(out), "{\"previous\": true}\n");
  EXPECT_EQ(RunFixture({o, "--benchmark_list_tests=true"}), 0);
  EXPECT_EQ(ReadAll(out), "{\"previous\": true}\n");
  // Every row skipped: nothing measured, nothing written.
  EXPECT_EQ(RunFixture({o, "--benchmark_filter=op:missing"}), 1);
  EXPECT_EQ(ReadAll(out), "{\"previous\": true}\n");
}

TEST(Bench, AnInterruptedRunLeavesThePreviousFileAndNoTemporary) {
  const std::string dir = absl::StrCat(TmpDir(), "/interrupted");
  const std::string out = absl::StrCat(dir, "/fixture.json");
  WritePrevious(out);
  absl::StatusOr<Child> c = StartFixture({"--quick", "--hang", absl::StrCat("--out=", out)}, {});
  ASSERT_THAT(c, IsOk());
  // It runs until signalled: waiting a while only lets it reach the hanging row.
  absl::StatusOr<ExitStatus> early = c->WaitFor(absl::Seconds(2));
  ASSERT_FALSE(early.ok()) << "the hanging fixture ended by itself";
  ASSERT_EQ(kill(c->pid(), SIGINT), 0);
  absl::StatusOr<ExitStatus> s = c->WaitFor(absl::Seconds(30));
  ASSERT_THAT(s, IsOk()) << s.status();
  EXPECT_FALSE(s->success());
  EXPECT_EQ(ReadAll(out), "{\"previous\": true}\n");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().filename(), "fixture.json");
  }
  EXPECT_EQ(files, 1);
}

TEST(Bench, ASecondBenchWaitsForTheLockOrRefusesByFlag) {
  const std::string out = absl::StrCat("--out=", TmpDir(), "/locked.json");
  absl::StatusOr<BenchLock> held =
      BenchLock::Acquire(absl::StrCat(TmpDir(), "/bench.lock"), "bench_test", BenchLock::kFail);
  ASSERT_THAT(held, IsOk()) << held.status();
  EXPECT_EQ(RunFixture({out, "--lock=fail"}), 3);
  // --lock=wait (the default): still waiting while the lock is held...
  absl::StatusOr<Child> waiting = StartFixture({"--quick", out}, {});
  ASSERT_THAT(waiting, IsOk());
  EXPECT_FALSE(waiting->WaitFor(absl::Seconds(2)).ok()) << "it did not wait for the lock";
  // ...and runs once it is let go, saying it waited.
  held = absl::CancelledError("released");
  absl::StatusOr<ExitStatus> s = waiting->WaitFor(absl::Seconds(60));
  ASSERT_THAT(s, IsOk()) << s.status();
  EXPECT_TRUE(s->success());
  nlohmann::json doc = nlohmann::json::parse(ReadAll(absl::StrCat(TmpDir(), "/locked.json")));
  EXPECT_TRUE(absl::StartsWith(doc["context"]["run.lock"].get<std::string>(), "waited"))
      << doc["context"]["run.lock"];
  EXPECT_TRUE(absl::StrContains(doc["context"]["run.lock"].get<std::string>(), "bench_test"));
}

TEST(Bench, LockNoneAndASuiteHandingItsLockDownDoNotBlock) {
  absl::StatusOr<BenchLock> held =
      BenchLock::Acquire(absl::StrCat(TmpDir(), "/bench.lock"), "bench_test", BenchLock::kFail);
  ASSERT_THAT(held, IsOk()) << held.status();
  const std::string out = absl::StrCat(TmpDir(), "/unlocked.json");
  EXPECT_EQ(RunFixture({absl::StrCat("--out=", out), "--lock=none"}), 0);
  // The holder hands its descriptor down, as the suite does.
  SpawnOptions options;
  options.fd_map.emplace_back(held->fd(), held->fd());
  std::vector<std::string> argv = {Fixture(), "--quick", absl::StrCat("--out=", out), "--lock=fail"};
  absl::StatusOr<Child> child = Spawn(
      SpawnMethod::kPosixSpawn,
      ExecSpec(Fixture(), argv, FixtureEnv({absl::StrCat(kInheritedLockEnv, "=", held->fd())})),
      options);
  ASSERT_THAT(child, IsOk()) << child.status();
  absl::StatusOr<ExitStatus> s = child->WaitFor(absl::Seconds(60));
  ASSERT_TRUE(s.ok() && s->success()) << (s.ok() ? s->ToString() : s.status().ToString());
  nlohmann::json doc = nlohmann::json::parse(ReadAll(out));
  EXPECT_TRUE(absl::StartsWith(doc["context"]["run.lock"].get<std::string>(),
                               "held for it by its parent"))
      << doc["context"]["run.lock"];
  // A descriptor that is not the lock is refused, not trusted.
  EXPECT_EQ(RunFixture({absl::StrCat("--out=", out), "--lock=fail"},
                       {absl::StrCat(kInheritedLockEnv, "=1")}),
            3);
}

// issue 44: a link planted at the lock's name by another user turned the
// next root bench's lock into a write of any file (O_CREAT, then ftruncate).
TEST(Bench, ALinkPlantedAsTheLockFileIsRefusedAndItsTargetUntouched) {
  const std::string dir = absl::StrCat(TmpDir(), "/planted");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/victim") << "precious\n";
  ASSERT_EQ(symlink((dir + "/victim").c_str(), (dir + "/bench.lock").c_str()), 0);
  EXPECT_EQ(RunFixture({absl::StrCat("--out=", dir, "/r.json")},
                       {absl::StrCat("SPAWNLAB_LOCK_FILE=", dir, "/bench.lock")}),
            3);
  EXPECT_EQ(ReadAll(dir + "/victim"), "precious\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.json"));
  // A hard link to another's file is locked on but never written.
  std::filesystem::remove(dir + "/bench.lock");
  ASSERT_EQ(link((dir + "/victim").c_str(), (dir + "/bench.lock").c_str()), 0);
  EXPECT_EQ(RunFixture({absl::StrCat("--out=", dir, "/r.json")},
                       {absl::StrCat("SPAWNLAB_LOCK_FILE=", dir, "/bench.lock")}),
            0);
  EXPECT_EQ(ReadAll(dir + "/victim"), "precious\n");
}

// issue 44: --out=<a device> as root replaced the device with a JSON file.
TEST(Bench, OutNeverReplacesADeviceOrWritesThroughALink) {
  const std::string dir = absl::StrCat(TmpDir(), "/devices");
  std::filesystem::create_directories(dir);
  EXPECT_EQ(RunFixture({"--out=/dev/null"}), 0);
  struct stat st;
  ASSERT_EQ(lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  if (mknod((dir + "/null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    EXPECT_EQ(RunFixture({absl::StrCat("--out=", dir, "/null")}), 0);
    ASSERT_EQ(lstat((dir + "/null").c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device was replaced";
  }
  std::ofstream(dir + "/victim") << "precious\n";
  ASSERT_EQ(symlink((dir + "/victim").c_str(), (dir + "/link.json").c_str()), 0);
  EXPECT_EQ(RunFixture({absl::StrCat("--out=", dir, "/link.json")}), 2);
  EXPECT_EQ(ReadAll(dir + "/victim"), "precious\n");
  // A directory is found before the run, not after it.
  EXPECT_EQ(RunFixture({absl::StrCat("--out=", dir)}), 2);
  // No temporary is left beside the results.
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_FALSE(absl::StrContains(e.path().filename().string(), ".tmp-")) << e.path();
  }
}

// issue 44: --benchmark_repetitions=100000 took 1.46 GB before the first row.
TEST(Bench, CountsAndDurationsAreBounded) {
  const std::string out = absl::StrCat("--out=", TmpDir(), "/bounded.json");
  for (const char* bad :
       {"--benchmark_repetitions=0", "--benchmark_repetitions=-3", "--benchmark_repetitions=100000",
        "--benchmark_repetitions=many", "--processes=101", "--benchmark_min_time=0", "--target=2",
        "--target=-0.1", "--max_seconds=-1", "--max_seconds=1e9", "--benchmark_min_time=1e9",
        "--benchmark_no_such_flag=1", "--spawnlab_rows=("}) {
    EXPECT_EQ(RunFixture({bad, out}), 2) << bad;
  }
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(TmpDir(), "/bounded.json")));
}

// A bench's own flags are checked before anything is locked or measured
// (BenchDefaults::check_flags; syscalls' --disk_dir found only after five rows failed).
TEST(Bench, ABenchsOwnFlagCheckIsAUsageError) {
  const std::string out = absl::StrCat(TmpDir(), "/checked.json");
  EXPECT_EQ(RunFixture({"--setting=bad", absl::StrCat("--out=", out)}), 2);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(RunFixture({"--setting=good", absl::StrCat("--out=", out)}), 0);
}

TEST(Bench, RelativeOutIsTakenFromWhereBazelRunStarted) {
  const std::string cwd = absl::StrCat(TmpDir(), "/cwd");
  std::filesystem::create_directories(cwd);
  ASSERT_EQ(RunFixture({"--out=rel/x.json"}, {absl::StrCat("BUILD_WORKING_DIRECTORY=", cwd)}), 0);
  EXPECT_TRUE(std::filesystem::exists(absl::StrCat(cwd, "/rel/x.json")));
}

TEST(Bench, AFailedRowMakesTheExitCodeNonZero) {
  const std::string out = absl::StrCat(TmpDir(), "/fail.json");
  EXPECT_EQ(RunFixture({"--fail", absl::StrCat("--out=", out)}), 1);
}

// The processes still alive whose command line contains `needle`.
std::vector<pid_t> ProcessesWith(const std::string& needle) {
  std::vector<pid_t> found;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    pid_t pid;
    if (!absl::SimpleAtoi(e.path().filename().string(), &pid)) continue;
    std::string cmdline = ReadAll(absl::StrCat("/proc/", pid, "/cmdline"));
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (absl::StrContains(cmdline, needle)) found.push_back(pid);
  }
  return found;
}

// Waits (up to 30 s, checking every 50 ms) until no process's command line
// contains `needle`; true if none is left.
bool NoneLeft(const std::string& needle) {
  for (int i = 0; i < 600; ++i) {
    if (ProcessesWith(needle).empty()) return true;
    usleep(50 * 1000);
  }
  return false;
}

TEST(Bench, ARunOfSeveralProcessesMergesThemAndNamesEachRepetitionsProcess) {
  const std::string dir = absl::StrCat(TmpDir(), "/processes");
  const std::string out = absl::StrCat(dir, "/fixture.json");
  absl::StatusOr<Child> c = StartFixture(
      {"--processes=3", "--full", "--benchmark_repetitions=7", "--benchmark_min_time=0.001",
       absl::StrCat("--out=", out)},
      {});
  ASSERT_THAT(c, IsOk()) << c.status();
  absl::StatusOr<ExitStatus> s = c->WaitFor(absl::Seconds(120));
  ASSERT_TRUE(s.ok() && s->success()) << (s.ok() ? s->ToString() : s.status().ToString());
  nlohmann::json doc = nlohmann::json::parse(ReadAll(out));
  // 7 repetitions shared out over 3 processes: 3 each, 9 in all.
  std::vector<int> processes;
  for (const nlohmann::json& r : doc["benchmarks"]) {
    if (r.value("run_type", "") == "iteration" && !r.value("error_occurred", false)) {
      processes.push_back(r.value(std::string(kProcessField), 0));
    }
  }
  EXPECT_EQ(processes, (std::vector<int>{1, 1, 1, 2, 2, 2, 3, 3, 3}));
  const nlohmann::json& context = doc["context"];
  EXPECT_EQ(context[keys::kProcesses], "3");
  EXPECT_EQ(context[keys::kRepetitionsPerProcess], "3");
  EXPECT_TRUE(absl::StartsWith(context["run.processes"].get<std::string>(), "1: ")) << context;
  EXPECT_FALSE(context.contains(keys::kProcess));
  EXPECT_EQ(context[keys::kCanarySeries].get<std::string>().find(' ') != std::string::npos,
            true);
  // The skipped row is still told apart, once.
  EXPECT_EQ(CountRows(doc).skipped, 1);
  // Nothing but the results is left in the folder.
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename(), "fixture.json");
  }
}

// With no --processes a run stops by itself: here it has no key ratios to wait
// for, so after the fewest processes, which the context records. The default
// run measures the answer's rows only, into <experiment>.headline.json;
// --full every row, into <experiment>.json.
TEST(Bench, ADefaultRunStopsByTheRuleAndMeasuresTheAnswersRows) {
  const std::string workspace = absl::StrCat(TmpDir(), "/stopping");
  for (bool full : {false, true}) {
    std::vector<std::string> args = {"--benchmark_min_time=0.001"};
    if (full) args.push_back("--full");
    absl::StatusOr<Child> c =
        StartFixture(args, {absl::StrCat("BUILD_WORKSPACE_DIRECTORY=", workspace)});
    ASSERT_THAT(c, IsOk()) << c.status();
    absl::StatusOr<ExitStatus> s = c->WaitFor(absl::Seconds(120));
    ASSERT_TRUE(s.ok() && s->success()) << (s.ok() ? s->ToString() : s.status().ToString());
    const std::string out =
        DefaultResultsPath(workspace, "fixture", full ? "" : ".headline");
    nlohmann::json doc = nlohmann::json::parse(ReadAll(out));
    const nlohmann::json& context = doc["context"];
    EXPECT_EQ(context[keys::kProcesses], "3") << out;
    EXPECT_EQ(context[keys::kStoppedBy], "the fewest processes (no key ratios)");
    EXPECT_TRUE(absl::StrContains(context[keys::kStoppingRule].get<std::string>(), "±1%"))
        << context[keys::kStoppingRule];
    EXPECT_EQ(context[keys::kRunKind], full ? "full" : "headline");
    EXPECT_EQ(CountRows(doc).skipped, full ? 1 : 0) << out;
  }
}

// A run that stops by itself gives a row in no key ratio the fewest
// processes; the key ratios' rows (and the canary) go on. The key ratios are
// the answer's rows' (default_rows): op:aside has a baseline, but is not one
// of them. A target no run reaches makes it run to the most processes.
TEST(Bench, ARowInNoKeyRatioHasTheFewestProcessesOnly) {
  const std::string out = absl::StrCat(TmpDir(), "/budget/fixture.json");
  absl::StatusOr<Child> c =
      StartFixture({"--full", "--key_ratio", "--target=1e-9", "--max_seconds=3600",
                    "--benchmark_min_time=0.001", absl::StrCat("--out=", out)},
                   {});
  ASSERT_THAT(c, IsOk()) << c.status();
  absl::StatusOr<ExitStatus> s = c->WaitFor(absl::Seconds(300));
  ASSERT_TRUE(s.ok() && s->success()) << (s.ok() ? s->ToString() : s.status().ToString());
  nlohmann::json doc = nlohmann::json::parse(ReadAll(out));
  std::map<std::string, std::set<int>> processes;
  for (const nlohmann::json& r : doc["benchmarks"]) {
    if (r.value("run_type", "") == "iteration" && !r.value("error_occurred", false)) {
      processes[r.value("run_name", "")].insert(r.value(std::string(kProcessField), 0));
    }
  }
  const nlohmann::json& context = doc["context"];
  const int all = std::stoi(context[keys::kProcesses].get<std::string>());
  EXPECT_GT(all, 3);
  EXPECT_EQ(processes["fixture/lone:yes/manual_time"], (std::set<int>{1, 2, 3})) << context;
  EXPECT_EQ(processes["fixture/op:aside/manual_time"], (std::set<int>{1, 2, 3})) << context;
  EXPECT_EQ(processes["fixture/op:twice/manual_time"].size(), static_cast<size_t>(all));
  EXPECT_EQ(processes["fixture/op:clock/manual_time"].size(), static_cast<size_t>(all));
  EXPECT_EQ(context[keys::kStoppingFixedBudgetRows], "2");
  EXPECT_EQ(context[keys::kKeyRows], "^fixture/op:(clock|twice)");
  EXPECT_TRUE(absl::StrContains(context[keys::kStoppingRule].get<std::string>(),
                                "rows in no key ratio: the first 3 processes only"))
      << context[keys::kStoppingRule];
}

// --processes=N is the fixed plan, and a stopping flag beside it a usage error.
TEST(Bench, AFixedPlanAndAStoppingRuleDoNotGoTogether) {
  const std::string out = absl::StrCat(TmpDir(), "/fixed.json");
  EXPECT_EQ(RunFixture({"--processes=2", "--target=0.05", absl::StrCat("--out=", out)}), 2);
  EXPECT_EQ(RunFixture({"--processes=2", "--max_seconds=30", absl::StrCat("--out=", out)}), 2);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(Bench, ARunOfSeveralProcessesWithAFilterThatMatchesNothingWritesNothing) {
  const std::string dir = absl::StrCat(TmpDir(), "/processes-nomatch");
  const std::string out = absl::StrCat(dir, "/fixture.json");
  WritePrevious(out);
  absl::StatusOr<Child> c = StartFixture(
      {"--processes=3", "--benchmark_filter=nomatch", absl::StrCat("--out=", out)}, {});
  ASSERT_THAT(c, IsOk()) << c.status();
  absl::StatusOr<ExitStatus> s = c->WaitFor(absl::Seconds(60));
  ASSERT_TRUE(s.ok() && s->exited());
  EXPECT_EQ(s->exit_code(), 2);
  EXPECT_EQ(ReadAll(out), "{\"previous\": true}\n");
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename(), "fixture.json");
  }
}

// Interrupting the parent ends the process it is waiting for; killing it
// outright takes that process along too (PR_SET_PDEATHSIG). Either way no
// process of the run is left, and the previous results stand.
TEST(Bench, NoProcessOfARunOutlivesItsParent) {
  for (int sig : {SIGINT, SIGKILL}) {
    const std::string dir = absl::StrCat(TmpDir(), "/processes-", sig);
    const std::string out = absl::StrCat(dir, "/fixture.json");
    WritePrevious(out);
    // The processes' parts go into a private folder under $TMPDIR.
    const std::string tmp = absl::StrCat(dir, "/tmp");
    std::filesystem::create_directories(tmp);
    absl::StatusOr<Child> c = StartFixture({"--processes=2", "--hang", absl::StrCat("--out=", out)},
                                           {absl::StrCat("TMPDIR=", tmp)});
    ASSERT_THAT(c, IsOk()) << c.status();
    // Process 1 of 2 is started (it hangs in its last row until signalled).
    const std::string needle = absl::StrCat(tmp, "/spawnlab-processes-");
    bool started = false;
    for (int i = 0; i < 600 && !started; ++i) {
      started = !ProcessesWith(needle).empty();
      if (!started) usleep(50 * 1000);
    }
    ASSERT_TRUE(started) << "process 1 never started";
    ASSERT_EQ(kill(c->pid(), sig), 0);
    absl::StatusOr<ExitStatus> s = c->WaitFor(absl::Seconds(30));
    ASSERT_THAT(s, IsOk()) << s.status();
    EXPECT_FALSE(s->success());
    EXPECT_TRUE(NoneLeft(needle)) << "signal " << sig;
    EXPECT_EQ(ReadAll(out), "{\"previous\": true}\n");
    if (sig == SIGINT) {  // the parent cleaned up (after SIGKILL it cannot)
      for (const auto& e : std::filesystem::directory_iterator(dir)) {
        EXPECT_TRUE(e.path().filename() == "fixture.json" || e.path().filename() == "tmp")
            << e.path();
      }
      EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "a private folder was left in " << tmp;
    }
  }
}

TEST(Bench, ProcessesIsANumberAndGoesWithSpawnlabsOwnFile) {
  EXPECT_EQ(RunFixture({"--processes=-1"}), 2);
  EXPECT_EQ(RunFixture({"--processes=2", absl::StrCat("--benchmark_out=", TmpDir(), "/own.json")}),
            2);
}

// A round names its rows in their natural order (round 0 only) and registers
// each once, shuffled by the round, the same way on every run.
TEST(Bench, RegisterRoundNamesRowsInOrderAndRegistersEachOnce) {
  std::vector<std::string> order;
  auto rows = [] {
    std::vector<RoundRow> r;
    for (const char* name : {"t/op:a", "t/op:b", "t/op:c", "t/op:d"}) {
      r.push_back({name, [](benchmark::State& state) {
                     for (auto _ : state) {
                     }
                   }});
    }
    return r;
  };
  BenchOptions first;
  first.round = 0;
  first.row_order = &order;
  std::vector<benchmark::internal::Benchmark*> got = RegisterRound(first, rows());
  EXPECT_EQ(order, (std::vector<std::string>{"t/op:a", "t/op:b", "t/op:c", "t/op:d"}));
  EXPECT_EQ(got.size(), 4u);
  for (benchmark::internal::Benchmark* b : got) EXPECT_NE(b, nullptr);
  BenchOptions second;
  second.round = 1;  // no row_order: named once, in round 0
  EXPECT_EQ(RegisterRound(second, rows()).size(), 4u);
  EXPECT_EQ(order.size(), 4u);
  benchmark::ClearRegisteredBenchmarks();
}

// A row's own settings reach it when it is registered, and a filter that
// leaves it out leaves them unused (a later process of a stopping run
// measures only some rows).
TEST(Bench, RegisterRoundAppliesEachRegisteredRowsOwnSettings) {
  std::vector<std::string> configured;
  auto rows = [&configured] {
    std::vector<RoundRow> r;
    for (const char* name : {"t/op:a", "t/op:b", "t/op:c"}) {
      r.push_back({name,
                   [](benchmark::State& state) {
                     for (auto _ : state) {
                     }
                   },
                   Clock::kManual,
                   [&configured, name](benchmark::internal::Benchmark* b) {
                     ASSERT_NE(b, nullptr);
                     configured.push_back(name);
                   }});
    }
    return r;
  };
  BenchOptions all;
  EXPECT_EQ(RegisterRound(all, rows()).size(), 3u);
  std::sort(configured.begin(), configured.end());
  EXPECT_EQ(configured, (std::vector<std::string>{"t/op:a", "t/op:b", "t/op:c"}));
  configured.clear();
  BenchOptions some;
  some.row_filter = "^t/op:b$";
  EXPECT_EQ(RegisterRound(some, rows()).size(), 1u);
  EXPECT_EQ(configured, (std::vector<std::string>{"t/op:b"}));
  benchmark::ClearRegisteredBenchmarks();
}

TEST(Bench, BadFlagsAreErrors) {
  const std::string out = absl::StrCat("--out=", TmpDir(), "/bad.json");
  EXPECT_NE(RunFixture({"--no_such_flag", out}), 0);
  EXPECT_NE(RunFixture({"--cpu=lots", out}), 0);
  EXPECT_NE(RunFixture({"--cpu=100000", out}), 0);
  EXPECT_NE(RunFixture({"--lock=maybe", out}), 0);
  EXPECT_NE(RunFixture({"--benchmark_format=xml", out}), 0);
  EXPECT_NE(RunFixture({"stray-argument", out}), 0);
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(TmpDir(), "/bad.json")));
}

TEST(Bench, HelpListsSpawnlabsFlagsNotOnlyGoogleBenchmarks) {
  absl::StatusOr<CommandResult> r = Command(Fixture())
                                        .Arg("--help")
                                        .Stdout(Stdio::Pipe())
                                        .Stderr(Stdio::Pipe())
                                        .Timeout(absl::Seconds(60))
                                        .Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  const std::string all = r->out + r->err;
  for (const char* flag : {"--quick", "--out", "--cpu", "--lock", "--fail", "--benchmark_filter"}) {
    EXPECT_TRUE(absl::StrContains(all, flag)) << flag << " missing from --help:\n" << all;
  }
}

TEST(Bench, DefaultResultsPathNamesKernelHostAndExperiment) {
  std::string p = DefaultResultsPath("/ws", "clone3");
  EXPECT_TRUE(absl::StartsWith(p, "/ws/results/")) << p;
  EXPECT_TRUE(absl::EndsWith(p, absl::StrCat("/", HostId(), "/clone3.json"))) << p;
  EXPECT_TRUE(absl::EndsWith(DefaultResultsPath("/ws", "clone3", ".quick"), "/clone3.quick.json"));
  EXPECT_TRUE(absl::StartsWith(DefaultResultsPath("", "x"), "results/"));
}

}  // namespace
}  // namespace spawnlab
