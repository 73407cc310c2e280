// headline_test.cc: the headline table's cells and ratios, and its record.

#include "results_model/headline.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace spawnlab {
namespace {

using ::spawnlab::testing::IsOk;
using ::testing::ElementsAre;

// Three rounds: fork and vfork from two parents, in us, and a variant row
// with one dimension more.
ResultsFile File() {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [method, parent, t] :
       {std::tuple<std::string, std::string, double>{"fork", "minimal", 100},
        {"vfork", "minimal", 40},
        {"fork", "1g", 2000},
        {"vfork", "1g", 40},
        {"fork", "1g/clients:per-cpu", 9000}}) {
    const std::string name = "spawn/method:" + method + "/parent:" + parent;
    for (int k = 0; k < 3; ++k) {
      rows.push_back({{"name", name},
                      {"run_name", name},
                      {"run_type", "iteration"},
                      {"repetition_index", k},
                      {"real_time", t * (1 + 0.01 * k)},
                      {"time_unit", "us"}});
    }
  }
  return ResultsOf(nlohmann::json{{"context", nlohmann::json::object()}, {"benchmarks", rows}});
}

Headline Declared() {
  Headline h;
  h.title = "spawn cost";
  h.row_dim = "method";
  h.col_dim = "parent";
  h.ratios = {{{"method", "vfork"}, {{"parent", "minimal"}}}};
  return h;
}

TEST(ComputeHeadline, CellsInTheBenchsOrderAndRatiosWithoutTheBaseline) {
  const HeadlineTable t = ComputeHeadline(File(), Declared());
  EXPECT_THAT(t.rows, ElementsAre("fork", "vfork"));
  EXPECT_THAT(t.cols, ElementsAre("minimal", "1g"));
  EXPECT_NEAR(t.cells.at({"fork", "minimal"}).median, 101000, 1);
  EXPECT_NEAR(t.largest, 2020000, 1);
  ASSERT_EQ(t.ratios.size(), 1u);
  EXPECT_EQ(t.ratios[0].first, "over method:vfork");
  ASSERT_EQ(t.ratios[0].second.size(), 1u);  // fork / vfork; not vfork / vfork
  EXPECT_EQ(t.ratios[0].second[0].label, "fork / vfork");
  EXPECT_NEAR(t.ratios[0].second[0].ratio.median, 2.5, 1e-9);
}

TEST(ComputeHeadline, ARowWithADimensionMoreStaysOut) {
  const HeadlineTable t = ComputeHeadline(File(), Declared());
  EXPECT_NEAR(t.cells.at({"fork", "1g"}).median, 2020000, 1);  // not the clients:per-cpu variant
}

TEST(ComputeHeadline, RatiosOverEveryColumnNameTheirColumn) {
  Headline h = Declared();
  h.ratios = {{{"method", "vfork"}, {}}};
  const HeadlineTable t = ComputeHeadline(File(), h);
  ASSERT_EQ(t.ratios.size(), 1u);
  std::vector<std::string> labels;
  for (const LabelledRatio& r : t.ratios[0].second) labels.push_back(r.label);
  EXPECT_THAT(labels, ElementsAre("fork / vfork, parent:minimal", "fork / vfork, parent:1g"));
}

TEST(ComputeHeadline, NothingSelectedIsEmpty) {
  Headline h = Declared();
  h.fixed = {{"child", "none-such"}};
  EXPECT_TRUE(ComputeHeadline(File(), h).empty());
}

TEST(HeadlineRecord, RoundTripsAndRefusesWhatIsNotOne) {
  const Headline h = Declared();
  absl::StatusOr<Headline> back = ParseHeadline(HeadlineToJson(h).dump());
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(back->title, h.title);
  EXPECT_EQ(back->row_dim, "method");
  EXPECT_EQ(back->col_dim, "parent");
  ASSERT_EQ(back->ratios.size(), 1u);
  EXPECT_EQ(back->ratios[0].by.value, "vfork");
  EXPECT_EQ(back->ratios[0].where.at("parent"), "minimal");
  for (const char* bad : {"", "[]", "{\"rows\": 3}", "{\"title\": \"t\"}", "{\"rows\": \"a\"}"}) {
    EXPECT_FALSE(ParseHeadline(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace spawnlab
