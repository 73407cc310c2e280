// benchmark_json_test.cc: non-finite tokens become null outside strings only;
// everything else parses strictly; a file is read so, or says why it is not.

#include "results_model/benchmark_json.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/status/status.h"
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

// A file under the test's own temporary folder, written with `text`.
std::string WriteFile(const std::string& name, const std::string& text) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(ReadBenchmarkJsonFile, ReadsAnObjectAsParseBenchmarkJsonDoes) {
  absl::StatusOr<nlohmann::json> doc =
      ReadBenchmarkJsonFile(WriteFile("ok.json", R"({"context": {}, "cv": NaN})"));
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_TRUE(doc->contains("context"));
  EXPECT_TRUE((*doc)["cv"].is_null());
}

TEST(ReadBenchmarkJsonFile, SaysWhyAFileIsNotOne) {
  const std::string missing = WriteFile("x", "") + "-missing.json";
  EXPECT_TRUE(absl::IsNotFound(ReadBenchmarkJsonFile(missing).status()));
  const std::string dir = WriteFile("x", "") + ".d";
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(absl::IsInvalidArgument(ReadBenchmarkJsonFile(dir).status()));
  for (const char* text : {"", "[1, 2]", "{\"truncated\": ", "null"}) {
    absl::StatusOr<nlohmann::json> doc = ReadBenchmarkJsonFile(WriteFile("bad.json", text));
    EXPECT_TRUE(absl::IsDataLoss(doc.status())) << "'" << text << "': " << doc.status();
    EXPECT_NE(doc.status().message().find("bad.json"), std::string::npos) << doc.status();
  }
}

}  // namespace
}  // namespace spawnlab
