// headline_test.cc: the answer table and its ratios, from a results document.

#include "bench/headline.h"

#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace spawnlab {
namespace {

using ::testing::HasSubstr;

// Three rounds of four rows: fork and vfork from two parents, times in us.
nlohmann::json Doc() {
  nlohmann::json rows = nlohmann::json::array();
  auto add = [&rows](const std::string& method, const std::string& parent, double t) {
    for (int k = 0; k < 3; ++k) {
      rows.push_back({{"name", "spawn/method:" + method + "/child:minimal/parent:" + parent},
                      {"run_name", "spawn/method:" + method + "/child:minimal/parent:" + parent},
                      {"run_type", "iteration"},
                      {"repetition_index", k},
                      {"real_time", t * (1 + 0.01 * k)},
                      {"time_unit", "us"}});
    }
  };
  add("fork", "minimal", 100);
  add("vfork", "minimal", 40);
  add("fork", "1g-touched", 2000);
  add("vfork", "1g-touched", 40);
  return {{"context", nlohmann::json::object()}, {"benchmarks", rows}};
}

Headline Clone3Like() {
  Headline h;
  h.title = "spawn cost";
  h.row_dim = "method";
  h.col_dim = "parent";
  h.fixed = {{"child", "minimal"}};
  h.ratios = {{{"method", "vfork"}, {{"parent", "minimal"}}},
              {{"parent", "minimal"}, {{"method", "fork"}}}};
  return h;
}

TEST(Headline, TableOfMediansWithIntervalsThenPairedRatios) {
  std::ostringstream out;
  ASSERT_TRUE(PrintHeadline(ResultsOf(Doc()), Clone3Like(), out));
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("spawn cost (child:minimal; median [95% interval], us)"));
  EXPECT_THAT(text, HasSubstr("minimal"));
  EXPECT_THAT(text, HasSubstr("1g-touched"));
  EXPECT_THAT(text, HasSubstr("101 [100, 102]"));  // fork, minimal: its three rounds
  EXPECT_THAT(text, HasSubstr("fork / vfork"));
  EXPECT_THAT(text, HasSubstr("2.50x"));
  EXPECT_THAT(text, HasSubstr("1g-touched / minimal"));
  EXPECT_THAT(text, HasSubstr("20.00x"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("vfork / vfork")));
}

// A value longer than the usual column (1g-touched-unplaced) widens the
// table's column and the ratios' label column, so every figure lines up.
TEST(Headline, LongValuesWidenTheirColumns) {
  nlohmann::json doc = Doc();
  for (int k = 0; k < 3; ++k) {
    const std::string name = "spawn/method:fork/child:minimal/parent:1g-touched-unplaced-and-more";
    doc["benchmarks"].push_back({{"name", name},
                                 {"run_name", name},
                                 {"run_type", "iteration"},
                                 {"repetition_index", k},
                                 {"real_time", 3000.0},
                                 {"time_unit", "us"}});
  }
  std::ostringstream out;
  ASSERT_TRUE(PrintHeadline(ResultsOf(doc), Clone3Like(), out));
  const std::string text = out.str();
  const std::string label = "1g-touched-unplaced-and-more / minimal";
  ASSERT_THAT(text, HasSubstr(label));
  // The ratios' figures start in one column: after the longest label.
  const size_t long_line = text.rfind('\n', text.find(label)) + 1;
  const size_t short_line = text.rfind('\n', text.find("1g-touched / minimal")) + 1;
  EXPECT_EQ(text.find('x', text.find(label)) - long_line,
            text.find('x', text.find("1g-touched / minimal") + 20) - short_line);
}

TEST(Headline, NothingMatchingPrintsNothing) {
  Headline h = Clone3Like();
  h.fixed = {{"child", "static"}};
  std::ostringstream out;
  EXPECT_FALSE(PrintHeadline(ResultsOf(Doc()), h, out));
  EXPECT_TRUE(out.str().empty());
}

// A table too wide for a 100-column terminal on one line a row (clone3's five
// parents) puts each interval under its median, and fits.
TEST(Headline, AWideTableSplitsEachCellOverTwoLines) {
  nlohmann::json doc = Doc();
  for (const char* parent : {"cxx", "1g-touched-unplaced", "4g-touched"}) {
    for (const char* method : {"fork", "vfork"}) {
      const std::string name =
          absl::StrCat("spawn/method:", method, "/child:minimal/parent:", parent);
      for (int k = 0; k < 3; ++k) {
        doc["benchmarks"].push_back({{"name", name},
                                     {"run_name", name},
                                     {"run_type", "iteration"},
                                     {"repetition_index", k},
                                     {"real_time", 48736.0 * (1 + 0.1 * k)},
                                     {"time_unit", "us"}});
      }
    }
  }
  Headline h = Clone3Like();
  h.cols = {"minimal", "cxx", "1g-touched", "1g-touched-unplaced", "4g-touched"};
  std::ostringstream out;
  ASSERT_TRUE(PrintHeadline(ResultsOf(doc), h, out));
  std::istringstream lines(out.str());
  std::string line, previous;
  bool interval_under_median = false;
  while (std::getline(lines, line)) {
    EXPECT_LE(line.size(), 100u) << line;
    if (absl::StartsWith(previous, "fork ") && absl::StrContains(line, "[100, 102]")) {
      interval_under_median = true;
    }
    previous = line;
  }
  EXPECT_TRUE(interval_under_median) << out.str();
}

}  // namespace
}  // namespace spawnlab
