// report_spec_test.cc: a report spec parses into charts, ratios, counter
// tables and a cross-check; a typo is an error that says where; the rows a
// spec names are checked against the rows a bench registers.

#include "analysis/report_spec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kSpec[] = R"({
  "charts": [{"family": "spawn", "fixed": {"until": "exit"}, "x": "method", "split": "parent",
              "title": "spawn to reaped"}],
  "key_ratios": [{"what": "vfork / fork", "numerator": "spawn/method:vfork/parent:a/until:exit",
                  "denominators": ["spawn/method:fork/parent:a/until:exit/manual_time"],
                  "bound": 1.0}],
  "counters": [{"title": "parents", "family": "spawn", "fixed": {"method": "fork"},
                "names": ["parent_mappings"]}],
  "harness_overhead": "harness/op:empty",
  "uml_ratios": [{"what": "fork / vfork under UML", "numerator": "spawn/method:fork/parent:a/until:exit",
                  "denominators": ["spawn/method:vfork/parent:a/until:exit"]}],
  "cross_check": {"experiment": "crosscheck", "command": "bazel run //x:crosscheck",
                  "description": "d", "tolerance": 0.1,
                  "pairs": [{"what": "fork / vfork", "own_statistic": "min",
                             "bench": ["spawn/method:fork/parent:a/until:exit",
                                       "spawn/method:vfork/parent:a/until:exit"],
                             "cross_check": ["x/op:fork", "x/op:vfork"]}]}
})";

const std::vector<std::string> kBenchRows = {
    "harness/op:empty/manual_time",
    "spawn/method:fork/parent:a/until:exit/manual_time",
    "spawn/method:vfork/parent:a/until:exit/iterations:1/manual_time",
};

TEST(ReportSpec, ParsesEverySection) {
  absl::StatusOr<ReportSpec> s = ParseReportSpec(kSpec, "foo", "foo/report.json");
  ASSERT_THAT(s, IsOk()) << s.status();
  EXPECT_EQ(s->experiment, "foo");
  ASSERT_EQ(s->charts.size(), 1);
  EXPECT_EQ(s->charts[0].x, "method");
  EXPECT_EQ(s->charts[0].split, "parent");
  EXPECT_EQ(s->charts[0].rows.fixed.at("until"), "exit");
  ASSERT_EQ(s->key_ratios.size(), 1);
  // Google Benchmark's segments are dropped: names are canonical.
  EXPECT_THAT(s->key_ratios[0].denominators, ElementsAre("spawn/method:fork/parent:a/until:exit"));
  EXPECT_EQ(s->key_ratios[0].bound, 1.0);
  ASSERT_EQ(s->counters.size(), 1);
  EXPECT_THAT(s->counters[0].names, ElementsAre("parent_mappings"));
  EXPECT_EQ(s->harness_overhead, "harness/op:empty");
  ASSERT_EQ(s->uml_ratios.size(), 1);
  EXPECT_EQ(s->uml_ratios[0].numerator, "spawn/method:fork/parent:a/until:exit");
  ASSERT_TRUE(s->has_cross_check);
  EXPECT_EQ(s->cross_check.tolerance, 0.1);
  ASSERT_EQ(s->cross_check.pairs.size(), 1);
  EXPECT_EQ(s->cross_check.pairs[0].cross_denominator, "x/op:vfork");
}

TEST(ReportSpec, AnEmptySpecIsNoSections) {
  absl::StatusOr<ReportSpec> s = ParseReportSpec("{}", "foo", "foo/report.json");
  ASSERT_THAT(s, IsOk()) << s.status();
  EXPECT_THAT(s->charts, IsEmpty());
  EXPECT_FALSE(s->has_cross_check);
}

