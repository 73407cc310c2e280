// together_test.cc: Alternate runs every part once per cycle in a shuffled
// order, after an untimed warm-up, until each has run long enough, and stops
// at the first error; MeasuredTogether measures once for all its rows.

#include "bench/together.h"

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

// Parts that take a fixed, made-up time each and record the order they ran in.
std::vector<std::function<absl::StatusOr<int64_t>()>> Recording(std::vector<int>& ran,
                                                               std::vector<int64_t> ns) {
  std::vector<std::function<absl::StatusOr<int64_t>()>> parts;
  for (size_t i = 0; i < ns.size(); ++i) {
    parts.push_back([&ran, i, t = ns[i]]() -> absl::StatusOr<int64_t> {
      ran.push_back(static_cast<int>(i));
      return t;
    });
  }
  return parts;
}

TEST(Alternate, RunsEachPartOncePerCycleInShuffledOrders) {
  std::vector<int> ran;
  absl::StatusOr<std::vector<PartTime>> t =
      Alternate(Recording(ran, {1000, 1000, 1000}), /*min_seconds=*/0, /*min_cycles=*/20);
  ASSERT_THAT(t, IsOk()) << t.status();
  ASSERT_EQ(ran.size(), 3u * 21);  // the warm-up and 20
  std::set<std::vector<int>> orders;
  for (size_t c = 0; c < ran.size(); c += 3) {
    std::vector<int> cycle(ran.begin() + c, ran.begin() + c + 3);
    EXPECT_EQ(std::set<int>(cycle.begin(), cycle.end()), (std::set<int>{0, 1, 2})) << "cycle " << c / 3;
    orders.insert(cycle);
  }
  EXPECT_GT(orders.size(), 1u) << "every cycle ran the parts in the same order";
  std::vector<int> again;
  ASSERT_THAT(Alternate(Recording(again, {1000, 1000, 1000}), 0, 20), IsOk());
  EXPECT_EQ(again, ran) << "the order should be the same on every run";
}

TEST(Alternate, LeavesTheWarmUpOutAndRunsUntilEveryPartHadItsTime) {
  std::vector<int> ran;
  // 1 ms and 4 ms per run; each part must get 10 ms.
  absl::StatusOr<std::vector<PartTime>> t =
      Alternate(Recording(ran, {1'000'000, 4'000'000}), /*min_seconds=*/0.010);
  ASSERT_THAT(t, IsOk()) << t.status();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].runs, 10);  // the cheaper part sets the count: 10 x 1 ms
  EXPECT_EQ((*t)[1].runs, 10);
  EXPECT_DOUBLE_EQ((*t)[0].seconds_each, 0.001);
  EXPECT_DOUBLE_EQ((*t)[1].seconds_each, 0.004);
  EXPECT_EQ(ran.size(), 2u * 11);
}

TEST(Alternate, TheFirstErrorEndsIt) {
  int calls = 0, failed_at = 0;
  absl::StatusOr<std::vector<PartTime>> t = Alternate(
      {[&]() -> absl::StatusOr<int64_t> {
         ++calls;
         return 1000;
       },
       [&]() -> absl::StatusOr<int64_t> {
         ++calls;
         if (calls < 6) return 1000;
         failed_at = calls;
         return absl::UnavailableError("the child is gone");
       }},
      /*min_seconds=*/1);
  EXPECT_TRUE(absl::IsUnavailable(t.status())) << t.status();
  EXPECT_GE(failed_at, 6);
  EXPECT_EQ(calls, failed_at) << "a part ran after the error";
}

TEST(Alternate, NoPartsOrATimeOfZeroAreErrors) {
  EXPECT_TRUE(absl::IsInvalidArgument(Alternate({}, 0).status()));
  absl::StatusOr<std::vector<PartTime>> t =
      Alternate({[]() -> absl::StatusOr<int64_t> { return 0; }}, 1);
  EXPECT_TRUE(absl::IsInternal(t.status())) << t.status();
}

TEST(MeasuredTogether, MeasuresOnceForAllItsParts) {
  int measured = 0;
  MeasuredTogether m([&]() -> absl::StatusOr<std::vector<PartTime>> {
    ++measured;
    return std::vector<PartTime>{{0.5, 3}, {0.25, 3}};
  });
  EXPECT_EQ(measured, 0) << "nothing is measured before a row asks";
  ASSERT_THAT(m.Get(1), IsOk());
  EXPECT_DOUBLE_EQ(m.Get(1)->seconds_each, 0.25);
  EXPECT_DOUBLE_EQ(m.Get(0)->seconds_each, 0.5);
  EXPECT_EQ(measured, 1);
  EXPECT_TRUE(absl::IsOutOfRange(m.Get(2).status())) << m.Get(2).status();
}

TEST(MeasuredTogether, AFailedMeasurementFailsEveryPartOnce) {
  int measured = 0;
  MeasuredTogether m([&]() -> absl::StatusOr<std::vector<PartTime>> {
    ++measured;
    return absl::InternalError("the spawn failed");
  });
  EXPECT_EQ(m.Get(0).status().message(), "the spawn failed");
  EXPECT_EQ(m.Get(1).status().message(), "the spawn failed");
  EXPECT_EQ(measured, 1);
}

}  // namespace
}  // namespace spawnlab
