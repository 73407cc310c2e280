// compare_test.cc: compare pairs benchmarks by name, computes the change and
// the U test, warns below 9 repetitions or when the table is too large for a
// lone row to be called different, and summarises with a geometric mean.

#include "analysis/compare.h"

#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"
#include "results_model/stats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "results_model/context_keys.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace analysis {
namespace {

using ::testing::HasSubstr;

ResultsFile Load(const std::string& rel) {
  absl::StatusOr<std::string> p = spawnlab::Runfile("analysis/testdata/" + rel);
  absl::StatusOr<ResultsFile> f = LoadResultsFile(p.ok() ? *p : rel);
  EXPECT_THAT(f, IsOk()) << f.status();
  return f.ok() ? *f : ResultsFile();
}

TEST(Compare, PairsByNameWithChangeAndUTest) {
  ResultsFile older = Load("good/6.2.0-test-clone3.json");  // fork 1300, vfork 380
  ResultsFile newer = Load("good/6.1.0-test/clone3.json");  // fork 1400, vfork 400
  Comparison c = CompareResults(older, newer);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].name, "spawn/method:fork/child:minimal/parent:minimal/until:exit");
  EXPECT_NEAR(c.rows[0].change, 100.0 / 1300, 1e-9);
  EXPECT_LT(c.rows[0].p_value, 0.05);  // every new sample is above every old one
  EXPECT_NEAR(c.geomean_ratio, std::sqrt(1400.0 / 1300 * 400.0 / 380), 1e-9);
  EXPECT_EQ(c.only_old.size(), 0u);
  EXPECT_GT(c.only_new.size(), 10u);
  std::string text = FormatComparison(c);
  EXPECT_THAT(text, HasSubstr("+7.69%"));
  EXPECT_THAT(text, HasSubstr("(different)"));  // q: p adjusted over the 2 rows tested
  EXPECT_THAT(text, HasSubstr("2 of 2 benchmarks with enough repetitions differ at a 5% false"));
  EXPECT_THAT(text, HasSubstr("Geometric mean"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("fewer than 9")));
}

TEST(Compare, WarnsBelowNineRepetitions) {
  // Aggregates only, but for two rows of 3 repetitions.
  ResultsFile a = Load("good/6.1.0-test/crosscheck.json");
  Comparison c = CompareResults(a, a);
  EXPECT_FALSE(c.rows.empty());
  for (const auto& row : c.rows) {
    if (row.name == "crosscheck/way:lat_proc/op:fork-exit/parent:minimal") {
      EXPECT_TRUE(std::isnan(row.p_value));  // no repetitions to test
    }
  }
  EXPECT_DOUBLE_EQ(c.geomean_ratio, 1.0);
  EXPECT_THAT(FormatComparison(c), HasSubstr("fewer than 9 repetitions"));
}

TEST(Compare, WarnsWhenTheTableIsTooLargeForALoneRowToShow) {
  // 9 repetitions a side: the smallest p is about 0.0004, times 130 rows
  // tested is above 0.05, so no single row could be called different.
  Comparison c;
  c.geomean_ratio = 1;
  for (int i = 0; i < 130; ++i) {
    CompareRow row{absl::StrCat("x/row:", i), 100, 100, 0, 0.5, 9, 9};
    row.q_value = 0.9;
    c.rows.push_back(row);
  }
  const std::string text = FormatComparison(c);
  EXPECT_THAT(text, HasSubstr("130 of the 130 benchmarks tested could not be called different "
                              "on their own"));
  EXPECT_THAT(text, HasSubstr("--benchmark_repetitions=10 or more"));
  c.rows.resize(121);  // 121 rows: a lone row wholly apart still reaches q < 0.05
  EXPECT_THAT(FormatComparison(c), ::testing::Not(HasSubstr("could not be called different")));
}

nlohmann::json Rep(const std::string& name, int k, double t) {
  return {{"name", name},          {"run_name", name}, {"run_type", "iteration"},
          {"repetition_index", k}, {"real_time", t},   {"time_unit", "us"}};
}

ResultsFile Parsed(const nlohmann::json& doc) {
  absl::StatusOr<ResultsFile> f = ParseResults(doc.dump(), "x.json");
  EXPECT_THAT(f, IsOk()) << f.status();
  return f.ok() ? *f : ResultsFile();
}

