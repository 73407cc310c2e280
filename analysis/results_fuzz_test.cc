// results_fuzz_test.cc: the fuzz entry point over every fixture, every
// truncation of a good one, and byte flips: the corpus a fuzz run starts from,
// run in every `bazel test //...`.

#include <dirent.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "lib/runfiles.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int Feed(const std::string& s) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

TEST(ResultsFuzz, FixturesTruncationsAndFlipsDoNotCrash) {
  absl::StatusOr<std::string> crosscheck =
      spawnlab::Runfile("analysis/testdata/good/6.1.0-test/crosscheck.json");
  ASSERT_TRUE(crosscheck.ok()) << crosscheck.status();
  const std::string text = Read(*crosscheck);
  ASSERT_FALSE(text.empty());
  for (size_t n = 0; n <= text.size(); n += 7) EXPECT_EQ(Feed(text.substr(0, n)), 0);
  for (size_t i = 0; i < text.size(); i += 13) {
    std::string flipped = text;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    EXPECT_EQ(Feed(flipped), 0);
  }
  for (const char* odd : {"", "null", "[]", "{}", "{\"benchmarks\":null}", "{\"benchmarks\":[[]]}",
                          "{\"benchmarks\":[{\"name\":\"a/b:c\",\"real_time\":1e308,\"time_unit\":\"s\"}]}",
                          "{\"benchmarks\":[{\"name\":\"a\",\"error_occurred\":\"yes\"}]}"}) {
    EXPECT_EQ(Feed(odd), 0) << odd;
  }
}

}  // namespace
