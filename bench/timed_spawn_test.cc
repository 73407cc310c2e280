// timed_spawn_test.cc: both intervals come back ordered and positive for every
// child, mappings are reported by the C++ children, errors are clear.

#include "bench/timed_spawn.h"

#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

TEST(TimedSpawner, MeasuresEveryChild) {
  testing::Hygiene hygiene;
  for (const char* c :
       {"lib/children/minimal_child", "lib/children/static_child", "lib/children/dynamic_child"}) {
    absl::StatusOr<std::string> path = Runfile(c);
    ASSERT_THAT(path, IsOk());
    absl::StatusOr<TimedSpawner> s = TimedSpawner::Create(*path);
    ASSERT_THAT(s, IsOk()) << s.status();
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<SpawnTimes> t = s->Once(SpawnMethod::kVfork);
      ASSERT_THAT(t, IsOk()) << t.status();
      EXPECT_GT(t->to_start_ns, 0) << c;
      EXPECT_GT(t->to_exit_ns, t->to_start_ns) << c;
    }
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

TEST(TimedSpawner, TheDynamicChildHasMoreMappingsThanTheStatic) {
  absl::StatusOr<TimedSpawner> st = TimedSpawner::Create(*Runfile("lib/children/static_child"));
  absl::StatusOr<TimedSpawner> dy = TimedSpawner::Create(*Runfile("lib/children/dynamic_child"));
  ASSERT_THAT(st, IsOk());
  ASSERT_THAT(dy, IsOk());
  absl::StatusOr<int64_t> s = st->ChildMappings(SpawnMethod::kVfork);
  absl::StatusOr<int64_t> d = dy->ChildMappings(SpawnMethod::kVfork);
  ASSERT_THAT(s, IsOk());
  ASSERT_THAT(d, IsOk()) << s.status() << d.status();
  EXPECT_GT(*s, 3);
  EXPECT_GT(*d, *s);
}

TEST(TimedSpawner, AChildThatFailsIsAnError) {
  absl::StatusOr<TimedSpawner> s = TimedSpawner::Create("/bin/false");
  ASSERT_THAT(s, IsOk());
  EXPECT_FALSE(s->Once(SpawnMethod::kVfork).ok());
  absl::StatusOr<TimedSpawner> missing = TimedSpawner::Create("/nonexistent");
  ASSERT_THAT(missing, IsOk());
  EXPECT_EQ(missing->Once(SpawnMethod::kVfork).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace spawnlab