TEST(Compare, RatiosIgnoreDriftThatMovesBothRowsOfARound) {
  // The new run is 30% slower everywhere, and one round 2x: the ratios hold.
  nlohmann::json old_doc = {{"benchmarks",
                             {Rep("s/method:vfork/p:a", 0, 10), Rep("s/method:fork/p:a", 0, 30),
                              Rep("s/method:vfork/p:a", 1, 10), Rep("s/method:fork/p:a", 1, 30)}}};
  nlohmann::json new_doc = {{"benchmarks",
                             {Rep("s/method:vfork/p:a", 0, 13), Rep("s/method:fork/p:a", 0, 39),
                              Rep("s/method:vfork/p:a", 1, 26), Rep("s/method:fork/p:a", 1, 78)}}};
  RatioComparison c = CompareRatios(Parsed(old_doc), Parsed(new_doc), {"method", "vfork"});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_NEAR(c.rows[0].change, 0.0, 1e-12);
  EXPECT_EQ(c.over_5pct, 0);
  // A real change of 20% in one ratio is seen.
  new_doc["benchmarks"][1]["real_time"] = 39 * 1.2;
  new_doc["benchmarks"][3]["real_time"] = 78 * 1.2;
  c = CompareRatios(Parsed(old_doc), Parsed(new_doc), {"method", "vfork"});
  EXPECT_NEAR(c.rows[0].change, 0.2, 1e-12);
  EXPECT_EQ(c.over_10pct, 1);
  EXPECT_THAT(FormatRatioComparison(c, {"method", "vfork"}), ::testing::HasSubstr("+20.0%"));
}

// Nine rounds of two rows, vfork ~10 us and fork ~30 us, each `scale`d (the
// machine), fork also by `fork_factor` (the code).
nlohmann::json TwoRows(double scale, double fork_factor, bool noisy = false) {
  nlohmann::json doc = {{"context",
                         {{spawnlab::keys::kRatioBaseline, "method:vfork"},
                          {"run.noisy", noisy ? "yes: canary moved 30%" : "no"}}},
                        {"benchmarks", nlohmann::json::array()}};
  for (int k = 0; k < 9; ++k) {
    const double wobble = 1 + 0.01 * (k % 3);
    doc["benchmarks"].push_back(Rep("s/method:vfork/p:a", k, 10 * scale * wobble));
    doc["benchmarks"].push_back(Rep("s/method:fork/p:a", k, 30 * scale * wobble * fork_factor));
  }
  return doc;
}

Reproducibility Check(const nlohmann::json& a, const nlohmann::json& b) {
  absl::StatusOr<ResultsFile> fa = ParseResults(a.dump(), "a.json");
  absl::StatusOr<ResultsFile> fb = ParseResults(b.dump(), "b.json");
  EXPECT_THAT(fa, IsOk());
  EXPECT_THAT(fb, IsOk());
  return CheckReproducibility(*fa, *fb);
}

TEST(SelfCheck, TheSameRunTwiceMeetsTheTargets) {
  Reproducibility r = Check(TwoRows(1, 1), TwoRows(1, 1));
  EXPECT_EQ(r.ratios, 1);  // found through the context's ratio baseline
  EXPECT_EQ(r.rows_tested, 2);
  EXPECT_EQ(r.rows_different, 0);
  EXPECT_TRUE(r.meets_targets) << r.table;
  EXPECT_THAT(r.table, HasSubstr("| median change of the 1 key ratios (over method:vfork,"));
}

// With a canary, the rows are judged over it: a machine 20% slower moves
// every raw time, and no row over the canary.
TEST(SelfCheck, OverTheCanaryDriftIsNoDifference) {
  nlohmann::json a = TwoRows(1, 1), b = TwoRows(1.2, 1);
  for (nlohmann::json* doc : {&a, &b})
    (*doc)["context"][spawnlab::keys::kCanaryRow] = "s/method:vfork/p:a";
  Reproducibility r = Check(a, b);
  EXPECT_EQ(r.rows_different, 2);      // raw: both rows moved
  EXPECT_EQ(r.canary_rows_tested, 1);  // fork over the canary; the canary itself is not tested
  EXPECT_EQ(r.canary_rows_different, 0);
  EXPECT_TRUE(r.meets_targets) << r.table;
  EXPECT_THAT(r.table, HasSubstr("each over the canary"));
  // One row judged: chance alone calls it different 1 time in 20, so the bound is 1 of 1.
  EXPECT_THAT(r.table, HasSubstr("chance alone reaches 1 of 1 in 1 pair of identical runs out of "
                                 "20 | 0 of 1 (0.0%) |"));
  // A change in the code still shows over the canary.
  Reproducibility changed = Check(a, [] {
    nlohmann::json d = TwoRows(1.2, 1.3);
    d["context"][spawnlab::keys::kCanaryRow] = "s/method:vfork/p:a";
    return d;
  }());
  EXPECT_EQ(changed.canary_rows_different, 1);
  EXPECT_FALSE(changed.meets_targets);
}