TEST(ReportSpec, MistakesAreErrorsThatSayWhere) {
  struct Case {
    const char* spec;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"not json", "foo/report.json: not valid JSON"},
           {"[]", "must be an object"},
           {R"({"chart": []})", "unknown key 'chart'"},
           {R"({"charts": {}})", "'charts' must be an array"},
           {R"({"charts": [{"family": "spawn", "x": "m", "title": "t", "fixd": {}}]})",
            "charts[0]: unknown key 'fixd'"},
           {R"({"charts": [{"family": "spawn", "title": "t"}]})", "charts[0]: needs a string 'x'"},
           {R"({"charts": [{"family": "spawn", "x": "m", "title": "t", "fixed": {"a": 1}}]})",
            "'fixed.a' must be a string"},
           {R"({"key_ratios": [{"what": "w", "numerator": "not a row", "denominators": ["a/b:c"],
                "bound": 1}]})",
            "key_ratios[0]: 'numerator'"},
           {R"({"key_ratios": [{"what": "w", "numerator": "a/b:c", "denominators": [],
                "bound": 1}]})",
            "needs an array of rows 'denominators'"},
           {R"({"key_ratios": [{"what": "w", "numerator": "a/b:c", "denominators": ["a/b:d"],
                "bound": -1}]})",
            "positive number 'bound'"},
           // UML's figures are never judged: a bound there is a mistake.
           {R"({"uml_ratios": [{"what": "w", "numerator": "a/b:c", "denominators": ["a/b:d"],
                "bound": 2}]})",
            "uml_ratios[0]: unknown key 'bound'"},
           {R"({"counters": [{"title": "t", "family": "a", "names": []}]})", "counter 'names'"},
           {R"({"counters": [{"title": "t", "family": "a", "names": [], "prefix": 3}]})", "prefix"},
           {R"({"cross_check": {"experiment": "c", "command": "c", "description": "d",
                "tolerance": 10, "pairs": []}})",
            "'tolerance' between 0 and 1"},
           {R"({"cross_check": {"experiment": "c", "command": "c", "description": "d",
                "tolerance": 0.1, "pairs": [{"what": "w", "own_statistic": "median",
                "bench": ["a/b:c", "a/b:d"], "cross_check": ["a/b:c", "a/b:d"]}]}})",
            "'own_statistic' must be"},
           {R"({"cross_check": {"experiment": "c", "command": "c", "description": "d",
                "tolerance": 0.1, "pairs": [{"what": "w", "own_statistic": "mean",
                "minimum": "fastest", "bench": ["a/b:c", "a/b:d"],
                "cross_check": ["a/b:c", "a/b:d"]}]}})",
            "'minimum' must be"},
           {R"({"cross_check": {"experiment": "c", "command": "c", "description": "d",
                "tolerance": 0.1, "pairs": [{"what": "w", "own_statistic": "min",
                "bench": ["a/b:c"], "cross_check": ["a/b:c", "a/b:d"]}]}})",
            "'bench' must be [numerator, denominator]"},
       }) {
    absl::StatusOr<ReportSpec> s = ParseReportSpec(c.spec, "foo", "foo/report.json");
    ASSERT_FALSE(s.ok()) << c.spec;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.status().message()), HasSubstr(c.says)) << c.spec;
    EXPECT_THAT(std::string(s.status().message()), HasSubstr("foo/report.json")) << c.spec;
  }
}

TEST(ReportSpec, EveryRowItNamesExists) {
  absl::StatusOr<ReportSpec> s = ParseReportSpec(kSpec, "foo", "foo/report.json");
  ASSERT_THAT(s, IsOk()) << s.status();
  EXPECT_THAT(CheckSpecRows(*s, kBenchRows, {"x/op:fork", "x/op:vfork"}), IsEmpty());
}

