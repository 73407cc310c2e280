// memory_canary_test: the memory canary's row is named by its dimensions and
// its pass reads memory and reports a time (never judged against one).
#include "lib/memory_canary.h"

#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "lib/bench_name.h"

namespace spawnlab {
namespace {

TEST(MemoryCanary, RowIsNamedByItsDimensions) {
  absl::StatusOr<BenchName> name = ParseBenchName(kMemoryCanaryRow);
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(name->family, "harness");
  EXPECT_EQ(name->dims.at("op"), "memory-canary");
  EXPECT_EQ(name->dims.at("bytes"), "16m");
  EXPECT_EQ(MemoryCanaryRow().name, std::string(kMemoryCanaryRow));
  EXPECT_EQ(MemoryCanaryRow().clock, Clock::kManual);
}

TEST(MemoryCanary, PassTakesTimeAndCanRepeat) {
  // The first pass maps and writes the buffer outside its timed loop; every
  // pass, first or not, reports a positive duration.
  for (int i = 0; i < 3; ++i) EXPECT_GT(TimeMemoryCanaryPass(), 0);
}

}  // namespace
}  // namespace spawnlab
