// report_test.cc: the report tool writes the index, one report per
// experiment, and the ledger; running it twice changes nothing; a bad file is
// named and makes the exit code 1 while the others are still reported; stale
// generated files go and hand-written ones stay.

#include "analysis/report.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/substitute.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "results_model/context_keys.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
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

// An experiment's pages as written to `dir`: its main page, then its run and
// across pages in name order.
std::string Pages(const std::string& dir, const std::string& experiment) {
  std::string all = Read(dir + "/" + experiment + ".md");
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/" + experiment, ec)) {
    names.push_back(e.path().string());
  }
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) all += Read(n);
  return all;
}

// The same from BuildReports' map.
std::string Pages(const std::map<std::string, std::string>& out, const std::string& experiment) {
  std::string all = out.count(experiment + ".md") ? out.at(experiment + ".md") : "";
  for (const auto& [name, text] : out) {
    if (name.rfind(experiment + "/", 0) == 0) all += text;
  }
  return all;
}

// The fixture's report specs: copies of clone3's and command's, which the
// fixture's results were shaped after.
std::string Specs() {
  const std::string f = Runfile("analysis/report_testdata/clone3/report.json");
  return f.substr(0, f.rfind("/clone3/"));
}

// Runs the report binary; returns its exit code.
int RunReport(const std::string& results, const std::string& reports,
              std::vector<std::string> env = {}, const std::string& specs = Specs()) {
  const std::string bin = Runfile("analysis/report");
  env.push_back("PATH=/usr/bin:/bin");
  spawnlab::ExecSpec spec(bin,
                          {bin, "--results=" + results, "--reports=" + reports,
                           "--claims=" + Runfile("analysis/claims.json"), "--experiments=" + specs},
                          env);
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

// The report of the good fixtures, written once for the tests below.
class GoodReports : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out_ = new std::string(Tmp("reports1"));
    ASSERT_EQ(RunReport(Good(), *out_), 0);
  }
  static const std::string& Out() { return *out_; }
  std::string index = Read(Out() + "/README.md");
  std::string clone3_main = Read(Out() + "/clone3.md");
  std::string clone3 = Pages(Out(), "clone3");
  std::string ledger = Read(Out() + "/claims.md");

 private:
  static std::string* out_;
};
std::string* GoodReports::out_ = nullptr;

TEST_F(GoodReports, IndexOpensWithEachExperimentsFindings) {
  const size_t glance = index.find("## At a glance");
  ASSERT_NE(glance, std::string::npos);
  EXPECT_LT(glance, index.find("## Machines and kernels"));
  // Each experiment: its page, its question (its README's title) linked to
  // the README, the answer's ratios, the run, how to run it.
  EXPECT_THAT(index, HasSubstr("| [clone3](clone3.md) | [what does it cost to create a process?]"
                               "(../experiments/clone3/README.md) | "));
  EXPECT_THAT(index, HasSubstr(" | **6.1.0-test on testhost**, git 0123456789ab"));
  // And how long that run took (the fixture's predates the run record: —).
  EXPECT_THAT(index, HasSubstr("| `bazel run //experiments/clone3:bench` | — |\n"));
}

TEST(ExperimentsTable, ReplacesWhatStandsBetweenTheMarkersAndNothingElse) {
  const std::string readme = absl::StrCat("# x\n\nbefore\n", kExperimentsBegin, "\nold table\n",
                                          kExperimentsEnd, "\nafter\n");
  absl::StatusOr<std::string> out = SpliceExperimentsTable(readme, "| new |\n");
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(*out, absl::StrCat("# x\n\nbefore\n", kExperimentsBegin, "\n| new |\n", kExperimentsEnd,
                               "\nafter\n"));
  EXPECT_EQ(*SpliceExperimentsTable(*out, "| new |\n"), *out);  // the same table: the same bytes
  EXPECT_TRUE(absl::IsNotFound(SpliceExperimentsTable("# x\nno markers\n", "t").status()));
  EXPECT_TRUE(absl::IsNotFound(
      SpliceExperimentsTable(absl::StrCat(kExperimentsEnd, "\n", kExperimentsBegin), "t")
          .status()));
}

TEST_F(GoodReports, IndexListsRunsSkipsAndTheFeatureMatrix) {
  EXPECT_THAT(index, HasSubstr("Test CPU"));
  EXPECT_THAT(index, HasSubstr("| clone3 | 6.1.0-test |"));
  EXPECT_THAT(index, HasSubstr("the kernel lacks it (ENOSYS)"));  // skipped rows and why
  // The kernel-feature matrix: each probe, the release that added it, and what
  // each kernel had (6.2's fixture predates the releases in the record).
  EXPECT_THAT(index,
              HasSubstr("| feature | added in | 6.1.0-test on testhost | 6.2.0-test on "
                        "testhost |\n|---|---|---|---|\n| `clone3` | Linux 5.3 | yes | yes |\n"
                        "| `io_uring_waitid` | Linux 6.7 | no: io_uring: opcode 50 is not "
                        "supported (it needs Linux 6.7) | not probed |\n"));
}

TEST_F(GoodReports, MainPageOpensWithTheFindingsAndLinksEveryRunsPage) {
  const size_t findings = clone3_main.find("## Findings");
  ASSERT_NE(findings, std::string::npos);
  EXPECT_LT(findings, clone3_main.find("## Every run"));
  EXPECT_LT(findings, clone3_main.find("```mermaid"));  // its charts are the findings'
  EXPECT_THAT(clone3_main, HasSubstr("[6.1.0-test-testhost.md](clone3/6.1.0-test-testhost.md)"));
  EXPECT_THAT(clone3_main, HasSubstr("[6.2.0-test-testhost.md](clone3/6.2.0-test-testhost.md)"));
  // Row tables and the environment live on each run's page.
  EXPECT_THAT(clone3_main, ::testing::Not(HasSubstr("Environment (the results' context block)")));
  const std::string run = Read(Out() + "/clone3/6.1.0-test-testhost.md");
  EXPECT_THAT(run, ::testing::StartsWith(kGeneratedMarker));
  EXPECT_THAT(run, HasSubstr("Environment (the results' context block)"));
  EXPECT_THAT(run, HasSubstr("](../clone3.md)"));
  // From a page in a folder, a chart's SVG is one folder up.
  EXPECT_THAT(run, HasSubstr("every repetition: [clone3-2.svg](../clone3-2.svg)"));
  EXPECT_THAT(run, HasSubstr("](../clone3-1.svg)\n\nOn a log scale"));
  // Across kernels: its own page, linked.
  EXPECT_THAT(clone3_main, HasSubstr("(clone3/across.md)"));
  EXPECT_THAT(Read(Out() + "/clone3/across.md"), HasSubstr("| row |"));
}

// A results file of experiment x on host h with the rows `kinds` (op/kind:K).
ResultsFile FindingsFile(const std::string& path, const std::string& noisy, bool quick,
                         const std::string& start, const std::vector<std::string>& kinds = {"a"},
                         const std::string& seconds = "") {
  std::vector<std::string> rows;
  for (const std::string& k : kinds) {
    rows.push_back(absl::StrCat(R"({"name": "op/kind:)", k, R"(", "run_name": "op/kind:)", k,
                                R"(", "run_type": "iteration", "repetitions": 1,)",
                                R"( "repetition_index": 0, "real_time": 10, "time_unit": "ns"})"));
  }
  const std::string json =
      absl::StrCat(R"({"context": {")", spawnlab::keys::kExperiment, R"(": "x", "run.noisy": ")",
                   noisy, R"(", "run.start": ")", start, R"(", "host.name": "h", ")",
                   spawnlab::keys::kQuick, R"(": ")", quick ? "true" : "false", R"(")",
                   seconds.empty() ? ""
                                   : absl::StrCat(R"(, "run.seconds": ")", seconds, R"(", ")",
                                                  spawnlab::keys::kRunKind, R"(": "full")"),
                   R"(}, "benchmarks": [)", absl::StrJoin(rows, ","), "]}");
  absl::StatusOr<ResultsFile> f = ParseResults(json, path);
  EXPECT_THAT(f, IsOk());
  return *f;
}

