// stop_rule_test.cc: a run stops at its target, its most processes or its
// time cap, never before the fewest; after them only the key ratios' rows
// and the canary go on; and the context says which.

#include "bench/stop_rule.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "results_model/context_keys.h"
#include "results_model/process_rows_for_testing.h"

namespace spawnlab {
namespace {

using ::testing::HasSubstr;

// Each process measures fork, vfork and a row in no key ratio.
nlohmann::json MadeOf(const std::vector<double>& ratios) {
  return testing::MadeOf(ratios, "other/op:lone");
}

const std::vector<RatioBaseline> kBaselines = {{"method", "vfork"}};
const StopLimits kLimits{0.01, 10, 60};

TEST(StopRule, NeverStopsBeforeTheFewestProcesses) {
  StopRecord record;
  const StopRule rule = MakeStopRule(kLimits, kBaselines, "spawn/method:vfork", &record);
  const StopVerdict v = rule(MadeOf({2.0, 2.0}), 2, 1.0);
  EXPECT_FALSE(v.stop);
  EXPECT_THAT(v.say, HasSubstr("widest key ratio interval"));
}

TEST(StopRule, StopsWhenEveryKeyRatioIsWithinTheTarget) {
  StopRecord record;
  const StopRule rule = MakeStopRule(kLimits, kBaselines, "spawn/method:vfork", &record);
  const StopVerdict v = rule(MadeOf({2.0, 2.0001, 1.9999}), 3, 1.0);
  EXPECT_TRUE(v.stop);
  EXPECT_EQ(record.stopped_by, "the target (every key ratio within it)");
  EXPECT_EQ(record.reason, keys::stop_reason::kTarget);
  EXPECT_THAT(v.say, HasSubstr("stopped by the target"));
}

TEST(StopRule, AfterTheFewestOnlyTheKeyRatiosRowsAndTheCanaryGoOn) {
  StopRecord record;
  const StopRule rule = MakeStopRule(kLimits, kBaselines, "spawn/method:vfork", &record);
  const StopVerdict v = rule(MadeOf({2.0, 2.4, 1.7}), 3, 1.0);
  EXPECT_FALSE(v.stop);
  EXPECT_EQ(record.fixed_budget_rows, 1);
  EXPECT_EQ(record.later_rows, "^(?:spawn\\/method\\:fork|spawn\\/method\\:vfork)$");
  EXPECT_THAT(v.say, HasSubstr("the 1 rows in no key ratio are done"));
}

// Runs `rule` over processes 1..ends.size(), process k ending ends[k - 1]
// seconds after the first began, each merge of `ratios`' first k; returns
// the last verdict.
StopVerdict RunUntil(const StopRule& rule, const std::vector<double>& ratios,
                     const std::vector<double>& ends) {
  StopVerdict v;
  for (size_t k = 1; k <= ends.size(); ++k) {
    const std::vector<double> first(ratios.begin(), ratios.begin() + k);
    v = rule(MadeOf(first), static_cast<int>(k), ends[k - 1]);
    if (v.stop) break;
  }
  return v;
}

TEST(StopRule, StopsAtTheTimeCapBeforeAProcessThatWouldEndAfterIt) {
  // Processes of every row, 10 s each: at 30 s a fourth, measuring two rows
  // of three, would take about 6.7 s.
  StopRecord record;
  const StopLimits limits{0.01, 10, 36};
  EXPECT_TRUE(
      RunUntil(MakeStopRule(limits, kBaselines, "", &record), {2.0, 2.4, 1.7}, {10, 20, 30}).stop);
  EXPECT_THAT(record.stopped_by, HasSubstr("the time cap"));
  EXPECT_EQ(record.reason, keys::stop_reason::kTimeCap);
  StopRecord again;
  const StopLimits more{0.01, 10, 37};
  EXPECT_FALSE(
      RunUntil(MakeStopRule(more, kBaselines, "", &again), {2.0, 2.4, 1.7}, {10, 20, 30}).stop);
}

TEST(StopRule, ALaterProcessIsTimedAsTheLaterOnesRanNotAsAFullOne) {
  // Three full processes of 10 s, then ones of the key ratios' rows only, of
  // 2 s: the cap of 37 s leaves room for three of those, not a fourth.
  StopRecord record;
  const StopLimits limits{0.01, 10, 37};
  const StopRule rule = MakeStopRule(limits, kBaselines, "", &record);
  const std::vector<double> ratios = {2.0, 2.4, 1.7, 2.2, 1.8, 2.3, 1.9};
  EXPECT_FALSE(RunUntil(rule, ratios, {10, 20, 30, 32, 34}).stop);
  StopRecord stopped;
  EXPECT_TRUE(
      RunUntil(MakeStopRule(limits, kBaselines, "", &stopped), ratios, {10, 20, 30, 32, 34, 36})
          .stop);
  EXPECT_EQ(stopped.reason, keys::stop_reason::kTimeCap);
}

TEST(StopRule, StopsAtTheMostProcesses) {
  StopRecord record;
  const StopLimits three{0.01, 3, 60};
  EXPECT_TRUE(MakeStopRule(three, kBaselines, "", &record)(MadeOf({2.0, 2.4, 1.7}), 3, 1).stop);
  EXPECT_EQ(record.stopped_by, "the most processes (3)");
  EXPECT_EQ(record.reason, keys::stop_reason::kMostProcesses);
}

TEST(StopRule, WithoutKeyRatiosTheFewestProcessesAreEnough) {
  StopRecord record;
  EXPECT_TRUE(MakeStopRule(kLimits, {}, "", &record)(MadeOf({2.0, 2.4, 1.7}), 3, 1).stop);
  EXPECT_EQ(record.stopped_by, "the fewest processes (no key ratios)");
  EXPECT_EQ(record.reason, keys::stop_reason::kFewest);
  EXPECT_EQ(record.worst, "no key ratios");
}

TEST(RecordStopping, WritesTheRuleWhatStoppedItAndTheWidestRatio) {
  StopRecord record;
  const nlohmann::json merged = MadeOf({2.0, 2.4, 1.7});
  MakeStopRule(kLimits, kBaselines, "", &record)(merged, 3, 1);
  nlohmann::json context = nlohmann::json::object();
  RecordStopping(kLimits, /*adaptive=*/true, record, merged, kBaselines, &context);
  EXPECT_THAT(context[keys::kStoppingRule].get<std::string>(),
              HasSubstr("within ±1%, at least 3 processes, at most 60 s"));
  EXPECT_EQ(context[keys::kStoppingFixedBudgetRows], "1");
  EXPECT_THAT(context[keys::kStoppingWorst].get<std::string>(),
              HasSubstr("spawn/method:fork / spawn/method:vfork"));
  // A fixed plan says so, and its widest ratio is computed from the merge.
  nlohmann::json fixed = nlohmann::json::object();
  RecordStopping(kLimits, /*adaptive=*/false, StopRecord(), merged, kBaselines, &fixed);
  EXPECT_EQ(fixed[keys::kStoppingRule], "fixed: --processes=10");
  EXPECT_EQ(fixed[keys::kStoppedBy], "a fixed plan (--processes)");
  EXPECT_EQ(fixed[keys::kStoppingReason], keys::stop_reason::kFixed);
  EXPECT_THAT(fixed[keys::kStoppingWorst].get<std::string>(), HasSubstr("spawn/method:fork"));
}

}  // namespace
}  // namespace spawnlab
