// cgroup_test.cc: a ScopedCgroup is made and removed, even when its owner is
// killed; stale ones are swept; every method that can places its child there
// (SpawnOptions::cgroup_fd), and the one that cannot says so.

#include "lib/cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/probes.h"
#include "lib/spawn.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

using ::testing::HasSubstr;

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Skips the test where this machine has no cgroup v2 directory to write in.
#define CREATE_OR_SKIP(var, prefix)                                           \
  absl::StatusOr<ScopedCgroup> var = ScopedCgroup::Create(prefix);            \
  if (!var.ok() && absl::IsFailedPrecondition(var.status())) {                \
    GTEST_SKIP() << "no writable cgroup v2 hierarchy here: " << var.status(); \
  }                                                                           \
  ASSERT_THAT(var, IsOk()) << var.status()

TEST(ScopedCgroup, IsMadeEmptyAndRemovedWithItsWatcher) {
  testing::Hygiene hygiene;
  std::string path;
  {
    CREATE_OR_SKIP(cg, "spawnlab-test");
    path = cg->path();
    EXPECT_TRUE(Exists(path)) << path;
    EXPECT_TRUE(absl::EndsWith(path, absl::StrCat("/spawnlab-test-", getpid()))) << path;
    EXPECT_EQ(cg->ProcessCount(), 0);
    EXPECT_GT(cg->watcher(), 0);
  }
  EXPECT_FALSE(Exists(path)) << path << " outlived its ScopedCgroup";
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

TEST(ScopedCgroup, IsRemovedWhenItsOwnerIsKilled) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  const pid_t owner = fork();
  ASSERT_GE(owner, 0);
  if (owner == 0) {
    close(p[0]);
    absl::StatusOr<ScopedCgroup> cg = ScopedCgroup::Create("spawnlab-test-killed");
    const std::string said = cg.ok() ? cg->path() : absl::StrCat("!", cg.status().ToString());
    if (write(p[1], said.data(), said.size()) < 0) _exit(1);
    close(p[1]);
    for (;;) pause();
  }
  close(p[1]);
  char buf[4096];
  ssize_t n = read(p[0], buf, sizeof(buf));
  close(p[0]);
  kill(owner, SIGKILL);
  int status;
  waitpid(owner, &status, 0);
  ASSERT_GT(n, 0);
  const std::string said(buf, static_cast<size_t>(n));
  if (absl::StartsWith(said, "!")) GTEST_SKIP() << "no writable cgroup v2 hierarchy: " << said;
  // The watcher notices at once; give it (and a slow machine) some seconds.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (Exists(said) && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(20));
  EXPECT_FALSE(Exists(said)) << said << " outlived its killed owner";
}

TEST(ScopedCgroup, SweepsWhatAKilledRunLeft) {
  absl::StatusOr<std::string> own = OwnCgroupV2Dir();
  if (!own.ok()) GTEST_SKIP() << own.status();
  // A pid that is surely gone: a child that has been reaped.
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  ASSERT_GT(gone, 0);
  waitpid(gone, nullptr, 0);
  const std::string stale = absl::StrCat(*own, "/spawnlab-test-sweep-", gone);
  if (mkdir(stale.c_str(), 0755) != 0) GTEST_SKIP() << "cannot write in " << *own;
  CREATE_OR_SKIP(cg, "spawnlab-test-sweep");
  EXPECT_FALSE(Exists(stale)) << "a stale cgroup was left: " << stale;
  EXPECT_TRUE(Exists(cg->path()));
}

// The cgroup a child runs in, as the child itself reads it.
std::string ChildsCgroup(SpawnMethod method, int cgroup_fd, absl::Status* error) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return "";
  UniqueFd read_end(p[0]), write_end(p[1]);
  SpawnOptions options;
  options.fd_map = {{write_end.get(), 1}};
  options.cgroup_fd = cgroup_fd;
  absl::StatusOr<Child> child =
      Spawn(method, ExecSpec("/bin/cat", {"cat", "/proc/self/cgroup"}), options);
  write_end.reset();
  if (!child.ok()) {
    *error = child.status();
    return "";
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(read_end.get(), buf, sizeof(buf))) > 0;) out.append(buf, n);
  absl::StatusOr<ExitStatus> status = child->Wait();
  if (!status.ok() || !status->success()) *error = absl::InternalError("cat failed");
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (absl::ConsumePrefix(&line, "0::")) return std::string(line);
  }
  return "";
}

class PlacementTest : public ::testing::TestWithParam<SpawnMethod> {};

TEST_P(PlacementTest, TheChildRunsInTheCgroup) {
  const SpawnMethod method = GetParam();
  if (method == SpawnMethod::kClone3 || method == SpawnMethod::kClone3Cow) {
    if (absl::Status s = ProbeCloneIntoCgroup(); !s.ok()) GTEST_SKIP() << s;
  }
  testing::Hygiene hygiene;
  {
    CREATE_OR_SKIP(cg, "spawnlab-test-place");
    absl::Status error;
    const std::string where = ChildsCgroup(method, cg->fd(), &error);
    if (method == SpawnMethod::kPosixSpawn) {
      EXPECT_TRUE(absl::IsInvalidArgument(error)) << error;
      EXPECT_THAT(error.message(), HasSubstr("cgroup"));
    } else {
      ASSERT_THAT(error, IsOk()) << error;
      EXPECT_TRUE(absl::EndsWith(cg->path(), where) && !where.empty())
          << "the child ran in '" << where << "', not in " << cg->path();
    }
    // Without the option the child stays where the parent is.
    absl::Status plain_error;
    const std::string plain = ChildsCgroup(method, -1, &plain_error);
    ASSERT_THAT(plain_error, IsOk()) << plain_error;
    EXPECT_FALSE(absl::EndsWith(cg->path(), plain)) << plain;
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

// A descriptor that is no cgroup: an error that says where it failed, and
// the failed child reaped.
TEST_P(PlacementTest, ADirectoryThatIsNoCgroupIsAnError) {
  const SpawnMethod method = GetParam();
  if (method == SpawnMethod::kPosixSpawn) GTEST_SKIP() << "posix_spawn takes no cgroup";
  if (method == SpawnMethod::kClone3 || method == SpawnMethod::kClone3Cow) {
    if (absl::Status s = ProbeCloneIntoCgroup(); !s.ok()) GTEST_SKIP() << s;
  }
  testing::Hygiene hygiene;
  {
    const char* tmp = getenv("TEST_TMPDIR");
    UniqueFd dir(open(tmp != nullptr ? tmp : "/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(dir.valid());
    absl::Status error;
    ChildsCgroup(method, dir.get(), &error);
    EXPECT_FALSE(error.ok());
    EXPECT_THAT(error.message(), HasSubstr("cgroup"));
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

INSTANTIATE_TEST_SUITE_P(All, PlacementTest, ::testing::ValuesIn(AllSpawnMethods()),
                         [](const ::testing::TestParamInfo<SpawnMethod>& info) {
                           std::string name(SpawnMethodName(info.param));
                           for (char& c : name) c = (c == '-' ? '_' : c);
                           return name;
                         });

}  // namespace
}  // namespace spawnlab