TEST(Findings, ComeFromAFullQuietRunBeforeANoisyOrQuickOne) {
  auto file = [](const std::string& path, const std::string& noisy, bool quick,
                 const std::string& start) { return FindingsFile(path, noisy, quick, start); };
  ResultsSet set;
  set.files.push_back(file("results/k1/x.json", "no", false, "2026-01-01T00:00:00Z"));
  set.files.push_back(file("results/k2/x.json", "yes: drifted", false, "2026-02-01T00:00:00Z"));
  set.files.push_back(file("results/k3/x.quick.json", "no", true, "2026-03-01T00:00:00Z"));
  std::map<std::string, std::string> out = BuildReports(set, {}, {});
  EXPECT_THAT(out["x.md"],
              HasSubstr("## Findings\n\nFrom the run that speaks best (a full run with every row "
                        "the bench has now, quiet if there is one, then the newest): **k1 on h**"));
  EXPECT_TRUE(out.count("x/k1-h.md"));
  EXPECT_TRUE(out.count("x/k2-h.md"));
  EXPECT_TRUE(out.count("x/k3-h.quick.md")) << "the quick run's page is its own";
}

// A quiet run of an older shape of the bench (a row it has now is missing)
// speaks for it less than a noisy run of the bench as it is.
TEST(Findings, ComeFromARunOfTheBenchAsItIsNow) {
  ResultsSet set;
  set.files.push_back(FindingsFile("results/k1/x.json", "no", false, "2026-01-01T00:00:00Z"));
  set.files.push_back(
      FindingsFile("results/k2/x.json", "yes: drifted", false, "2026-02-01T00:00:00Z", {"a", "b"}));
  // A quick run with fewer rows says nothing of the bench's shape.
  set.files.push_back(FindingsFile("results/k3/x.quick.json", "no", true, "2026-03-01T00:00:00Z"));
  std::map<std::string, std::string> out = BuildReports(set, {}, {});
  EXPECT_THAT(out["x.md"], HasSubstr("): **k2 on h**"));
  // With both rows, the quiet run is the one again.
  set.files.push_back(
      FindingsFile("results/k4/x.json", "no", false, "2026-01-15T00:00:00Z", {"a", "b"}));
  out = BuildReports(set, {}, {});
  EXPECT_THAT(out["x.md"], HasSubstr("): **k4 on h**"));
}

// The table of experiments times the bench by its newest run, not by the
// findings run, which may have run an older plan for much longer.
TEST(Findings, TheTableOfExperimentsTimesTheNewestRun) {
  ResultsSet set;
  set.files.push_back(
      FindingsFile("results/k1/x.json", "no", false, "2026-01-01T00:00:00Z", {"a"}, "862.9"));
  set.files.push_back(FindingsFile("results/k2/x.json", "yes: drifted", false,
                                   "2026-02-01T00:00:00Z", {"a"}, "133.1"));
  ReportSpec spec;
  spec.experiment = "x";
  const std::string table = ExperimentsTable(set, {{"x", spec}});
  EXPECT_THAT(table, HasSubstr("run it | its newest run took |"));
  EXPECT_THAT(table, HasSubstr("**k1 on h**"));  // the findings: the quiet run
  EXPECT_THAT(table, HasSubstr("| 133.1 s (full) |\n"));
  EXPECT_THAT(table, ::testing::Not(HasSubstr("862.9")));
}

// A run's page says how many processes it took, by which rule, what stopped
// it and how many rows the rule left at the fewest processes.
TEST(Findings, ARunsPageSaysWhatStoppedIt) {
  const std::string json = absl::StrCat(
      R"({"context": {")", spawnlab::keys::kExperiment, R"(": "x", "run.noisy": "no",)",
      R"( "run.start": "2026-01-01T00:00:00Z", "host.name": "h", ")", spawnlab::keys::kProcesses,
      R"(": "7", ")", spawnlab::keys::kStoppingRule, R"(": "the rule in words", ")",
      spawnlab::keys::kStoppedBy, R"(": "the time cap", ")", spawnlab::keys::kStoppingWorst,
      R"(": "the widest", ")", spawnlab::keys::kStoppingFixedBudgetRows, R"(": "4"},)",
      R"( "benchmarks": [{"name": "op/kind:a", "run_name": "op/kind:a", "run_type": "iteration",)",
      R"( "repetitions": 1, "repetition_index": 0, "real_time": 10, "time_unit": "ns"}]})");
  absl::StatusOr<ResultsFile> f = ParseResults(json, "results/k1/x.json");
  ASSERT_THAT(f, IsOk());
  ResultsSet set;
  set.files.push_back(*f);
  std::map<std::string, std::string> out = BuildReports(set, {}, {});
  EXPECT_THAT(out["x/k1-h.md"], HasSubstr("| processes | 7; the rule in words |\n"
                                          "| stopped by | the time cap; widest key ratio "
                                          "interval: the widest; 4 rows in no key ratio had the "
                                          "fewest processes |\n"));
}

TEST(Findings, OpenWithTheAnswerTheBenchDeclared) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [method, t] : {std::pair<std::string, double>{"fork", 100}, {"vfork", 40}}) {
    const std::string name = "spawn/method:" + method + "/parent:minimal";
    for (int k = 0; k < 3; ++k) {
      rows.push_back({{"name", name},
                      {"run_name", name},
                      {"run_type", "iteration"},
                      {"repetitions", 3},
                      {"repetition_index", k},
                      {"real_time", t * (1 + 0.01 * k)},
                      {"time_unit", "us"}});
    }
  }
  const nlohmann::json headline = {{"title", "what a spawn costs"},
                                   {"rows", "method"},
                                   {"cols", "parent"},
                                   {"ratios", {{{"dimension", "method"}, {"value", "vfork"}}}}};
  const nlohmann::json doc = {
      {"context",
       {{spawnlab::keys::kExperiment, "x"}, {spawnlab::keys::kHeadline, headline.dump()}}},
      {"benchmarks", rows}};
  absl::StatusOr<ResultsFile> f = ParseResults(doc.dump(), "results/k/x.json");
  ASSERT_THAT(f, IsOk());
  ResultsSet set;
  set.files.push_back(*f);
  std::map<std::string, std::string> out = BuildReports(set, {}, {});
  const std::string main = out["x.md"];
  EXPECT_THAT(out["README.md"],
              HasSubstr("| [x](x.md) | — | fork / vfork 2.50x | **k on unknown**"));
  EXPECT_THAT(main,
              HasSubstr("### The answer: what a spawn costs\n\neach cell the median and its "
                        "95% interval, in µs.\n\n| method \\ parent | minimal |\n"
                        "|---|---:|\n| fork | 101 [100, 102] |\n| vfork | 40.4 [40.0, 40.8] |"));
  EXPECT_THAT(main, HasSubstr("Each row over method:vfork, paired within rounds:\n\n"
                              "| ratio | median | 95% interval | rounds |\n|---|---:|---:|---:|\n"
                              "| fork / vfork | 2.50x | [2.50, 2.50] | 3 |"));
}