// Adds `row` to a TwoRows document: its 9 repetitions at `factor` times the
// document's first repetition.
void AddRow(nlohmann::json* doc, const std::string& row, double factor) {
  const double base = (*doc)["benchmarks"][0]["real_time"].get<double>();
  for (int k = 0; k < 9; ++k) (*doc)["benchmarks"].push_back(Rep(row, k, factor * base));
}

// A bench may declare several baselines (linking: child-link:static and
// parent-link:static); each one's ratios count.
TEST(SelfCheck, EveryDeclaredBaselineCounts) {
  nlohmann::json a = TwoRows(1, 1), b = TwoRows(1, 1.3);
  for (nlohmann::json* doc : {&a, &b}) {
    (*doc)["context"][spawnlab::keys::kRatioBaseline] = "method:vfork,p:a";
    AddRow(doc, "s/method:vfork/p:b", 2);
  }
  absl::StatusOr<ResultsFile> fa = ParseResults(a.dump(), "a.json");
  ASSERT_THAT(fa, IsOk());
  const std::vector<spawnlab::RatioBaseline> declared = DeclaredRatioBaselines(*fa);
  ASSERT_EQ(declared.size(), 2u);
  EXPECT_EQ(declared[1].dimension, "p");
  EXPECT_EQ(declared[1].value, "a");
  Reproducibility r = Check(a, b);
  EXPECT_EQ(r.ratios, 2);             // fork over vfork; p:b over p:a
  EXPECT_EQ(r.ratios_over_10pct, 1);  // fork, 30% slower in the second run
  EXPECT_FALSE(r.meets_targets);
  EXPECT_THAT(r.table, HasSubstr("(over method:vfork, over p:a,"));
}

// A bench with an answer (spawnlab.key_rows) is judged on its answer's key
// ratios alone: a ratio outside them may move, as a --full run's other rows,
// measured by the fewest processes, do.
TEST(SelfCheck, OnlyTheAnswersKeyRatiosAreJudgedWhereTheRunNamesThem) {
  nlohmann::json a = TwoRows(1, 1), b = TwoRows(1, 1.3);
  for (nlohmann::json* doc : {&a, &b}) {
    (*doc)["context"][spawnlab::keys::kKeyRows] = "p:b";
    AddRow(doc, "s/method:vfork/p:b", 2);
    AddRow(doc, "s/method:fork/p:b", 4);
  }
  absl::StatusOr<ResultsFile> fa = ParseResults(a.dump(), "a.json");
  ASSERT_THAT(fa, IsOk());
  const std::vector<spawnlab::RatioBaseline> declared = DeclaredRatioBaselines(*fa);
  ASSERT_EQ(declared.size(), 1u);
  EXPECT_EQ(declared[0].rows, "p:b");
  Reproducibility r = Check(a, b);
  EXPECT_EQ(r.ratios, 1);  // fork over vfork at p:b; p:a's, 30% slower, is not judged
  EXPECT_EQ(r.ratios_over_10pct, 0);
  EXPECT_THAT(r.table, HasSubstr("key ratios of the answer's rows"));
}

// Twenty rows, identical in both runs but for the first, shifted in the new
// run by `shift` (on samples 1.0 to 1.8: 0.35 gives p = 0.027, 5 gives p <
// 0.001), and the second by `shift2`.
nlohmann::json TwentyRows(double shift, double shift2) {
  nlohmann::json doc = {{"benchmarks", nlohmann::json::array()}};
  for (int row = 0; row < 20; ++row) {
    for (int k = 0; k < 9; ++k) {
      const double add = row == 0 ? shift : row == 1 ? shift2 : 0;
      doc["benchmarks"].push_back(
          Rep(absl::StrCat("s/method:vfork/p:", row), k, (row + 1) * (1 + 0.1 * k) + add));
    }
  }
  return doc;
}

