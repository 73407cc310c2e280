// driver_test.cc: the spawners answer with sensible measurements for any
// method and child, report their shape (the minimal parent is minimal, the
// ballast is there), a dead spawner is an error and not a SIGPIPE, and bad
// setups are clear errors; nothing is left over.

#include "bench/spawner/driver.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

TEST(SpawnerDriver, SpawnsOnRequest) {
  testing::Hygiene hygiene;
  {
    absl::StatusOr<std::string> spawner = Runfile("bench/spawner/spawner");
    absl::StatusOr<std::string> child = Runfile("lib/children/minimal_child");
    ASSERT_THAT(spawner, IsOk());
  ASSERT_THAT(child, IsOk());
    for (SpawnMethod m : {SpawnMethod::kFork, SpawnMethod::kVfork, SpawnMethod::kPosixSpawn}) {
      absl::StatusOr<SpawnerDriver> d = SpawnerDriver::Start(*spawner, m, *child);
      ASSERT_THAT(d, IsOk()) << d.status();
      EXPECT_GT(d->parent_mappings(), 5);
      for (int i = 0; i < 3; ++i) {
        absl::StatusOr<SpawnerTimes> t = d->SpawnOnce();
        ASSERT_THAT(t, IsOk()) << t.status();
        EXPECT_GT(t->to_start_ns, 0);
        EXPECT_GE(t->to_exit_ns, t->to_start_ns);
        EXPECT_TRUE(t->instructions == -1 || t->instructions > 0) << t->instructions;
      }
    }
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

std::string RunfileOrEmpty(const std::string& path) {
  absl::StatusOr<std::string> p = Runfile(path);
  return p.ok() ? *p : "";
}

TEST(SpawnerDriver, OneSpawnerServesEveryMethodAndChild) {
  testing::Hygiene hygiene;
  {
    absl::StatusOr<SpawnerDriver> d =
        SpawnerDriver::Start(RunfileOrEmpty("bench/spawner/spawner_minimal"), {});
    ASSERT_THAT(d, IsOk()) << d.status();
    for (const char* child : {"lib/children/minimal_child", "lib/children/static_child"}) {
      for (SpawnMethod m : AllSpawnMethods()) {
        absl::StatusOr<SpawnerTimes> t = d->SpawnOnce(m, RunfileOrEmpty(child));
        if (!t.ok() && (m == SpawnMethod::kClone3 || m == SpawnMethod::kClone3Cow)) continue;
        ASSERT_THAT(t, IsOk()) << SpawnMethodName(m) << " " << child << ": " << t.status();
        EXPECT_GT(t->to_start_ns, 0);
        EXPECT_GE(t->to_exit_ns, t->to_start_ns);
      }
    }
    EXPECT_THAT(d->Nop(), IsOk());
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

TEST(SpawnerDriver, TheMinimalParentIsMinimalAndTheCxxParentIsNot) {
  absl::StatusOr<SpawnerDriver> minimal =
      SpawnerDriver::Start(RunfileOrEmpty("bench/spawner/spawner_minimal"), {});
  ASSERT_THAT(minimal, IsOk()) << minimal.status();
  absl::StatusOr<ParentShape> m = minimal->Shape();
  ASSERT_THAT(m, IsOk()) << m.status();
  EXPECT_EQ(m->threads, 1);
  EXPECT_EQ(m->ballast_adjacent, -1);  // no ballast
#if !defined(__SANITIZE_ADDRESS__)
  // Static (not under a sanitizer, where it cannot be): spawnbench's parent.
  EXPECT_LT(m->mappings, 20);
#endif
  absl::StatusOr<SpawnerDriver> cxx =
      SpawnerDriver::Start(RunfileOrEmpty("bench/spawner/spawner_cxx"), {"--threads=1"});
  ASSERT_THAT(cxx, IsOk()) << cxx.status();
  absl::StatusOr<ParentShape> c = cxx->Shape();
  ASSERT_THAT(c, IsOk()) << c.status();
  EXPECT_EQ(c->threads, 2);
  EXPECT_GT(c->mappings, 100);
  EXPECT_GT(c->mappings, m->mappings);
}

TEST(SpawnerDriver, TheBallastIsInTheParent) {
  absl::StatusOr<SpawnerDriver> d = SpawnerDriver::Start(
      RunfileOrEmpty("bench/spawner/spawner_minimal"), {"--ballast_mib=64", "--touch"});
  ASSERT_THAT(d, IsOk()) << d.status();
  absl::StatusOr<ParentShape> p = d->Shape();
  ASSERT_THAT(p, IsOk()) << p.status();
  EXPECT_GE(p->rss_kib, 64 * 1024);
  EXPECT_GE(p->pte_kib, 64 * 1024 / 4 * 8 / 1024);  // 16384 PTEs of 8 bytes
  // Where its frames are: a share, or -1 where they cannot be read (the sandbox).
  if (p->ballast_adjacent != -1) {
    EXPECT_GT(p->ballast_adjacent, 0);
    EXPECT_LE(p->ballast_adjacent, 1);
  }
  EXPECT_FALSE(
      SpawnerDriver::Start(RunfileOrEmpty("bench/spawner/spawner_minimal"), {"--ballast_mib=-1"})
          .ok());
}

TEST(SpawnerDriver, ADeadSpawnerIsAnErrorNotASigpipe) {
  // The default SIGPIPE disposition, as in a bench: a write to the dead
  // spawner's pipe would end this process.
  signal(SIGPIPE, SIG_DFL);
  absl::StatusOr<SpawnerDriver> d =
      SpawnerDriver::Start(RunfileOrEmpty("bench/spawner/spawner_minimal"), {});
  ASSERT_THAT(d, IsOk()) << d.status();
  absl::StatusOr<ParentShape> p = d->Shape();
  ASSERT_THAT(p, IsOk());
  // A child that does not exist: the spawn fails and the spawner exits.
  absl::StatusOr<SpawnerTimes> t = d->SpawnOnce(SpawnMethod::kVfork, "/nonexistent/child");
  EXPECT_FALSE(t.ok());
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<SpawnerTimes> again =
        d->SpawnOnce(SpawnMethod::kVfork, RunfileOrEmpty("lib/children/minimal_child"));
    EXPECT_FALSE(again.ok());
    // Said as what it is, not as a failed write.
    EXPECT_EQ(again.status().code(), absl::StatusCode::kUnavailable) << again.status();
  }
  EXPECT_FALSE(d->Nop().ok());
}

TEST(SpawnerDriver, AMissingChildIsAnError) {
  absl::StatusOr<std::string> spawner = Runfile("bench/spawner/spawner");
  ASSERT_THAT(spawner, IsOk());
  absl::StatusOr<SpawnerDriver> d =
      SpawnerDriver::Start(*spawner, SpawnMethod::kVfork, "/nonexistent/child");
  ASSERT_THAT(d, IsOk()) << d.status();  // the spawner starts; its first spawn fails
  EXPECT_FALSE(d->SpawnOnce().ok());
}

// --child_env=empty: the children get no environment (spawnbench's and
// lat_proc's), by every method; by default, the spawner's own.
TEST(SpawnerDriver, ChildEnvEmptyGivesTheChildrenNoEnvironment) {
  testing::Hygiene hygiene;
  {
    ASSERT_EQ(setenv("SPAWNLAB_ENV_PROBE", "1", 1), 0);  // the spawners inherit it
    const std::string probe = RunfileOrEmpty("bench/spawner/env_probe_child.sh");
    const std::string spawner = RunfileOrEmpty("bench/spawner/spawner_minimal");
    ASSERT_FALSE(probe.empty() || spawner.empty());
    absl::StatusOr<SpawnerDriver> empty = SpawnerDriver::Start(spawner, {"--child_env=empty"});
    ASSERT_THAT(empty, IsOk()) << empty.status();
    for (SpawnMethod m : AllSpawnMethods()) {
      absl::StatusOr<SpawnerTimes> t = empty->SpawnOnce(m, probe);
      if (!t.ok() && (m == SpawnMethod::kClone3 || m == SpawnMethod::kClone3Cow)) continue;
      EXPECT_THAT(t, IsOk()) << SpawnMethodName(m) << ": " << t.status();
    }
    // The probe exits 1 when it sees the variable: the spawner says it did not
    // run to its end, and exits.
    absl::StatusOr<SpawnerDriver> inherit = SpawnerDriver::Start(spawner, {"--child_env=inherit"});
    ASSERT_THAT(inherit, IsOk()) << inherit.status();
    EXPECT_FALSE(inherit->SpawnOnce(SpawnMethod::kVfork, probe).ok());
    absl::StatusOr<SpawnerDriver> by_default = SpawnerDriver::Start(spawner, {});
    ASSERT_THAT(by_default, IsOk()) << by_default.status();
    EXPECT_FALSE(by_default->SpawnOnce(SpawnMethod::kFork, probe).ok());
    unsetenv("SPAWNLAB_ENV_PROBE");
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

TEST(SpawnerDriver, AnUnknownChildEnvIsAUsageError) {
  absl::StatusOr<SpawnerDriver> d =
      SpawnerDriver::Start(RunfileOrEmpty("bench/spawner/spawner_minimal"), {"--child_env=none"});
  EXPECT_FALSE(d.ok());
}

TEST(SpawnerDriver, SpawnsManyBackToBackInOneRequest) {
  testing::Hygiene hygiene;
  {
    const std::string child = RunfileOrEmpty("lib/children/minimal_child");
    absl::StatusOr<SpawnerDriver> d =
        SpawnerDriver::Start(RunfileOrEmpty("bench/spawner/spawner_minimal"), {"fork", child});
    ASSERT_THAT(d, IsOk()) << d.status();
    for (SpawnMethod m : {SpawnMethod::kFork, SpawnMethod::kVfork, SpawnMethod::kPosixSpawn}) {
      absl::StatusOr<std::vector<SpawnerTimes>> t = d->Spawns(5, m, child);
      ASSERT_THAT(t, IsOk()) << t.status();
      ASSERT_EQ(t->size(), 5u);
      for (const SpawnerTimes& one : *t) {
        EXPECT_GT(one.to_start_ns, 0);
        EXPECT_GE(one.to_exit_ns, one.to_start_ns);
        EXPECT_EQ(one.instructions, -1);  // not asked for (--count_instructions)
        // Every child faults in at least its own stack and text after exec.
        EXPECT_GT(one.child_faults, 0);
      }
      // Each spawn's count is its own child's, not every child's so far.
      int64_t first_four = 0;
      for (size_t i = 0; i < 4; ++i) first_four += (*t)[i].child_faults;
      EXPECT_LT((*t)[4].child_faults, first_four) << SpawnMethodName(m);
    }
    absl::StatusOr<std::vector<SpawnerTimes>> defaults = d->Spawns(3);
    ASSERT_THAT(defaults, IsOk()) << defaults.status();
    EXPECT_EQ(defaults->size(), 3u);
    // Refused before anything is sent: the spawner stays usable.
    EXPECT_EQ(d->Spawns(0).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(d->Spawns(1000001).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(d->Nop(), IsOk());
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

// The timed spawns open no pipe for a failed exec (ExecErrors::kByExitStatus):
// the first spawn of a child is checked with its errno, and a child that
// fails after that is still caught, by its missing clock reading.
TEST(SpawnerDriver, AForkedChildThatCannotExecIsAnError) {
  testing::Hygiene hygiene;
  {
    absl::StatusOr<SpawnerDriver> d =
        SpawnerDriver::Start(RunfileOrEmpty("bench/spawner/spawner_minimal"), {});
    ASSERT_THAT(d, IsOk()) << d.status();
    EXPECT_FALSE(d->Spawns(3, SpawnMethod::kFork, "/nonexistent/child").ok());
  }
  {
    const std::string copy = absl::StrCat(std::getenv("TEST_TMPDIR"), "/minimal_child_copy");
    {
      std::ifstream in(RunfileOrEmpty("lib/children/minimal_child"), std::ios::binary);
      std::ofstream out(copy, std::ios::binary);
      out << in.rdbuf();
    }
    ASSERT_EQ(chmod(copy.c_str(), 0755), 0);
    absl::StatusOr<SpawnerDriver> d =
        SpawnerDriver::Start(RunfileOrEmpty("bench/spawner/spawner_minimal"), {});
    ASSERT_THAT(d, IsOk()) << d.status();
    ASSERT_THAT(d->Spawns(2, SpawnMethod::kFork, copy), IsOk());
    ASSERT_EQ(unlink(copy.c_str()), 0);
    absl::StatusOr<std::vector<SpawnerTimes>> gone = d->Spawns(2, SpawnMethod::kFork, copy);
    EXPECT_FALSE(gone.ok());
    EXPECT_EQ(gone.status().code(), absl::StatusCode::kUnavailable) << gone.status();
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

TEST(SpawnerDriver, AMissingSpawnerIsNotFound) {
  EXPECT_EQ(SpawnerDriver::Start("/nonexistent/spawner", SpawnMethod::kVfork, "x").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace spawnlab