TEST(ReportSpec, ARenamedRowIsNamed) {
  absl::StatusOr<ReportSpec> s = ParseReportSpec(kSpec, "foo", "foo/report.json");
  ASSERT_THAT(s, IsOk()) << s.status();
  // vfork renamed: the key ratio, the UML ratio and the cross-check pair lose
  // their row.
  std::vector<std::string> renamed = {kBenchRows[0], kBenchRows[1],
                                      "spawn/method:vfork2/parent:a/until:exit"};
  EXPECT_THAT(
      CheckSpecRows(*s, renamed, {"x/op:fork", "x/op:vfork"}),
      ElementsAre(
          "key_ratios[0] (vfork / fork): no row 'spawn/method:vfork/parent:a/until:exit'",
          "uml_ratios[0] (fork / vfork under UML): no row "
          "'spawn/method:vfork/parent:a/until:exit'",
          "cross_check.pairs[0] (fork / vfork): no row 'spawn/method:vfork/parent:a/until:exit'"));
  // The cross-check's own rows are checked against its own list.
  EXPECT_THAT(CheckSpecRows(*s, kBenchRows, {"x/op:fork"}),
              ElementsAre("cross_check.pairs[0] (fork / vfork): no row 'x/op:vfork'"));
  // A chart or a counter table that selects nothing; a chart whose split
  // dimension no selected row has.
  std::vector<std::string> no_until = {"harness/op:empty", "spawn/method:fork/parent:a",
                                       "spawn/method:vfork/parent:a"};
  std::vector<std::string> problems = CheckSpecRows(*s, no_until, {"x/op:fork", "x/op:vfork"});
  ASSERT_FALSE(problems.empty());
  EXPECT_THAT(problems[0], HasSubstr("charts[0] (spawn to reaped): no row of family 'spawn'"));
  absl::StatusOr<ReportSpec> split = ParseReportSpec(
      R"({"charts": [{"family": "spawn", "x": "method", "split": "cpu", "title": "t"}]})", "foo",
      "foo/report.json");
  ASSERT_THAT(split, IsOk());
  EXPECT_THAT(CheckSpecRows(*split, kBenchRows, {}),
              ElementsAre("charts[0] (t): no selected row has 'cpu' to split by"));
}

TEST(ReportSpec, AHeadlineNeedsItsRowsColumnsAndBaselines) {
  absl::StatusOr<ReportSpec> s = ParseReportSpec(
      R"({"headline": {"rows": "method", "cols": "parent", "col_values": ["a", "b"],
                       "fixed": {"until": "exit"},
                       "ratios": [{"dimension": "method", "value": "vfork"},
                                  {"dimension": "method", "value": "clone"}]}})",
      "foo", "foo/report.json");
  ASSERT_THAT(s, IsOk()) << s.status();
  EXPECT_EQ(s->headline.row_dim, "method");
  EXPECT_THAT(CheckSpecRows(*s, kBenchRows, {}),
              ElementsAre("headline: no row of the table has parent:b",
                          "headline: no row of the table has method:clone to divide by"));
  EXPECT_THAT(CheckSpecRows(*s, {"spawn/method:fork/parent:a/until:exit/cpu:1"}, {}),
              ElementsAre(HasSubstr("headline: no row has only 'method', 'parent'")));
  EXPECT_FALSE(ParseReportSpec(R"({"headline": {"rows": "method"}})", "foo", "f").ok());
}

TEST(ReportSpec, SelectsByFamilyAndFixedDimensions) {
  RowSelector sel{"spawn", {{"until", "exit"}}};
  EXPECT_TRUE(Selects(sel, "spawn/method:fork/until:exit/manual_time"));
  EXPECT_FALSE(Selects(sel, "spawn/method:fork/until:start"));
  EXPECT_FALSE(Selects(sel, "exec/method:fork/until:exit"));
  EXPECT_FALSE(Selects(sel, "spawn/method:fork"));
  EXPECT_FALSE(Selects(sel, "not a row"));
}

TEST(ReportSpec, LoadsOneSpecPerFolderAndNamesABadOne) {
  EXPECT_EQ(LoadReportSpecs("/nonexistent").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace analysis
}  // namespace spawnlab