// One row of twenty with p < 0.05 is what chance gives two runs of identical
// code: it is counted for scale, not called different.
TEST(SelfCheck, OneChanceRowOfTwentyIsNotCalledDifferent) {
  Reproducibility r = Check(TwentyRows(0, 0), TwentyRows(0.35, 0));
  EXPECT_EQ(r.rows_tested, 20);
  EXPECT_EQ(r.rows_below_p05, 1);
  EXPECT_EQ(r.rows_different, 0);
  EXPECT_TRUE(r.meets_targets) << r.table;
  EXPECT_THAT(r.table, HasSubstr("as compare.py marks them; chance alone reaches 4 of 20 in 1 pair "
                                 "of identical runs out of 20 | 1 of 20 (5.0%) |"));
  // A row that moved clearly is called different: 1 of 20 is within 5%, 2 are not.
  r = Check(TwentyRows(0, 0), TwentyRows(5, 0));
  EXPECT_EQ(r.rows_different, 1);
  EXPECT_TRUE(r.meets_targets) << r.table;
  r = Check(TwentyRows(0, 0), TwentyRows(5, 5));
  EXPECT_EQ(r.rows_different, 2);
  EXPECT_FALSE(r.meets_targets) << r.table;
  // The miss names its rows.
  ASSERT_EQ(r.rows_called_different.size(), 2u);
  EXPECT_THAT(r.table, HasSubstr("Rows the U test calls different (raw times):\n\n- "
                                 "`s/method:vfork/p:0`: +"));
  EXPECT_THAT(r.table, HasSubstr("- `s/method:vfork/p:1`: +"));
}

TEST(SelfCheck, DriftMovesRowsButNotRatios) {
  // The whole machine 20% slower: every row differs, no ratio moves. The
  // rows' U test still fails the 5% target, and the table says so.
  Reproducibility r = Check(TwoRows(1, 1), TwoRows(1.2, 1));
  EXPECT_NEAR(r.median_ratio_change, 0, 1e-9);
  EXPECT_EQ(r.ratios_over_10pct, 0);
  EXPECT_EQ(r.rows_different, 2);
  EXPECT_FALSE(r.meets_targets);
  EXPECT_THAT(r.table, HasSubstr("2 of 2 (100.0%)"));
}

TEST(SelfCheck, ARatioThatMovesMissesTheTargetUnlessARunIsNoisy) {
  Reproducibility r = Check(TwoRows(1, 1), TwoRows(1, 1.15));
  EXPECT_EQ(r.ratios_over_10pct, 1);
  EXPECT_FALSE(r.meets_targets);
  // The miss names the ratio, with each run's interval; here every round
  // gives the same ratio, so the intervals are points and do not overlap.
  ASSERT_EQ(r.ratios_moved.size(), 1u);
  EXPECT_THAT(r.table, HasSubstr("Key ratios that moved more than 10%"));
  EXPECT_THAT(r.table, HasSubstr("- `s/method:fork/p:a` over `s/method:vfork/p:a`: 3 [3, 3] and "
                                 "3.45 [3.45, 3.45], +15.0%\n"));
  EXPECT_THAT(r.table, Not(HasSubstr("intervals overlap")));
  // A reproducible pair names nothing.
  Reproducibility same = Check(TwoRows(1, 1), TwoRows(1, 1));
  EXPECT_TRUE(same.ratios_moved.empty());
  EXPECT_TRUE(same.rows_called_different.empty());
  EXPECT_THAT(same.table, Not(HasSubstr("moved more than 10% (")));
  // Marked noisy, a ratio may move more than 10%, but the median change
  // (here that same 15%) must still be within 2%: still not reproducible.
  Reproducibility noisy = Check(TwoRows(1, 1), TwoRows(1, 1.15, /*noisy=*/true));
  EXPECT_TRUE(noisy.noisy);
  EXPECT_FALSE(noisy.meets_targets);
}

// A run made in rounds where the whole machine was 20% slower in the second
// run: every raw row "differs", every row over its canary of the same round
// does not.
std::string RoundsRun(double slow, const char* canary = "x/op:canary") {
  std::string rows;
  for (const char* name : {"x/op:canary", "x/op:a"}) {
    for (int k = 0; k < 9; ++k) {
      // Each round drifts a little; the rows of one round drift together.
      const double base = std::string(name) == "x/op:a" ? 3000 : 1000;
      const double t = base * slow * (1 + 0.01 * ((k * 7) % 5));
      absl::StrAppend(&rows, rows.empty() ? "" : ",", R"({"name": ")", name, R"(", "run_name": ")",
                      name, R"(", "run_type": "iteration", "repetitions": 9, "repetition_index": )",
                      k, R"(, "real_time": )", t, R"(, "time_unit": "ns"})");
    }
  }
  return absl::StrCat(R"({"context": {")", spawnlab::keys::kCanaryRow, R"(": ")", canary, R"("}, "benchmarks": [)",
                      rows, "]}");
}