TEST_F(GoodReports, ChartsStartAtZeroWithEveryRepetitionBeside) {
  EXPECT_THAT(clone3, HasSubstr("```mermaid\nxychart-beta"));
  // Time axes start at zero (fixture: vfork 404-424 µs; the top 10% above
  // the largest, to two figures: 470).
  EXPECT_THAT(clone3, HasSubstr("    y-axis \"us\" 0 --> 470\n    bar [404.0, 404.0, 424.2]"));
  // Beside each chart, an SVG with every repetition, from zero too.
  EXPECT_THAT(clone3, HasSubstr("every repetition: [clone3-2.svg](clone3-2.svg)"));
  // fork's bars span more than 20x: Mermaid has no log scale, so the page
  // shows the SVG, which has one.
  EXPECT_THAT(clone3, HasSubstr("6.1.0-test on testhost)](clone3-1.svg)\n\nOn a log scale"));
  EXPECT_THAT(clone3, ::testing::Not(HasSubstr("every repetition: [clone3-1.svg]")));
  const std::string svg = Read(Out() + "/clone3-2.svg");  // vfork: 404-424 us
  EXPECT_THAT(svg, ::testing::StartsWith(kGeneratedMarker));
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(svg, HasSubstr(">0</text>"));
  EXPECT_THAT(svg, HasSubstr("<circle"));
  EXPECT_THAT(svg, ::testing::Not(HasSubstr("log scale")));
  // fork: 1.41 to 56.6 ms, more than 20x: a log scale, so every bar can be read.
  const std::string wide = Read(Out() + "/clone3-1.svg");
  EXPECT_THAT(wide, HasSubstr("log scale"));
  EXPECT_THAT(wide, ::testing::Not(HasSubstr(">0</text>")));
  // Titles name the split dimension, the statistic and the run's kernel and host.
  EXPECT_THAT(clone3, HasSubstr("title \"method: vfork — spawn to reaped, by parent, minimal child "
                                "(median, us; 6.1.0-test on testhost)\""));
  EXPECT_THAT(svg, HasSubstr("(each repetition, µs; 6.1.0-test on testhost)"));
  EXPECT_THAT(clone3, ::testing::Not(HasSubstr("    y-axis \"us\"\n")));
}

TEST_F(GoodReports, AcrossKernelsGivesChangesWithIntervals) {
  EXPECT_THAT(clone3, HasSubstr("| `spawn/method:fork/child:minimal/parent:minimal/until:exit` |"));
  EXPECT_THAT(clone3, HasSubstr("## Across kernels and hosts"));
  // One unit per table, named in its header; three significant figures.
  EXPECT_THAT(clone3, HasSubstr("| row | median (µs) | min (µs) | stddev (µs) | cv | n |"));
  EXPECT_THAT(clone3, HasSubstr("Medians in µs; each column is one results file, oldest kernel"));
  // The second kernel's change against the first (same host: a kernel
  // change), new / old with its 95% interval, called since the interval
  // excludes 1 (fixture: vfork 404 µs on 6.1, 384 µs on 6.2, repetitions
  // fully apart, one process each: over the repetitions, marked †).
  EXPECT_THAT(clone3, HasSubstr("| 6.2.0-test on testhost | change (kernel, from 6.1.0-test) |"));
  EXPECT_THAT(clone3, HasSubstr("| `spawn/method:vfork/child:minimal/parent:minimal/until:exit` | "
                                "404 | 384 | **0.95x [0.92, 0.98] †** |"));
  // And a chart of each key row by kernel, from zero.
  EXPECT_THAT(clone3, HasSubstr("`spawn/method:vfork/child:minimal/parent:minimal/until:exit`:\n\n"
                                "```mermaid\nxychart-beta horizontal\n    title \"by kernel and "
                                "host (median, us)\"\n    x-axis [\"6.1.0-test on testhost\", "
                                "\"6.2.0-test on testhost\"]\n    y-axis \"us\" 0 --> "));
}

TEST_F(GoodReports, CrossCheckSetsBothToolsSideBySide) {
  EXPECT_THAT(clone3, HasSubstr("### Cross-check"));
  // Fixture minima: bench fork 1358 / vfork 388 = 3.50; crosscheck 1300 / 400
  // = 3.25, 7.7% apart: within the ±10% tolerance.
  EXPECT_THAT(clone3, HasSubstr("| fork / vfork, to reaped (lat_proc) | 3.5 | 3.25 | yes | 3.5 | "
                                "3.33 | yes | 3.25 (minimum) |"));
  // spawnbench's minimum is its fastest single spawn (the fixture's fastest_us:
  // bench 1180.4 / 270.4 = 4.37, cross-check 1100 / 250 = 4.4); its median is
  // paired within rounds (cross-check: 1250/300, 1300/330, 1350/360: 3.94).
  EXPECT_THAT(clone3, HasSubstr("| fork / vfork, to the first instruction (spawnbench) | 4.37 | "
                                "4.4 | yes | 4.12 | 3.94 | yes | 3.94 (average) | 9 / 3 |"));
  // The children's page faults, numerator's and denominator's, bench / cross-
  // check: the fixture's medians (bench fork 10, vfork 3; cross-check 11, 3).
  EXPECT_THAT(clone3, ::testing::ContainsRegex(
                          "\\| fork / vfork, to the first instruction \\(spawnbench\\) \\|[^\n]* "
                          "\\| — \\| 10, 3 / 11, 3 \\|\n"));
  EXPECT_THAT(clone3, HasSubstr("*Page faults per child*"));
  // A pair whose rows lack the counter falls back to the repetitions' times,
  // marked, and said so below the table.
  EXPECT_THAT(clone3, HasSubstr("| posix_spawn / vfork, to the first instruction (spawnbench) | "
                                "1.62\\* | 1.67\\* | yes |"));
  EXPECT_THAT(clone3, HasSubstr("\\* Minima of the repetitions' times: a row of these results "
                                "lacks the per-spawn counter"));
  // Where the 1 GiB ballast lay: the fixture's bench rows say 99.4-99.6%, its
  // cross-check rows do not say; the pairs without ballast show a dash.
  EXPECT_THAT(clone3, ::testing::ContainsRegex(
                          "\\| fork 1 GiB touched / fork, to reaped \\(lat_proc\\) \\|[^\n]* "
                          "\\| 99.5% / — \\| — \\|\n"));
  EXPECT_THAT(clone3,
              ::testing::ContainsRegex(
                  "\\| fork / vfork, to reaped \\(lat_proc\\) \\|[^\n]* \\| — \\| — \\|\n"));
  // The parent both sides divide by, as each recorded it (the fixture's
  // cross-check rows do not say).
  EXPECT_THAT(clone3, HasSubstr("The denominators' parent (median over repetitions): bench 1564 "
                                "KiB resident, 36 KiB of page tables, 10 mappings; cross-check "
                                "not recorded."));
  EXPECT_THAT(clone3, HasSubstr("Harness overhead"));
}

TEST_F(GoodReports, LedgerGivesVerdictsAndTheirRows) {
  EXPECT_THAT(ledger, HasSubstr("| P-1 (the shape: flat vs growing) |"));
  EXPECT_THAT(ledger, HasSubstr("**implausible**"));
  EXPECT_THAT(ledger, HasSubstr("**pending**"));
  EXPECT_THAT(ledger, ::testing::Not(HasSubstr("e+0")));  // no exponents
  // Verdicts by reading apart from the measured ones; claims counted as well
  // as their parts; the rows of each comparison named.
  const std::string runs = Read(Out() + "/claims/runs.md");
  EXPECT_THAT(runs, HasSubstr("## By reading, not measured"));
  EXPECT_THAT(runs, HasSubstr("| rows compared |"));
  EXPECT_THAT(ledger, ::testing::ContainsRegex("[0-9]+ claims, tested in [0-9]+ parts"));
  // One conclusion per claim and per part, counted both ways.
  EXPECT_THAT(ledger, HasSubstr("| conclusion | claims | parts |"));
  EXPECT_THAT(ledger, HasSubstr("## Claims\n\n| id | source | conclusion |"));
  EXPECT_THAT(ledger, HasSubstr("## Parts\n\n| part | claimed | conclusion | from |"));
  EXPECT_THAT(ledger, HasSubstr("(claims/runs.md)"));
}

TEST_F(GoodReports, KeyRatiosAgainstTheirBounds) {
  const std::string command = Pages(Out(), "command");
  EXPECT_THAT(command, HasSubstr("### Key ratios"));
  // Command 360 against vfork's 350: +2.9%, within 5%. The spawn path 345
  // against posix_spawn's 540: 0.64, within 0.92.
  EXPECT_THAT(command, HasSubstr("| 1.029 (+2.9%) |"));
  EXPECT_THAT(command, HasSubstr("| 0.639 (-36.1%) |"));
  EXPECT_THAT(command, ::testing::Not(HasSubstr("missed")));
}

