// variants_test.cc: the three builds of the child exist, run, and come out in
// the expected order of size (debug > default > stripped).

#include <sys/stat.h>

#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "bench/timed_spawn.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

int64_t SizeOf(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

TEST(StripVariants, RunAndShrinkInOrder) {
  int64_t sizes[3];
  int i = 0;
  for (const char* v : {"debug", "default", "stripped"}) {
    absl::StatusOr<std::string> path = Runfile(std::string("experiments/strip/child_") + v);
    ASSERT_THAT(path, IsOk()) << path.status();
    absl::StatusOr<TimedSpawner> s = TimedSpawner::Create(*path);
    ASSERT_THAT(s, IsOk());
    EXPECT_THAT(s->Once(SpawnMethod::kVfork), IsOk()) << v;
    sizes[i++] = SizeOf(*path);
  }
  EXPECT_GT(sizes[0], sizes[1]);
  EXPECT_GT(sizes[1], sizes[2]);
}

}  // namespace
}  // namespace spawnlab