TEST(Compare, ByCanaryTheDriftOfTheWholeMachineCancels) {
  absl::StatusOr<ResultsFile> older = ParseResults(RoundsRun(1.0), "old.json");
  absl::StatusOr<ResultsFile> newer = ParseResults(RoundsRun(1.2), "new.json");
  ASSERT_THAT(older, IsOk());
  ASSERT_THAT(newer, IsOk());
  Comparison raw = CompareResults(*older, *newer);
  ASSERT_EQ(raw.rows.size(), 2u);
  EXPECT_LT(raw.rows[1].p_value, 0.05);
  EXPECT_NEAR(raw.rows[1].change, 0.2, 1e-9);
  absl::StatusOr<ResultsFile> o = NormaliseByCanary(*older);
  absl::StatusOr<ResultsFile> n = NormaliseByCanary(*newer);
  ASSERT_THAT(o, IsOk());
  ASSERT_THAT(n, IsOk()) << o.status() << n.status();
  Comparison normal = CompareResults(*o, *n);
  ASSERT_EQ(normal.rows.size(), 1u);  // the canary over itself is no row
  EXPECT_EQ(normal.rows[0].name, "x/op:a");
  EXPECT_NEAR(normal.rows[0].old_median_ns, 3.0, 1e-9);  // a over the canary, each round
  EXPECT_NEAR(normal.rows[0].change, 0, 1e-9);
  EXPECT_GT(normal.rows[0].p_value, 0.05);
  const std::string text = FormatComparison(normal, "x/op:canary");
  EXPECT_THAT(text, HasSubstr("| old (x canary) | new (x canary) |"));
  EXPECT_THAT(text, HasSubstr("| `x/op:a` | 3 | 3 | +0.00% |"));
  EXPECT_THAT(text, HasSubstr("0 of 1 benchmarks with enough repetitions differ"));
  EXPECT_THAT(text, HasSubstr("over the canary `x/op:canary`"));
}

TEST(Compare, ByCanaryNeedsARunThatNamesAMeasuredOne) {
  absl::StatusOr<ResultsFile> none = ParseResults(R"({"benchmarks": []})", "none.json");
  ASSERT_THAT(none, IsOk());
  EXPECT_EQ(NormaliseByCanary(*none).status().code(), absl::StatusCode::kFailedPrecondition);
  absl::StatusOr<ResultsFile> missing = ParseResults(RoundsRun(1.0, "x/op:gone"), "missing.json");
  ASSERT_THAT(missing, IsOk());
  EXPECT_THAT(std::string(NormaliseByCanary(*missing).status().message()),
              HasSubstr("its canary row x/op:gone was not measured"));
}

// A run of 9 processes, 3 repetitions each, of one row: process p's
// repetitions are near `level(p)`, tight around it (that process's luck).
nlohmann::json NineProcesses(const std::function<double(int)>& level, int processes = 9) {
  nlohmann::json doc = {{"context", nlohmann::json::object()},
                        {"benchmarks", nlohmann::json::array()}};
  for (int p = 1, k = 0; p <= processes; ++p) {
    for (int r = 0; r < 3; ++r, ++k) {
      nlohmann::json row = Rep("s/op:a", k, level(p) * (1 + 0.001 * r));
      row["spawnlab_process"] = p;
      doc["benchmarks"].push_back(row);
    }
  }
  return doc;
}