TEST_F(GoodReports, TheSameResultsGiveTheSameBytes) {
  const std::string out = Tmp("reports-again");
  ASSERT_EQ(RunReport(Good(), out), 0);
  EXPECT_EQ(Read(out + "/README.md"), index);
  EXPECT_EQ(Pages(out, "clone3"), clone3);
  EXPECT_EQ(Read(out + "/claims.md"), ledger);
  for (const char* svg : {"/clone3-1.svg", "/clone3-2.svg"}) {
    EXPECT_EQ(Read(out + svg), Read(Out() + svg)) << svg;
  }
}

// The tolerance clone3's README states (±10%), written out: a changed spec
// fails here rather than moving with the test.
TEST(Report, CrossCheckAgreesWithinTenPercent) {
  absl::StatusOr<std::map<std::string, ReportSpec>> specs =
      LoadReportSpecs(Runfile("experiments/clone3/report.json")
                          .substr(0, Runfile("experiments/clone3/report.json").rfind("/clone3/")));
  ASSERT_THAT(specs, IsOk()) << specs.status();
  ASSERT_TRUE(specs->count("clone3"));
  const double t = specs->at("clone3").cross_check.tolerance;
  EXPECT_EQ(t, 0.10);
  EXPECT_TRUE(CrossCheckAgrees(1.0, 1.0, t));
  EXPECT_TRUE(CrossCheckAgrees(1.09, 1.0, t));
  EXPECT_TRUE(CrossCheckAgrees(0.91, 1.0, t));
  EXPECT_FALSE(CrossCheckAgrees(1.11, 1.0, t));
  EXPECT_FALSE(CrossCheckAgrees(0.89, 1.0, t));
}

// A spec's counters, tabulated: the median over repetitions, the range where
// they differ, a whole count below 1000 as it is, other values (whole ones
// too) to three figures.
TEST(Report, CounterTablesShowMedianAndRange) {
  const std::string json =
      absl::StrCat(R"({"context": {")", spawnlab::keys::kExperiment,
                   R"(": "x"}, "benchmarks": [)") +
      R"({"name": "op/kind:a", "run_name": "op/kind:a", "run_type": "iteration", "repetitions": 3,)"
      R"( "repetition_index": 0, "real_time": 10, "time_unit": "ns", "maps": 310, "rate": 54321, "p99_us": 1500, "ratio": 1},)"
      R"({"name": "op/kind:a", "run_name": "op/kind:a", "run_type": "iteration", "repetitions": 3,)"
      R"( "repetition_index": 1, "real_time": 11, "time_unit": "ns", "maps": 310, "rate": 1.23456, "p99_us": 2512, "ratio": 1},)"
      R"({"name": "op/kind:a", "run_name": "op/kind:a", "run_type": "iteration", "repetitions": 3,)"
      R"( "repetition_index": 2, "real_time": 12, "time_unit": "ns", "maps": 310, "rate": 99.95, "p99_us": 1190, "ratio": 1.004}]})";
  absl::StatusOr<ResultsFile> f = ParseResults(json, "results/k/x.json");
  ASSERT_THAT(f, IsOk()) << f.status();
  ResultsSet set;
  set.files.push_back(*f);
  absl::StatusOr<ReportSpec> spec = ParseReportSpec(
      R"({"counters": [{"title": "T", "family": "op", "names": ["maps", "rate", "none", "p99_us", "ratio"]}],)"
      R"( "charts": [{"family": "op", "x": "kind", "title": "C"}]})",
      "x", "x/report.json");
  ASSERT_THAT(spec, IsOk()) << spec.status();
  const std::string report = Pages(BuildReports(set, {}, {{"x", *spec}}), "x");
  // A time counter gets its column's unit (p99 in ms here); a cell keeps one
  // style: 1 beside 1.004 reads 1.00, not "1 (1–1.00)".
  EXPECT_THAT(report, HasSubstr("| row | `maps` | `rate` | `none` | `p99_us` (ms) | `ratio` |\n"
                                "|---|---:|---:|---:|---:|---:|\n"
                                "| `op/kind:a` | 310 | 100 (1.23–54300) | — | 1.50 (1.19–2.51) | "
                                "1.00 |\n"));
  // The table holds a time, so its text says how one reads.
  EXPECT_THAT(report, HasSubstr("### T\n\nMedian over the repetitions (range where they differ); a "
                                "time in the unit its column names.\n"));
  // A table of counts alone does not speak of units.
  absl::StatusOr<ReportSpec> counts =
      ParseReportSpec(R"({"counters": [{"title": "N", "family": "op", "names": ["maps", "rate"]}],)"
                      R"( "charts": [{"family": "op", "x": "kind", "title": "C"}]})",
                      "x", "x/report.json");
  ASSERT_THAT(counts, IsOk()) << counts.status();
  EXPECT_THAT(Pages(BuildReports(set, {}, {{"x", *counts}}), "x"),
              HasSubstr("### N\n\nMedian over the repetitions (range where they differ).\n"));
  // A chart in the unit that suits its bars: 11 ns is not "0.0 us".
  EXPECT_THAT(report, HasSubstr("title \"C (median, ns; k on unknown)\"\n    x-axis [\"a\"]\n"
                                "    y-axis \"ns\" 0 --> 13\n    bar [11.0]"));
}

// A table with a prefix: its named counters, then every counter of the rows
// that starts with the prefix, in name order, headed without it; a row with
// none of them (not traced) is left out, and a counter one repetition
// carries (a trace made once) is its own median.
TEST(Report, ACounterTablesPrefixAddsTheRowsCountersThatStartWithIt) {
  const std::string json =
      absl::StrCat(R"({"context": {")", spawnlab::keys::kExperiment,
                   R"(": "x"}, "benchmarks": [)") +
      R"({"name": "op/kind:a", "run_name": "op/kind:a", "run_type": "iteration", "repetitions": 2,)"
      R"( "repetition_index": 0, "real_time": 10, "time_unit": "ns", "total": 3, "sys_wait4": 1, "sys_clone3": 2},)"
      R"({"name": "op/kind:a", "run_name": "op/kind:a", "run_type": "iteration", "repetitions": 2,)"
      R"( "repetition_index": 1, "real_time": 11, "time_unit": "ns"},)"
      R"({"name": "op/kind:b", "run_name": "op/kind:b", "run_type": "iteration", "repetitions": 1,)"
      R"( "repetition_index": 0, "real_time": 10, "time_unit": "ns", "total": 1, "sys_vfork": 1},)"
      R"({"name": "op/kind:c", "run_name": "op/kind:c", "run_type": "iteration", "repetitions": 1,)"
      R"( "repetition_index": 0, "real_time": 10, "time_unit": "ns"}]})";
  absl::StatusOr<ResultsFile> f = ParseResults(json, "results/k/x.json");
  ASSERT_THAT(f, IsOk()) << f.status();
  ResultsSet set;
  set.files.push_back(*f);
  absl::StatusOr<ReportSpec> spec = ParseReportSpec(
      R"({"counters": [{"title": "T", "family": "op", "names": ["total"], "prefix": "sys_"}],)"
      R"( "charts": [{"family": "op", "x": "kind", "title": "C"}]})",
      "x", "x/report.json");
  ASSERT_THAT(spec, IsOk()) << spec.status();
  const std::string report = Pages(BuildReports(set, {}, {{"x", *spec}}), "x");
  EXPECT_THAT(report, HasSubstr("| row | `total` | `clone3` | `vfork` | `wait4` |\n"
                                "|---|---:|---:|---:|---:|\n"
                                "| `op/kind:a` | 3 | 2 | — | 1 |\n"
                                "| `op/kind:b` | 1 | — | 1 | — |\n\n"));
  EXPECT_THAT(report, Not(HasSubstr("| `op/kind:c` | —")));
}

