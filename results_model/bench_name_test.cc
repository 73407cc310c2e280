// bench_name_test.cc: names parse into family and dimensions; bad names are
// rejected with the reason.

#include "results_model/bench_name.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(BenchName, ParsesDimensionsAndDropsGoogleBenchmarkSegments) {
  absl::StatusOr<BenchName> n = ParseBenchName(
      "spawn/method:clone3-cow/child:static/parent:1g-touched/until:exit/"
      "min_time:0.050/repeats:9/manual_time");
  ASSERT_THAT(n, IsOk()) << n.status();
  EXPECT_EQ(n->family, "spawn");
  EXPECT_THAT(n->dims, ElementsAre(Pair("child", "static"), Pair("method", "clone3-cow"),
                                   Pair("parent", "1g-touched"), Pair("until", "exit")));
  EXPECT_EQ(n->canonical, "spawn/method:clone3-cow/child:static/parent:1g-touched/until:exit");
}

TEST(BenchName, FamilyAlone) {
  absl::StatusOr<BenchName> n = ParseBenchName("harness");
  ASSERT_THAT(n, IsOk());
  EXPECT_TRUE(n->dims.empty());
}

TEST(BenchName, RejectsMalformedNames) {
  for (const char* bad :
       {"", "Spawn/x:y", "spawn/method", "spawn/method:", "spawn/a:b/a:c", "spawn//a:b"}) {
    absl::StatusOr<BenchName> n = ParseBenchName(bad);
    EXPECT_EQ(n.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_THAT(ParseBenchName("spawn/a:b/a:c").status().message(), HasSubstr("twice"));
}

}  // namespace
}  // namespace spawnlab
