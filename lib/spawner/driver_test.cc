// driver_test.cc: the default spawner answers with sensible measurements,
// reports its mappings, and bad setups are clear errors; nothing is left over.

#include "lib/spawner/driver.h"

#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/testing/hygiene.h"

namespace spawnlab {
namespace {

TEST(SpawnerDriver, SpawnsOnRequest) {
  testing::Hygiene hygiene;
  {
    absl::StatusOr<std::string> spawner = Runfile("lib/spawner/spawner");
    absl::StatusOr<std::string> child = Runfile("lib/children/minimal_child");
    ASSERT_TRUE(spawner.ok() && child.ok());
    for (SpawnMethod m : {SpawnMethod::kFork, SpawnMethod::kVfork, SpawnMethod::kPosixSpawn}) {
      absl::StatusOr<SpawnerDriver> d = SpawnerDriver::Start(*spawner, m, *child);
      ASSERT_TRUE(d.ok()) << d.status();
      EXPECT_GT(d->parent_mappings(), 5);
      for (int i = 0; i < 3; ++i) {
        absl::StatusOr<SpawnerTimes> t = d->SpawnOnce();
        ASSERT_TRUE(t.ok()) << t.status();
        EXPECT_GT(t->to_start_ns, 0);
        EXPECT_GE(t->to_exit_ns, t->to_start_ns);
        EXPECT_TRUE(t->instructions == -1 || t->instructions > 0) << t->instructions;
      }
    }
  }
  EXPECT_TRUE(hygiene.Check().ok()) << hygiene.Check();
}

TEST(SpawnerDriver, AMissingChildIsAnError) {
  absl::StatusOr<std::string> spawner = Runfile("lib/spawner/spawner");
  ASSERT_TRUE(spawner.ok());
  absl::StatusOr<SpawnerDriver> d =
      SpawnerDriver::Start(*spawner, SpawnMethod::kVfork, "/nonexistent/child");
  ASSERT_TRUE(d.ok()) << d.status();  // the spawner starts; its first spawn fails
  EXPECT_FALSE(d->SpawnOnce().ok());
}

TEST(SpawnerDriver, AMissingSpawnerIsNotFound) {
  EXPECT_EQ(SpawnerDriver::Start("/nonexistent/spawner", SpawnMethod::kVfork, "x").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace spawnlab