// A rerun right after a run, at the same clean revision, is compared with it
// (in the experiment's report and the index); one from another revision, or
// not right after, is named and not compared; a rerun is never a run itself.
TEST(Report, ARerunRightAfterShowsHowFarTwoRunsAgree) {
  auto file = [](const char* path, const char* revision, const char* start, const char* end,
                 double scale) {
    std::string rows;
    for (int k = 0; k < 9; ++k) {
      for (const char* m : {"vfork", "fork"}) {
        const double t = (std::string(m) == "fork" ? 30 : 10) * scale * (1 + 0.01 * (k % 3));
        absl::StrAppend(&rows, rows.empty() ? "" : ",",
                        absl::Substitute(R"({"name": "s/method:$0", "run_name": "s/method:$0",)"
                                         R"( "run_type": "iteration", "repetitions": 9,)"
                                         R"( "repetition_index": $1, "real_time": $2,)"
                                         R"( "time_unit": "ns"})",
                                         m, k, t));
      }
    }
    absl::StatusOr<ResultsFile> f = ParseResults(
        absl::Substitute(R"({"context": {"$4": "x", "kernel.release": "k",)"
                         R"( "host.name": "h", "git.revision": "$0", "git.tree": "clean",)"
                         R"( "run.start": "$1", "run.end": "$2", "run.noisy": "no",)"
                         R"( "$5": "method:vfork",)"
                         R"( "$6": "s/method:vfork"}, "benchmarks": [$3]})",
                         revision, start, end, rows, spawnlab::keys::kExperiment,
                         spawnlab::keys::kRatioBaseline, spawnlab::keys::kCanaryRow),
        path);
    EXPECT_THAT(f, IsOk()) << f.status();
    return *f;
  };
  ResultsSet set;
  set.files = {
      file("results/k/h/x.json", "abc", "2026-11-30T10:00:00Z", "2026-11-30T10:01:00Z", 1)};
  // The machine 20% slower in the second run: raw rows differ, nothing over the canary.
  set.reruns = {
      file("results/k/h/x.rerun.json", "abc", "2026-11-30T10:01:05Z", "2026-11-30T10:02:00Z", 1.2)};
  std::map<std::string, std::string> out = BuildReports(set, {}, {});
  EXPECT_THAT(Pages(out, "x"), HasSubstr("### Reproducibility"));
  EXPECT_THAT(Pages(out, "x"), HasSubstr("`results/k/h/x.rerun.json`"));
  EXPECT_THAT(Pages(out, "x"), HasSubstr("0 of 1 (0.0%) | ≤ 5% |"));  // fork over the canary
  EXPECT_THAT(out["README.md"], HasSubstr("## Reproducibility"));
  EXPECT_THAT(out["README.md"],
              HasSubstr("| [x](x.md) | k | 0.0% | 0 of 1 | 0 of 1 | 0 of 1 | 2 of 2 | no | yes |"));
  EXPECT_EQ(out["README.md"].find("x.rerun"), std::string::npos) << "a rerun listed as a run";

  set.reruns = {
      file("results/k/h/x.rerun.json", "def", "2026-11-30T10:01:05Z", "2026-11-30T10:02:00Z", 1)};
  out = BuildReports(set, {}, {});
  EXPECT_THAT(Pages(out, "x"), HasSubstr("is not from the same clean revision: not compared"));
  EXPECT_EQ(out["README.md"].find("## Reproducibility"), std::string::npos);
  set.reruns = {
      file("results/k/h/x.rerun.json", "abc", "2026-11-30T12:00:00Z", "2026-11-30T12:01:00Z", 1)};
  EXPECT_THAT(Pages(BuildReports(set, {}, {}), "x"), HasSubstr("was not run right after this run"));
}

// A key ratio is judged on the ratio taken within each round, not on the
// ratio of two medians that came from different rounds.
// One repetition of a row, in Google Benchmark's JSON layout (time in ns).
std::string IterationRow(const std::string& name, int k, int repetitions, double ns) {
  return absl::Substitute(R"({"name": "$0", "run_name": "$0", "run_type": "iteration", )"
                          R"("repetitions": $1, "repetition_index": $2, "real_time": $3, )"
                          R"("time_unit": "ns"})",
                          name, repetitions, k, ns);
}

// A results set of one file of experiment "x" holding `rows` (comma-joined
// IterationRow()s).
absl::StatusOr<ResultsSet> OneFile(const std::string& rows) {
  absl::StatusOr<ResultsFile> f =
      ParseResults(absl::StrCat(R"({"context": {")", spawnlab::keys::kExperiment,
                                R"(": "x"}, "benchmarks": [)", rows, "]}"),
                   "results/k/x.json");
  if (!f.ok()) return f.status();
  ResultsSet set;
  set.files.push_back(*std::move(f));
  return set;
}

TEST(Report, KeyRatiosArePairedWithinRounds) {
  const double a[] = {10, 20, 20, 20, 10};  // the baseline, round by round
  const double b[] = {30, 40, 40, 20, 30};  // within rounds: 3, 2, 2, 1, 3 times a
  std::string rows;
  for (int k = 0; k < 5; ++k) {
    for (const auto& [name, t] : {std::pair<const char*, double>{"s/v:a", a[k]},
                                  std::pair<const char*, double>{"s/v:b", b[k]}}) {
      absl::StrAppend(&rows, rows.empty() ? "" : ",", IterationRow(name, k, 5, t));
    }
  }
  absl::StatusOr<ResultsSet> set = OneFile(rows);
  ASSERT_THAT(set, IsOk()) << set.status();
  absl::StatusOr<ReportSpec> spec = ParseReportSpec(
      R"({"key_ratios": [{"what": "b under 1.9 a", "numerator": "s/v:b", "denominators": ["s/v:a"],)"
      R"( "bound": 1.9}]})",
      "x", "x/report.json");
  ASSERT_THAT(spec, IsOk()) << spec.status();
  const std::string report = Pages(BuildReports(*set, {}, {{"x", *spec}}), "x");
  // Paired: median 2 over the rounds; of medians: 30 / 20 = 1.5, which would pass.
  EXPECT_THAT(report,
              HasSubstr("| b under 1.9 a | `s/v:a` | 2.000 [1.000, 3.000] | 1.500 (+50.0%) |"));
  EXPECT_THAT(report, HasSubstr("**missed**: at most 1.90"));
}

// The feature matrix takes each machine's latest run: a probe fixed since
// an older file must not be reported as failing.
TEST(Report, FeatureMatrixSpeaksFromTheLatestRun) {
  auto file = [](const char* experiment, const char* end, const char* probe) {
    absl::StatusOr<ResultsFile> f = ParseResults(
        absl::StrCat(R"({"context": {")", spawnlab::keys::kExperiment, R"(": ")", experiment,
                     R"(", "kernel.release": "k", "host.name": "h", "run.end": ")", end,
                     R"(", "probe.x": ")", probe,
                     R"(", "probe.x.since": "Linux 9.9"}, "benchmarks": []})"),
        absl::StrCat("results/k/", experiment, ".json"));
    EXPECT_THAT(f, IsOk()) << f.status();
    return *f;
  };
  ResultsSet set;
  set.files = {file("a", "2026-11-30T10:00:00Z", "x: failed with EBADF"),
               file("b", "2026-11-30T12:00:00Z", "ok"), file("c", "2026-11-30T11:00:00Z", "no")};
  const std::string index = BuildReports(set, {}, {})["README.md"];
  EXPECT_THAT(index, HasSubstr("| `x` | Linux 9.9 | yes |"));
}

