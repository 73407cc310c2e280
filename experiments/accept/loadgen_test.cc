// Tests of LoadResult's arithmetic: how loads add up and what their
// percentiles and per-worker spreads are. RunLoad itself runs against the
// server in server_test.cc.

#include "experiments/accept/loadgen.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace spawnlab {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

LoadResult Load(int64_t requests, double seconds, std::vector<double> latency_us,
                std::map<int, int64_t> per_worker, std::string first_error = "") {
  LoadResult r;
  r.requests = requests;
  r.non_2xx = 1;
  r.errors = 2;
  r.timeouts = 3;
  r.connections = 4;
  r.seconds = seconds;
  r.latency_us = std::move(latency_us);
  r.per_worker = std::move(per_worker);
  r.first_error = std::move(first_error);
  return r;
}

TEST(LoadResultTest, AppendAddsLoadsThatRanOneAfterTheOther) {
  LoadResult all = Load(10, 0.5, {1, 2}, {{0, 6}, {1, 4}});
  all.Append(Load(30, 0.25, {3}, {{1, 20}, {2, 10}}, "connect: refused"));
  all.Append(Load(5, 0.25, {}, {}, "read: reset"));
  EXPECT_EQ(all.requests, 45);
  EXPECT_EQ(all.non_2xx, 3);
  EXPECT_EQ(all.errors, 6);
  EXPECT_EQ(all.timeouts, 9);
  EXPECT_EQ(all.connections, 12);
  EXPECT_DOUBLE_EQ(all.seconds, 1.0);
  EXPECT_THAT(all.latency_us, ElementsAre(1, 2, 3));
  EXPECT_THAT(all.per_worker, ElementsAre(Pair(0, 6), Pair(1, 24), Pair(2, 10)));
  EXPECT_EQ(all.first_error, "connect: refused");
}

TEST(LoadResultTest, AppendToAnEmptyResultIsTheLoad) {
  LoadResult all;
  all.Append(Load(7, 0.5, {4, 5}, {{0, 7}}));
  EXPECT_EQ(all.requests, 7);
  EXPECT_DOUBLE_EQ(all.seconds, 0.5);
  EXPECT_THAT(all.per_worker, ElementsAre(Pair(0, 7)));
}

TEST(LoadResultTest, PercentileIsNearestRank) {
  LoadResult r = Load(4, 1, {40, 10, 30, 20}, {});
  EXPECT_EQ(r.Percentile(50), 20);
  EXPECT_EQ(r.Percentile(99), 40);
  EXPECT_EQ(r.Percentile(100), 40);
  EXPECT_EQ(r.Percentile(0), 10);
  EXPECT_TRUE(std::isnan(LoadResult().Percentile(50)));
}

TEST(LoadResultTest, SpreadCountsAnIdleWorkerAsZero) {
  LoadResult r = Load(12, 1, {}, {{0, 8}, {1, 4}});
  EXPECT_DOUBLE_EQ(r.SpreadStddev(2), 2);
  EXPECT_DOUBLE_EQ(r.SpreadMaxOverMin(2), 2);
  EXPECT_TRUE(std::isinf(r.SpreadMaxOverMin(3)));  // worker 2 answered nothing
}

}  // namespace
}  // namespace spawnlab