// Two runs of nine processes whose luck fell differently: the repetitions,
// 27 a side, look sure they differ; the processes, the unit the runs vary by,
// do not. A change every process shows is still called different.
TEST(Compare, RunsOfSeveralProcessesAreComparedProcessByProcess) {
  const ResultsFile old_file = Parsed(NineProcesses([](int p) { return 100.0 + 2 * p; }));
  const ResultsFile new_file = Parsed(NineProcesses([](int p) { return 104.0 + 2 * p; }));
  ASSERT_EQ(old_file.series.size(), 1u);
  EXPECT_EQ(old_file.series[0].ProcessMedians().size(), 9u);
  Comparison c = CompareResults(old_file, new_file);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_TRUE(c.rows[0].by_process);
  EXPECT_EQ(c.rows[0].old_n, 9);
  EXPECT_DOUBLE_EQ(c.rows[0].p_value, MannWhitneyU(old_file.series[0].ProcessMedians(),
                                                    new_file.series[0].ProcessMedians()));
  EXPECT_FALSE(c.rows[0].Different());
  EXPECT_THAT(FormatComparison(c), HasSubstr("9/9 processes"));
  EXPECT_THAT(FormatComparison(c), HasSubstr("are each process's median"));
  // The same repetitions as one process each side: 27 a side, called different.
  ResultsFile old_one = old_file, new_one = new_file;
  old_one.series[0].processes.clear();
  new_one.series[0].processes.clear();
  Comparison reps = CompareResults(old_one, new_one);
  EXPECT_FALSE(reps.rows[0].by_process);
  EXPECT_EQ(reps.rows[0].old_n, 27);
  EXPECT_LT(reps.rows[0].p_value, c.rows[0].p_value);
  // Every process 30% slower: different.
  const ResultsFile slower = Parsed(NineProcesses([](int p) { return 130.0 + 2 * p; }));
  EXPECT_TRUE(CompareResults(old_file, slower).rows[0].Different());
}

TEST(SelfCheck, RunsOfSeveralProcessesAreJudgedOnTheProcessesAndSayWhatTheRepetitionsSay) {
  const nlohmann::json a = NineProcesses([](int p) { return 100.0 + 2 * p; });
  const nlohmann::json b = NineProcesses([](int p) { return 104.0 + 2 * p; });
  Reproducibility r = CheckReproducibility(Parsed(a), Parsed(b));
  EXPECT_TRUE(r.by_process);
  EXPECT_EQ(r.rows_tested, 1);
  EXPECT_EQ(r.rows_different, 0);
  EXPECT_EQ(r.repetition_rows_tested, 1);
  EXPECT_EQ(r.repetition_rows_different, 1);
  EXPECT_TRUE(r.meets_targets) << r.table;
  EXPECT_THAT(r.table, HasSubstr("raw times; samples: each process's median) | 0 of 1 (0.0%) |"));
  EXPECT_THAT(r.table, HasSubstr("with the repetitions as samples"));
}

// Runs that stopped after 5 processes (the stopping rule's usual default
// run): no row has the 9 a side the U test needs, which is said, not passed;
// the key ratios decide alone, and without any the runs cannot agree.
TEST(SelfCheck, RunsOfTooFewProcessesAreJudgedOnTheirKeyRatiosAndSaySo) {
  auto two_rows = [](double fork_factor) {
    nlohmann::json doc = {{"context", {{spawnlab::keys::kRatioBaseline, "method:vfork"}}},
                          {"benchmarks", nlohmann::json::array()}};
    for (int p = 1, k = 0; p <= 5; ++p) {
      for (int r = 0; r < 3; ++r, ++k) {
        for (const char* m : {"vfork", "fork"}) {
          const double t = (std::string(m) == "fork" ? 30 * fork_factor : 10) * (1 + 0.01 * p);
          nlohmann::json row = Rep(absl::StrCat("s/method:", m), k, t);
          row["spawnlab_process"] = p;
          doc["benchmarks"].push_back(row);
        }
      }
    }
    return doc;
  };
  Reproducibility same = CheckReproducibility(Parsed(two_rows(1)), Parsed(two_rows(1)));
  EXPECT_TRUE(same.rows_untested);
  EXPECT_TRUE(same.meets_targets) << same.table;
  EXPECT_THAT(same.table, HasSubstr("| untested: fewer than 9 processes a side | ≤ 5% |"));
  EXPECT_THAT(same.table, HasSubstr("Reproducible in the key ratios"));
  EXPECT_THAT(same.table, HasSubstr("The rows' U test was not applied"));
  Reproducibility moved = CheckReproducibility(Parsed(two_rows(1)), Parsed(two_rows(1.2)));
  EXPECT_FALSE(moved.meets_targets) << moved.table;
  // No key ratio and no tested row: nothing shows the runs agree.
  Reproducibility none = CheckReproducibility(Parsed(NineProcesses([](int) { return 100.0; }, 5)),
                                              Parsed(NineProcesses([](int) { return 100.0; }, 5)));
  EXPECT_TRUE(none.rows_untested);
  EXPECT_FALSE(none.meets_targets) << none.table;
}

}  // namespace
}  // namespace analysis
}  // namespace spawnlab