// A chart shows what it says: rows without its split dimension are left out
// (not drawn as an unlabelled chart under its title), and bars whose x value
// repeats are told apart by the dimensions in which their rows differ.
TEST(Report, ChartsNeitherMixRowsNorRepeatLabels) {
  const std::string specs = Tmp("chart-specs");
  std::filesystem::create_directories(specs + "/command");
  std::ofstream(specs + "/command/report.json") << R"({"charts": [
      {"family": "command", "x": "child", "title": "same x everywhere"},
      {"family": "command", "x": "api", "split": "nosuch", "title": "split by nothing"}]})";
  const std::string out = Tmp("reports-chart-specs");
  ASSERT_EQ(RunReport(Good(), out, {}, specs), 0);
  const std::string command = Pages(out, "command");
  EXPECT_THAT(command, HasSubstr("\"minimal/clone/run\""));
  // Seven labels of 15 characters would collide under the bars: drawn across.
  EXPECT_THAT(command, HasSubstr("xychart-beta horizontal\n    title \"same x everywhere"));
  EXPECT_THAT(command, ::testing::Not(HasSubstr("\"minimal\", \"minimal\"")));
  EXPECT_THAT(command, ::testing::Not(HasSubstr("split by nothing")));
}

// The fixtures and a copy of their command run as if made under UML
// (5.15.0-uml on umlhost), in a folder of the test's named `name`.
std::string ResultsWithUmlRun(const std::string& name) {
  const std::string results = Tmp(name);
  std::filesystem::remove_all(results);
  std::filesystem::copy(Good(), results, std::filesystem::copy_options::recursive);
  nlohmann::json doc = nlohmann::json::parse(Read(Good() + "/6.1.0-test/command.json"));
  doc["context"]["kernel.release"] = "5.15.0-uml";
  doc["context"]["host.name"] = "umlhost";
  doc["context"]["virtualization"] = "uml";
  std::filesystem::create_directories(results + "/5.15.0-uml");
  std::ofstream(results + "/5.15.0-uml/command.json") << doc.dump();
  return results;
}

// A run under User-Mode Linux is shown, marked, and used for nothing else:
// no column across kernels, no verdict in the ledger.
TEST(Report, UmlRunsAreMarkedAndJudgeNothing) {
  const std::string results = ResultsWithUmlRun("results-with-uml");
  const std::string out = Tmp("reports-with-uml");
  ASSERT_EQ(RunReport(results, out), 0);
  const std::string command = Read(out + "/command.md");
  const std::string uml = Read(out + "/command/5.15.0-uml-umlhost.md");
  EXPECT_THAT(uml, HasSubstr("# command: 5.15.0-uml on umlhost"));
  EXPECT_THAT(uml, HasSubstr("**Under User-Mode Linux**"));
  // Neither the findings nor a table across kernels come from it.
  EXPECT_THAT(command, HasSubstr("**6.1.0-test on testhost**"));
  EXPECT_THAT(command, ::testing::Not(HasSubstr("## Across kernels and hosts")));
  // Listed after the real machine, with its rows but no chart of its times.
  EXPECT_LT(command.find("| 6.1.0-test | testhost |"), command.find("| 5.15.0-uml | umlhost |"));
  EXPECT_EQ(uml.find("xychart"), std::string::npos);
  EXPECT_THAT(uml, HasSubstr("`command/api:vfork/child:minimal/op:run`"));
  const std::string ledger = Read(out + "/claims.md");
  EXPECT_THAT(ledger, HasSubstr("6.1.0-test on testhost"));
  EXPECT_THAT(ledger, ::testing::Not(HasSubstr("5.15.0-uml")));
}

// A spec's uml_ratios: shown in the findings from the run under UML (never
// judged), with what UML's figures can and cannot show; the UML run's own
// page opens with the same; without a UML run, the command that makes one.
TEST(Report, UmlRatiosComeFromTheUmlRunUnjudged) {
  const std::string specs = Tmp("uml-ratio-specs");
  std::filesystem::create_directories(specs + "/command");
  std::ofstream(specs + "/command/report.json") << R"({"uml_ratios": [
      {"what": "Command over vfork under UML",
       "numerator": "command/api:command/child:minimal/op:run",
       "denominators": ["command/api:vfork/child:minimal/op:run"]}]})";
  const std::string out_none = Tmp("reports-uml-ratios-none");
  ASSERT_EQ(RunReport(Good(), out_none, {}, specs), 0);
  EXPECT_THAT(Read(out_none + "/command.md"),
              HasSubstr("No run under User-Mode Linux in results/ yet: `bazel run //suite:uml -- "
                        "--full --only=command --processes=2 --rounds=6`"));

  const std::string results = ResultsWithUmlRun("results-uml-ratios");
  const std::string out = Tmp("reports-uml-ratios");
  ASSERT_EQ(RunReport(results, out, {}, specs), 0);
  const std::string command = Read(out + "/command.md");
  const size_t section = command.find("### Under User-Mode Linux: the rows this host cannot run");
  ASSERT_NE(section, std::string::npos) << command;
  EXPECT_THAT(command.substr(section), HasSubstr("**5.15.0-uml on umlhost**"));
  EXPECT_THAT(command.substr(section),
              HasSubstr("| Command over vfork under UML | `command/api:vfork/child:minimal/op:run` | "));
  EXPECT_THAT(command.substr(section), HasSubstr("which costs more and how the cost grows"));
  EXPECT_THAT(command.substr(section), ::testing::Not(HasSubstr("met: at most")));
  // The UML run's page: the caveat is the first thing under its title.
  const std::string uml = Read(out + "/command/5.15.0-uml-umlhost.md");
  EXPECT_THAT(uml, HasSubstr("# command: 5.15.0-uml on umlhost\n\n**Under User-Mode Linux**"));
  EXPECT_THAT(uml, HasSubstr("| Command over vfork under UML |"));
}

TEST(Report, ThreeSignificantFiguresInTheTablesUnit) {
  EXPECT_EQ(InUnit(1234567, {"ms", 1e6}), "1.23");
  EXPECT_EQ(InUnit(2.12, {"µs", 1e3}), "0.00212");
  EXPECT_EQ(InUnit(999.7, {"µs", 1e3}), "1.00");
  EXPECT_EQ(InUnit(98765, {"µs", 1e3}), "98.8");
  EXPECT_EQ(InUnit(123456, {"µs", 1e3}), "123");
  EXPECT_EQ(UnitFor({20, 1000, 1500, 98000}).name, std::string("µs"));
  EXPECT_EQ(UnitFor({2e6, 3e6}).name, std::string("ms"));
}

// Without a spec an experiment still gets its rows; a spec that does not
// parse stops the tool, naming the file.
TEST(Report, SpecsAreOptionalButMustParse) {
  const std::string none = Tmp("no-specs");
  std::filesystem::create_directories(none);
  const std::string out = Tmp("reports-no-specs");
  ASSERT_EQ(RunReport(Good(), out, {}, none), 0);
  const std::string clone3 = Pages(out, "clone3");
  EXPECT_THAT(clone3, HasSubstr("| `spawn/method:fork/child:minimal/parent:minimal/until:exit` |"));
  EXPECT_THAT(clone3, ::testing::Not(HasSubstr("xychart")));
  const std::string bad = Tmp("bad-specs");
  std::filesystem::create_directories(bad + "/foo");
  std::ofstream(bad + "/foo/report.json") << R"({"chart": []})";
  EXPECT_EQ(RunReport(Good(), Tmp("reports-bad-specs"), {}, bad), 2);
  // A folder named on the command line must exist.
  EXPECT_EQ(RunReport(Good(), Tmp("reports-missing-specs"), {}, Tmp("nowhere")), 2);
}

