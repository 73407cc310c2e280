// benchmark_json_test.cc: non-finite tokens become null outside strings only;
// everything else parses strictly.

#include "results_model/benchmark_json.h"

#include "gtest/gtest.h"

namespace spawnlab {
namespace {

TEST(BenchmarkJson, NonFiniteTokensBecomeNull) {
  nlohmann::json j =
      ParseBenchmarkJson(R"({"a": NaN, "b": -NaN, "c": Infinity, "d": -Infinity, "e": 1.5})");
  ASSERT_FALSE(j.is_discarded());
  EXPECT_TRUE(j["a"].is_null());
  EXPECT_TRUE(j["b"].is_null());
  EXPECT_TRUE(j["c"].is_null());
  EXPECT_TRUE(j["d"].is_null());
  EXPECT_EQ(j["e"], 1.5);
}

TEST(BenchmarkJson, StringsAreLeftAlone) {
  nlohmann::json j = ParseBenchmarkJson(R"({"msg": "NaN is \"Infinity\" here", "x": NaN})");
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["msg"], "NaN is \"Infinity\" here");
}

TEST(BenchmarkJson, InvalidJsonStaysInvalid) {
  EXPECT_TRUE(ParseBenchmarkJson("{\"a\": nan}").is_discarded());
  EXPECT_TRUE(ParseBenchmarkJson("{\"a\": ").is_discarded());
  EXPECT_TRUE(ParseBenchmarkJson("").is_discarded());
}

}  // namespace
}  // namespace spawnlab
