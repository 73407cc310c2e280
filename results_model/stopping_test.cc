// stopping_test.cc: key ratios judged over processes.

#include "results_model/stopping.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "results_model/context_keys.h"
#include "results_model/process_rows_for_testing.h"

namespace spawnlab {
namespace {

using ::spawnlab::testing::MadeOf;
using ::spawnlab::testing::Row;

TEST(KeyRatioPrecision, IsStudentsIntervalOverTheProcessesMedians) {
  const Precision p = KeyRatioPrecision(MadeOf({2.0, 2.1, 1.9}), {{"method", "vfork"}});
  ASSERT_EQ(p.ratios.size(), 1u);
  const ProcessRatio& r = p.ratios[0];
  EXPECT_EQ(r.row, "spawn/method:fork");
  EXPECT_EQ(r.baseline, "spawn/method:vfork");
  EXPECT_EQ(r.processes, 3);
  EXPECT_EQ(p.processes, 3);
  const double logs[] = {std::log(2.0), std::log(2.1), std::log(1.9)};
  const double mean = (logs[0] + logs[1] + logs[2]) / 3;
  double ss = 0;
  for (double l : logs) ss += (l - mean) * (l - mean);
  const double half = 4.303 * std::sqrt(ss / 2) / std::sqrt(3.0);
  EXPECT_NEAR(r.estimate, std::exp(mean), 1e-12);
  EXPECT_NEAR(r.low, std::exp(mean - half), 1e-12);
  EXPECT_NEAR(r.high, std::exp(mean + half), 1e-12);
  EXPECT_NEAR(p.worst_half_width, std::exp(half) - 1, 1e-12);
  EXPECT_EQ(p.worst, "spawn/method:fork / spawn/method:vfork");
}

TEST(KeyRatioPrecision, NarrowsAsTheProcessesAgree) {
  const Precision spread = KeyRatioPrecision(MadeOf({2.0, 2.2, 1.8}), {{"method", "vfork"}});
  const Precision tight = KeyRatioPrecision(MadeOf({2.0, 2.002, 1.998, 2.0}), {{"method", "vfork"}});
  EXPECT_GT(spread.worst_half_width, 0.1);
  EXPECT_LT(tight.worst_half_width, 0.01);
}

TEST(KeyRatioPrecision, OneProcessHasNoInterval) {
  const Precision p = KeyRatioPrecision(MadeOf({2.0}), {{"method", "vfork"}});
  EXPECT_EQ(p.processes, 1);
  EXPECT_TRUE(std::isinf(p.worst_half_width));
}

TEST(KeyRatioPrecision, ARunWithoutKeyRatiosHasNothingToWaitFor) {
  const Precision none = KeyRatioPrecision(MadeOf({2.0, 2.0, 2.0}), {});
  EXPECT_TRUE(none.ratios.empty());
  EXPECT_EQ(none.processes, 0);
  EXPECT_EQ(none.worst_half_width, 0);
  const Precision garbage = KeyRatioPrecision(nlohmann::json::array(), {{"method", "vfork"}});
  EXPECT_TRUE(garbage.ratios.empty());
}

TEST(KeyRatioRows, AreEachRatiosRowAndBaselineAndNothingElse) {
  nlohmann::json doc = MadeOf({2.0, 2.1, 1.9});
  // A row with no counterpart at method:vfork is in no key ratio.
  doc["benchmarks"].push_back(Row("exec/source:path", 1, 0, 50));
  const Precision p = KeyRatioPrecision(doc, {{"method", "vfork"}});
  EXPECT_EQ(KeyRatioRows(p), (std::set<std::string>{"spawn/method:fork", "spawn/method:vfork"}));
  EXPECT_TRUE(KeyRatioRows(KeyRatioPrecision(doc, {})).empty());
}

TEST(StudentT975, MatchesTheTableAndTheNormalBeyond) {
  EXPECT_DOUBLE_EQ(StudentT975(1), 12.706);
  EXPECT_DOUBLE_EQ(StudentT975(2), 4.303);
  EXPECT_DOUBLE_EQ(StudentT975(30), 2.042);
  EXPECT_DOUBLE_EQ(StudentT975(200), 1.96);
  EXPECT_TRUE(std::isinf(StudentT975(0)));
}

nlohmann::json RunContext(const char* seconds, const char* reason, const char* cap,
                          const char* own_cap) {
  return {{"run.seconds", seconds},
          {keys::kStoppingReason, reason},
          {keys::kStoppingMaxSeconds, cap},
          {keys::kStoppingOwnMaxSeconds, own_cap}};
}

TEST(ExpectedSeconds, IsTheLastRunsTimeWhereItEndedByItself) {
  EXPECT_EQ(ExpectedSeconds(RunContext("40.0", keys::stop_reason::kTarget, "70", "70")), 40);
  EXPECT_EQ(ExpectedSeconds(RunContext("40.0", keys::stop_reason::kFixed, "0", "0")), 40);
}

TEST(ExpectedSeconds, GrowsByHalfWhereASuitesShareEndedIt) {
  // A share (60 s) below the bench's own cap (180 s), above it (30 s), or
  // given to a bench without a cap of its own (0).
  EXPECT_EQ(ExpectedSeconds(RunContext("60.0", keys::stop_reason::kTimeCap, "60", "180")), 90);
  EXPECT_EQ(ExpectedSeconds(RunContext("60.0", keys::stop_reason::kTimeCap, "60", "30")), 90);
  EXPECT_EQ(ExpectedSeconds(RunContext("60.0", keys::stop_reason::kTimeCap, "60", "0")), 90);
}

TEST(ExpectedSeconds, StaysWhereItsOwnCapEndedIt) {
  EXPECT_EQ(ExpectedSeconds(RunContext("180.0", keys::stop_reason::kTimeCap, "180", "180")), 180);
}

TEST(ExpectedSeconds, IsUnknownWithoutADuration) {
  EXPECT_EQ(ExpectedSeconds(nlohmann::json::object()), std::nullopt);
  EXPECT_EQ(ExpectedSeconds({{"run.seconds", "soon"}}), std::nullopt);
  EXPECT_EQ(ExpectedSeconds(nlohmann::json::array()), std::nullopt);
}

TEST(ExpectedSeconds, ReadsAMalformedReasonAsNoCap) {
  nlohmann::json context = RunContext("60.0", keys::stop_reason::kTimeCap, "60", "0");
  context[keys::kStoppingReason] = 5;
  EXPECT_EQ(ExpectedSeconds(context), 60);
}

TEST(WriteStopping, WritesEveryKeyAndTheOptionalOnesOnlyWhereSet) {
  StoppingRecord r;
  r.rule = "fixed: --processes=3";
  r.stopped_by = "the time cap";
  r.reason = keys::stop_reason::kTimeCap;
  r.max_seconds = 60;
  nlohmann::json context = {{"run.seconds", "60.0"}};
  WriteStopping(r, &context);
  EXPECT_EQ(context[keys::kStoppingRule], "fixed: --processes=3");
  EXPECT_EQ(context[keys::kStoppedBy], "the time cap");
  EXPECT_EQ(context[keys::kStoppingMaxSeconds], "60");
  EXPECT_EQ(context[keys::kStoppingOwnMaxSeconds], "0");
  EXPECT_FALSE(context.contains(keys::kStoppingTarget));
  EXPECT_FALSE(context.contains(keys::kStoppingWorst));
  EXPECT_FALSE(context.contains(keys::kStoppingFixedBudgetRows));
  // What it wrote is what the suite's estimate reads: a share ended it.
  EXPECT_EQ(ExpectedSeconds(context), 90);

  r.own_max_seconds = 60;
  r.target = 0.01;
  r.worst = "±2.00%: a / b";
  r.fixed_budget_rows = 4;
  WriteStopping(r, &context);
  EXPECT_EQ(context[keys::kStoppingTarget], "0.01");
  EXPECT_EQ(context[keys::kStoppingWorst], "±2.00%: a / b");
  EXPECT_EQ(context[keys::kStoppingFixedBudgetRows], "4");
  EXPECT_EQ(ExpectedSeconds(context), 60);  // its own cap
}

}  // namespace
}  // namespace spawnlab