// Two claims judged on the same rows of the same run show the measurement
// once: the second row of the ledger points at the first; each keeps its own
// claim, verdict and reason.
TEST(Report, TheLedgerShowsAMeasurementOnce) {
  std::string rows;
  for (int k = 0; k < 9; ++k) {
    for (const auto& [name, t] :
         {std::pair<const char*, double>{"op/kind:slow", 200}, {"op/kind:fast", 100}}) {
      absl::StrAppend(&rows, rows.empty() ? "" : ",", IterationRow(name, k, 9, t + k));
    }
  }
  absl::StatusOr<ResultsSet> set = OneFile(rows);
  ASSERT_THAT(set, IsOk()) << set.status();
  std::vector<Claim> claims;
  for (const auto& [id, claimed] : {std::pair<const char*, double>{"A-1", 2.0}, {"B-1", 9.0}}) {
    Claim c;
    c.id = id;
    c.source = "s";
    c.claim = "c";
    c.conditions = "d";
    c.experiment = "x";
    c.rule = {{"kind", "ratio"},
              {"numerator", "op/kind:slow"},
              {"denominator", "op/kind:fast"},
              {"claimed", claimed},
              {"tolerance", 0.2}};
    c.size_differs = "a reason of its own";
    claims.push_back(c);
  }
  const std::string ledger = BuildReports(*set, claims, {})["claims/runs.md"];
  EXPECT_THAT(ledger, HasSubstr("| A-1 | s | c | d | `op/kind:slow` / `op/kind:fast` |"));
  EXPECT_THAT(ledger, HasSubstr("| B-1 | s | c | d | as A-1 | the same measurement as A-1 | "
                                "**direction-only** |"));
  // A size note shows beside a verdict that is not `reproduced` only.
  EXPECT_THAT(ledger, HasSubstr("would reproduce the claim. Why the size may differ: a reason of "
                                "its own |"));
}

// Claim A-1 of experiment "x": op/kind:slow is twice op/kind:fast.
Claim TwiceAsSlow(double tolerance) {
  Claim c;
  c.id = "A-1";
  c.source = "s";
  c.claim = "twice as slow";
  c.conditions = "d";
  c.experiment = "x";
  c.rule = {{"kind", "ratio"},
            {"numerator", "op/kind:slow"},
            {"denominator", "op/kind:fast"},
            {"claimed", 2.0},
            {"tolerance", tolerance}};
  return c;
}

// A part's conclusion stands on the quiet runs of several processes; a noisy
// run that says otherwise is set aside, and named.
TEST(Report, TheLedgerConcludesFromCleanRuns) {
  auto file = [](const std::string& path, const std::string& noisy, const std::string& processes,
                 double slow) {
    std::string rows;
    for (int k = 0; k < 9; ++k) {
      absl::StrAppend(&rows, rows.empty() ? "" : ",", IterationRow("op/kind:slow", k, 9, slow + k),
                      ",", IterationRow("op/kind:fast", k, 9, 100 + k));
    }
    absl::StatusOr<ResultsFile> f = ParseResults(
        absl::StrCat(R"({"context": {")", spawnlab::keys::kExperiment, R"(": "x", "run.noisy": ")",
                     noisy, R"(", ")", spawnlab::keys::kProcesses, R"(": ")", processes,
                     R"(", "host.name": "h"}, "benchmarks": [)", rows, "]}"),
        path);
    EXPECT_THAT(f, IsOk());
    return *f;
  };
  ResultsSet set;
  set.files.push_back(file("results/k1/x.json", "no", "10", 200));
  set.files.push_back(file("results/k2/x.json", "yes: drifted", "10", 900));
  set.files.push_back(file("results/k3/x.json", "no", "1", 900));
  const std::string ledger = BuildReports(set, {TwiceAsSlow(0.2)}, {})["claims.md"];
  EXPECT_THAT(ledger, HasSubstr("| A-1 | twice as slow | **reproduced** | quiet runs of several "
                                "processes: k1 on h: reproduced. Set aside: k2 on h (noisy): "));
  EXPECT_THAT(ledger, HasSubstr("k3 on h (one process): "));
  EXPECT_THAT(ledger, HasSubstr("| reproduced | 1 | 1 |"));
}

// A run that predates a part's rows (pending) does not make the part vary
// by machine beside a run that measured them and could not decide.
TEST(Report, APendingRunYieldsToAnUndecidedOne) {
  auto file = [](const std::string& path, const std::string& slow_row, bool spread) {
    std::string rows;
    for (int k = 0; k < 9; ++k) {
      absl::StrAppend(&rows, rows.empty() ? "" : ",",
                      IterationRow(slow_row, k, 9, spread ? (k % 2 ? 150 : 300) : 200), ",",
                      IterationRow("op/kind:fast", k, 9, 100));
    }
    absl::StatusOr<ResultsFile> f =
        ParseResults(absl::StrCat(R"({"context": {")", spawnlab::keys::kExperiment,
                                  R"(": "x", "run.noisy": "no", ")", spawnlab::keys::kProcesses,
                                  R"(": "10", "host.name": "h"}, "benchmarks": [)", rows, "]}"),
                     path);
    EXPECT_THAT(f, IsOk());
    return *f;
  };
  ResultsSet set;
  set.files.push_back(file("results/k1/x.json", "op/kind:older", false));
  set.files.push_back(file("results/k2/x.json", "op/kind:slow", true));
  const std::string ledger = BuildReports(set, {TwiceAsSlow(0.05)}, {})["claims.md"];
  EXPECT_THAT(ledger, HasSubstr("| A-1 | twice as slow | **inconclusive** | quiet runs of several "
                                "processes: k1 on h: pending; k2 on h: inconclusive"));
}

// A change is called only where it moved further than the row between the
// first run and its rerun; a pair that changes the host says so.
TEST(Report, AChangeWithinTheRerunsOwnMoveIsNotCalled) {
  auto file = [](const std::string& path, const std::string& host, double ns,
                 const std::string& start, const std::string& end) {
    std::string rows;
    for (int k = 0; k < 9; ++k) {
      absl::StrAppend(&rows, rows.empty() ? "" : ",", IterationRow("op/kind:a", k, 9, ns + k));
    }
    absl::StatusOr<ResultsFile> f = ParseResults(
        absl::StrCat(R"({"context": {")", spawnlab::keys::kExperiment,
                     R"(": "x", "kernel.release": ")", path.substr(8, 2), R"(", "host.name": ")",
                     host, R"(", "host.id": ")", host,
                     R"(", "git.revision": "abc", "git.tree": "clean", "run.start": ")", start,
                     R"(", "run.end": ")", end, R"("}, "benchmarks": [)", rows, "]}"),
        path);
    EXPECT_THAT(f, IsOk()) << f.status();
    return *f;
  };
  ResultsSet set;
  set.files.push_back(
      file("results/k1/a/x.json", "a", 1000, "2026-12-01T10:00:00Z", "2026-12-01T10:01:00Z"));
  set.reruns.push_back(
      file("results/k1/a/x.rerun.json", "a", 1100, "2026-12-01T10:02:00Z", "2026-12-01T10:03:00Z"));
  set.files.push_back(
      file("results/k2/a/x.json", "a", 1050, "2026-12-02T10:00:00Z", "2026-12-02T10:01:00Z"));
  set.files.push_back(
      file("results/k1/b/x.json", "b", 2000, "2026-12-03T10:00:00Z", "2026-12-03T10:01:00Z"));
  const std::string across = BuildReports(set, {}, {})["x/across.md"];
  // k2 moved 5%, the rerun 10%: an interval that excludes 1, not called.
  // Columns: k1 on a (the first), k1 on b (a host change), k2 on a (a
  // kernel change). Another host: twice as slow, called. k2 moved 5% where
  // the rerun moved 10%: an interval that excludes 1, not called.
  EXPECT_THAT(
      across,
      HasSubstr("| k1 on b | change (host, from a) | k2 on a | change (kernel, from k1) |"));
  EXPECT_THAT(across, HasSubstr("| `op/kind:a` | 1.00 | 2.00 | **2.00x ["));
  EXPECT_THAT(across, HasSubstr("| 1.05 | 1.05x ["));
  EXPECT_THAT(across, ::testing::Not(HasSubstr("**1.05x")));
}

// --changes: the page of what changed from one kernel to the next, on the
// fixtures (6.1.0-test and 6.2.0-test, one host): key ratios with intervals,
// largest first; and the errors a user can make.
TEST(Report, ChangesBetweenTwoKernels) {
  absl::StatusOr<ResultsSet> set = LoadResultsDir(Good());
  ASSERT_THAT(set, IsOk());
  absl::StatusOr<std::map<std::string, ReportSpec>> specs = LoadReportSpecs(Specs());
  ASSERT_THAT(specs, IsOk());
  absl::StatusOr<RunSelector> before = ParseRunSelector("6.1.0-test");
  absl::StatusOr<RunSelector> after = ParseRunSelector("6.2.0-test/testhost");
  ASSERT_THAT(before, IsOk());
  ASSERT_THAT(after, IsOk());
  absl::StatusOr<std::string> page = ChangesPage(*set, {}, *specs, *before, *after);
  ASSERT_THAT(page, IsOk()) << page.status();
  EXPECT_EQ(ChangesPageName(*before, *after), "changes/6.1.0-test-to-6.2.0-test-testhost.md");
  EXPECT_THAT(*page, HasSubstr("The host is the same: what changed is the kernel."));
  EXPECT_THAT(*page, HasSubstr("## Features"));
  EXPECT_THAT(*page,
              HasSubstr("| `io_uring_waitid` | no: io_uring: opcode 50"));  // 6.2: not probed
  EXPECT_THAT(*page, HasSubstr("## Key ratios, largest change first"));
  EXPECT_THAT(*page, HasSubstr("## Ledger verdicts that moved"));
  EXPECT_FALSE(ParseRunSelector("").ok());
  EXPECT_FALSE(ParseRunSelector("6.1/").ok());
  EXPECT_TRUE(absl::IsNotFound(
      ChangesPage(*set, {}, *specs, *before, RunSelector{"9.9-none", ""}).status()));
}

// The changes page judges a key ratio over the processes' paired medians and
// against the older run's rerun: a move within what the rerun moved is not
// called; one beyond it is.
TEST(Report, ChangesAreOverProcessesAndBeyondTheRerun) {
  // Experiment "x" on host a: fork costs `ratio` times vfork, in 4 processes
  // of 3 rounds each; on k2 the processes differ a little (±0.2%), so that
  // the interval has a width.
  auto file = [](const std::string& path, const std::string& kernel, double ratio,
                 const std::string& start) {
    std::string rows;
    int k = 0;
    for (int process = 1; process <= 4; ++process) {
      for (int round = 0; round < 3; ++round, ++k) {
        const double vfork = 100 + k;
        const double wobble = kernel == "k2" ? 1 + 0.002 * (process % 2 ? 1 : -1) : 1;
        for (const auto& [m, ns] :
             {std::pair<std::string, double>{"vfork", vfork},
              std::pair<std::string, double>{"fork", vfork * ratio * wobble}}) {
          absl::StrAppend(&rows, rows.empty() ? "" : ",",
                          absl::Substitute(R"({"name": "s/method:$0", "run_name": "s/method:$0",)"
                                           R"( "run_type": "iteration", "repetitions": 12,)"
                                           R"( "repetition_index": $1, "real_time": $2,)"
                                           R"( "time_unit": "ns", "$3": $4})",
                                           m, k, ns, kProcessField, process));
        }
      }
    }
    absl::StatusOr<ResultsFile> f = ParseResults(
        absl::StrCat(R"({"context": {")", spawnlab::keys::kExperiment,
                     R"(": "x", "kernel.release": ")", kernel,
                     R"(", "host.name": "a", "host.id": "a", "git.revision": "abc",)",
                     R"( "git.tree": "clean", "run.noisy": "no", "run.start": ")", start,
                     R"(", "run.end": ")", start, R"("}, "benchmarks": [)", rows, "]}"),
        path);
    EXPECT_THAT(f, IsOk()) << f.status();
    return *f;
  };
  absl::StatusOr<ReportSpec> spec =
      ParseReportSpec(R"({"key_ratios": [{"what": "fork / vfork", "numerator": "s/method:fork",)"
                      R"( "denominators": ["s/method:vfork"], "bound": 3}]})",
                      "x", "x/report.json");
  ASSERT_THAT(spec, IsOk()) << spec.status();
  auto page = [&](double rerun_ratio, double after_ratio) {
    ResultsSet set;
    set.files.push_back(file("results/k1/a/x.json", "k1", 2.0, "2026-12-01T10:00:00Z"));
    set.reruns.push_back(
        file("results/k1/a/x.rerun.json", "k1", rerun_ratio, "2026-12-01T10:01:00Z"));
    set.files.push_back(file("results/k2/a/x.json", "k2", after_ratio, "2026-12-02T10:00:00Z"));
    absl::StatusOr<std::string> p =
        ChangesPage(set, {}, {{"x", *spec}}, RunSelector{"k1", ""}, RunSelector{"k2", ""});
    EXPECT_THAT(p, IsOk()) << p.status();
    return p.ok() ? *p : "";
  };
  // The rerun moved 10%, the new kernel 5%: shown with its interval, not called.
  const std::string within = page(2.2, 2.1);
  EXPECT_THAT(within, HasSubstr("| x | abc | fork / vfork | 2.000 | 2.100 | 1.050x [1.04"));
  EXPECT_THAT(within, HasSubstr("] | 10.0% |"));
  EXPECT_THAT(within, ::testing::Not(HasSubstr("**1.050x")));
  EXPECT_THAT(within, HasSubstr("1.050x [1.048, 1.052] | 10.0% |"));  // over processes: no †
  // The rerun moved 1%, the new kernel 5%: called.
  EXPECT_THAT(page(2.02, 2.1), HasSubstr("| **1.050x ["));
}

// The index links every changes page, a later run's report keeping them
// (they are written on request only); a page without the marker is not ours.
TEST(Report, TheIndexLinksTheChangesPagesLeftByEarlierRuns) {
  const std::string out = Tmp("reports-changes-links");
  std::filesystem::create_directories(out + "/changes");
  std::ofstream(out + "/changes/a-to-b.md") << kGeneratedMarker << "\n\n# changes\n";
  std::ofstream(out + "/changes/notes.md") << "# mine\n";
  ASSERT_EQ(RunReport(Good(), out), 0);
  const std::string index = Read(out + "/README.md");
  EXPECT_THAT(index, HasSubstr("## Changes between kernels"));
  EXPECT_THAT(index, HasSubstr("- [a-to-b](changes/a-to-b.md)"));
  EXPECT_THAT(index, ::testing::Not(HasSubstr("notes")));
  EXPECT_LT(index.find("## Changes between kernels"), index.find("## Machines and kernels"));
  EXPECT_TRUE(std::filesystem::exists(out + "/changes/a-to-b.md"));
}

TEST(Report, BadFilesAreNamedAndTheRestStillReported) {
  const std::string results = Tmp("mixed");
  ASSERT_EQ(
      system(absl::StrCat("mkdir -p ", results, "/k && cp ", Good(), "/6.1.0-test/clone3.json ",
                          results, "/k/ && echo '{\"bench' > ", results, "/k/broken.json")
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
  std::ofstream(out + "/gone-1.svg") << kGeneratedMarker << "\n<svg/>\n";
  std::ofstream(out + "/logo.svg") << "<svg/>\n";
  std::ofstream(out + "/notes.md") << "hand-written\n";
  ASSERT_EQ(RunReport(Good(), out), 0);
  struct stat st;
  EXPECT_NE(stat((out + "/gone.md").c_str(), &st), 0);
  EXPECT_NE(stat((out + "/gone-1.svg").c_str(), &st), 0);
  EXPECT_EQ(stat((out + "/logo.svg").c_str(), &st), 0);
  EXPECT_EQ(stat((out + "/notes.md").c_str(), &st), 0);
}

TEST(Report, BadArgumentsAreErrors) { EXPECT_EQ(RunReport("/nonexistent", Tmp("reports4")), 2); }

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
}  // namespace spawnlab
